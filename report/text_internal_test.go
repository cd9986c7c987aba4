package report

import (
	"bufio"
	"bytes"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/taintlint/taintlint/loader"
	"github.com/taintlint/taintlint/rules"
)

// FuzzWrapCounts holds the ASCII shortcuts of longer and byteIndexOfRune to
// their definitions in code points.
func FuzzWrapCounts(f *testing.F) {
	f.Add("héllo wörld", 3)
	f.Add("abc", 2)
	f.Add("ab\xffcd", 2)
	f.Add("", 0)
	f.Fuzz(func(t *testing.T, s string, n int) {
		if n < 0 || n > 300 {
			return
		}
		if got, want := longer(s, n), utf8.RuneCountInString(s) > n; got != want {
			t.Fatalf("longer(%q,%d)=%v", s, n, got)
		}
		want := len(s)
		k := n
		for i := range s {
			if k == 0 {
				want = i
				break
			}
			k--
		}
		if got := byteIndexOfRune(s, n); got != want {
			t.Fatalf("byteIndexOfRune(%q,%d)=%d want %d", s, n, got, want)
		}
	})
}

// TestTextInParts: findings rendered on several cores in parts read as
// rendered one after another, blank lines between files included.
func TestTextInParts(t *testing.T) {
	var res Result
	for i := range 1500 {
		res.Findings = append(res.Findings, rules.Finding{
			Rule: "pod-unschedulable", Severity: rules.Error,
			Message: strings.Repeat("word ", i%60) + "\ndetail " + strconv.Itoa(i),
			Pos:     loader.Position{File: "f" + strconv.Itoa(i/7) + ".yaml", Line: i, Column: 1},
		})
	}
	var got bytes.Buffer
	bw := bufio.NewWriter(&got)
	writeText(bw, &res, false, false, false)
	bw.Flush()
	var want bytes.Buffer
	bw = bufio.NewWriter(&want)
	writeFindings(bw, res.Findings, 0, len(res.Findings), false)
	bw.WriteByte('\n')
	bw.WriteString(summaryLine(res.Summary, false, false) + "\n")
	bw.Flush()
	if runtime.GOMAXPROCS(0) < 2 {
		t.Skip("one core: rendered in one part")
	}
	if got.String() != want.String() {
		t.Errorf("rendered in parts (%d bytes) differs from in one (%d bytes)", got.Len(), want.Len())
	}
}
