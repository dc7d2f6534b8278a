package stages

import (
	"gcdbg/ir"
)

// A weight read by many matrix products (an unrolled nn.LSTM/GRU/RNN's
// weight_hh, once per time step; a weight tied across uses) gets one
// gradient term per use, mm(P_i, Q_i) (or its transpose), which the joint
// adds one by one: at T=24, 24 GEMMs of [H, B] @ [B, 4H] each writing a
// 1 MB product and a 24-input sum reading them all back (examples/review/
// lstm_train.py: 12 ms per layer for the sum alone). A sum of products is
// the product of the concatenations,
//
//	sum_i P_i @ Q_i = cat(P_i, dim=1) @ cat(Q_i, dim=0)
//
// so foldGradientSums rewrites such a sum into one GEMM over every use at
// once, as ATen's own RNN backward does (the weight gradient of the whole
// sequence in one GEMM over the stacked gate gradients); when every P_i is
// a transpose of X_i (the joint's self.t() of mm's derivative), the left
// operand is the transpose of cat(X_i, dim=0), rows of a matrix stacked.
// Values are the same sums in another order (one GEMM's inner loop instead
// of per-step GEMMs added in order), as PyTorch's own backends differ.

// minFoldTerms is how many products a gradient sum needs before it is
// folded: two or three GEMMs plus adds cost about what the concatenations
// and one GEMM cost.
const minFoldTerms = 4

// foldGradientSums folds, in the backward part of the joint graph, every
// chain of adds whose terms include minFoldTerms or more products of
// matching shapes into one product of concatenations (the other terms
// added to it).
func (b *jointBuilder) foldGradientSums() {
	if b.err != nil {
		return
	}
	users := b.g.Users()
	done := map[*ir.Node]bool{}
	for i := len(b.g.Nodes) - 1; i >= 0 && b.err == nil; i-- {
		r := b.g.Nodes[i]
		if done[r] || !b.bwd[r] || !plainAdd(r) {
			continue
		}
		var terms []*ir.Node
		var flatten func(n *ir.Node, root bool)
		flatten = func(n *ir.Node, root bool) {
			if (root || (users[n] == 1 && b.bwd[n] && plainAdd(n) && n.Meta.Tensor.Shape.Equal(r.Meta.Tensor.Shape))) && !done[n] {
				done[n] = true
				flatten(n.Args[0].(*ir.Node), false)
				flatten(n.Args[1].(*ir.Node), false)
				return
			}
			terms = append(terms, n)
		}
		flatten(r, true)
		start := len(b.g.Nodes)
		sum := b.foldProducts(r, terms, users)
		if sum == nil {
			sum = b.foldSelectScatters(r, terms, users)
		}
		if sum == nil {
			sum = b.foldSliceScatters(r, terms, users) // joint_slices.go
		}
		if sum != nil {
			b.placeBefore(i, start, r, sum)
		}
	}
}

// plainAdd is add(a, b) of two tensors of the same shape and dtype (no
// alpha, no broadcasting).
func plainAdd(n *ir.Node) bool {
	if n.Op != ir.CallFunction || n.Target != "aten.add" || len(n.Args) != 2 || len(n.Kwargs) != 0 || n.Meta.Tensor == nil {
		return false
	}
	for _, a := range n.Args {
		x, ok := a.(*ir.Node)
		if !ok || x.Meta.Tensor == nil || x.Meta.Tensor.DType != n.Meta.Tensor.DType || !x.Meta.Tensor.Shape.Equal(n.Meta.Tensor.Shape) {
			return false
		}
	}
	return true
}

// transposeOf returns x when n is permute(x, (1, 0)) of a 2-D x.
func transposeOf(n *ir.Node) (*ir.Node, bool) {
	if n.Op != ir.CallFunction || n.Target != "aten.permute" || len(n.Args) != 2 {
		return nil, false
	}
	x, ok := n.Args[0].(*ir.Node)
	if !ok || x.Meta.Tensor == nil || len(x.Meta.Tensor.Shape) != 2 {
		return nil, false
	}
	var dims []ir.Arg
	switch d := n.Args[1].(type) {
	case ir.Tuple:
		dims = d
	case ir.List:
		dims = d
	}
	if len(dims) != 2 || dims[0] != ir.Arg(int64(1)) || dims[1] != ir.Arg(int64(0)) {
		return nil, false
	}
	return x, true
}

// product is one foldable term: mm(p, q), transposed when the term is its
// permute.
type product struct {
	term  *ir.Node
	p, q  *ir.Node
	trans bool
}

// foldProducts emits, for the chain r of terms, the product of
// concatenations of its largest group of matching products plus the other
// terms, and returns the node giving r's value; nil when no group has
// minFoldTerms products (nothing emitted).
func (b *jointBuilder) foldProducts(r *ir.Node, terms []*ir.Node, users map[*ir.Node]int) *ir.Node {
	type key struct {
		trans bool
		m, n  int
	}
	groups := map[key][]product{}
	var best key
	for _, t := range terms {
		pr, ok := b.productTerm(t, users)
		if !ok {
			continue
		}
		ps, qs := pr.p.Meta.Tensor.Shape.Sizes(), pr.q.Meta.Tensor.Shape.Sizes()
		k := key{pr.trans, ps[0], qs[1]}
		groups[k] = append(groups[k], pr)
		if len(groups[k]) > len(groups[best]) {
			best = k
		}
	}
	g := groups[best]
	if len(g) < minFoldTerms {
		return nil
	}
	b.cur = r
	var ps, qs, xs ir.List
	allT := true
	for _, pr := range g {
		ps, qs = append(ps, pr.p), append(qs, pr.q)
		x, ok := transposeOf(pr.p)
		allT = allT && ok
		xs = append(xs, x)
	}
	var left *ir.Node
	if allT {
		left = b.emit("permute", b.emit("cat", xs, int64(0)), ir.Tuple{int64(1), int64(0)})
	} else {
		left = b.emit("cat", ps, int64(1))
	}
	sum := b.emit("mm", left, b.emit("cat", qs, int64(0)))
	if best.trans {
		sum = b.emit("permute", sum, ir.Tuple{int64(1), int64(0)})
	}
	folded := map[*ir.Node]bool{}
	for _, pr := range g {
		folded[pr.term] = true
	}
	for _, t := range terms {
		if !folded[t] {
			sum = b.emit("add", sum, t)
		}
	}
	if b.err != nil {
		return nil
	}
	return sum
}

// productTerm matches t = mm(p, q) or permute(mm(p, q), (1, 0)) computed
// by the backward for this sum only.
func (b *jointBuilder) productTerm(t *ir.Node, users map[*ir.Node]int) (product, bool) {
	m, trans := t, false
	if x, ok := transposeOf(t); ok && users[t] == 1 && b.bwd[t] {
		m, trans = x, true
	}
	if m.Op != ir.CallFunction || m.Target != "aten.mm" || len(m.Args) != 2 || users[m] != 1 || !b.bwd[m] || m.Meta.Tensor == nil {
		return product{}, false
	}
	p, ok := m.Args[0].(*ir.Node)
	q, ok2 := m.Args[1].(*ir.Node)
	if !ok || !ok2 || p.Meta.Tensor == nil || q.Meta.Tensor == nil || len(p.Meta.Tensor.Shape) != 2 || len(q.Meta.Tensor.Shape) != 2 ||
		p.Meta.Tensor.DType != m.Meta.Tensor.DType || q.Meta.Tensor.DType != m.Meta.Tensor.DType {
		return product{}, false
	}
	return product{t, p, q, trans}, true
}

// The gradient of x read through select(x, d, t) at every t (an unrolled
// RNN's steps reading the hoisted input projection) is a sum of
// select_scatter(zeros, g_t, d, t), one per step: a kernel of 24 masked
// selects per element (2.2 ms per layer at T=24). When the indices cover
// every position along d once, the sum is stack(g_0 .. g_{n-1}, d), which
// the renderer copies input by input (render/cat_copy.go): each element of
// the sum is one g_t plus zeros, so the values are the same but for the
// sign of a zero (-0 + 0 is +0), and the stack is what ATen's own
// backward of the unbind its RNN steps read gives.

// foldSelectScatters emits stack(g sorted by index, d) (as cat of
// unsqueezes) for the chain r
// whose terms are select_scatters of zeros covering every index of d
// once (other terms added to it) and returns the node giving r's value;
// nil when the terms are not so (nothing emitted).
func (b *jointBuilder) foldSelectScatters(r *ir.Node, terms []*ir.Node, users map[*ir.Node]int) *ir.Node {
	m := r.Meta.Tensor
	rank := len(m.Shape)
	dim := -1
	var at []ir.Arg
	var others []*ir.Node
	for _, t := range terms {
		d64, idx, src, ok := zeroSelectScatter(t, users, b.bwd)
		d := int(d64)
		if ok && d < 0 {
			d += rank
		}
		if !ok || d < 0 || d >= rank || (dim >= 0 && d != dim) {
			others = append(others, t)
			continue
		}
		dim = d
		size := m.Shape[d].Size
		if idx < 0 {
			idx += int64(size)
		}
		if at == nil {
			at = make([]ir.Arg, size)
		}
		if idx < 0 || idx >= int64(size) || at[idx] != nil || src.Meta.Tensor == nil || src.Meta.Tensor.DType != m.DType {
			return nil
		}
		at[idx] = src
	}
	if dim < 0 || len(at) < minFoldTerms {
		return nil
	}
	for _, a := range at {
		if a == nil {
			return nil // an index no term writes: not a stack
		}
	}
	b.cur = r
	// stack in the core ops' form (decompositions.go: cat of unsqueezes)
	for i, a := range at {
		at[i] = b.emit("unsqueeze", a, int64(dim))
	}
	sum := b.emit("cat", ir.List(at), int64(dim))
	for _, t := range others {
		sum = b.emit("add", sum, t)
	}
	if b.err != nil {
		return nil
	}
	return sum
}

// zeroSelectScatter matches t = select_scatter(full(shape, 0), src, dim,
// index) computed by the backward for this sum only.
func zeroSelectScatter(t *ir.Node, users map[*ir.Node]int, bwd map[*ir.Node]bool) (dim, index int64, src *ir.Node, ok bool) {
	if t.Op != ir.CallFunction || t.Target != "aten.select_scatter" || len(t.Args) != 4 || len(t.Kwargs) != 0 || users[t] != 1 || !bwd[t] {
		return 0, 0, nil, false
	}
	z, ok1 := t.Args[0].(*ir.Node)
	src, ok2 := t.Args[1].(*ir.Node)
	d, ok3 := t.Args[2].(int64)
	i, ok4 := t.Args[3].(int64)
	if !ok1 || !ok2 || !ok3 || !ok4 || !isZeroFull(z) {
		return 0, 0, nil, false
	}
	return d, i, src, true
}

// isZeroFull reports whether z is full(shape, 0) (a float or an int 0).
func isZeroFull(z *ir.Node) bool {
	if z.Target != "aten.full" || len(z.Args) < 2 {
		return false
	}
	switch v := z.Args[1].(type) {
	case float64:
		return v == 0
	case int64:
		return v == 0
	}
	return false
}

// placeBefore moves the nodes emitted for r's fold (from index start to
// the end) to just before r, at index i, and makes every reader of r read
// sum instead; r and the chain it ended are left to dropDeadBackward.
func (b *jointBuilder) placeBefore(i, start int, r, sum *ir.Node) {
	tail := append([]*ir.Node{}, b.g.Nodes[start:]...)
	rest := append([]*ir.Node{}, b.g.Nodes[i:start]...)
	b.g.Nodes = append(append(b.g.Nodes[:i], tail...), rest...)
	swap := func(x *ir.Node) ir.Arg {
		if x == r {
			return sum
		}
		return x
	}
	for _, n := range b.g.Nodes {
		for k, a := range n.Args {
			n.Args[k] = ir.MapArg(a, swap)
		}
		for k, kv := range n.Kwargs {
			n.Kwargs[k].Value = ir.MapArg(kv.Value, swap)
		}
	}
}
