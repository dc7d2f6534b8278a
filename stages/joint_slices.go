package stages

import (
	"sort"

	"gcdbg/ir"
)

// The gradient of x read through slices that tile a dimension (a packed
// q/k/v projection split into three: c_attn(x).split(C, dim=2)) is a sum
// of slice_scatter(zeros, g_i, d, start_i, end_i), one per slice: three
// zero-filled buffers of x's size added in one kernel (gpt2_block's
// [8, 128, 768] q/k/v gradient: its kernel k30 took 1.3 ms under load,
// docs/performance.md). When the
// slices cover the dimension once, in steps of 1, the sum is
// cat(g_0 .. g_{n-1}, d) in order of start, which the renderer copies
// input by input (render/cat_copy.go), as ATen's own split backward
// (split_with_sizes_backward: cat of the gradients) computes it: each
// element of the sum is one g_i plus zeros, the same value but for the
// sign of a zero (-0 + 0 is +0; the cat keeps -0, as PyTorch's does).

// minSliceTerms is how many slices a sum needs before it is a cat: two
// slice_scatters already cost two zero-filled buffers and an add.
const minSliceTerms = 2

// foldSliceScatters emits cat(g sorted by start, d) for the chain r whose
// terms are slice_scatters of zeros tiling d (other terms added to it)
// and returns the node giving r's value; nil when the terms are not so
// (nothing emitted).
func (b *jointBuilder) foldSliceScatters(r *ir.Node, terms []*ir.Node, users map[*ir.Node]int) *ir.Node {
	m := r.Meta.Tensor
	if m == nil {
		return nil
	}
	rank := len(m.Shape)
	dim := -1
	type piece struct {
		start, end int64
		src        *ir.Node
	}
	var pieces []piece
	var others []*ir.Node
	for _, t := range terms {
		d, start, end, src, ok := zeroSliceScatter(t, users, b.bwd)
		if ok && d < 0 {
			d += int64(rank)
		}
		if !ok || d < 0 || d >= int64(rank) || (dim >= 0 && int(d) != dim) || m.Shape[d].Sym != "" {
			others = append(others, t)
			continue
		}
		size := int64(m.Shape[d].Size)
		if start < 0 {
			start += size
		}
		if end < 0 {
			end += size
		}
		start, end = max(0, min(start, size)), max(0, min(end, size))
		sm := src.Meta.Tensor
		if sm == nil || sm.DType != m.DType || len(sm.Shape) != rank || int64(sm.Shape[d].Size) != end-start || end <= start {
			return nil
		}
		dim = int(d)
		pieces = append(pieces, piece{start, end, src})
	}
	if dim < 0 || len(pieces) < minSliceTerms {
		return nil
	}
	sort.Slice(pieces, func(i, j int) bool { return pieces[i].start < pieces[j].start })
	at := int64(0)
	var srcs []ir.Arg
	for _, p := range pieces {
		if p.start != at {
			return nil // a gap or an overlap: not a cat
		}
		at = p.end
		srcs = append(srcs, p.src)
	}
	if at != int64(m.Shape[dim].Size) {
		return nil
	}
	b.cur = r
	sum := b.emit("cat", ir.List(srcs), int64(dim))
	for _, t := range others {
		sum = b.emit("add", sum, t)
	}
	if b.err != nil {
		return nil
	}
	return sum
}

// zeroSliceScatter matches t = slice_scatter(full(shape, 0), src, dim,
// start, end) with step 1, computed by the backward for this sum only.
func zeroSliceScatter(t *ir.Node, users map[*ir.Node]int, bwd map[*ir.Node]bool) (dim, start, end int64, src *ir.Node, ok bool) {
	if t.Op != ir.CallFunction || t.Target != "aten.slice_scatter" || len(t.Args) != 5 && len(t.Args) != 6 || len(t.Kwargs) != 0 || users[t] != 1 || !bwd[t] {
		return 0, 0, 0, nil, false
	}
	z, ok1 := t.Args[0].(*ir.Node)
	src, ok2 := t.Args[1].(*ir.Node)
	d, ok3 := t.Args[2].(int64)
	s, ok4 := t.Args[3].(int64)
	e, ok5 := t.Args[4].(int64)
	if !ok1 || !ok2 || !ok3 || !ok4 || !ok5 || !isZeroFull(z) { // joint_sums.go
		return 0, 0, 0, nil, false
	}
	if len(t.Args) == 6 {
		if step, isInt := t.Args[5].(int64); !isInt || step != 1 {
			return 0, 0, 0, nil, false
		}
	}
	zm, sm := z.Meta.Tensor, t.Meta.Tensor
	ok = zm != nil && sm != nil && zm.Shape.Equal(sm.Shape) && zm.DType == sm.DType
	return d, s, e, src, ok
}
