package input

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"sync/atomic"

	"github.com/taintlint/taintlint/internal/safeio"
)

// Budget is the input bytes left to a run (loader.Budget holds one),
// shared by every reader: the checked paths, the node inventory, charts
// and Kustomize builds draw on one Budget. A nil Budget is no limit.
type Budget struct {
	limit int64
	used  atomic.Int64
}

// New is a Budget of limit bytes; nil (no limit) when limit <= 0.
func New(limit int64) *Budget {
	if limit <= 0 {
		return nil
	}
	return &Budget{limit: limit}
}

// ErrOver is what a read past the run's input budget returns.
var ErrOver = errors.New("input budget exhausted")

// Take takes n bytes from b, or fails when that would go over.
func (b *Budget) Take(n int) error {
	if b == nil {
		return nil
	}
	if b.used.Add(int64(n)) > b.limit {
		return ErrOver
	}
	return nil
}

// OverMsg is the message of a LimitError for the input budget.
func (b *Budget) OverMsg() string {
	return fmt.Sprintf("the run's input is over %d MiB (--max-input-mib); nothing more is read", b.limit>>20)
}

// Used is the bytes taken from b so far.
func (b *Budget) Used() int64 { return b.used.Load() }

// Left is the bytes the budget has left, or -1 for no limit.
func (b *Budget) Left() int64 {
	if b == nil {
		return -1
	}
	return max(b.limit-b.used.Load(), 0)
}

// DescribeFSError is err without its path and with the words a finding
// gives for a missing or unreadable file.
func DescribeFSError(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return errors.New("no such file or directory")
	case errors.Is(err, fs.ErrPermission):
		return errors.New("permission denied")
	}
	return err
}

// NotRegular says what a file that is not a regular file is.
func NotRegular(m fs.FileMode) error {
	what := "special file"
	switch {
	case m&fs.ModeNamedPipe != 0:
		what = "named pipe"
	case m&fs.ModeSocket != 0:
		what = "socket"
	case m&fs.ModeDevice != 0:
		what = "device"
	case m.IsDir():
		what = "directory"
	}
	return fmt.Errorf("not a regular file (%s); not read", what)
}

// ReadFile reads a regular file, charged to b. It is opened without blocking (safeio.OpenNonBlocking),
// and anything but a regular file is refused before a byte is read: a
// named pipe would block the run until a writer came, a device could
// stream without end. This holds whatever the loader's walk saw before, since the
// file may have changed since.
func ReadFile(path string, b *Budget) ([]byte, error) {
	f, err := safeio.OpenNonBlocking(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, NotRegular(fi.Mode())
	}
	if fi.Size() > MaxFileSize {
		return nil, fmt.Errorf("file is larger than %d MiB; not read", MaxFileSize>>20)
	}
	size := int(fi.Size())
	// Charged before a byte is read: a file that would go over is
	// never held.
	if err := b.Take(size); err != nil {
		return nil, err
	}
	data, err := safeio.ReadSized(io.LimitReader(f, MaxFileSize+1), int64(size))
	if err != nil || len(data) <= size {
		return data, err
	}
	// The file grew after Stat: what it holds beyond is charged too, and
	// past the limit it is not read.
	if len(data) > MaxFileSize {
		return nil, fmt.Errorf("file is larger than %d MiB; not read", MaxFileSize>>20)
	}
	if err := b.Take(len(data) - size); err != nil {
		return nil, err
	}
	return data, nil
}

// MaxFileSize is the largest manifest file read; a larger one is an Error.
const MaxFileSize = 64 << 20
