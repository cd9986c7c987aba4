package loader

import (
	"github.com/taintlint/taintlint/loader/internal/helmchart"
	"github.com/taintlint/taintlint/loader/internal/kustomize"
)

// RunKustomizeWorker turns the process into a Kustomize build worker or a
// Helm render worker and exits when it was started as one; otherwise it
// returns at once. Every program that loads kustomizations or charts
// calls it first thing in main (and test binaries in TestMain).
func RunKustomizeWorker() {
	helmchart.RunWorker()
	kustomize.RunWorker()
}
