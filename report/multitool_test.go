package report_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/taintlint/taintlint/internal/lint"
	"github.com/taintlint/taintlint/report"
)

// TestSARIFMultitool validates SARIF output with Microsoft's SARIF
// multitool (the specification's rules and GitHub's) through
// scripts/validate-sarif.sh. It needs npm and a network path to the npm
// registry the first time, so it runs only when TAINTLINT_SARIF_MULTITOOL=1.
func TestSARIFMultitool(t *testing.T) {
	if os.Getenv("TAINTLINT_SARIF_MULTITOOL") != "1" {
		t.Skip("set TAINTLINT_SARIF_MULTITOOL=1 to validate with the SARIF multitool (needs npm)")
	}
	script, err := filepath.Abs(filepath.Join("..", "scripts", "validate-sarif.sh"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	var files []string
	for _, tc := range []struct {
		name string
		res  *lint.Result
		opts report.Options
	}{
		{name: "golden", res: goldenResult(), opts: goldenOptions()},
		{name: "clean", res: cleanResult(), opts: report.Options{Version: "1.2.3"}},
		{name: "edge", res: edgeResult(), opts: report.Options{}},
	} {
		file := filepath.Join(dir, tc.name+".sarif")
		f, err := os.Create(file)
		if err != nil {
			t.Fatal(err)
		}
		werr := report.WriteSARIF(f, tc.res, tc.opts)
		if cerr := f.Close(); werr == nil {
			werr = cerr
		}
		if werr != nil {
			t.Fatalf("%s: %v", tc.name, werr)
		}
		files = append(files, file)
	}
	out, err := exec.Command("bash", append([]string{script}, files...)...).CombinedOutput()
	t.Logf("%s", out)
	if err != nil {
		t.Fatalf("validate-sarif.sh: %v", err)
	}
}
