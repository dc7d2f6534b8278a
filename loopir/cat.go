package loopir

import (
	"fmt"
	"math"

	"gcdbg/ir"
	"gcdbg/tensor"
)

// cat and select_scatter compile to one Pointwise node each instead of an
// eager fallback: an RNN unrolled over time stacks its per-step states
// (stack is cat of unsqueezes) and its gradient reads each step back
// through select, whose derivative is select_scatter.

// maxCatInputs bounds the inputs one cat node loads: every output point
// loads each input once (at a clamped index; where keeps the right one), so
// a cat of k inputs costs k loads per element. A longer cat (an RNN's
// output stacked over more than 64 steps) is a tree of cats: groups of
// about sqrt(k) consecutive inputs each cat into an intermediate buffer,
// then those are cat (recursively while still over the bound), so every
// element is loaded about 2*sqrt(k) times and written twice.
const maxCatInputs = 64

// cat lowers cat(tensors, dim) over the output's shape:
//
//	out[..., j, ...] = where(j < e0, t0[..., j, ...], where(j < e1, t1[..., j - e0, ...], ... tk[..., j - e(k-1), ...]))
//
// e_i the running end offsets along dim; each index is clamped into its
// input's range through an indirect temporary (as sliceScatter does), so a
// point outside an input reads a valid element whose value where discards.
// Inputs of size 0 along dim (and PyTorch's legacy 1-D empty tensors) are
// skipped, as torch.cat skips them.
func (l *lowerer) cat(n *ir.Node, bound []ir.Arg) error {
	const op = "cat"
	m := n.Meta.Tensor
	var items []ir.Arg
	switch t := bound[0].(type) {
	case ir.List:
		items = t
	case ir.Tuple:
		items = t
	}
	if m == nil || len(m.Shape) == 0 || len(items) == 0 {
		return l.fallback(n, op, ir.KindOther)
	}
	rank := len(m.Shape)
	dim, err := dimArg2(bound[1], rank)
	if err != nil {
		return fmt.Errorf("args[1]: %w", err)
	}
	out := l.sizesOf(m.Shape)
	total, ok := out[dim].(Const)
	if !ok {
		return l.fallback(n, op, ir.KindOther) // a symbolic size along dim
	}
	var parts []catPart
	off := int64(0)
	for _, it := range items {
		v, _, err := l.value(it)
		if err != nil || v == nil {
			return l.fallback(n, op, ir.KindOther)
		}
		if len(v.Sizes) == 1 && rank != 1 && v.Sizes[0].String() == "0" {
			continue // a legacy empty tensor: torch.cat skips it
		}
		if len(v.Sizes) != rank {
			return l.fallback(n, op, ir.KindOther)
		}
		s, ok := v.Sizes[dim].(Const)
		if !ok {
			return l.fallback(n, op, ir.KindOther)
		}
		if s.V == 0 {
			continue
		}
		parts = append(parts, catPart{v, off, s.V})
		off += s.V
	}
	if off != total.V {
		return fmt.Errorf("args[0]: the inputs have %d elements along dim %d, the result %d", off, dim, total.V)
	}
	if len(parts) == 0 {
		return l.fallback(n, op, ir.KindOther)
	}
	for len(parts) > maxCatInputs {
		if parts, err = l.catGroups(n, parts, out, dim, m.DType); err != nil {
			return err
		}
	}
	vars := loopVars(out, "x")
	b, t, err := l.catBody(parts, vars, dim, total.V, m.DType)
	if err != nil {
		return err
	}
	if err := l.finishPointwise(n, b, vars, out, t); err != nil {
		return err
	}
	setCatCopy(l.p.Nodes[len(l.p.Nodes)-1], parts, vars, dim)
	return nil
}

// setCatCopy records on c, a cat's node, the copies it is (cat_copy.go).
func setCatCopy(c *Node, parts []catPart, vars []Expr, dim int) {
	for _, s := range c.Body {
		if s.Op == "store" {
			c.Cat = catCopy(parts, vars, c.Ranges, dim, s.Index)
		}
	}
}

// catPart is one input of a cat: its view, where it starts along dim and
// its size there.
type catPart struct {
	v     *View
	start int64
	size  int64
}

// catGroups cats each run of about sqrt(len(parts)) consecutive parts into
// an intermediate buffer of m's dtype (one pointwise node each, origin n)
// and returns those buffers as the parts of the level above.
func (l *lowerer) catGroups(n *ir.Node, parts []catPart, out []Expr, dim int, dt tensor.DType) ([]catPart, error) {
	g := int(math.Ceil(math.Sqrt(float64(len(parts)))))
	if g > maxCatInputs {
		g = maxCatInputs
	}
	var up []catPart
	for i := 0; i < len(parts); i += g {
		grp := parts[i:min(i+g, len(parts))]
		first, last := grp[0], grp[len(grp)-1]
		size := last.start + last.size - first.start
		shape := append(ir.Shape{}, n.Meta.Tensor.Shape...)
		shape[dim] = ir.Dim{Size: int(size)}
		sizes := append([]Expr{}, out...)
		sizes[dim] = C(size)
		local := make([]catPart, len(grp))
		for j, p := range grp {
			local[j] = catPart{p.v, p.start - first.start, p.size}
		}
		vars := loopVars(sizes, "x")
		b, t, err := l.catBody(local, vars, dim, size, dt)
		if err != nil {
			return nil, err
		}
		v := l.newBuffer("", Intermediate, &ir.TensorMeta{DType: dt, Shape: shape}, n.Name)
		b.store(v, vars, b.cast(t, dt))
		l.p.Nodes = append(l.p.Nodes, b.node(v, Pointwise, sizes, nil, n.Name))
		setCatCopy(l.p.Nodes[len(l.p.Nodes)-1], local, vars, dim)
		up = append(up, catPart{v, first.start, size})
	}
	return up, nil
}

// catBody is the loop body of a cat of parts (at most maxCatInputs) over
// vars, total long along dim: its body and the temporary holding the value.
func (l *lowerer) catBody(parts []catPart, vars []Expr, dim int, total int64, dt tensor.DType) (*body, string, error) {
	b := newBody(l)
	i64 := tensor.Int64
	load := func(p catPart) (string, error) {
		si := append([]Expr{}, vars...)
		if len(parts) > 1 {
			idx := b.emit(Stmt{Op: "index_expr", Index: Sub(vars[dim], C(p.start)), DType: i64})
			var err error
			if p.start > 0 {
				if idx, err = b.op("maximum", idx, b.constant(0, i64)); err != nil {
					return "", err
				}
			}
			if p.start+p.size < total {
				if idx, err = b.op("minimum", idx, b.constant(float64(p.size-1), i64)); err != nil {
					return "", err
				}
			}
			si[dim] = Indirect{Tmp: idx}
		}
		return b.cast(b.loadAt(p.v.Buffer, p.v.DType, p.v.Index(si)), dt), nil
	}
	t, err := load(parts[len(parts)-1])
	if err != nil {
		return nil, "", err
	}
	if len(parts) > 1 {
		j := b.emit(Stmt{Op: "index_expr", Index: vars[dim], DType: i64})
		for i := len(parts) - 2; i >= 0; i-- {
			v, err := load(parts[i])
			if err != nil {
				return nil, "", err
			}
			in, err := b.op("lt", j, b.constant(float64(parts[i].start+parts[i].size), i64))
			if err != nil {
				return nil, "", err
			}
			if t, err = b.op("where", in, v, t); err != nil {
				return nil, "", err
			}
		}
	}
	return b, t, nil
}

// selectScatter lowers select_scatter(self, src, dim, index), src having
// self's shape without dim:
//
//	out[..., j, ...] = where(j == index, src[..., ...], self[..., j, ...])
func (l *lowerer) selectScatter(n *ir.Node, bound []ir.Arg) error {
	const op = "select_scatter"
	self, _, err := l.value(bound[0])
	src, _, err2 := l.value(bound[1])
	m := n.Meta.Tensor
	if err != nil || err2 != nil || self == nil || src == nil || m == nil || len(m.Shape) == 0 || len(src.Sizes) != len(m.Shape)-1 {
		return l.fallback(n, op, ir.KindIndex)
	}
	rank := len(m.Shape)
	dim, err := dimArg2(bound[2], rank)
	if err != nil {
		return fmt.Errorf("args[2]: %w", err)
	}
	out := l.sizesOf(m.Shape)
	size, ok := out[dim].(Const)
	index, ok2 := bound[3].(int64)
	if !ok || !ok2 {
		return l.fallback(n, op, ir.KindIndex) // a symbolic size or index
	}
	if index < 0 {
		index += size.V
	}
	if index < 0 || index >= size.V {
		return fmt.Errorf("args[3]: select_scatter index %v out of range for size %d at dim %d", bound[3], size.V, dim)
	}
	vars := loopVars(out, "x")
	b := newBody(l)
	selfV := b.cast(b.load(self, vars), m.DType)
	si := append(append([]Expr{}, vars[:dim]...), vars[dim+1:]...)
	srcV := b.cast(b.loadAt(src.Buffer, src.DType, src.Index(si)), m.DType)
	if size.V == 1 {
		return l.finishPointwise(n, b, vars, out, srcV)
	}
	j := b.emit(Stmt{Op: "index_expr", Index: vars[dim], DType: tensor.Int64})
	hit, err := b.op("eq", j, b.constant(float64(index), tensor.Int64))
	if err != nil {
		return err
	}
	t, err := b.op("where", hit, srcV, selfV)
	if err != nil {
		return err
	}
	return l.finishPointwise(n, b, vars, out, t)
}
