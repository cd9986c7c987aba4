package loader

import (
	"fmt"
	"os"
	"strings"
)

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
