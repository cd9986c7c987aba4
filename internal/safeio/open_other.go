//go:build !unix

package safeio

import "os"

// OpenNonBlocking opens path for reading. Outside Unix there are no named
// pipes in the file system that an open would block on.
func OpenNonBlocking(path string) (*os.File, error) {
	return os.Open(path)
}
