package checker_test

import (
	"os"
	"testing"

	"github.com/taintlint/taintlint/loader"
)

var tempDirs []string

func mkdirTemp() (string, error) {
	d, err := os.MkdirTemp("", "taintlint-bench-")
	if err == nil {
		tempDirs = append(tempDirs, d)
	}
	return d, err
}

func TestMain(m *testing.M) {
	loader.RunKustomizeWorker() // the test binary is also the kustomize build worker
	code := m.Run()
	for _, d := range tempDirs {
		os.RemoveAll(d)
	}
	os.Exit(code)
}
