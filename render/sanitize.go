package render

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Names from a trace (node names, parameter targets, source lines) are
// hostile input: they never reach the generated C except through Ident
// (identifiers) and Comment (comment text).

// maxIdent bounds the sanitized part of an identifier, so that a 10 kB node
// name does not make a 10 kB function name.
const maxIdent = 48

// sanitizeIdent maps s onto [A-Za-z0-9_]: every other byte (quotes,
// semicolons, newlines, the bytes of non-ASCII runes) becomes '_', runs of
// '_' collapse, and the result is cut to maxIdent bytes.
func sanitizeIdent(s string) string {
	var b strings.Builder
	last := byte(0)
	for i := 0; i < len(s) && b.Len() < maxIdent; i++ {
		c := s[i]
		ok := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
		if !ok {
			c = '_'
		}
		if c == '_' && last == '_' {
			continue
		}
		b.WriteByte(c)
		last = c
	}
	return strings.Trim(b.String(), "_")
}

// namer hands out C identifiers: prefix + sanitized name, with a numeric
// suffix when two names sanitize alike. The prefix (b_, k3_) guarantees a
// letter first and keeps every name out of the C keyword and libc space.
type namer struct {
	used  map[string]bool
	names map[string]string // original -> identifier
}

func newNamer() *namer { return &namer{used: map[string]bool{}, names: map[string]string{}} }

// name returns the identifier of orig under prefix, the same one every time.
func (n *namer) name(prefix, orig string) string {
	key := prefix + "\x00" + orig
	if id, ok := n.names[key]; ok {
		return id
	}
	base := prefix + sanitizeIdent(orig)
	base = strings.TrimRight(base, "_")
	id := base
	for i := 1; n.used[id]; i++ {
		id = fmt.Sprintf("%s_%d", base, i)
	}
	n.used[id] = true
	n.names[key] = id
	return id
}

// Ident is the identifier a name gets on its own: prefix + sanitized name
// (exported for the dialect tests and the debugger's source view).
func Ident(prefix, name string) string { return newNamer().name(prefix, name) }

// Comment makes s safe inside a /* */ or // comment on one line: newlines
// and other control characters become spaces, "*/" and "/*" are broken up,
// a trailing backslash (a line continuation) is dropped, and non-ASCII runes
// are written as \u escapes so the file stays ASCII.
func Comment(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b.WriteString("\\x")
			fmt.Fprintf(&b, "%02x", s[i])
		case r < 0x20 || r == 0x7f:
			b.WriteByte(' ')
		case r >= 0x80:
			fmt.Fprintf(&b, "\\u%04x", r)
		default:
			b.WriteRune(r)
		}
		i += size
	}
	out := b.String()
	for strings.Contains(out, "*/") || strings.Contains(out, "/*") {
		out = strings.ReplaceAll(strings.ReplaceAll(out, "*/", "* /"), "/*", "/ *")
	}
	// Trigraph-free already (gcc ignores them by default in gnu modes, but
	// -std=c11 would honour ??/ as a backslash).
	out = strings.ReplaceAll(out, "??", "? ?")
	return strings.TrimRight(out, "\\ ")
}
