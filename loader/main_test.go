package loader

import (
	"os"
	"testing"
)

// TestMain lets the test binary serve as the kustomize build worker.
func TestMain(m *testing.M) {
	RunKustomizeWorker()
	os.Exit(m.Run())
}
