package escape

import (
	"bytes"
	"io"
	"sync"
)

// MaxLine is the longest line a LineWriter writes: a longer one is
// broken there, each part a line of its own.
const MaxLine = 4096

// LineWriter relays another program's log (a Kustomize build worker's
// standard error, the log output of Helm's and Kustomize's packages) as
// whole lines, each escaped by Line and written with one Write after
// prefix. Whole lines matter where several relays share one standard
// error: a write of one can never end another's line halfway and leave a
// command at the start of the next.
type LineWriter struct {
	mu     sync.Mutex
	w      io.Writer
	prefix string
	line   []byte
}

// NewLineWriter is a LineWriter into w.
func NewLineWriter(w io.Writer, prefix string) *LineWriter {
	return &LineWriter{w: w, prefix: prefix}
}

// Write takes p; complete lines are written at once.
func (l *LineWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := len(p)
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			room := MaxLine - len(l.line)
			if len(p) < room {
				l.line = append(l.line, p...)
				return n, nil
			}
			l.line = append(l.line, p[:room]...)
			p = p[room:]
		} else {
			l.line = append(l.line, p[:i]...)
			p = p[i+1:]
		}
		if err := l.emit(); err != nil {
			return 0, err
		}
	}
	return n, nil
}

// emit writes the line held, escaped, and empties it.
func (l *LineWriter) emit() error {
	out := l.prefix + Line(string(l.line)) + "\n"
	l.line = l.line[:0]
	_, err := io.WriteString(l.w, out)
	return err
}

// Close writes a last line that has no newline; it does not close w.
func (l *LineWriter) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.line) == 0 {
		return nil
	}
	return l.emit()
}
