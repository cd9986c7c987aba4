package safeio

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"errors"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"
)

type testBudget struct{ left int64 }

var errOver = errors.New("over budget")

func (b *testBudget) Charge(n int64) error {
	b.left -= n
	if b.left < 0 {
		return errOver
	}
	return nil
}

func TestReadFile(t *testing.T) {
	dir := t.TempDir()
	small := filepath.Join(dir, "small.yaml")
	if err := os.WriteFile(small, []byte("a: b\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	data, err := ReadFile(small, &testBudget{left: 100}, 10)
	if err != nil || string(data) != "a: b\n" {
		t.Fatalf("ReadFile = %q, %v", data, err)
	}
	var tl *TooLargeError
	if _, err := ReadFile(small, nil, 3); !errors.As(err, &tl) {
		t.Errorf("over the cap: %v, want TooLargeError", err)
	}
	if _, err := ReadFile(small, &testBudget{left: 2}, 0); !errors.Is(err, errOver) {
		t.Errorf("over the budget: %v, want the budget's error", err)
	}
	if _, err := ReadFile(dir, nil, 0); !errors.Is(err, ErrNotRegular) || !strings.Contains(err.Error(), "a directory") {
		t.Errorf("a directory: %v", err)
	}
}

// TestReadFileSpecial: devices, named pipes and sockets, directly and
// through links, are refused at once, naming their kind; a pipe with no
// writer does not hang the read.
func TestReadFileSpecial(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no devices, pipes or sockets in the file system")
	}
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	sock := filepath.Join(dir, "s.sock")
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	for _, tc := range []struct{ name, target, kind string }{
		{"zero", "/dev/zero", "a character device"},
		{"random", "/dev/urandom", "a character device"},
		{"fifo", fifo, "a named pipe"},
		{"socket", sock, "a socket"},
	} {
		link := filepath.Join(dir, tc.name+".yaml")
		if err := os.Symlink(tc.target, link); err != nil {
			t.Fatal(err)
		}
		for _, p := range []string{tc.target, link} {
			done := make(chan error, 1)
			go func() {
				_, err := ReadFile(p, &testBudget{left: 1 << 20}, 1<<20)
				done <- err
			}()
			select {
			case err := <-done:
				if !errors.Is(err, ErrNotRegular) || !strings.Contains(err.Error(), tc.kind) {
					t.Errorf("ReadFile(%s) = %v, want it refused as %s, named", p, err, tc.kind)
				}
			case <-time.After(10 * time.Second):
				t.Fatalf("ReadFile(%s) hangs", p)
			}
		}
	}
}

func tgz(t *testing.T, files map[string][]byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	tw := tar.NewWriter(zw)
	for name, data := range files {
		if err := tw.WriteHeader(&tar.Header{Name: name, Mode: 0o644, Size: int64(len(data)), Typeflag: tar.TypeReg}); err != nil {
			t.Fatal(err)
		}
		tw.Write(data)
	}
	tw.Close()
	zw.Close()
	return buf.Bytes()
}

func TestArchiveSize(t *testing.T) {
	big := bytes.Repeat([]byte("x"), 10<<20)
	inner := tgz(t, map[string][]byte{"sub/Chart.yaml": []byte("name: sub\n"), "sub/templates/big.yaml": big})
	outer := tgz(t, map[string][]byte{"c/Chart.yaml": []byte("name: c\n"), "c/charts/sub-1.tgz": inner, "c/charts/sub-2.tgz": inner})
	if len(outer) > 200<<10 {
		t.Fatalf("test archive is %d bytes; want a small one", len(outer))
	}
	want := int64(len("name: c\n") + 2*(len(inner)+len("name: sub\n")+len(big)))
	if got := ArchiveSize(bytes.NewReader(outer), 1<<40); got != want {
		t.Errorf("ArchiveSize = %d, want %d (compressed %d)", got, want, len(outer))
	}
	// Past the limit, counting stops.
	if got := ArchiveSize(bytes.NewReader(outer), 1<<20); got <= 1<<20 || got > 12<<20 {
		t.Errorf("ArchiveSize with a 1 MiB limit = %d, want just past it", got)
	}
	if got := ArchiveSize(strings.NewReader("not gzip"), 1<<20); got != 0 {
		t.Errorf("ArchiveSize of garbage = %d", got)
	}
}

func TestReadFileDevNull(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no /dev/null")
	}
	data, err := ReadFile(os.DevNull, &testBudget{left: 0}, 10)
	if err != nil || len(data) != 0 {
		t.Errorf("ReadFile(%s) = %q, %v; want empty", os.DevNull, data, err)
	}
}
