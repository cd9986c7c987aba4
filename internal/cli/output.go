package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// reportFile is a report being written to a temporary file beside its
// destination, so that the destination holds a whole report or the one it
// held before: commit renames the temporary file over it (atomic within a
// directory on POSIX file systems), and a run that fails or is killed
// before commit leaves the destination alone. Two runs writing the same
// destination each rename a whole file, so the last one wins whole.
type reportFile struct {
	f    *os.File
	dest string
	mode fs.FileMode
	done bool
}

func createReport(dest string) (*reportFile, error) {
	// os.Create would have made the file 0666 less the umask; a temporary
	// file is 0600, so the mode is set at commit: the existing file's, or
	// 0644 for a new one.
	mode := fs.FileMode(0o644)
	if fi, err := os.Stat(dest); err == nil {
		if !fi.Mode().IsRegular() {
			return nil, fmt.Errorf("%s: not a regular file", dest)
		}
		mode = fi.Mode().Perm()
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	f, err := os.CreateTemp(filepath.Dir(dest), "."+filepath.Base(dest)+".tmp-*")
	if err != nil {
		return nil, err
	}
	return &reportFile{f: f, dest: dest, mode: mode}, nil
}

// commit makes the report durable and puts it in place.
func (r *reportFile) commit() error {
	err := r.f.Chmod(r.mode)
	if err == nil {
		err = r.f.Sync()
	}
	if cerr := r.f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(r.f.Name(), r.dest)
	}
	if err != nil {
		os.Remove(r.f.Name())
		return err
	}
	r.done = true
	return nil
}

// discard removes the temporary file of a report that was not committed.
func (r *reportFile) discard() {
	if r.done {
		return
	}
	r.f.Close()
	os.Remove(r.f.Name())
}
