package loopir

import (
	"fmt"
	"strings"

	"gcdbg/ir"
	"gcdbg/tensor"
)

// View is a tensor value as the lowering sees it: a buffer read through a
// strided layout (sizes, strides and offset, possibly symbolic). Views,
// transposes, broadcasts and expands only make new Views; the loads that
// read through them get the composed index expression.
type View struct {
	Buffer  string
	DType   tensor.DType
	Sizes   []Expr
	Strides []Expr
	Offset  Expr
}

// Index is the flat buffer index of the element at idx (one expression per
// dimension of the view).
func (v *View) Index(idx []Expr) Expr {
	parts := []Expr{v.Offset}
	for i, x := range idx {
		parts = append(parts, Mul(x, v.Strides[i]))
	}
	return Add(parts...)
}

// contiguous reports whether v covers its whole buffer row-major.
func (v *View) contiguous(b *Buffer) bool {
	if v.Offset.String() != "0" || len(v.Sizes) != len(b.Sizes) {
		return false
	}
	for i := range v.Sizes {
		if v.Sizes[i].String() != b.Sizes[i].String() {
			return false
		}
		if v.Sizes[i].String() != "1" && v.Strides[i].String() != b.Strides[i].String() {
			return false
		}
	}
	return true
}

// KernelCount is the number of kernels before fusion: every node (views
// make none).
func (p *Program) KernelCount() int { return len(p.Nodes) }

type lowerer struct {
	g       *ir.Graph
	p       *Program
	hints   map[string]int64 // symbol -> example size (orders symbolic sizes in view)
	parsed  map[string]Expr  // a dim's symbolic text -> its expression
	err     error            // the first size that did not parse (sizesOf)
	scalars map[*ir.Node]ir.Arg
	tuples  map[*ir.Node][]*View
	nbuf    int
}

// Lower turns a decomposed graph (core ops) into the loop IR.
func Lower(g *ir.Graph) (*Program, error) {
	if g == nil {
		return nil, fmt.Errorf("loopir: no graph")
	}
	if err := g.Validate(); err != nil {
		return nil, err
	}
	l := &lowerer{g: g, hints: map[string]int64{}, parsed: map[string]Expr{}, scalars: map[*ir.Node]ir.Arg{}, tuples: map[*ir.Node][]*View{},
		p: &Program{Graph: g, Buffers: map[string]*Buffer{}, Values: map[string]*View{}}}
	nin := 0
	for _, n := range g.Nodes {
		var err error
		switch n.Op {
		case ir.Placeholder:
			if n.Meta.Tensor == nil {
				l.scalars[n] = n.Meta.Value
				continue
			}
			err = l.source(n, fmt.Sprintf("arg%d_1", nin), Input)
			nin++
		case ir.GetAttr:
			err = l.source(n, sanitize(n.Target), Constant)
		case ir.CallFunction:
			err = l.call(n)
		case ir.Output:
			err = l.outputs()
		default:
			err = fmt.Errorf("op: %s nodes have no loop IR form (lower the decomposed graph)", n.Op)
		}
		if err == nil && l.err != nil {
			err = l.err
		}
		if err != nil {
			return nil, fmt.Errorf("graph %q: node %q: %w", g.Name, n.Name, err)
		}
	}
	return l.p, nil
}

func sanitize(s string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' {
			return r
		}
		return '_'
	}, s)
}

// sizesOf turns a meta shape into size expressions: a symbolic dim's text
// (s0, 8*s0, 2*s0 + 1) is parsed into a polynomial in the symbols, so the
// ranges, strides and indices built from it are too. A size that does not
// parse is recorded in l.err (Lower reports it with the node) and stands
// as its example value meanwhile.
func (l *lowerer) sizesOf(sh ir.Shape) []Expr {
	out := make([]Expr, len(sh))
	for i, d := range sh {
		out[i] = C(int64(d.Size))
		if d.Sym == "" {
			continue
		}
		e, ok := l.parsed[d.Sym]
		if !ok {
			var err error
			if e, err = ParseSize(d.Sym); err != nil {
				if l.err == nil {
					l.err = fmt.Errorf("meta: dim %d: %w", i, err)
				}
				continue
			}
			l.parsed[d.Sym] = e
		}
		out[i] = e
		// The symbol's example value orders sizes in view (viewStrides):
		// s0 from a dim s0 = 5, and as well from a dim 8*s0 = 40.
		if sym, v, ok := SymHint(e, int64(d.Size)); ok {
			l.hints[sym] = v
		}
	}
	return out
}

func contiguousStrides(sizes []Expr) []Expr {
	st := make([]Expr, len(sizes))
	acc := C(1)
	for i := len(sizes) - 1; i >= 0; i-- {
		st[i] = acc
		acc = Mul(acc, sizes[i])
	}
	return st
}

// newBuffer adds a dense row-major buffer for an ir node's value.
func (l *lowerer) newBuffer(name string, kind BufferKind, m *ir.TensorMeta, node string) *View {
	if name == "" {
		name = fmt.Sprintf("buf%d", l.nbuf)
		l.nbuf++
	}
	for l.p.Buffers[name] != nil { // a parameter named like a buffer
		name += "_"
	}
	sizes := l.sizesOf(m.Shape)
	b := &Buffer{Name: name, Kind: kind, DType: m.DType, Sizes: sizes, Strides: contiguousStrides(sizes), Node: node}
	l.p.Buffers[name] = b
	l.p.Order = append(l.p.Order, name)
	return &View{Buffer: name, DType: m.DType, Sizes: sizes, Strides: b.Strides, Offset: C(0)}
}

func (l *lowerer) source(n *ir.Node, name string, kind BufferKind) error {
	if n.Meta.Tensor == nil {
		return fmt.Errorf("meta: %s %q has no tensor metadata", n.Op, n.Target)
	}
	l.p.Values[n.Name] = l.newBuffer(name, kind, n.Meta.Tensor, n.Name)
	return nil
}

// value resolves an argument: a tensor node's View, a Python value, or nil.
func (l *lowerer) value(a ir.Arg) (*View, ir.Arg, error) {
	n, ok := a.(*ir.Node)
	if !ok {
		return nil, a, nil
	}
	if v := l.p.Values[n.Name]; v != nil {
		return v, nil, nil
	}
	if s, ok := l.scalars[n]; ok {
		return nil, s, nil
	}
	return nil, nil, fmt.Errorf("argument %q has no tensor value (tuple or non-tensor result)", n.Name)
}

var viewOps = map[string]bool{"view": true, "permute": true, "expand": true, "slice": true, "select": true,
	"unsqueeze": true, "squeeze": true, "alias": true, "detach": true}

var reductionOps = map[string]bool{"sum": true, "prod": true, "amax": true, "amin": true, "argmax": true, "argmin": true}

// externOps are generated library calls. sort and topk are among them
// (generated C, render/sort.go): a tuple-valued extern writes one buffer
// per result and getitem picks them, as for a fallback.
var externOps = map[string]bool{"mm": true, "bmm": true, "conv2d": true, "sort": true, "topk": true,
	"cumsum": true, "cumprod": true, "logcumsumexp": true, // a linear scan per row (render/scan.go)
	"cummax": true, "cummin": true} // values and indices, a linear scan per row (render/cummax.go)

func (l *lowerer) call(n *ir.Node) error {
	d := ir.Lookup(n.Target)
	if d == nil {
		return fmt.Errorf("target: %q is not a canonical op", n.Target)
	}
	bound, err := d.Schema.Bind(n.Args, n.Kwargs)
	if err != nil {
		return err
	}
	op := strings.TrimPrefix(n.Target, "aten.")
	if op == "getitem" {
		if items, ok := l.tuples[asNode(bound[0])]; ok {
			i, isInt := bound[1].(int64)
			if !isInt || i < 0 || int(i) >= len(items) {
				return fmt.Errorf("args[1]: getitem index %v out of range for a %d-tuple", bound[1], len(items))
			}
			l.p.Values[n.Name] = items[i]
			return nil
		}
	}
	m := n.Meta.Tensor
	if m == nil && len(n.Meta.Items) == 0 {
		return fmt.Errorf("meta: %s has no tensor result; the loop IR needs tensor values", n.Target)
	}
	switch {
	case m == nil && !externOps[op]:
		return l.fallback(n, op, d.Kind)
	case viewOps[op] && l.view(n, op, bound) == nil:
		return nil
	case d.Kind == ir.KindPointwise || op == "full" || op == "arange" || op == "scalar_tensor":
		if err := l.pointwise(n, op, bound); err != errUnsupported {
			return err
		}
	case op == "gather" || op == "index_select":
		return l.gather(n, op, bound)
	case op == "slice_scatter":
		return l.sliceScatter(n, bound) // scatter.go
	case op == "scatter_add":
		return l.scatterAdd(n, bound)
	case op == "scatter":
		return l.scatterOverwrite(n, bound) // scatter.go
	case op == "scatter_reduce":
		return l.scatterReduce(n, bound) // scatter_reduce.go
	case op == "cat":
		return l.cat(n, bound) // cat.go
	case op == "select_scatter":
		return l.selectScatter(n, bound) // cat.go
	case reductionOps[op]:
		return l.reduction(n, op, bound)
	case externOps[op] && !narrowFloatNode(n):
		return l.extern(n, op, Extern)
	case convPoolExtern(op, bound):
		return l.extern(n, op, Extern) // convpool.go
	}
	return l.fallback(n, op, d.Kind)
}

var errUnsupported = fmt.Errorf("no loop form")

func asNode(a ir.Arg) *ir.Node {
	n, _ := a.(*ir.Node)
	return n
}

// extern adds a library call (or an eager fallback): whole-buffer reads
// (StarIndex), one contiguous write per result.
func (l *lowerer) extern(n *ir.Node, op string, kind NodeKind) error {
	node := &Node{Kind: kind, Op: op, IRNode: n.Name, Origins: []string{n.Name}}
	seen := map[string]bool{}
	var bad error
	n.EachInput(func(in *ir.Node) {
		if v := l.p.Values[in.Name]; v != nil && !seen[v.Buffer] {
			seen[v.Buffer] = true
			node.Reads = append(node.Reads, Dep{Buffer: v.Buffer, Index: StarIndex})
		} else if _, sc := l.scalars[in]; v == nil && !sc && bad == nil {
			bad = fmt.Errorf("args: %q has no value the loop IR can pass", in.Name)
		}
	})
	if bad != nil {
		return bad
	}
	metas := n.Meta.Items
	if n.Meta.Tensor != nil {
		metas = []*ir.TensorMeta{n.Meta.Tensor}
	}
	var views []*View
	for _, m := range metas {
		if m == nil {
			return fmt.Errorf("meta: a result of %s is not a tensor", op)
		}
		v := l.newBuffer("", Intermediate, m, n.Name)
		views = append(views, v)
		b := l.p.Buffers[v.Buffer]
		node.Writes = append(node.Writes, Dep{Buffer: v.Buffer, Index: contiguousIndex(b.Sizes, "x")})
		if node.Name == "" {
			node.Name = v.Buffer
			node.Ranges = b.Sizes
		}
	}
	if n.Meta.Tensor != nil {
		l.p.Values[n.Name] = views[0]
	} else {
		l.tuples[n] = views
	}
	l.p.Nodes = append(l.p.Nodes, node)
	return nil
}

func (l *lowerer) fallback(n *ir.Node, op string, _ ir.Kind) error {
	return l.extern(n, op, Fallback)
}

// loopVars makes one loop variable per dimension (prefix x or r); a
// dimension of static size 1 has the constant index 0 instead.
func loopVars(sizes []Expr, prefix string) []Expr {
	vs := make([]Expr, len(sizes))
	for i, s := range sizes {
		if c, ok := s.(Const); ok && c.V == 1 {
			vs[i] = C(0)
		} else {
			vs[i] = V(fmt.Sprintf("%s%d", prefix, i), s)
		}
	}
	return vs
}

// contiguousIndex is the row-major index over sizes with fresh variables.
func contiguousIndex(sizes []Expr, prefix string) Expr {
	st := contiguousStrides(sizes)
	vs := loopVars(sizes, prefix)
	parts := make([]Expr, len(vs))
	for i := range vs {
		parts[i] = Mul(vs[i], st[i])
	}
	return Add(parts...)
}

func (l *lowerer) outputs() error {
	for i, a := range l.g.Outputs() {
		v, _, err := l.value(a)
		if err != nil || v == nil {
			return fmt.Errorf("args[0][%d]: output is not a tensor the loop IR computes", i)
		}
		b := l.p.Buffers[v.Buffer]
		// An output must be a buffer of its own: a view of an input or a
		// constant, or any non-dense view, gets a copy.
		if b.Kind == Input || b.Kind == Constant || !v.contiguous(b) {
			n := a.(*ir.Node)
			nv, err := l.copyNode(n, v)
			if err != nil {
				return err
			}
			v, b = nv, l.p.Buffers[nv.Buffer]
		}
		b.Kind = Output
		l.p.Outputs = append(l.p.Outputs, b.Name)
	}
	return nil
}

// copyNode adds a pointwise clone of v (an output that would otherwise
// alias an input, a constant or part of a buffer).
func (l *lowerer) copyNode(n *ir.Node, v *View) (*View, error) {
	m := &ir.TensorMeta{DType: v.DType, Shape: n.Meta.Tensor.Shape}
	out := l.newBuffer("", Intermediate, m, n.Name)
	b := newBody(l)
	vars := loopVars(out.Sizes, "x")
	t := b.load(v, vars)
	b.store(out, vars, t)
	l.p.Nodes = append(l.p.Nodes, b.node(out, Pointwise, out.Sizes, nil, n.Name))
	return out, nil
}
