//go:build unix

package loader

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/taintlint/taintlint/loader/internal/input"
)

// TestWalkSpecialFiles: a named pipe, a socket, a device and links to them,
// named *.yaml inside a walked directory, are each an Error at their name;
// none is opened for good (a pipe would block the run until a writer came),
// and the walk's other files are read.
func TestWalkSpecialFiles(t *testing.T) {
	dir := t.TempDir()
	if err := syscall.Mkfifo(filepath.Join(dir, "fifo.yaml"), 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	// Socket paths are short (108 bytes): listen from inside dir.
	wd, _ := os.Getwd()
	if err := os.Chdir(dir); err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("unix", "socket.yaml")
	os.Chdir(wd)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	for link, target := range map[string]string{"to-fifo.yaml": "fifo.yaml", "zero.yaml": "/dev/zero"} {
		if err := os.Symlink(target, filepath.Join(dir, link)); err != nil {
			t.Fatal(err)
		}
	}
	pod := "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: {containers: [{name: a, image: a}]}\n"
	if err := os.WriteFile(filepath.Join(dir, "pod.yaml"), []byte(pod), 0o644); err != nil {
		t.Fatal(err)
	}
	done := make(chan *Result, 1)
	go func() {
		r, err := Load(context.Background(), []string{dir}, Options{})
		if err != nil {
			t.Error(err)
		}
		done <- r
	}()
	var r *Result
	select {
	case r = <-done:
	case <-time.After(60 * time.Second): // a hang, not a speed bound
		t.Fatal("Load blocked on a special file")
	}
	if r == nil {
		return
	}
	var got []string
	for _, e := range r.Errors {
		got = append(got, fmt.Sprintf("%s:%d: %s", filepath.Base(e.Pos.File), e.Pos.Line, e.Msg))
	}
	sort.Strings(got)
	want := []string{
		"fifo.yaml:1: not a regular file (named pipe); not read",
		"socket.yaml:1: not a regular file (socket); not read",
		"to-fifo.yaml:1: not a regular file (named pipe); not read",
		"zero.yaml:1: not a regular file (device); not read",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("errors:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if len(r.Objects) != 1 {
		t.Errorf("objects: got %d, want 1 (pod.yaml)", len(r.Objects))
	}
}

// TestReadFileRefusesFIFO: input.ReadFile itself refuses what is not a regular
// file without blocking, whatever a walk saw before (the entry may have
// been swapped for a pipe since).
func TestReadFileRefusesFIFO(t *testing.T) {
	p := filepath.Join(t.TempDir(), "swapped.yaml")
	if err := syscall.Mkfifo(p, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := input.ReadFile(p, nil)
		done <- err
	}()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "named pipe") {
			t.Errorf("input.ReadFile on a FIFO: %v, want a named pipe error", err)
		}
	case <-time.After(60 * time.Second):
		t.Fatal("input.ReadFile blocked on a FIFO")
	}
}
