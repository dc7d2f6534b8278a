package render

import (
	"fmt"

	"gcdbg/ir"
	"gcdbg/loopir"
)

// The gradient of a slice is a slice_scatter into zeros: a language
// model's next-token loss over logits[:, :-1] gives the logits a gradient
// slice_scatter(full(0), g, 1, 0, T-1), where g ([B, T-1, V], 32 MB in
// gpt2_block) is written by the cross-entropy backward's kernel and then
// read once more by a kernel that writes every element of the zero-padded
// result (a 32 MB zero-fill-and-copy, 2.5-2.7 ms). When g's buffer is
// written by one pointwise node and read by nothing but that
// slice_scatter, the writer stores each element straight into its place
// in the result (the same value at the same element: its store index is
// g's flat index carried through the slice's offset), and the
// slice_scatter's kernel only writes the zeros outside the slice. g's
// buffer gets no memory. A cat is the same placement with no zeros (the
// q/k/v gradient, a cat of three head-merging copies since
// stages/joint_slices.go): when every input is such a buffer, each writer
// stores into the cat's output and the cat's kernel disappears. Only the C
// dialect does it (as the GEMM folds).

// foldSliceScatters finds (writers, slice_scatter or cat) groups among
// r.kernels and rewrites them as above.
func (r *renderer) foldSliceScatters() {
	if r.d.GlobalIdx != "" || r.p.Graph == nil {
		return
	}
	readers, outputs := r.readerSets(), r.outputSet()
	folds := map[int]sliceFold{} // by the placing kernel
	placers := map[*loopir.Node]bool{}
	for ki, k := range r.kernels {
		if f, ok := r.sliceScatterFold(ki, k, readers, outputs); ok {
			folds[ki] = f
			placers[f.s] = true
		}
	}
	moved := map[*loopir.Node]*loopir.Node{}
	for ki, f := range folds {
		for w := range f.moved {
			if placers[w] { // a writer is itself a folded placement
				delete(folds, ki)
				break
			}
		}
	}
	for _, f := range folds {
		for w, m := range f.moved {
			moved[w] = m
		}
	}
	if len(folds) == 0 {
		return
	}
	r.replaceNodes(moved) // copy_reads.go
	var kept []*loopir.Kernel
	for ki, k := range r.kernels {
		f, ok := folds[ki]
		if !ok {
			kept = append(kept, k)
			continue
		}
		for w, m := range f.moved {
			delete(r.writer, w.Name)
			r.writer[f.out] = m
			r.elide(w.Name, fmt.Sprintf("written by its producer straight into its place in %s (slice_scatter_fold.go)", f.out))
		}
		for _, z := range f.zeros {
			r.writer[f.out] = z
			kept = append(kept, &loopir.Kernel{Name: k.Name, Nodes: []*loopir.Node{z}})
		}
	}
	r.kernels = kept
	r.kindOf = map[*loopir.Node]int{}
	for ki, k := range r.kernels {
		for _, n := range k.Nodes {
			r.kindOf[n] = ki
		}
	}
}

// readerSets is the set of nodes reading each buffer, over r.kernels.
func (r *renderer) readerSets() map[string]map[*loopir.Node]bool {
	readers := map[string]map[*loopir.Node]bool{}
	for _, k := range r.kernels {
		for _, n := range k.Nodes {
			for _, d := range n.Reads {
				if readers[d.Buffer] == nil {
					readers[d.Buffer] = map[*loopir.Node]bool{}
				}
				readers[d.Buffer][n] = true
			}
		}
	}
	return readers
}

// sliceFold is one match: s places buffers written by the keys of moved
// into out; each value is its key storing into out instead; zeros are the
// nodes writing out's elements no input covers.
type sliceFold struct {
	s     *loopir.Node
	out   string
	moved map[*loopir.Node]*loopir.Node
	zeros []*loopir.Node
}

// piece is one input of a placement: src's elements go to [start, end)
// along the placement's dim.
type piece struct {
	start, end int64
	src        *ir.Node
}

// sliceScatterFold matches kernel k (index ki): one pointwise node s
// computing slice_scatter(full(sizes, 0), src, dim, start, end) with step
// 1 (beside the full's own node, read by s alone), or cat(srcs, dim), into
// a dense buffer out, where every src is the whole of a dense intermediate
// buffer (its flat index is its row-major index), written by one
// pointwise node of an earlier kernel and read by s alone.
func (r *renderer) sliceScatterFold(ki int, k *loopir.Kernel, readers map[string]map[*loopir.Node]bool, outputs map[string]bool) (sliceFold, bool) {
	var no sliceFold
	s, g, pieces, ok := r.placement(k, readers, outputs)
	if !ok {
		return no, false
	}
	out := r.p.Buffers[s.Writes[0].Buffer]
	if out == nil || s.Name != out.Name || (out.Kind != loopir.Intermediate && out.Kind != loopir.Output) ||
		r.writer[out.Name] != s || r.why[out.Name] != "" {
		return no, false
	}
	if v := r.p.Values[g.Name]; v == nil || v.Buffer != out.Name || !wholeDense(v, out) {
		return no, false
	}
	osz, ok := constList(out.Sizes)
	if !ok {
		return no, false
	}
	dim := pieces[0].dim
	ostr := rowMajor(osz)
	f := sliceFold{s: s, out: out.Name, moved: map[*loopir.Node]*loopir.Node{}}
	at := int64(0)
	for _, p := range pieces {
		if p.start > at {
			f.zeros = append(f.zeros, zeroFill(s, out, osz, ostr, dim, at, p.start))
		}
		at = p.end
		m, w, ok := r.placeWriter(ki, s, p.piece, dim, out, osz, ostr, readers, outputs)
		if !ok || f.moved[w] != nil {
			return no, false
		}
		f.moved[w] = m
	}
	if at < osz[dim] {
		f.zeros = append(f.zeros, zeroFill(s, out, osz, ostr, dim, at, osz[dim]))
	}
	return f, true
}

// dimPiece is a piece with its placement's dim.
type dimPiece struct {
	piece
	dim int64
}

// placement reads kernel k as one node s placing pieces along a dim of
// its output: a slice_scatter of zeros (with the full's node, read by s
// alone) or a cat alone. g is the graph node s computes; pieces are in
// order of start, disjoint, with static sizes.
func (r *renderer) placement(k *loopir.Kernel, readers map[string]map[*loopir.Node]bool, outputs map[string]bool) (*loopir.Node, *ir.Node, []dimPiece, bool) {
	var s *loopir.Node
	var g *ir.Node
	for _, n := range k.Nodes {
		for _, o := range n.Origins {
			if x := r.irNode(o); x != nil && (x.Target == "aten.slice_scatter" || x.Target == "aten.cat") {
				if s != nil {
					return nil, nil, nil, false
				}
				s, g = n, x
			}
		}
	}
	if s == nil || s.Kind != loopir.Pointwise || len(s.Writes) != 1 || len(g.Kwargs) != 0 || g.Meta.Tensor == nil {
		return nil, nil, nil, false
	}
	osz := g.Meta.Tensor.Shape
	rank := int64(len(osz))
	if g.Target == "aten.cat" {
		if len(k.Nodes) != 1 || len(s.Origins) != 1 || len(g.Args) < 1 || len(g.Args) > 2 {
			return nil, nil, nil, false
		}
		var items []ir.Arg
		switch t := g.Args[0].(type) {
		case ir.List:
			items = t
		case ir.Tuple:
			items = t
		}
		dim := int64(0)
		if len(g.Args) == 2 {
			d, ok := g.Args[1].(int64)
			if !ok {
				return nil, nil, nil, false
			}
			dim = d
		}
		if dim < 0 {
			dim += rank
		}
		if dim < 0 || dim >= rank || len(items) == 0 {
			return nil, nil, nil, false
		}
		var ps []dimPiece
		at := int64(0)
		for _, it := range items {
			src, ok := it.(*ir.Node)
			if !ok || src.Meta.Tensor == nil || len(src.Meta.Tensor.Shape) != int(rank) || src.Meta.Tensor.Shape[dim].Sym != "" {
				return nil, nil, nil, false
			}
			n := int64(src.Meta.Tensor.Shape[dim].Size)
			if n == 0 {
				return nil, nil, nil, false
			}
			ps = append(ps, dimPiece{piece{at, at + n, src}, dim})
			at += n
		}
		return s, g, ps, at == int64(osz[dim].Size)
	}
	if len(g.Args) < 2 || len(g.Args) > 6 {
		return nil, nil, nil, false
	}
	full, ok := g.Args[0].(*ir.Node)
	src, ok2 := g.Args[1].(*ir.Node)
	if !ok || !ok2 || !zeroFull(full) {
		return nil, nil, nil, false
	}
	for _, o := range s.Origins {
		if o != g.Name && o != full.Name {
			return nil, nil, nil, false
		}
	}
	// the kernel's other members compute the zeros, read by s alone
	for _, n := range k.Nodes {
		if n == s {
			continue
		}
		if n.Kind != loopir.Pointwise || len(n.Origins) != 1 || n.Origins[0] != full.Name || len(n.Writes) != 1 || outputs[n.Writes[0].Buffer] {
			return nil, nil, nil, false
		}
		for m := range readers[n.Writes[0].Buffer] {
			if m != s {
				return nil, nil, nil, false
			}
		}
	}
	args := []int64{0, 0, -1, 1} // dim, start, end (-1: None, the dim's size), step
	for i, a := range g.Args[2:] {
		switch v := a.(type) {
		case int64:
			args[i] = v
		case nil:
			if i == 0 || i == 3 {
				return nil, nil, nil, false
			}
		default:
			return nil, nil, nil, false
		}
	}
	dim, start, end, step := args[0], args[1], args[2], args[3]
	if dim < 0 {
		dim += rank
	}
	if dim < 0 || dim >= rank || step != 1 || osz[dim].Sym != "" {
		return nil, nil, nil, false
	}
	size := int64(osz[dim].Size)
	if end == -1 && (len(g.Args) < 5 || g.Args[4] == nil) {
		end = size
	}
	if start < 0 {
		start += size
	}
	if end < 0 {
		end += size
	}
	start, end = max(0, min(start, size)), max(0, min(end, size))
	if end <= start {
		return nil, nil, nil, false
	}
	return s, g, []dimPiece{{piece{start, end, src}, dim}}, true
}

// placeWriter checks that p.src is the whole of a dense intermediate
// buffer of out's dtype and p's shape, written by one pointwise node w of
// a kernel before ki and read by s alone, and returns w storing each
// element at its place in out instead.
func (r *renderer) placeWriter(ki int, s *loopir.Node, p piece, dim int64, out *loopir.Buffer, osz, ostr []int64, readers map[string]map[*loopir.Node]bool, outputs map[string]bool) (*loopir.Node, *loopir.Node, bool) {
	sv := r.p.Values[p.src.Name]
	if sv == nil {
		return nil, nil, false
	}
	src := r.p.Buffers[sv.Buffer]
	if src == nil || src.Kind != loopir.Intermediate || outputs[src.Name] || src.DType != out.DType || !wholeDense(sv, src) || r.why[src.Name] != "" {
		return nil, nil, false
	}
	ssz, ok := constList(sv.Sizes)
	if !ok || len(ssz) != len(osz) {
		return nil, nil, false
	}
	for i := range osz {
		want := osz[i]
		if int64(i) == dim {
			want = p.end - p.start
		}
		if ssz[i] != want {
			return nil, nil, false
		}
	}
	w := r.writer[src.Name]
	wki, inK := r.kindOf[w]
	if w == nil || !inK || wki >= ki || w.Kind != loopir.Pointwise || w.Name != src.Name || len(w.Writes) != 1 ||
		len(readers[src.Name]) != 1 || !readers[src.Name][s] || r.folded[w] != nil {
		return nil, nil, false
	}
	for _, n := range r.kernels[wki].Nodes {
		if readers[out.Name][n] {
			return nil, nil, false
		}
	}
	// src's flat index -> its element (unravelled from the last dimension:
	// (r0 + 8192*x0) % 8192 = r0 and then x0, no division by a row) -> that
	// element's index in out
	place := func(f loopir.Expr) loopir.Expr {
		parts := []loopir.Expr{}
		q := f
		for i := len(ssz) - 1; i >= 0; i-- {
			u := q
			if i > 0 {
				u, q = loopir.Mod(q, loopir.C(ssz[i])), loopir.FloorDiv(q, loopir.C(ssz[i]))
			}
			if int64(i) == dim {
				u = loopir.Add(u, loopir.C(p.start))
			}
			parts = append(parts, loopir.Mul(u, loopir.C(ostr[i])))
		}
		return loopir.Add(parts...)
	}
	moved := *w
	moved.Name = out.Name
	moved.Body = append([]loopir.Stmt(nil), w.Body...)
	for i, st := range moved.Body {
		if st.Op == "load" && st.Buffer == src.Name {
			return nil, nil, false
		}
		if st.Op == "store" && st.Buffer == src.Name {
			moved.Body[i].Buffer, moved.Body[i].Index = out.Name, place(st.Index)
		}
	}
	moved.Writes = []loopir.Dep{{Buffer: out.Name, Index: place(w.Writes[0].Index)}}
	return &moved, w, true
}

// zeroFill is a pointwise node writing +0 into out's elements whose index
// along dim is in [lo, hi), with s's origins.
func zeroFill(s *loopir.Node, out *loopir.Buffer, osz, ostr []int64, dim, lo, hi int64) *loopir.Node {
	ranges := make([]loopir.Expr, len(osz))
	parts := []loopir.Expr{}
	for i, n := range osz {
		if int64(i) == dim {
			n = hi - lo
		}
		ranges[i] = loopir.C(n)
		var x loopir.Expr = loopir.C(0)
		if n != 1 {
			x = loopir.V(fmt.Sprintf("x%d", i), loopir.C(n))
		}
		if int64(i) == dim {
			x = loopir.Add(x, loopir.C(lo))
		}
		parts = append(parts, loopir.Mul(x, loopir.C(ostr[i])))
	}
	idx := loopir.Add(parts...)
	return &loopir.Node{Name: out.Name, Kind: loopir.Pointwise, Ranges: ranges,
		Body: []loopir.Stmt{
			{Dst: "tmp0", Op: "constant", Value: 0, DType: out.DType},
			{Op: "store", Buffer: out.Name, Index: idx, Args: []string{"tmp0"}, DType: out.DType},
		},
		Writes: []loopir.Dep{{Buffer: out.Name, Index: idx}}, Origins: append([]string(nil), s.Origins...)}
}

// wholeDense reports whether v reads all of b, row-major from element 0,
// with static sizes (its sizes may differ from b's: a view of it).
func wholeDense(v *loopir.View, b *loopir.Buffer) bool {
	vs, ok1 := constList(v.Sizes)
	st, ok2 := constList(v.Strides)
	bs, ok3 := constList(b.Sizes)
	bst, ok4 := constList(b.Strides)
	if !ok1 || !ok2 || !ok3 || !ok4 || v.Offset.String() != "0" {
		return false
	}
	vn, _ := static(v.Sizes)
	bn, _ := static(b.Sizes)
	if vn != bn || vn == 0 {
		return false
	}
	want := rowMajor(vs)
	for i := range vs {
		if vs[i] != 1 && st[i] != want[i] {
			return false
		}
	}
	want = rowMajor(bs)
	for i := range bs {
		if bs[i] != 1 && bst[i] != want[i] {
			return false
		}
	}
	return true
}

// rowMajor is the row-major strides of sizes.
func rowMajor(sizes []int64) []int64 {
	st := make([]int64, len(sizes))
	acc := int64(1)
	for i := len(sizes) - 1; i >= 0; i-- {
		st[i] = acc
		acc *= sizes[i]
	}
	return st
}
