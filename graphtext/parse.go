package graphtext

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"
)

// maxDepth bounds expression nesting, so hostile input cannot exhaust the stack.
const maxDepth = 100

type parser struct {
	file  string
	toks  []token
	i     int
	depth int
	f     *file
	frame *frameInfo
}

func (p *parser) tok() token { return p.toks[p.i] }

func (p *parser) peekAt(k int) token {
	if p.i+k < len(p.toks) {
		return p.toks[p.i+k]
	}
	return p.toks[len(p.toks)-1]
}

func (p *parser) next() token {
	t := p.toks[p.i]
	if p.i < len(p.toks)-1 {
		p.i++
	}
	return t
}

func (p *parser) isOp(s string) bool { t := p.tok(); return t.kind == tOp && t.text == s }

func (p *parser) isName(s string) bool { t := p.tok(); return t.kind == tName && t.text == s }

func (p *parser) errf(at Pos, format string, a ...any) error {
	return &Error{File: p.file, Pos: at, Msg: fmt.Sprintf(format, a...)}
}

func (p *parser) expectOp(s string, what string) (token, error) {
	t := p.tok()
	if t.kind != tOp || t.text != s {
		return t, p.errf(t.pos, "expected %q %s, found %s", s, what, t)
	}
	return p.next(), nil
}

func (p *parser) expectName(what string) (token, error) {
	t := p.tok()
	if t.kind != tName {
		return t, p.errf(t.pos, "expected %s, found %s", what, t)
	}
	return p.next(), nil
}

// endOfLine consumes the end of a logical line.
func (p *parser) endOfLine(what string) error {
	t := p.tok()
	if t.kind == tNewline {
		p.next()
		return nil
	}
	if t.kind == tEOF {
		return nil
	}
	return p.errf(t.pos, "unexpected %s after %s", t, what)
}

func (p *parser) skipLine() {
	for p.tok().kind != tNewline && p.tok().kind != tEOF {
		p.next()
	}
	p.next()
}

// parseFile parses a whole graph file.
func parseFile(name string, src []byte) (*file, error) {
	if !utf8.Valid(src) {
		return nil, &Error{File: name, Pos: firstInvalid(src), Msg: "the file is not valid UTF-8"}
	}
	toks, err := lex(name, string(src), Pos{1, 1})
	if err != nil {
		return nil, err
	}
	p := &parser{file: name, toks: toks, f: &file{
		hints: map[string]int{}, hintPos: map[string]Pos{}, grad: map[string]bool{}, aliases: map[string]string{},
	}}
	classIndent, class := -1, ""
	nested := false // a class inside a class: a higher-order op's body (cond_true_0)
	topIndent := -1 // the indentation of the outermost class statements
	for p.tok().kind != tEOF {
		t := p.tok()
		if t.kind == tNewline {
			p.next()
			continue
		}
		if t.kind == tComment {
			if err := p.comment(t); err != nil {
				return nil, err
			}
			p.next()
			continue
		}
		if t.bol && t.indent <= classIndent {
			classIndent, class, nested = -1, "", false
		}
		switch {
		case t.kind == tName && (t.text == "import" || t.text == "from"):
			if err := p.importLine(); err != nil {
				return nil, err
			}
		case t.kind == tName && t.text == "class":
			if topIndent < 0 || t.indent < topIndent {
				topIndent = t.indent
			}
			nested = t.indent > topIndent // a class statement inside another class
			classIndent = t.indent
			p.next()
			if p.tok().kind == tName {
				class = p.tok().text
			} else if p.isOp("<") { // class <lambda>(torch.nn.Module):
				class = "<lambda>"
			}
			p.skipLine()
		case t.kind == tName && t.text == "def":
			fn, err := p.funcDef(t)
			if err != nil {
				return nil, err
			}
			if fn != nil {
				fn.class, fn.nested = class, nested
				p.f.funcs = append(p.f.funcs, fn)
			}
		case t.kind == tString: // a docstring
			p.skipLine()
		case t.kind == tName && classIndent >= 0 && p.peekAt(1).kind == tOp && p.peekAt(1).text == ":":
			// A class-level declaration of a parameter: weight: "f32[4, 4]".
			p.next()
			p.next()
			a, err := p.annotation()
			if err != nil {
				return nil, err
			}
			p.f.attrs = append(p.f.attrs, attrDecl{p: t.pos, name: t.text, ann: a})
			if err := p.endOfLine("a parameter declaration"); err != nil {
				return nil, err
			}
		default:
			return nil, p.errf(t.pos, "expected `def forward(self, ...):`, found %s", t)
		}
	}
	if len(p.f.funcs) == 0 {
		return nil, p.errf(p.tok().pos, "no `def forward(self, ...):` in the file")
	}
	return p.f, nil
}

func firstInvalid(src []byte) Pos {
	pos := Pos{1, 1}
	for len(src) > 0 {
		r, n := utf8.DecodeRune(src)
		if r == utf8.RuneError && n <= 1 {
			return pos
		}
		if r == '\n' {
			pos.Line, pos.Col = pos.Line+1, 1
		} else {
			pos.Col++
		}
		src = src[n:]
	}
	return pos
}

// importLine records the names an import binds: import torch.nn.functional
// as F makes F.relu mean torch.nn.functional.relu.
func (p *parser) importLine() error {
	kw := p.next()
	dotted := func() (string, error) {
		t, err := p.expectName("a module name")
		if err != nil {
			return "", err
		}
		s := t.text
		for p.isOp(".") {
			p.next()
			t, err := p.expectName("a module name")
			if err != nil {
				return "", err
			}
			s += "." + t.text
		}
		return s, nil
	}
	if kw.text == "import" {
		for {
			mod, err := dotted()
			if err != nil {
				return err
			}
			if p.isName("as") {
				p.next()
				t, err := p.expectName("a name after 'as'")
				if err != nil {
					return err
				}
				p.f.aliases[t.text] = mod
			} else {
				head, _, _ := strings.Cut(mod, ".")
				p.f.aliases[head] = head
			}
			if !p.isOp(",") {
				break
			}
			p.next()
		}
		return p.endOfLine("an import")
	}
	mod, err := dotted()
	if err != nil {
		return err
	}
	if !p.isName("import") {
		return p.errf(p.tok().pos, "expected 'import', found %s", p.tok())
	}
	p.next()
	paren := p.isOp("(")
	if paren {
		p.next()
	}
	for {
		t, err := p.expectName("a name to import")
		if err != nil {
			return err
		}
		as := t.text
		if p.isName("as") {
			p.next()
			a, err := p.expectName("a name after 'as'")
			if err != nil {
				return err
			}
			as = a.text
		}
		if mod != "__future__" {
			p.f.aliases[as] = mod + "." + t.text
		}
		if !p.isOp(",") {
			break
		}
		p.next()
	}
	if paren {
		if _, err := p.expectOp(")", "to close the import list"); err != nil {
			return err
		}
	}
	return p.endOfLine("an import")
}

var (
	frameRE   = regexp.MustCompile(`^File: (.+?):(\d+)(?: in ([^,]*))?, code: (.*)$`)
	noStackRE = regexp.MustCompile(`^No stacktrace found`)
)

// comment handles a comment alone on its line: `# File: ...` sets the
// source frame of the nodes that follow, `# gcdbg: ...` is a directive.
func (p *parser) comment(t token) error {
	text := strings.TrimSpace(t.text)
	switch {
	case strings.HasPrefix(text, "gcdbg:"):
		return p.directive(t)
	case noStackRE.MatchString(text):
		p.frame = nil
	default:
		if m := frameRE.FindStringSubmatch(text); m != nil {
			line, err := strconv.Atoi(m[2])
			if err != nil || line > math.MaxInt32 {
				line = 0
			}
			p.frame = &frameInfo{File: m[1], Line: line, Func: strings.TrimSpace(m[3]), Code: m[4]}
		}
	}
	return nil
}

// directive parses `# gcdbg: ...`:
//
//	s0=4, s1=16                  hints for symbolic sizes
//	param fc1.weight f32[4, 8]   a tensor self.fc1.weight reads
//	input x f32[8, 4]            the shape of an input written without one
//	requires_grad x, fc1.weight  tensors that require grad
func (p *parser) directive(t token) error {
	k := strings.Index(t.text, "gcdbg:") + len("gcdbg:")
	base := Pos{t.pos.Line, t.pos.Col + 1 + utf8.RuneCountInString(t.text[:k])}
	toks, err := lex(p.file, t.text[k:], base)
	if err != nil {
		return err
	}
	sub := &parser{file: p.file, toks: toks, f: p.f}
	return sub.directiveBody()
}

func (p *parser) directiveBody() error {
	t := p.tok()
	if t.kind != tName {
		return p.errf(t.pos, "expected a gcdbg directive (s0=4, param NAME TYPE, input NAME TYPE, requires_grad NAMES), found %s", t)
	}
	dotted := func() (string, Pos, error) {
		t := p.tok()
		if t.kind != tName {
			return "", t.pos, p.errf(t.pos, "expected a name, found %s", t)
		}
		p.next()
		s := t.text
		for {
			// layers.0.weight lexes as layers, .0 (a float), ., weight.
			if n := p.tok(); n.kind == tFloat && strings.HasPrefix(n.text, ".") && strings.Trim(n.text, ".0123456789") == "" && strings.Count(n.text, ".") == 1 {
				p.next()
				s += n.text
				continue
			}
			if !p.isOp(".") {
				break
			}
			p.next()
			n := p.tok()
			if n.kind != tName && n.kind != tInt {
				return "", t.pos, p.errf(n.pos, "expected a name after '.', found %s", n)
			}
			p.next()
			s += "." + n.text
		}
		return s, t.pos, nil
	}
	switch {
	case t.text == "param" || t.text == "input":
		p.next()
		name, at, err := dotted()
		if err != nil {
			return err
		}
		if t.text == "input" && strings.Contains(name, ".") {
			return p.errf(at, "input %q: an input is a parameter of forward, not a dotted name", name)
		}
		a, err := p.annotation()
		if err != nil {
			return err
		}
		d := attrDecl{p: at, name: name, ann: a}
		if t.text == "param" {
			p.f.attrs = append(p.f.attrs, d)
		} else {
			p.f.inputs = append(p.f.inputs, d)
		}
	case t.text == "requires_grad":
		p.next()
		for {
			name, _, err := dotted()
			if err != nil {
				return err
			}
			p.f.grad[name] = true
			if !p.isOp(",") {
				break
			}
			p.next()
		}
	case p.peekAt(1).kind == tOp && p.peekAt(1).text == "=":
		for {
			n, err := p.expectName("a symbol name")
			if err != nil {
				return err
			}
			if _, err := p.expectOp("=", "after the symbol"); err != nil {
				return err
			}
			v := p.tok()
			if v.kind != tInt {
				return p.errf(v.pos, "symbol %s: expected an int hint, found %s", n.text, v)
			}
			p.next()
			h, err := strconv.ParseInt(strings.ReplaceAll(v.text, "_", ""), 0, 64)
			if err != nil || h < 0 || h > maxDimSize {
				return p.errf(v.pos, "symbol %s: hint %s is out of range (0 to %d)", n.text, v.text, maxDimSize)
			}
			p.f.hints[n.text], p.f.hintPos[n.text] = int(h), n.pos
			if !p.isOp(",") {
				break
			}
			p.next()
		}
	default:
		return p.errf(t.pos, "unknown gcdbg directive %q (want s0=4, param NAME TYPE, input NAME TYPE or requires_grad NAMES)", t.text)
	}
	if p.tok().kind != tNewline && p.tok().kind != tEOF {
		return p.errf(p.tok().pos, "unexpected %s at the end of the directive", p.tok())
	}
	return nil
}

// funcDef parses `def forward(self, params...) [-> T]:` and its body.
// Other functions (__init__ of a runnable repro) are skipped.
func (p *parser) funcDef(def token) (*function, error) {
	p.next()
	nt, err := p.expectName("a function name after 'def'")
	if err != nil {
		return nil, err
	}
	if nt.text != "forward" {
		if nt.text != "__init__" {
			return nil, p.errf(nt.pos, "only `def forward` is read, found `def %s`", nt.text)
		}
		p.skipLine()
		for t := p.tok(); t.kind != tEOF && (!t.bol || t.indent > def.indent || t.kind == tComment); t = p.tok() {
			p.next()
		}
		return nil, nil
	}
	fn := &function{p: nt.pos}
	if _, err := p.expectOp("(", "after `def forward`"); err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	for !p.isOp(")") {
		t := p.tok()
		if t.kind == tOp && (t.text == "*" || t.text == "**") {
			return nil, p.errf(t.pos, "%sargs parameters are not supported; list every input", t.text)
		}
		nm, err := p.expectName("a parameter name")
		if err != nil {
			return nil, err
		}
		if seen[nm.text] {
			return nil, p.errf(nm.pos, "parameter %q is listed twice", nm.text)
		}
		seen[nm.text] = true
		pr := param{p: nm.pos, name: nm.text}
		if p.isOp(":") {
			p.next()
			if pr.ann, err = p.annotation(); err != nil {
				return nil, err
			}
		}
		if p.isOp("=") { // a Python value input: scale: float = 0.5
			p.next()
			if pr.def, err = p.expr(); err != nil {
				return nil, err
			}
		}
		if !(len(fn.params) == 0 && nm.text == "self" && pr.ann == nil) {
			fn.params = append(fn.params, pr)
		}
		if !p.isOp(",") {
			break
		}
		p.next()
	}
	if _, err := p.expectOp(")", "to close the parameter list"); err != nil {
		return nil, err
	}
	if p.isOp("->") {
		p.next()
		if _, err := p.expr(); err != nil {
			return nil, err
		}
	}
	if _, err := p.expectOp(":", "after the parameter list"); err != nil {
		return nil, err
	}
	if p.tok().kind != tNewline { // def forward(self, x): return x
		if err := p.simpleStatements(fn); err != nil {
			return nil, err
		}
		return fn, nil
	}
	p.next()
	for {
		t := p.tok()
		if t.kind == tEOF {
			break
		}
		if t.kind == tNewline {
			p.next()
			continue
		}
		if t.kind == tComment {
			if err := p.comment(t); err != nil {
				return nil, err
			}
			p.next()
			continue
		}
		if t.indent <= def.indent {
			break
		}
		if err := p.simpleStatements(fn); err != nil {
			return nil, err
		}
	}
	if len(fn.body) == 0 || fn.body[len(fn.body)-1].kind != sReturn {
		return nil, p.errf(nt.pos, "def forward has no return statement at its end")
	}
	p.frame = nil
	return fn, nil
}

// simpleStatements parses one logical line: statements separated by ';'.
func (p *parser) simpleStatements(fn *function) error {
	for {
		if n := len(fn.body); n > 0 && fn.body[n-1].kind == sReturn {
			return p.errf(p.tok().pos, "statement after return")
		}
		s, err := p.statement()
		if err != nil {
			return err
		}
		if s != nil {
			s.frame = p.frame
			fn.body = append(fn.body, s)
		}
		if !p.isOp(";") {
			break
		}
		p.next()
		if p.tok().kind == tNewline || p.tok().kind == tEOF {
			break
		}
	}
	return p.endOfLine("a statement")
}

var augOps = map[string]string{"+=": "+", "-=": "-", "*=": "*", "/=": "/", "//=": "//", "%=": "%", "**=": "**", "@=": "@", "&=": "&", "|=": "|", "^=": "^"}

func (p *parser) statement() (*stmt, error) {
	t := p.tok()
	if t.kind == tName {
		switch t.text {
		case "return":
			p.next()
			s := &stmt{p: t.pos, kind: sReturn}
			if p.tok().kind != tNewline && p.tok().kind != tEOF && !p.isOp(";") {
				v, err := p.exprList()
				if err != nil {
					return nil, err
				}
				s.value = v
			}
			return s, nil
		case "pass":
			p.next()
			return nil, nil
		case "del":
			p.next()
			_, err := p.exprList()
			return nil, err
		case "if", "for", "while", "with", "try", "assert", "raise", "lambda", "global", "nonlocal", "yield", "async", "await", "class", "def":
			return nil, p.errf(t.pos, "`%s` is not part of the graph language (a graph is straight-line calls)", t.text)
		}
	}
	lhs, err := p.exprList()
	if err != nil {
		return nil, err
	}
	s := &stmt{p: t.pos, tpos: lhs.at()}
	if p.isOp(":") {
		n, ok := lhs.(*nameExpr)
		if !ok {
			return nil, p.errf(p.tok().pos, "only a plain name can be annotated")
		}
		p.next()
		if s.ann, err = p.annotation(); err != nil {
			return nil, err
		}
		if !p.isOp("=") {
			return nil, p.errf(p.tok().pos, "expected '=' after the annotation of %q, found %s", n.name, p.tok())
		}
	}
	if op, ok := augOps[p.tok().text]; ok && p.tok().kind == tOp {
		n, isName := lhs.(*nameExpr)
		if !isName {
			return nil, p.errf(p.tok().pos, "augmented assignment (%s) needs a plain name on its left", p.tok().text)
		}
		p.next()
		v, err := p.exprList()
		if err != nil {
			return nil, err
		}
		s.kind, s.op, s.targets, s.value = sAugAssign, op, [][]string{{n.name}}, v
		return s, nil
	}
	if !p.isOp("=") {
		s.kind, s.value = sExpr, lhs
		return s, nil
	}
	targets := []expr{lhs}
	var value expr
	for p.isOp("=") {
		p.next()
		v, err := p.exprList()
		if err != nil {
			return nil, err
		}
		targets = append(targets, v)
		value = v
	}
	targets = targets[:len(targets)-1]
	s.kind, s.value = sAssign, value
	for _, te := range targets {
		switch x := te.(type) {
		case *nameExpr:
			s.targets = append(s.targets, []string{x.name})
		case *seqExpr:
			var names []string
			for _, it := range x.items {
				n, ok := it.(*nameExpr)
				if !ok {
					return nil, p.errf(it.at(), "a tuple target may hold only names")
				}
				names = append(names, n.name)
			}
			if len(names) == 0 {
				return nil, p.errf(x.p, "empty assignment target")
			}
			s.targets = append(s.targets, names)
		case *indexExpr:
			if len(targets) != 1 || s.ann != nil {
				return nil, p.errf(x.p, "an item assignment (x[i] = v) must stand alone")
			}
			s.kind, s.item = sSetItem, x
		default:
			return nil, p.errf(te.at(), "cannot assign to this expression")
		}
	}
	return s, nil
}
