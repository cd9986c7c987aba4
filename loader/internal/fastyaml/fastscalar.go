package fastyaml

import (
	"bytes"
	"strings"
	"unicode/utf8"

	"github.com/taintlint/taintlint/loader/internal/yamltree"
)

// quoted reads the single-line quoted scalar at i and returns its value
// and the end of its closing quote; escapes are those of yaml.v3.
func (p *Parser) quoted(i int) (val []byte, end int) {
	q := p.src[i]
	start := i + 1
	var out []byte // nil while the value is the source's bytes
	for j := start; j < p.eol; j++ {
		c := p.src[j]
		switch {
		case c == '\'' && q == '\'':
			if j+1 < p.eol && p.src[j+1] == '\'' {
				if out == nil {
					out = append([]byte(nil), p.src[start:j]...)
				}
				out = append(out, '\'')
				j++
				continue
			}
			if out == nil {
				return p.src[start:j], j + 1
			}
			return out, j + 1
		case c == '"' && q == '"':
			if out == nil {
				return p.src[start:j], j + 1
			}
			return out, j + 1
		case c == '\\' && q == '"':
			if out == nil {
				out = append([]byte(nil), p.src[start:j]...)
			}
			if j+1 == p.eol {
				p.fail() // an escaped line break
			}
			j++
			code := 0
			switch p.src[j] {
			case '0':
				out = append(out, 0)
			case 'a':
				out = append(out, '\x07')
			case 'b':
				out = append(out, '\x08')
			case 't':
				out = append(out, '\x09')
			case 'n':
				out = append(out, '\x0A')
			case 'v':
				out = append(out, '\x0B')
			case 'f':
				out = append(out, '\x0C')
			case 'r':
				out = append(out, '\x0D')
			case 'e':
				out = append(out, '\x1B')
			case ' ':
				out = append(out, ' ')
			case '"':
				out = append(out, '"')
			case '\'':
				out = append(out, '\'')
			case '\\':
				out = append(out, '\\')
			case 'N':
				out = append(out, "\u0085"...)
			case '_':
				out = append(out, "\u00a0"...)
			case 'L':
				out = append(out, "\u2028"...)
			case 'P':
				out = append(out, "\u2029"...)
			case 'x':
				code = 2
			case 'u':
				code = 4
			case 'U':
				code = 8
			default:
				p.fail() // yaml.v3 refuses it
			}
			if code > 0 {
				if j+code >= p.eol {
					p.fail()
				}
				v := 0
				for _, h := range p.src[j+1 : j+1+code] {
					switch {
					case h >= '0' && h <= '9':
						v = v<<4 + int(h-'0')
					case h >= 'a' && h <= 'f':
						v = v<<4 + int(h-'a') + 10
					case h >= 'A' && h <= 'F':
						v = v<<4 + int(h-'A') + 10
					default:
						p.fail()
					}
				}
				if v >= 0xd800 && v <= 0xdfff || v > 0x10ffff {
					p.fail()
				}
				out = utf8.AppendRune(out, rune(v))
				j += code
			}
		default:
			if out != nil {
				out = append(out, c)
			}
		}
	}
	p.fail() // no closing quote on the line
	return nil, 0
}

// flow reads the flow collection at i, all on its line, and returns its
// node and its end.
func (p *Parser) flow(i int) (int32, int) {
	p.enter()
	defer func() { p.depth-- }()
	open := p.src[i]
	kind, close := fSeq, byte(']')
	if open == '{' {
		kind, close = fMap, '}'
	}
	n := p.node(kind, p.line, p.column(i))
	last := int32(-1)
	link := func(c int32) {
		if last < 0 {
			p.nodes[n].first = c
		} else {
			p.nodes[last].next = c
		}
		last = c
	}
	j := p.skipSpaces(i + 1)
	if j < p.eol && p.src[j] == close {
		return n, j + 1
	}
	for count := 0; ; count++ {
		if j == p.eol {
			p.fail()
		}
		if kind == fMap {
			k, end := p.flowScalar(j, true)
			if end-j > 1000 {
				p.fail() // too long for a simple key
			}
			if end == p.eol || p.src[end] != ':' || end+1 == p.eol || p.src[end+1] != ' ' {
				p.fail()
			}
			p.checkKey(n, k, count)
			link(k)
			j = p.skipSpaces(end + 1)
			if j == p.eol {
				p.fail()
			}
		}
		var e int32
		var end int
		if c := p.src[j]; c == '[' || c == '{' {
			e, end = p.flow(j)
		} else {
			e, end = p.flowScalar(j, false)
		}
		link(e)
		j = p.skipSpaces(end)
		if j == p.eol {
			p.fail()
		}
		switch p.src[j] {
		case ',':
			j = p.skipSpaces(j + 1)
			if j == p.eol || p.src[j] == close || p.src[j] == ',' {
				p.fail()
			}
		case close:
			return n, j + 1
		default:
			p.fail()
		}
	}
}

// flowScalar reads a quoted or plain scalar at i in a flow collection (a
// key when key) and returns its node and its end.
func (p *Parser) flowScalar(i int, key bool) (int32, int) {
	if c := p.src[i]; c == '"' || c == '\'' {
		n := p.node(fStr, p.line, p.column(i))
		val, end := p.quoted(i)
		p.nodes[n].val = val
		return n, end
	}
	if !p.plainStart(i) {
		p.fail()
	}
	n := p.node(fPlain, p.line, p.column(i))
	end := i
	j := i
	for ; j < p.eol; j++ {
		c := p.src[j]
		if c == ',' || c == ']' || c == '}' {
			break
		}
		if c == ':' {
			if j+1 == p.eol || p.src[j+1] == ' ' {
				if key {
					break
				}
				p.fail()
			}
			if strings.IndexByte(",[]{}", p.src[j+1]) >= 0 {
				p.fail()
			}
		}
		if c == '?' || c == '#' || c == '[' || c == '{' {
			p.fail()
		}
		if c != ' ' {
			end = j + 1
		}
	}
	if key && (j == p.eol || p.src[j] != ':') {
		p.fail() // a key without a value, or a value on its own
	}
	if key && end != j {
		p.fail() // "a : b"
	}
	if key && !yamltree.KeyAsWritten(p.src[i:end]) {
		p.fail() // kubectl reads another key (yamltree.KeyAsWritten)
	}
	p.plain(n, p.src[i:end])
	return n, end
}

// blockScalar reads the literal or folded scalar whose indicator is at i,
// in a block collection at column indent, as yaml.v3's scanner does
// (yaml_parser_scan_block_scalar), and leaves p at the first line with
// content after it.
func (p *Parser) blockScalar(i, indent int) int32 {
	n := p.node(fStr, p.line, p.column(i))
	literal := p.src[i] == '|'
	src := p.src
	j := i + 1
	chomping, increment := 0, 0
	digit := func() {
		if j < p.eol && src[j] >= '0' && src[j] <= '9' {
			if src[j] == '0' {
				p.fail()
			}
			increment = int(src[j] - '0')
			j++
		}
	}
	chomp := func() {
		if j < p.eol && (src[j] == '+' || src[j] == '-') {
			chomping = 1
			if src[j] == '-' {
				chomping = -1
			}
			j++
		}
	}
	if j < p.eol && (src[j] == '+' || src[j] == '-') {
		chomp()
		digit()
	} else {
		digit()
		chomp()
	}
	j = p.skipSpaces(j)
	if j < p.eol && src[j] == '#' {
		if src[j-1] != ' ' {
			p.fail() // "|#": a comment yaml.v3 may read otherwise
		}
		j = p.eol
	}
	if j != p.eol {
		p.fail()
	}
	// The scan, as yaml.v3's: pos is the read position, column its
	// column (only spaces count: no tabs, and content is not measured).
	pos, line := p.eol+1, p.line+1
	if pos > len(src) {
		pos = len(src)
	}
	lineStart := pos
	column := 0
	ind := 0
	if increment > 0 {
		ind = indent + increment
	}
	var s, leadingBreak, trailingBreaks []byte
	breaks := func() {
		maxIndent := 0
		for {
			for (ind == 0 || column < ind) && pos < len(src) && src[pos] == ' ' {
				pos++
				column++
			}
			maxIndent = max(maxIndent, column)
			if pos == len(src) || src[pos] != '\n' {
				break
			}
			trailingBreaks = append(trailingBreaks, '\n')
			pos++
			line++
			lineStart, column = pos, 0
		}
		if ind == 0 {
			ind = max(maxIndent, indent+1, 1)
		}
	}
	breaks()
	leadingBlank := false
	for column == ind && pos < len(src) {
		trailingBlank := src[pos] == ' '
		if !literal && !leadingBlank && !trailingBlank && len(leadingBreak) > 0 && leadingBreak[0] == '\n' {
			if len(trailingBreaks) == 0 {
				s = append(s, ' ')
			}
		} else {
			s = append(s, leadingBreak...)
		}
		leadingBreak = leadingBreak[:0]
		s = append(s, trailingBreaks...)
		trailingBreaks = trailingBreaks[:0]
		leadingBlank = src[pos] == ' '
		end := bytes.IndexByte(src[pos:], '\n')
		if end < 0 {
			end = len(src) - pos
		}
		s = append(s, src[pos:pos+end]...)
		pos += end
		if pos < len(src) {
			leadingBreak = append(leadingBreak, '\n')
			pos++
			line++
			lineStart, column = pos, 0
		}
		breaks()
	}
	if chomping != -1 {
		s = append(s, leadingBreak...)
	}
	if chomping == 1 {
		s = append(s, trailingBreaks...)
	}
	if s == nil {
		s = []byte{}
	}
	p.nodes[n].val = s
	p.setLine(lineStart, line)
	p.skip()
	return n
}
