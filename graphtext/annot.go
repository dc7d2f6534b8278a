package graphtext

import (
	"fmt"
	"math"
	"strings"

	"gcdbg/ir"
	"gcdbg/tensor"
)

const (
	// maxDimSize bounds one size or stride; maxNumel a shape's element count.
	maxDimSize = 1 << 40
	maxNumel   = int64(1) << 40
	maxRank    = 64
	// defaultHint is the size a symbol (s0) takes without a `# gcdbg: s0=N`.
	defaultHint = 8
)

// annotation parses a type annotation at the current token: a string
// ("f32[8, 16][16, 1]cpu", "Sym(s0)") lexed again at its own position, or
// the unquoted forms older PyTorch printed (f32[s0, s1]) and torch.Tensor.
func (p *parser) annotation() (*annot, error) {
	t := p.tok()
	if t.kind == tString {
		p.next()
		toks, err := lex(p.file, t.text, Pos{t.pos.Line, t.pos.Col + 1})
		if err != nil {
			return nil, err
		}
		sub := &parser{file: p.file, toks: toks, f: p.f}
		a, err := sub.annotBody(t.text, t.pos)
		if err != nil {
			return nil, err
		}
		if sub.tok().kind == tNewline {
			sub.next()
		}
		if sub.tok().kind != tEOF {
			return nil, p.errf(sub.tok().pos, "unexpected %s in annotation %q", sub.tok(), t.text)
		}
		return a, nil
	}
	i0 := p.i
	a, err := p.annotBody("", t.pos)
	if err != nil {
		return nil, err
	}
	var b strings.Builder
	for _, tk := range p.toks[i0:p.i] {
		b.WriteString(tk.text)
		if tk.kind == tOp && tk.text == "," {
			b.WriteByte(' ')
		}
	}
	a.text = b.String()
	return a, nil
}

func (p *parser) annotBody(text string, at Pos) (*annot, error) {
	t := p.tok()
	if t.kind != tName {
		return nil, p.errf(t.pos, "expected a type annotation such as \"f32[8, 16]\", found %s", t)
	}
	p.next()
	a := &annot{p: at, text: text, dtPos: t.pos}
	if t.text == "Sym" && p.isOp("(") {
		p.next()
		e, err := p.expr()
		if err != nil {
			return nil, err
		}
		if _, err := p.expectOp(")", "to close Sym("); err != nil {
			return nil, err
		}
		a.sym = e
		return a, nil
	}
	if !p.isOp("[") {
		// A type without a shape: torch.Tensor, int, torch.SymInt.
		for p.isOp(".") {
			p.next()
			if _, err := p.expectName("a type name"); err != nil {
				return nil, err
			}
		}
		a.other = true
		return a, nil
	}
	a.dtype = t.text
	p.next()
	dims, err := p.dimList()
	if err != nil {
		return nil, err
	}
	a.dims = dims
	if p.isOp("[") {
		p.next()
		if a.strides, err = p.dimList(); err != nil {
			return nil, err
		}
		if a.strides == nil {
			a.strides = []expr{}
		}
	}
	if p.tok().kind == tName { // the device: cpu, cuda:0
		a.device = p.next().text
		if p.isOp(":") && p.peekAt(1).kind == tInt {
			p.next()
			a.device += ":" + p.next().text
		}
	}
	return a, nil
}

// dimList parses sizes up to and including ']'.
func (p *parser) dimList() ([]expr, error) {
	var out []expr
	for !p.isOp("]") {
		e, err := p.expr()
		if err != nil {
			return nil, err
		}
		out = append(out, e)
		if len(out) > maxRank {
			return nil, p.errf(e.at(), "more than %d dimensions", maxRank)
		}
		if !p.isOp(",") {
			break
		}
		p.next()
	}
	_, err := p.expectOp("]", "to close the sizes")
	return out, err
}

// parseDType accepts PyTorch's short names (f32, i64, b8, ...) and the long ones.
func parseDType(s string) (tensor.DType, bool) {
	for d := tensor.DType(1); d <= tensor.Float64; d++ {
		if d.Short() == s {
			return d, true
		}
	}
	return tensor.ParseDType(s)
}

// dimEnv evaluates size expressions: ints, symbols (their hint), + - * //
// %, and Max/Min/CeilDiv/FloorDiv as sympy prints them.
type dimEnv struct {
	file  string
	hints map[string]int
}

func (d *dimEnv) errf(at Pos, format string, a ...any) error {
	return &Error{File: d.file, Pos: at, Msg: fmt.Sprintf(format, a...)}
}

func (d *dimEnv) eval(e expr, depth int) (int64, error) {
	if depth > maxDepth {
		return 0, d.errf(e.at(), "size expression nested too deeply")
	}
	switch x := e.(type) {
	case *numExpr:
		if v, ok := x.v.(int64); ok {
			return v, nil
		}
		return 0, d.errf(x.p, "a size must be an int, found %v", x.v)
	case *nameExpr:
		if h, ok := d.hints[x.name]; ok {
			return int64(h), nil
		}
		return defaultHint, nil
	case *unaryExpr:
		v, err := d.eval(x.x, depth+1)
		if err != nil {
			return 0, err
		}
		if x.op == "-" {
			return -v, nil
		}
		if x.op == "+" {
			return v, nil
		}
	case *binExpr:
		a, err := d.eval(x.x, depth+1)
		if err != nil {
			return 0, err
		}
		b, err := d.eval(x.y, depth+1)
		if err != nil {
			return 0, err
		}
		return d.arith(x.p, x.op, a, b)
	case *callExpr:
		fn, ok := x.fn.(*nameExpr)
		if ok && len(x.args) == 2 && len(x.kwargs) == 0 {
			a, err := d.eval(x.args[0], depth+1)
			if err != nil {
				return 0, err
			}
			b, err := d.eval(x.args[1], depth+1)
			if err != nil {
				return 0, err
			}
			switch fn.name {
			case "Max":
				return max(a, b), nil
			case "Min":
				return min(a, b), nil
			case "FloorDiv":
				return d.arith(x.p, "//", a, b)
			case "CeilDiv":
				q, err := d.arith(x.p, "//", a+b-1, b)
				return q, err
			}
		}
	}
	return 0, d.errf(e.at(), "unsupported size expression (want ints, symbols, + - * // %% and Max/Min/CeilDiv/FloorDiv)")
}

func (d *dimEnv) arith(at Pos, op string, a, b int64) (int64, error) {
	const lim = int64(1) << 50 // operands stay far from overflow
	if a > lim || a < -lim || b > lim || b < -lim {
		return 0, d.errf(at, "size arithmetic out of range")
	}
	switch op {
	case "+":
		return a + b, nil
	case "-":
		return a - b, nil
	case "*":
		if a != 0 && (b > lim/abs(a) || b < -lim/abs(a)) {
			return 0, d.errf(at, "size arithmetic out of range")
		}
		return a * b, nil
	case "//", "%":
		if b == 0 {
			return 0, d.errf(at, "division by zero in a size")
		}
		q := int64(math.Floor(float64(a) / float64(b)))
		if op == "//" {
			return q, nil
		}
		return a - q*b, nil
	}
	return 0, d.errf(at, "operator %q is not allowed in a size", op)
}

func abs(a int64) int64 {
	if a < 0 {
		return -a
	}
	return a
}

// tensorMeta turns a tensor annotation into metadata, symbols at their
// hints. It returns nil for annotations that carry no tensor (Sym, torch.Tensor).
func (d *dimEnv) tensorMeta(a *annot) (*ir.TensorMeta, error) {
	if a == nil || a.other || a.sym != nil {
		return nil, nil
	}
	dt, ok := parseDType(a.dtype)
	if !ok {
		return nil, d.errf(a.dtPos, "unknown dtype %q in annotation %q (want f32, f64, f16, bf16, i64, i32, i8, u8 or b8)", a.dtype, a.text)
	}
	sizes := make([]int, len(a.dims))
	numel := int64(1)
	for i, e := range a.dims {
		v, err := d.eval(e, 0)
		if err != nil {
			return nil, err
		}
		if v < 0 || v > maxDimSize {
			return nil, d.errf(e.at(), "size %d of dimension %d is out of range in annotation %q", v, i, a.text)
		}
		if v > 0 && numel > maxNumel/v {
			return nil, d.errf(e.at(), "annotation %q has more than %d elements", a.text, maxNumel)
		}
		numel *= v
		sizes[i] = int(v)
	}
	m := &ir.TensorMeta{DType: dt, Shape: ir.ShapeOf(sizes)}
	if a.strides != nil {
		if len(a.strides) != len(a.dims) {
			return nil, d.errf(a.dtPos, "annotation %q gives %d strides for %d dimensions", a.text, len(a.strides), len(a.dims))
		}
		m.Stride = make([]int, len(a.strides))
		for i, e := range a.strides {
			v, err := d.eval(e, 0)
			if err != nil {
				return nil, err
			}
			if v < 0 || v > maxDimSize {
				return nil, d.errf(e.at(), "stride %d is out of range in annotation %q", v, a.text)
			}
			m.Stride[i] = int(v)
		}
	}
	return m, nil
}
