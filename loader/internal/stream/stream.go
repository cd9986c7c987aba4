package stream

import (
	"bytes"
	"fmt"
)

// Document is one document of a stream: a slice of the stream's bytes and
// where it starts, so that positions within it map back to the file.
type Document struct {
	Line int // 0-based line of the first byte
	Off  int // offset of the first byte in the stream
	Data []byte
	// Cut: the separator before the document is a line YAML does not
	// read as a marker (---#), left out of both documents, so the
	// document and the one before it are not one stream to YAML.
	Cut bool
}

// Documents cuts a stream at document markers (see Split),
// for callers that read documents kubectl does not (Helm templates,
// Kustomize sources): every document, and no word on kubectl's rules.
func Documents(data []byte) []Document {
	docs, _ := Split(data, false)
	return docs
}

// Issue is a line of a stream that kubectl reads unlike YAML: 1-based.
type Issue struct {
	Line int
	Msg  string
}

// Split cuts a stream at document markers (--- or ... at the start
// of a line followed by white space or the line's end). YAML forbids those
// inside any content, block scalars included, so the cut is exact.
//
// It also cuts where kubectl's reader (apimachinery's YAMLReader) and
// Helm's (releaseutil.SplitManifests) do and YAML does not: at a line
// starting with "---" followed at once by something else ("---#", as
// Helm renders "---" followed by "{{- end }}"; "----"). YAML would read
// that line as text; it is left out and the next document starts after
// it.
//
// The issues are the lines kubectl reads otherwise (its YAMLReader cuts
// by lines, then sigs.k8s.io/yaml reads the first document of each
// part): a line starting with "---" followed by anything but white space
// and a comment, which kubectl refuses along with the part before it; a
// document end ("...") with no document before it in its part, which it
// refuses too; and text after a document end before the next "---",
// which it ignores. With kubectl, the documents holding such text are
// left out (they are not applied, so not checked either).
func Split(data []byte, kubectl bool) ([]Document, []Issue) {
	if len(data) > 0 && data[len(data)-1] != '\n' {
		// kubectl's reader ends every line with a newline, the file's
		// last too: "key: |" and "  a" at the end of a file is "a\n" to
		// it, not "a". The documents stay slices of one stream.
		data = append(data[:len(data):len(data)], '\n')
	}
	var docs []Document
	var issues []Issue
	start, startLine, line := 0, 0, 0
	cut := false // the document from start follows a line left out
	// kubectl's part: empty (no line yet since its last separator), opened
	// by a "---" line, holding content, past a document end.
	empty, opened, content, ended := true, false, false, false
	dropped := false // the document from start is in the ignored text
	warned := false  // the ignored text of this part has its issue
	add := func(end int) {
		if !(kubectl && dropped) {
			docs = append(docs, Document{Line: startLine, Off: start, Data: data[start:end], Cut: cut})
			cut = false
		} else {
			cut = true // the documents around the left-out text are not one stream
		}
	}
	newPart := func() { empty, opened, content, ended, dropped, warned = true, false, false, false, false, false }
	for i := 0; i < len(data); {
		end := bytes.IndexByte(data[i:], '\n')
		next := len(data)
		if end >= 0 {
			next = i + end + 1
		}
		l := data[i:next]
		sep := bytes.HasPrefix(l, []byte("---"))
		rest := bytes.TrimSpace(l[min(3, len(l)):])
		switch {
		case sep && len(rest) > 0 && rest[0] != '#':
			issues = append(issues, Issue{line + 1, fmt.Sprintf("invalid document separator (%q after ---): kubectl stops reading the file here and applies nothing of the document before it", rest)})
			if i > start {
				add(i)
			}
			newPart()
			if IsMarker(l, "---") { // YAML reads the line's content: so does taintlint
				start, startLine = i, line
			} else {
				start, startLine, cut = next, line+1, true
			}
		case sep:
			if i > start {
				add(i)
			}
			first := empty // kubectl's reader holds nothing of this part yet
			if empty {
				empty, opened = false, true
			} else {
				newPart()
			}
			switch {
			case IsMarker(l, "---") && len(rest) > 0 && !first:
				// Only a comment follows, and the line ends a document:
				// kubectl's reader drops it, never giving it to YAML (a
				// byte there that is not UTF-8 is no error to it), so the
				// next document starts after it. A line that starts a
				// document is YAML's, comment and all.
				start, startLine = next, line+1
			case IsMarker(l, "---"):
				start, startLine = i, line
			default:
				start, startLine, cut = next, line+1, true
			}
		case IsMarker(l, "..."):
			if !ended && !content && !opened {
				issues = append(issues, Issue{line + 1, `document end ("...") with no document before it: kubectl refuses it and stops reading the file here`})
			}
			add(i)
			empty, ended = false, true
			start, startLine = next, line+1
			dropped = true
		default:
			empty = false
			if t := bytes.TrimSpace(l); len(t) > 0 && t[0] != '#' {
				if ended && !warned {
					warned = true
					issues = append(issues, Issue{line + 1, `text after a document end ("...") and before the next "---": kubectl ignores it, and it is not checked`})
				}
				content = content || !ended
			}
		}
		i = next
		line++
	}
	if start < len(data) {
		add(len(data))
	}
	if !kubectl {
		return docs, nil
	}
	return docs, issues
}

// IsMarker reports whether line starts with the marker m (--- or ...)
// followed by white space or its end, as YAML reads a marker.
func IsMarker(line []byte, m string) bool {
	if !bytes.HasPrefix(line, []byte(m)) {
		return false
	}
	rest := line[len(m):]
	return len(rest) == 0 || rest[0] == ' ' || rest[0] == '\t' || rest[0] == '\n' || rest[0] == '\r'
}
