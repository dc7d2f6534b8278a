package render

import (
	"fmt"

	"gcdbg/loopir"
)

// A copy read elsewhere only by indirect loads: cross-entropy over
// logits[:, :-1].reshape(-1, V) makes a contiguous copy C of the sliced
// logits X (32 MB in gpt2_block), and its loss gathers one element per row
// of C (stages/decomp_gather_rows.go) in a kernel of its own, since a
// gather does not fuse with the rows it picks from. The copy's own kernel
// (the softmax statistics) reads C at the point it copies it, so C is
// otherwise internal there; it is materialized only for those few loads.
// Each such load reads X instead, at the element C copied from (C's flat
// index unravelled over the copy's loop and carried through its load of
// X), and C lives only inside its kernel: a 32 MB store less. Only the C
// dialect does it.

// foldCopiesIntoGathers rewrites, in every node outside a copy's kernel,
// the indirect loads of the copy's buffer into loads of its source.
func (r *renderer) foldCopiesIntoGathers() {
	if r.d.GlobalIdx != "" {
		return
	}
	readers, outputs := r.readerSets(), r.outputSet() // slice_scatter_fold.go, gemm_fold.go
	moved := map[*loopir.Node]*loopir.Node{}
	for ki, k := range r.kernels {
		for _, p := range k.Nodes {
			src, idx, ok := r.plainCopy(p, ki, outputs)
			if !ok {
				continue
			}
			c := p.Writes[0].Buffer
			var outside []*loopir.Node
			for n := range readers[c] {
				if r.kindOf[n] != ki {
					outside = append(outside, n)
				}
			}
			if len(outside) == 0 {
				continue
			}
			var redo []*loopir.Node
			for _, n := range outside {
				if moved[n] != nil || r.kindOf[n] < ki {
					redo = nil
					break
				}
				m, ok := readThrough(n, c, src, idx, p.Ranges)
				if !ok {
					redo = nil
					break
				}
				redo = append(redo, m)
			}
			if len(redo) != len(outside) {
				continue
			}
			for i, n := range outside {
				moved[n] = redo[i]
			}
			r.elide(c, fmt.Sprintf("lives inside its kernel: its gathers read %s (copy_reads.go)", src))
		}
	}
	if len(moved) > 0 {
		r.replaceNodes(moved)
	}
}

// plainCopy matches p, a pointwise node of kernel ki that is exactly C[J]
// = X[I] with J the row-major index over its ranges (a dense copy), C an
// intermediate no output, and X an intermediate of the same dtype written
// by one node of an earlier kernel (so that it holds its values while the
// readers run). It returns X and I.
func (r *renderer) plainCopy(p *loopir.Node, ki int, outputs map[string]bool) (string, loopir.Expr, bool) {
	if p.Kind != loopir.Pointwise || len(p.Body) != 2 || len(p.Writes) != 1 || len(p.Reads) != 1 {
		return "", nil, false
	}
	ld, st := p.Body[0], p.Body[1]
	if ld.Op != "load" || st.Op != "store" || len(st.Args) != 1 || st.Args[0] != ld.Dst || ld.DType != st.DType {
		return "", nil, false
	}
	c, x := r.p.Buffers[st.Buffer], r.p.Buffers[ld.Buffer]
	if c == nil || x == nil || c.Name != p.Name || c.Kind != loopir.Intermediate || outputs[c.Name] || r.why[c.Name] != "" ||
		x.Kind != loopir.Intermediate || x.DType != c.DType || r.why[x.Name] != "" {
		return "", nil, false
	}
	w := r.writer[x.Name]
	if wk, ok := r.kindOf[w]; w == nil || !ok || wk >= ki {
		return "", nil, false
	}
	cn, ok := static(c.Sizes)
	if !ok || !rowMajorIndex(st.Index, p.Ranges) { // alias.go
		return "", nil, false
	}
	if n, _ := static(p.Ranges); n != cn {
		return "", nil, false
	}
	return x.Name, ld.Index, true
}

// readThrough is n with every load of c, each at an indirect index (a
// gather's), reading src at the element the copy took: the flat index
// unravelled over ranges into the copy's variables, substituted into its
// load index idx.
//
// A cat node (n.Cat) is left alone: its parts name the buffers it copies
// (cat_copy.go renders them as copy loops), and a part cannot read through
// an index; the copy then stays materialized (DGCNN's edge features,
// cat((feature - x, x)) with x a repeat: the cat read a copy that had no
// memory).
func readThrough(n *loopir.Node, c, src string, idx loopir.Expr, ranges []loopir.Expr) (*loopir.Node, bool) {
	sizes, ok := constList(ranges)
	if !ok || n.Cat != nil {
		return nil, false
	}
	through := func(f loopir.Expr) loopir.Expr {
		m := map[string]loopir.Expr{}
		q := f
		for i := len(sizes) - 1; i >= 0; i-- {
			u := q
			if i > 0 {
				u, q = loopir.Mod(q, loopir.C(sizes[i])), loopir.FloorDiv(q, loopir.C(sizes[i]))
			}
			m[fmt.Sprintf("x%d", i)] = u
		}
		return loopir.Subst(idx, m)
	}
	nn := *n
	nn.Body = append([]loopir.Stmt(nil), n.Body...)
	found := false
	for i, s := range nn.Body {
		if s.Buffer != c {
			continue
		}
		if s.Op != "load" || !hasIndirect(s.Index) {
			return nil, false
		}
		nn.Body[i].Buffer, nn.Body[i].Index = src, through(s.Index)
		found = true
	}
	nn.Reads = nil
	for _, d := range n.Reads {
		if d.Buffer == c {
			if d.Index == nil || d.Index == loopir.StarIndex {
				d = loopir.Dep{Buffer: src, Index: d.Index}
			} else {
				d = loopir.Dep{Buffer: src, Index: through(d.Index)}
			}
		}
		nn.Reads = append(nn.Reads, d)
	}
	return &nn, found
}

// replaceNodes puts each value of moved in its key's place: in its kernel,
// as its buffers' writer and among the readers internal() consults.
func (r *renderer) replaceNodes(moved map[*loopir.Node]*loopir.Node) {
	r.indexReaders()
	for buf, ns := range r.readers {
		var c []*loopir.Node
		for i, n := range ns {
			if m := moved[n]; m != nil {
				if c == nil {
					c = append([]*loopir.Node(nil), ns...)
				}
				c[i] = m
			}
		}
		if c != nil {
			r.readers[buf] = c
		}
	}
	// a moved node's new reads
	for n, m := range moved {
		for _, d := range m.Reads {
			if !containsNode(r.readers[d.Buffer], m) {
				r.readers[d.Buffer] = append(r.readers[d.Buffer], m)
			}
		}
		for _, d := range n.Reads {
			still := false
			for _, e := range m.Reads {
				still = still || e.Buffer == d.Buffer
			}
			if !still {
				var keep []*loopir.Node
				for _, x := range r.readers[d.Buffer] {
					if x != m && x != n {
						keep = append(keep, x)
					}
				}
				r.readers[d.Buffer] = keep
			}
		}
	}
	for ki, k := range r.kernels {
		nk := k
		for i, n := range k.Nodes {
			if m := moved[n]; m != nil {
				if nk == k {
					c := *k
					c.Nodes = append([]*loopir.Node(nil), k.Nodes...)
					nk = &c
				}
				nk.Nodes[i] = m
				delete(r.kindOf, n)
				r.kindOf[m] = ki
				for _, w := range m.Writes {
					if r.writer[w.Buffer] == n {
						r.writer[w.Buffer] = m
					}
				}
			}
		}
		r.kernels[ki] = nk
	}
}
