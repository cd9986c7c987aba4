//go:build unix

package safeio

import (
	"os"
	"syscall"
)

// OpenNonBlocking opens path for reading without blocking: opening a
// named pipe blocks until a writer opens it, and O_NONBLOCK makes it
// return at once, so that the caller can see what it opened and refuse it.
// Reads from a regular file ignore O_NONBLOCK.
func OpenNonBlocking(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
}
