package loopir

import (
	"fmt"
	"math"

	"gcdbg/ir"
	"gcdbg/tensor"
)

// Scatters that graphs captured by PyTorch 2 bring (functionalization
// writes x[:, a:b] = v as slice_scatter; gather's gradient is scatter_add)
// compile to one Pointwise node each instead of an eager fallback.

// sliceScatter lowers slice_scatter(self, src, dim, start, end, step): a
// Pointwise node over self's shape computing
//
//	rel = x_dim - start
//	out = where(0 <= rel < end-start && rel % step == 0, src[..., rel // step, ...], self)
//
// The src index is clamped into [0, src.size(dim)) through an indirect
// temporary, so points outside the slice read a valid element whose value
// where discards (Inductor masks the load instead). Shapes it cannot read
// statically fall back.
func (l *lowerer) sliceScatter(n *ir.Node, bound []ir.Arg) error {
	const op = "slice_scatter"
	self, _, err := l.value(bound[0])
	src, _, err2 := l.value(bound[1])
	m := n.Meta.Tensor
	if err != nil || err2 != nil || self == nil || src == nil || m == nil || len(m.Shape) == 0 || len(src.Sizes) != len(m.Shape) {
		return l.fallback(n, op, ir.KindIndex)
	}
	rank := len(m.Shape)
	dim, err := dimArg2(bound[2], rank)
	if err != nil {
		return fmt.Errorf("args[2]: %w", err)
	}
	out := l.sizesOf(m.Shape)
	size, ok := out[dim].(Const)
	nsrc, ok2 := src.Sizes[dim].(Const)
	if !ok || !ok2 {
		return l.fallback(n, op, ir.KindIndex) // a symbolic size along dim
	}
	start, end, step, ok := sliceBounds(bound[3], bound[4], bound[5], size.V)
	if !ok {
		return l.fallback(n, op, ir.KindIndex)
	}
	if want := (end - start + step - 1) / step; max(want, 0) != nsrc.V {
		return fmt.Errorf("args[1]: src has %d elements along dim %d, the slice [%d:%d:%d] of %d has %d", nsrc.V, dim, start, end, step, size.V, want)
	}
	vars := loopVars(out, "x")
	b := newBody(l)
	selfV := b.cast(b.load(self, vars), m.DType)
	if nsrc.V == 0 { // nothing is written: a copy of self
		return l.finishPointwise(n, b, vars, out, selfV)
	}
	i64 := tensor.Int64
	rel := b.emit(Stmt{Op: "index_expr", Index: Sub(vars[dim], C(start)), DType: i64})
	ge, err := b.op("ge", rel, b.constant(0, i64))
	if err != nil {
		return err
	}
	lt, err := b.op("lt", rel, b.constant(float64(end-start), i64))
	if err != nil {
		return err
	}
	mask, err := b.op("logical_and", ge, lt)
	if err != nil {
		return err
	}
	idx := rel
	if step != 1 {
		rem, err := b.op("remainder", rel, b.constant(float64(step), i64))
		if err != nil {
			return err
		}
		onStep, err := b.op("eq", rem, b.constant(0, i64))
		if err != nil {
			return err
		}
		if mask, err = b.op("logical_and", mask, onStep); err != nil {
			return err
		}
		if idx, err = b.op("floor_divide", rel, b.constant(float64(step), i64)); err != nil {
			return err
		}
	}
	if idx, err = b.op("maximum", idx, b.constant(0, i64)); err != nil {
		return err
	}
	if idx, err = b.op("minimum", idx, b.constant(float64(nsrc.V-1), i64)); err != nil {
		return err
	}
	si := append([]Expr{}, vars...)
	si[dim] = Indirect{Tmp: idx}
	srcV := b.cast(b.loadAt(src.Buffer, src.DType, src.Index(si)), m.DType)
	t, err := b.op("where", mask, srcV, selfV)
	if err != nil {
		return err
	}
	return l.finishPointwise(n, b, vars, out, t)
}

// sliceBounds normalizes slice_scatter's start/end/step as PyTorch's slice
// does: None is 0 / size, negatives count from the end, both are clamped
// to [0, size]. ok is false for a non-int or a step below 1.
func sliceBounds(s, e, st ir.Arg, size int64) (start, end, step int64, ok bool) {
	get := func(a ir.Arg, def int64) (int64, bool) {
		switch v := a.(type) {
		case nil:
			return def, true
		case int64:
			return v, true
		}
		return 0, false
	}
	var ok1, ok2, ok3 bool
	start, ok1 = get(s, 0)
	end, ok2 = get(e, size)
	step, ok3 = get(st, 1)
	if !ok1 || !ok2 || !ok3 || step < 1 {
		return 0, 0, 0, false
	}
	norm := func(v int64) int64 {
		if v < 0 {
			v += size
		}
		return min(max(v, 0), size)
	}
	start, end = norm(start), norm(end)
	if end < start {
		end = start
	}
	return start, end, step, true
}

// maxScatterAddIndex bounds the index length along dim that scatter_add
// compiles as a reduction: each output point loops over it, so a longer
// index (an embedding's gradient over a whole batch) is an extern call
// instead (render/scatter_extern.go).
const maxScatterAddIndex = 16

// scatterAdd lowers scatter_add(self, dim, index, src) when index has
// self's sizes except along dim, where it is short (k ≤ 16 entries, as
// gather's gradient for a cross-entropy target has 1): a reduction node
// over self's shape with reduction range k,
//
//	out[..., j, ...] = self[..., j, ...] + Σ_r where(index[..., r, ...] == j, src[..., r, ...], 0)
//
// which adds duplicates like PyTorch, in index order, without atomics.
func (l *lowerer) scatterAdd(n *ir.Node, bound []ir.Arg) error {
	const op = "scatter_add"
	self, _, err := l.value(bound[0])
	index, _, err2 := l.value(bound[2])
	src, _, err3 := l.value(bound[3])
	m := n.Meta.Tensor
	if err != nil || err2 != nil || err3 != nil || self == nil || index == nil || src == nil || m == nil ||
		index.DType.IsFloat() || len(m.Shape) == 0 || len(index.Sizes) != len(m.Shape) || len(src.Sizes) != len(m.Shape) {
		return l.fallback(n, op, ir.KindIndex)
	}
	dim, out, fits, err := l.scatterDim(n, bound, index)
	if err != nil || !fits {
		return l.fallbackUnless(err, n, op)
	}
	k, ok := index.Sizes[dim].(Const)
	if !ok || k.V < 1 || k.V > maxScatterAddIndex {
		// A long index (an embedding's gradient): generated C that adds
		// each src element into its row (render/scatter_extern.go).
		if m.DType == tensor.Bool || m.DType.Size() < 4 && m.DType.IsFloat() {
			return l.fallback(n, op, ir.KindIndex)
		}
		return l.extern(n, op, Extern)
	}
	vars := loopVars(out, "x")
	if k.V == 1 {
		return l.scatterAddOne(n, self, index, src, dim, vars, out)
	}
	r := loopVars([]Expr{C(k.V)}, "r")[0]
	iv := append([]Expr{}, vars...)
	iv[dim] = r
	// the sum of the matching src values, one reduction over r ...
	b := newBody(l)
	dt := m.DType
	j := b.emit(Stmt{Op: "index_expr", Index: vars[dim], DType: tensor.Int64})
	at := b.cast(b.loadAt(index.Buffer, index.DType, index.Index(iv)), tensor.Int64)
	hit, err := b.op("eq", at, j)
	if err != nil {
		return err
	}
	sv := b.cast(b.loadAt(src.Buffer, src.DType, src.Index(iv)), dt)
	term, err := b.op("where", hit, sv, b.constant(0, dt))
	if err != nil {
		return err
	}
	s := Stmt{Op: "reduction", ReduceOp: "sum", Args: []string{term}}
	if s.DType, err = probe(s, []tensor.DType{dt}); err != nil {
		return err
	}
	sum := b.cast(b.emit(s), dt)
	acc := l.newBuffer("", Intermediate, m, n.Name)
	b.store(acc, vars, sum)
	b.stmts[len(b.stmts)-1].Op = "store_reduction"
	l.p.Nodes = append(l.p.Nodes, b.node(acc, Reduction, out, []Expr{C(k.V)}, n.Name))
	// ... added to self, pointwise
	pb := newBody(l)
	t, err := pb.op("add", pb.cast(pb.load(self, vars), dt), pb.load(acc, vars))
	if err != nil {
		return err
	}
	return l.finishPointwise(n, pb, vars, out, t)
}

// scatterAddOne is scatter_add with one index entry along dim (gather's
// gradient of a cross-entropy or NLL target): one pointwise node,
//
//	out[..., j, ...] = where(index[..., 0, ...] == j, self + src[..., 0, ...], self)
//
// which the scheduler fuses into its consumers like any pointwise node (as
// a reduction over a range of 1 it was a kernel of its own writing the
// whole one-hot tensor: 10 MB for 256 rows of 10,000 classes). A point the
// index misses keeps self bit for bit (-0.0 stays -0.0, as PyTorch leaves
// it); a hit adds once, as PyTorch's scatter_add does.
func (l *lowerer) scatterAddOne(n *ir.Node, self, index, src *View, dim int, vars, out []Expr) error {
	dt := n.Meta.Tensor.DType
	iv := append([]Expr{}, vars...)
	iv[dim] = C(0)
	b := newBody(l)
	j := b.emit(Stmt{Op: "index_expr", Index: vars[dim], DType: tensor.Int64})
	at := b.cast(b.loadAt(index.Buffer, index.DType, index.Index(iv)), tensor.Int64)
	hit, err := b.op("eq", at, j)
	if err != nil {
		return err
	}
	selfV := b.cast(b.load(self, vars), dt)
	sum, err := b.op("add", selfV, b.cast(b.loadAt(src.Buffer, src.DType, src.Index(iv)), dt))
	if err != nil {
		return err
	}
	t, err := b.op("where", hit, sum, selfV)
	if err != nil {
		return err
	}
	return l.finishPointwise(n, b, vars, out, t)
}

// finishPointwise stores t at every point of out into a new buffer for n.
func (l *lowerer) finishPointwise(n *ir.Node, b *body, vars, out []Expr, t string) error {
	t = b.cast(t, n.Meta.Tensor.DType)
	v := l.newBuffer("", Intermediate, n.Meta.Tensor, n.Name)
	b.store(v, vars, t)
	l.p.Nodes = append(l.p.Nodes, b.node(v, Pointwise, out, nil, n.Name))
	l.p.Values[n.Name] = v
	return nil
}

// scatterOverwrite lowers scatter(self, dim, index, src | value) without
// reduce= (moe routing's gates into a dense [N, E], the inverse of a
// permutation, scatter's own gradient grad.scatter(dim, index, 0)) to an
// extern call with generated C (render/scatter_extern.go, scatter_add's
// loop): out = self, then for every index point p in index order along dim
// out[p with dim = index[p]] = src[p] (or value), so with duplicate indices
// the last write wins, as in PyTorch's CPU kernel; an index outside
// [0, out.size(dim)) stops the worker naming the node, as PyTorch raises.
// Forms it does not cover fall back: reduce=, an index narrower than self
// off dim, a 0-d self, 16-bit floats, a floating value for an integer
// tensor.
func (l *lowerer) scatterOverwrite(n *ir.Node, bound []ir.Arg) error {
	const op = "scatter"
	self, _, err := l.value(bound[0])
	index, _, err2 := l.value(bound[2])
	m := n.Meta.Tensor
	if err != nil || err2 != nil || self == nil || index == nil || m == nil || bound[5] != nil ||
		index.DType.IsFloat() || len(m.Shape) == 0 || len(index.Sizes) != len(m.Shape) || len(self.Sizes) != len(m.Shape) ||
		m.DType == tensor.Float16 || m.DType == tensor.BFloat16 {
		return l.fallback(n, op, ir.KindIndex)
	}
	switch v := bound[3].(type) {
	case *ir.Node:
		src, _, err := l.value(v)
		if err != nil || src == nil || len(src.Sizes) != len(m.Shape) || src.DType != m.DType {
			return l.fallback(n, op, ir.KindIndex)
		}
	default:
		val := bound[3]
		if val == nil {
			val = bound[4]
		}
		f, _, ok := number(val)
		if _, isFloat := val.(float64); !ok || isFloat && !m.DType.IsFloat() || !isFloat && math.Abs(f) >= 1<<53 {
			return l.fallback(n, op, ir.KindIndex)
		}
	}
	if _, _, fits, err := l.scatterDim(n, bound, index); err != nil || !fits {
		return l.fallbackUnless(err, n, op)
	}
	return l.extern(n, op, Extern)
}

// scatterDim is a scatter's dim (args[1]) and result sizes; fits says the
// index has the result's sizes off dim, the forms the loop IR compiles.
func (l *lowerer) scatterDim(n *ir.Node, bound []ir.Arg, index *View) (dim int, out []Expr, fits bool, err error) {
	m := n.Meta.Tensor
	if dim, err = dimArg2(bound[1], len(m.Shape)); err != nil {
		return 0, nil, false, fmt.Errorf("args[1]: %w", err)
	}
	out = l.sizesOf(m.Shape)
	for d := range out {
		if d != dim && index.Sizes[d].String() != out[d].String() {
			return dim, out, false, nil
		}
	}
	return dim, out, true, nil
}

// fallbackUnless returns err, or when it is nil makes n an eager fallback.
func (l *lowerer) fallbackUnless(err error, n *ir.Node, op string) error {
	if err != nil {
		return err
	}
	return l.fallback(n, op, ir.KindIndex)
}
