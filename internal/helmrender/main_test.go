package helmrender

import (
	"io"
	"log"
	"os"
	"testing"
)

// TestMain silences the warnings Helm's packages (the oracle) log.
func TestMain(m *testing.M) {
	log.SetOutput(io.Discard)
	os.Exit(m.Run())
}
