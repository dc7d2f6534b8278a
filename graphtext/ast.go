package graphtext

// The parser's output: a small syntax tree that build.go lowers to ir nodes.

type expr interface{ at() Pos }

type (
	nameExpr struct {
		p    Pos
		name string
	}
	attrExpr struct { // x.name
		p    Pos
		x    expr
		name string
	}
	callExpr struct {
		p      Pos
		fn     expr
		args   []expr
		kwargs []kwarg
	}
	numExpr struct { // int64 or float64
		p Pos
		v any
	}
	strExpr struct {
		p Pos
		s string
	}
	constExpr struct { // True, False, None, ...
		p Pos
		v any
	}
	seqExpr struct { // (a, b) or [a, b]
		p     Pos
		items []expr
		list  bool
	}
	binExpr struct {
		p    Pos
		op   string
		x, y expr
	}
	unaryExpr struct {
		p  Pos
		op string
		x  expr
	}
	indexExpr struct { // x[index]
		p     Pos
		x     expr
		index expr
	}
	sliceExpr struct { // lo:hi:step, only inside a subscript
		p            Pos
		lo, hi, step expr
	}
)

type kwarg struct {
	p     Pos
	name  string
	value expr
}

func (e *nameExpr) at() Pos  { return e.p }
func (e *attrExpr) at() Pos  { return e.p }
func (e *callExpr) at() Pos  { return e.p }
func (e *numExpr) at() Pos   { return e.p }
func (e *strExpr) at() Pos   { return e.p }
func (e *constExpr) at() Pos { return e.p }
func (e *seqExpr) at() Pos   { return e.p }
func (e *binExpr) at() Pos   { return e.p }
func (e *unaryExpr) at() Pos { return e.p }
func (e *indexExpr) at() Pos { return e.p }
func (e *sliceExpr) at() Pos { return e.p }

// annot is a type annotation: "f32[8, s0][s0, 1]cpu", "Sym(s0)",
// torch.Tensor (no shape) or an unquoted f32[8, 16].
type annot struct {
	p     Pos
	text  string // as written, for messages
	dtype string // short or long dtype name as written ("" when no tensor)
	dtPos Pos
	dims  []expr
	// strides is nil when the annotation gives none.
	strides []expr
	device  string
	sym     expr // Sym(expr)
	// other is true for an annotation that names a type without a shape
	// (torch.Tensor, int).
	other bool
}

// stmtKind is what a body statement does.
type stmtKind int

const (
	sAssign stmtKind = iota // targets = value
	sAugAssign
	sSetItem // x[i] = value
	sExpr    // a bare expression (a call with side effects, a docstring)
	sReturn
)

type stmt struct {
	p       Pos
	kind    stmtKind
	targets [][]string // each target is one name or a tuple of names
	tpos    Pos
	ann     *annot
	value   expr
	op      string // augmented assignment operator ("+")
	item    *indexExpr
	frame   *frameInfo // the `# File:` comment in force
}

type frameInfo struct {
	File, Func, Code string
	Line             int
}

type param struct {
	p    Pos
	name string
	ann  *annot
	def  expr // the value of a non-tensor input (scale: float = 0.5)
}

// function is one `def forward`.
type function struct {
	p      Pos
	class  string
	nested bool // a nested class's forward: a higher-order op's body, not a graph of its own
	params []param
	body   []*stmt
}

// attrDecl declares a `self.X` tensor: a class-level `X: "f32[...]"` line or
// a `# gcdbg: param X f32[...]` directive.
type attrDecl struct {
	p    Pos
	name string
	ann  *annot
}

// file is a parsed graph file.
type file struct {
	funcs   []*function
	attrs   []attrDecl
	inputs  []attrDecl // `# gcdbg: input x f32[...]` directives
	hints   map[string]int
	hintPos map[string]Pos
	grad    map[string]bool // `# gcdbg: requires_grad x, y`
	aliases map[string]string
}
