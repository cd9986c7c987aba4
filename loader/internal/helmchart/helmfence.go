package helmchart

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"

	"helm.sh/helm/v3/pkg/ignore"

	"github.com/taintlint/taintlint/internal/safeio"
	"github.com/taintlint/taintlint/loader/internal/input"
)

// chartFileSize is what Helm's loader holds for one file of a chart: its
// size, but for a chart archive (the chart itself, or a dependency under
// charts/) what it holds unpacked (safeio.ArchiveSize), counted up to
// limit bytes (-1: no budget, nothing is charged, so nothing is counted).
func chartFileSize(file string, fi fs.FileInfo, limit int64) int64 {
	if limit < 0 || !IsChartArchive(fi.Name()) && !IsChartArchive(file) {
		return fi.Size()
	}
	f, err := safeio.Open(file)
	if err != nil {
		return fi.Size()
	}
	defer f.Close()
	return max(fi.Size(), safeio.ArchiveSize(f, limit))
}

// readHelmIgnore reads a chart's .helmignore as Helm's loader would, but
// through safeio (a FIFO or device under that name is refused instead of
// hanging or filling memory) and held inside the chart as its other files
// are (a link that leads out of the chart is refused, naming it).
func readHelmIgnore(top, realTop string) (*ignore.Rules, error) {
	p := filepath.Join(top, ignore.HelmIgnore)
	if _, err := os.Lstat(p); err != nil {
		return ignore.Empty(), nil
	}
	if target, err := filepath.EvalSymlinks(p); err == nil {
		if in, err := filepath.Rel(realTop, target); err != nil || !filepath.IsLocal(in) {
			return nil, &chartLinkError{name: ignore.HelmIgnore, msg: "symbolic link leads outside the chart: not followed (Helm would read what it names into the chart)"}
		}
	}
	data, err := safeio.ReadFile(p, nil, input.MaxFileSize) // charged with the chart (chartSize)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return nil, &chartLinkError{name: ignore.HelmIgnore, msg: err.Error()}
	}
	return ignore.Parse(bytes.NewReader(data))
}
