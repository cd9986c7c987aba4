package loader

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"

	"github.com/taintlint/taintlint/internal/safeio"
)

func describeFSError(err error) error {
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

func checkSymlink(path string) string {
	target, err := os.Readlink(path)
	if err != nil {
		return ""
	}
	if _, err := os.Stat(path); err != nil {
		if strings.Contains(err.Error(), "too many levels of symbolic links") {
			return fmt.Sprintf("symbolic link loop (-> %s)", target)
		}
		return fmt.Sprintf("dangling symbolic link (-> %s)", target)
	}
	return ""
}

// notRegular says what a file that is not a regular file is.
func notRegular(m fs.FileMode) error {
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

// readFile reads a regular file. It is opened without blocking (safeio.OpenNonBlocking),
// and anything but a regular file is refused before a byte is read: a
// named pipe would block the run until a writer came, a device could
// stream without end. This holds whatever the walk saw before, since the
// file may have changed since.
func readFile(path string, b *Budget) ([]byte, error) {
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
		return nil, notRegular(fi.Mode())
	}
	if fi.Size() > maxFileSize {
		return nil, fmt.Errorf("file is larger than %d MiB; not read", maxFileSize>>20)
	}
	size := int(fi.Size())
	// Charged before a byte is read: a file that would go over is
	// never held.
	if err := b.charge(size); err != nil {
		return nil, err
	}
	return safeio.ReadSized(io.LimitReader(f, maxFileSize+1), int64(size))
}
