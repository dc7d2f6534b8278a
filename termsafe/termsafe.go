// Package termsafe makes text that a trace controls safe to show on a
// terminal. Names of graphs, nodes, kwargs and traces are data: a trace can
// put ESC, CSI or OSC bytes in them, and written raw they would clear the
// screen, recolour it or retitle the terminal. Every command and the TUI pass
// such text through String (single-line names) or Text (multi-line text),
// which show control characters escaped instead of sending them.
//
// Escapes: \n, \t, \r, other C0 controls and DEL as \xNN (ESC is \x1b), C1 controls (U+0080 to
// U+009F, 8-bit CSI/OSC to some terminals) and bidirectional overrides
// (U+202A..U+202E, U+2066..U+2069, U+200E, U+200F, U+061C) as \uNNNN, and
// bytes that are not UTF-8 as \xNN. A \u escape is also a valid JSON escape,
// so Writer may wrap JSON output without changing what it decodes to (JSON
// encoders already escape C0 controls).
package termsafe

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// unsafe reports whether r must be escaped; keepLines keeps \n and \t.
func unsafeRune(r rune, keepLines bool) bool {
	switch {
	case r == '\n' || r == '\t':
		return !keepLines
	case r < 0x20 || r == 0x7f:
		return true
	case r >= 0x80 && r <= 0x9f:
		return true
	case r == 0x061c || r == 0x200e || r == 0x200f:
		return true
	case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069:
		return true
	}
	return false
}

func needs(s string, keepLines bool) bool {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if unsafeRune(rune(c), keepLines) {
				return true
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if (r == utf8.RuneError && n == 1) || unsafeRune(r, keepLines) {
			return true
		}
		i += n
	}
	return false
}

func escape(b *strings.Builder, s string, keepLines bool) {
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			fmt.Fprintf(b, `\x%02x`, s[i])
		case !unsafeRune(r, keepLines):
			b.WriteString(s[i : i+n])
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\r':
			b.WriteString(`\r`)
		case r < 0x80:
			fmt.Fprintf(b, `\x%02x`, r)
		default:
			fmt.Fprintf(b, `\u%04x`, r)
		}
		i += n
	}
}

// String returns s with every control character escaped, newlines and tabs
// included: for a name shown on one line. Safe text is returned unchanged.
func String(s string) string {
	if !needs(s, false) {
		return s
	}
	var b strings.Builder
	escape(&b, s, false)
	return b.String()
}

// Text is String keeping newlines and tabs: for multi-line text (a printed
// graph, generated code, an error message).
func Text(s string) string {
	if !needs(s, true) {
		return s
	}
	var b strings.Builder
	escape(&b, s, true)
	return b.String()
}

// Strings applies String to each element (a copy; nil stays nil).
func Strings(ss []string) []string {
	if ss == nil {
		return nil
	}
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = String(s)
	}
	return out
}

// Writer returns a writer that passes everything written through Text before
// writing it to w. A UTF-8 sequence split across two writes is held back
// until the next write completes it (at most 3 bytes); Close is not needed:
// an incomplete sequence that never completes is not valid text anyway, and
// is written escaped by the next write or dropped at exit.
func Writer(w io.Writer) io.Writer { return &writer{w: w} }

type writer struct {
	w    io.Writer
	hold []byte
}

func (t *writer) Write(p []byte) (int, error) {
	n := len(p)
	buf := p
	if len(t.hold) > 0 {
		buf = append(append([]byte(nil), t.hold...), p...)
		t.hold = t.hold[:0]
	}
	// Hold back an incomplete trailing UTF-8 sequence.
	if k := incompleteTail(buf); k > 0 {
		t.hold = append(t.hold, buf[len(buf)-k:]...)
		buf = buf[:len(buf)-k]
	}
	s := string(buf)
	if _, err := io.WriteString(t.w, Text(s)); err != nil {
		return 0, err
	}
	return n, nil
}

// incompleteTail is how many bytes at the end of b start a UTF-8 sequence
// that b does not finish (0 when b ends on a rune boundary or with bytes no
// further byte could complete).
func incompleteTail(b []byte) int {
	for k := 1; k <= 3 && k <= len(b); k++ {
		c := b[len(b)-k]
		if c < 0x80 {
			return 0
		}
		if c >= 0xc0 { // a lead byte: how long its sequence should be
			want := 2
			if c >= 0xf0 {
				want = 4
			} else if c >= 0xe0 {
				want = 3
			}
			if want > k && !utf8.FullRune(b[len(b)-k:]) {
				return k
			}
			return 0
		}
	}
	return 0
}
