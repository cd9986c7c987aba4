//go:build !unix

package loader

import "os"

// openFile opens path for reading. Outside Unix there are no named pipes
// in the file system that an open would block on.
func openFile(path string) (*os.File, error) {
	return os.Open(path)
}
