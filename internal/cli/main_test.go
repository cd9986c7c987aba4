package cli

import (
	"os"
	"testing"

	"github.com/taintlint/taintlint/loader"
)

// TestMain lets the test binary serve as the kustomize build worker.
func TestMain(m *testing.M) {
	loader.RunKustomizeWorker()
	os.Exit(m.Run())
}
