package safeio

import (
	"archive/tar"
	"compress/gzip"
	"io"
	"strings"
)

// ArchiveSize is what a packaged Helm chart (a gzip-compressed tar) holds
// once unpacked: the size of every file in it, and for a chart archive
// inside it (a dependency under charts/) what that one holds unpacked
// too, as Helm's loader holds both. A chart of 94 KB can unpack to
// hundreds of MiB, so this, not the archive's size, is what a run is
// charged. Counting stops past limit (returning more than limit), so a
// compression bomb costs no more than limit bytes of decompression; an
// archive that does not read is counted as far as it reads (Helm's loader
// then fails on it).
func ArchiveSize(r io.Reader, limit int64) int64 {
	zr, err := gzip.NewReader(r)
	if err != nil {
		return 0
	}
	defer zr.Close()
	tr := tar.NewReader(zr)
	var n int64
	for n <= limit {
		h, err := tr.Next()
		if err != nil {
			return n
		}
		if h.Typeflag != tar.TypeReg && h.Typeflag != tar.TypeRegA {
			continue
		}
		name := strings.ToLower(h.Name)
		if strings.HasSuffix(name, ".tgz") || strings.HasSuffix(name, ".tar.gz") {
			// Read to count: the header's size is the compressed one.
			cr := &countingReader{r: io.LimitReader(tr, limit-n+1)}
			inner := ArchiveSize(cr, limit-n)
			io.Copy(io.Discard, cr)
			n += cr.n + inner
			continue
		}
		n += max(h.Size, 0)
	}
	return n
}

type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	k, err := c.r.Read(p)
	c.n += int64(k)
	return k, err
}
