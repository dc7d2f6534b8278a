// Package graphtext reads PyTorch's readable graph text — the
// `def forward(self, x: "f32[8, 1024][1024, 1]cpu"): ...` form that
// print_readable, gm.code, fx_graph_readable.py and TORCH_TRACE logs show —
// as a gcdbg trace: one ir.Graph per `def forward`, shapes and dtypes from
// the annotations, inputs generated (or read from a safetensors sidecar).
// The accepted grammar is a small Python subset parsed by hand (this lexer
// and a recursive-descent parser); docs/graph-text.md describes it. Every
// error is an *Error carrying line and column.
package graphtext

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Pos is a 1-based line and column (columns count runes).
type Pos struct{ Line, Col int }

// Error is a syntax or meaning error at a position of a graph file:
//
//	graph.py:3:14: unknown dtype "f33" in annotation "f33[8]"
type Error struct {
	File string
	Pos  Pos
	Msg  string
}

func (e *Error) Error() string {
	file := e.File
	if file == "" {
		file = "<graph>"
	}
	if e.Pos.Line == 0 { // about the file as a whole (its sidecar)
		return file + ": " + e.Msg
	}
	return fmt.Sprintf("%s:%d:%d: %s", file, e.Pos.Line, e.Pos.Col, e.Msg)
}

type tokKind int

const (
	tEOF     tokKind = iota
	tNewline         // end of a logical line
	tName
	tInt
	tFloat
	tString
	tOp      // punctuation and operators
	tComment // a comment alone on its line (the raw text after '#')
)

var kindNames = [...]string{"end of file", "end of line", "name", "int", "float", "string", "operator", "comment"}

type token struct {
	kind tokKind
	text string // the name, operator or comment text; a string's decoded value
	pos  Pos
	// indent is the column of the first token of the line; bol marks that
	// first token (only those are compared with a block's indentation).
	indent int
	bol    bool
}

func (t token) String() string {
	switch t.kind {
	case tEOF, tNewline:
		return kindNames[t.kind]
	case tString:
		return fmt.Sprintf("string %q", t.text)
	}
	return fmt.Sprintf("%q", t.text)
}

// Operators, longest first so that "//" wins over "/".
var operators = []string{
	"**=", "//=", "...", "->", "**", "//", "<=", ">=", "==", "!=", "<<", ">>",
	"+=", "-=", "*=", "/=", "%=", "@=", "&=", "|=", "^=",
	"(", ")", "[", "]", "{", "}", ",", ":", ".", ";", "=", "+", "-", "*", "/",
	"%", "@", "~", "<", ">", "&", "|", "^",
}

// maxTokens bounds the work one file may cause.
const maxTokens = 1 << 22

type lexer struct {
	file  string
	src   string
	i     int
	pos   Pos
	depth int // open brackets: newlines inside them do not end a line
	toks  []token
	bol   bool
	ind   int
}

// lex splits src into tokens. base is where src starts (annotation strings
// are lexed again with their own position, so their errors point inside).
func lex(file, src string, base Pos) ([]token, error) {
	lx := &lexer{file: file, src: src, pos: base, bol: true}
	if err := lx.run(); err != nil {
		return nil, err
	}
	return lx.toks, nil
}

func (lx *lexer) errf(p Pos, format string, a ...any) error {
	return &Error{File: lx.file, Pos: p, Msg: fmt.Sprintf(format, a...)}
}

func (lx *lexer) advance() rune {
	r, n := utf8.DecodeRuneInString(lx.src[lx.i:])
	lx.i += n
	if r == '\n' {
		lx.pos.Line++
		lx.pos.Col = 1
	} else {
		lx.pos.Col++
	}
	return r
}

func (lx *lexer) peek() rune {
	if lx.i >= len(lx.src) {
		return 0
	}
	r, _ := utf8.DecodeRuneInString(lx.src[lx.i:])
	return r
}

func (lx *lexer) emit(k tokKind, text string, p Pos) error {
	if len(lx.toks) >= maxTokens {
		return lx.errf(p, "file too large (more than %d tokens)", maxTokens)
	}
	t := token{kind: k, text: text, pos: p}
	if lx.bol && k != tNewline {
		lx.ind, lx.bol = p.Col, false
		t.bol = true
	}
	t.indent = lx.ind
	lx.toks = append(lx.toks, t)
	return nil
}

// endLine emits a newline token unless the line held nothing.
func (lx *lexer) endLine(p Pos) error {
	if !lx.bol {
		lx.bol = true
		return lx.emit(tNewline, "", p)
	}
	return nil
}

func (lx *lexer) run() error {
	for lx.i < len(lx.src) {
		p := lx.pos
		r := lx.peek()
		switch {
		case r == '\n':
			lx.advance()
			if lx.depth == 0 {
				if err := lx.endLine(p); err != nil {
					return err
				}
			}
		case r == ' ' || r == '\t' || r == '\r' || r == '\f':
			lx.advance()
		case r == '\\':
			lx.advance()
			if lx.peek() == '\r' {
				lx.advance()
			}
			if lx.peek() != '\n' {
				return lx.errf(p, "unexpected '\\' (a line continuation must end its line)")
			}
			lx.advance()
		case r == '#':
			start := lx.i
			for lx.i < len(lx.src) && lx.src[lx.i] != '\n' {
				lx.advance()
			}
			// Only comments alone on their line matter (frames, directives).
			// The text is kept raw (after '#') so columns inside it can be computed.
			if lx.bol && lx.depth == 0 {
				text := strings.TrimRight(lx.src[start+1:lx.i], " \t\r")
				if err := lx.emit(tComment, text, p); err != nil {
					return err
				}
				lx.bol = true
			}
		case r == '"' || r == '\'':
			if err := lx.str(p, false); err != nil {
				return err
			}
		case isNameStart(r):
			start := lx.i
			for lx.i < len(lx.src) && isNamePart(lx.peek()) {
				lx.advance()
			}
			name := lx.src[start:lx.i]
			if q := lx.peek(); (q == '"' || q == '\'') && isStrPrefix(name) {
				if strings.ContainsAny(name, "fF") {
					return lx.errf(p, "f-strings are not supported")
				}
				if err := lx.str(p, strings.ContainsAny(name, "rR")); err != nil {
					return err
				}
				continue
			}
			if err := lx.emit(tName, name, p); err != nil {
				return err
			}
		case r >= '0' && r <= '9' || r == '.' && lx.i+1 < len(lx.src) && isDigit(lx.src[lx.i+1]):
			if err := lx.number(p); err != nil {
				return err
			}
		default:
			op := ""
			for _, o := range operators {
				if strings.HasPrefix(lx.src[lx.i:], o) {
					op = o
					break
				}
			}
			if op == "" {
				return lx.errf(p, "unexpected character %q", r)
			}
			for range op {
				lx.advance()
			}
			switch op {
			case "(", "[", "{":
				lx.depth++
			case ")", "]", "}":
				if lx.depth > 0 {
					lx.depth--
				}
			}
			if err := lx.emit(tOp, op, p); err != nil {
				return err
			}
		}
	}
	if err := lx.endLine(lx.pos); err != nil {
		return err
	}
	return lx.emit(tEOF, "", lx.pos)
}

func isStrPrefix(s string) bool {
	if len(s) > 2 {
		return false
	}
	for _, c := range s {
		if !strings.ContainsRune("rRbBuUfF", c) {
			return false
		}
	}
	return true
}

func isDigit(b byte) bool { return b >= '0' && b <= '9' }

func isNameStart(r rune) bool {
	return r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r > 127 && unicode.IsLetter(r)
}

func isNamePart(r rune) bool {
	return isNameStart(r) || r >= '0' && r <= '9' || r > 127 && unicode.IsDigit(r)
}

// number lexes an int or float literal (underscores allowed, as in Python).
func (lx *lexer) number(p Pos) error {
	start := lx.i
	float := false
	if strings.HasPrefix(lx.src[lx.i:], "0x") || strings.HasPrefix(lx.src[lx.i:], "0X") {
		lx.advance()
		lx.advance()
		for lx.i < len(lx.src) && (isHex(lx.src[lx.i]) || lx.src[lx.i] == '_') {
			lx.advance()
		}
		return lx.emit(tInt, lx.src[start:lx.i], p)
	}
	digits := func() {
		for lx.i < len(lx.src) && (isDigit(lx.src[lx.i]) || lx.src[lx.i] == '_') {
			lx.advance()
		}
	}
	digits()
	if lx.i < len(lx.src) && lx.src[lx.i] == '.' && !strings.HasPrefix(lx.src[lx.i:], "...") {
		float = true
		lx.advance()
		digits()
	}
	if lx.i < len(lx.src) && (lx.src[lx.i] == 'e' || lx.src[lx.i] == 'E') {
		j := lx.i + 1
		if j < len(lx.src) && (lx.src[j] == '+' || lx.src[j] == '-') {
			j++
		}
		if j < len(lx.src) && isDigit(lx.src[j]) {
			float = true
			for lx.i < j {
				lx.advance()
			}
			digits()
		}
	}
	if lx.i < len(lx.src) && isNameStart(lx.peek()) {
		return lx.errf(p, "malformed number %q", lx.src[start:lx.i]+string(lx.peek()))
	}
	k := tInt
	if float {
		k = tFloat
	}
	return lx.emit(k, lx.src[start:lx.i], p)
}

func isHex(b byte) bool { return isDigit(b) || b >= 'a' && b <= 'f' || b >= 'A' && b <= 'F' }

// str lexes a quoted string (single, double or triple quoted).
func (lx *lexer) str(p Pos, raw bool) error {
	q := lx.peek()
	triple := strings.HasPrefix(lx.src[lx.i:], strings.Repeat(string(q), 3))
	n := 1
	if triple {
		n = 3
	}
	for range n {
		lx.advance()
	}
	var b strings.Builder
	for {
		if lx.i >= len(lx.src) {
			return lx.errf(p, "unterminated string")
		}
		if triple && strings.HasPrefix(lx.src[lx.i:], strings.Repeat(string(q), 3)) {
			for range 3 {
				lx.advance()
			}
			break
		}
		r := lx.peek()
		if r == '\n' && !triple {
			return lx.errf(p, "unterminated string (it reaches the end of the line)")
		}
		lx.advance()
		if r == q && !triple {
			break
		}
		if r == '\\' && lx.i < len(lx.src) {
			e := lx.advance()
			if raw {
				b.WriteRune('\\')
				b.WriteRune(e)
				continue
			}
			switch e {
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			case 'r':
				b.WriteByte('\r')
			case '0':
				b.WriteByte(0)
			case '\n':
			case '\\', '\'', '"':
				b.WriteRune(e)
			default:
				b.WriteRune('\\')
				b.WriteRune(e)
			}
			continue
		}
		b.WriteRune(r)
	}
	return lx.emit(tString, b.String(), p)
}
