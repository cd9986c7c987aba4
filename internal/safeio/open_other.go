//go:build !unix

package safeio

import "os"

// openNonBlocking opens path for reading. Outside Unix there are no named
// pipes in the file system that an open would block on.
func openNonBlocking(path string) (*os.File, error) {
	return os.Open(path)
}
