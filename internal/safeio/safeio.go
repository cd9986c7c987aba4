// Package safeio is the one way taintlint reads a file the repository
// under check controls that the loader does not read itself: its
// configuration, baseline, policies, inline-comment re-reads, and the
// sizes of chart archives. Every read is bounded twice: by a cap on the
// file, and by the run's input budget (--max-input-mib), charged before
// a byte is read. Only regular files are read: a device (/dev/zero), a
// named pipe or a socket, named directly or through a symbolic link, is
// refused with its kind named, and a pipe is opened without blocking, so
// it can neither exhaust memory nor hang the run.
package safeio

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
)

// Budget is the run's input budget (loader.Budget): Charge takes n bytes,
// or fails once the run has read its limit. A nil Budget is no limit.
type Budget interface {
	Charge(n int64) error
}

// ErrNotRegular is what reading anything but a regular file returns.
var ErrNotRegular = errors.New("not a regular file")

// NotRegularError names the kind of file that was refused. Its text
// leaves the path to the caller, which names the file (and the setting
// that named it) its own way.
type NotRegularError struct {
	Path string
	Mode fs.FileMode
}

func (e *NotRegularError) Error() string {
	return fmt.Sprintf("not a regular file (%s); not read", Kind(e.Mode))
}

func (e *NotRegularError) Unwrap() error { return ErrNotRegular }

// TooLargeError is a file over its cap.
type TooLargeError struct {
	Path string
	Max  int64
}

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("file is larger than %s; not read", size(e.Max))
}

func size(n int64) string {
	if n >= 1<<20 && n%(1<<20) == 0 {
		return fmt.Sprintf("%d MiB", n>>20)
	}
	return fmt.Sprintf("%d bytes", n)
}

// Kind names a file mode's type for people.
func Kind(m fs.FileMode) string {
	switch {
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a device"
	case m.IsDir():
		return "a directory"
	case m&fs.ModeIrregular != 0:
		return "an irregular file"
	}
	return "not a regular file"
}

// Open opens the regular file at path for reading. The mode is checked
// before the open (a device is never opened: opening some has effects)
// and again on what was opened (the path may have changed in between);
// the open does not block on a named pipe.
func Open(path string) (*os.File, error) {
	fi, err := os.Stat(path)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			pe.Op = "open" // what the caller asked for
		}
		return nil, err
	}
	if !readable(fi) {
		return nil, &NotRegularError{Path: path, Mode: fi.Mode()}
	}
	f, err := OpenNonBlocking(path)
	if err != nil {
		return nil, err
	}
	fi, err = f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !readable(fi) {
		f.Close()
		return nil, &NotRegularError{Path: path, Mode: fi.Mode()}
	}
	return f, nil
}

// readable: a regular file, or the null device (--config /dev/null is
// how a run says "no configuration"; it reads as empty, at once).
func readable(fi fs.FileInfo) bool {
	if fi.Mode().IsRegular() {
		return true
	}
	if fi.Mode()&fs.ModeCharDevice == 0 {
		return false
	}
	null, err := os.Stat(os.DevNull)
	return err == nil && os.SameFile(fi, null)
}

// ReadFile reads the regular file at path, of at most max bytes (max <= 0:
// no cap), charging b first with the file's size and then with any bytes
// past it (a file that grows while it is read).
func ReadFile(path string, b Budget, max int64) ([]byte, error) {
	f, err := Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	n := fi.Size()
	if max > 0 && n > max {
		return nil, &TooLargeError{Path: path, Max: max}
	}
	if err := charge(b, n); err != nil {
		return nil, err
	}
	var r io.Reader = f
	if max > 0 {
		r = io.LimitReader(f, max+1)
	}
	data, err := ReadSized(r, n)
	if err != nil {
		return nil, err
	}
	if max > 0 && int64(len(data)) > max {
		return nil, &TooLargeError{Path: path, Max: max}
	}
	if extra := int64(len(data)) - n; extra > 0 {
		if err := charge(b, extra); err != nil {
			return nil, err
		}
	}
	return data, nil
}

// ReadSized reads r to its end into a buffer of size bytes (and one more,
// to see the end), as os.ReadFile does for a file of that size, rather
// than one io.ReadAll grew by doubling: a read file is held whole while
// it is parsed.
func ReadSized(r io.Reader, size int64) ([]byte, error) {
	data := make([]byte, 0, size+1)
	for {
		if len(data) == cap(data) {
			data = append(data, 0)[:len(data)]
		}
		k, err := r.Read(data[len(data):cap(data)])
		data = data[:len(data)+k]
		if err == io.EOF {
			return data, nil
		}
		if err != nil {
			return nil, err
		}
	}
}

func charge(b Budget, n int64) error {
	if b == nil {
		return nil
	}
	return b.Charge(n)
}
