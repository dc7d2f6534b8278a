package render

import (
	"fmt"
	"strings"

	"gcdbg/loopir"
)

// A kernel that is one cat node alone (an unrolled nn.LSTM's stack of its
// states, the stacked gate gradients its weight gradient reads) is written
// as one copy loop per input into its range along the cat's dim, all in
// one OpenMP region whose loops share the work without a barrier between
// them (nowait: the ranges are disjoint), instead of the node's body, which
// at every point loads each input at a clamped index and keeps one
// (loopir.catBody: 24 loads per element for a 24-step stack; the LSTM's
// stack ran 5.2 ms at 0.3 GB/s). The copies compute what the body does:
// the same element of the same input, cast to the output's dtype.
const catCopyNote = "cat"

func (g *kernelGen) catCopies(emit []*loopir.Node, clause string) bool {
	if g.r.d.GlobalIdx != "" || g.r.d.Name != "c" || len(g.k.Nodes) != 1 || len(emit) != 1 {
		return false
	}
	n := emit[0]
	c := n.Cat
	if c == nil || g.r.folded[n] != nil || !sameRanges(n.Ranges, c.Ranges) || c.Dim < 0 || c.Dim >= len(n.Ranges) {
		return false
	}
	var st *loopir.Stmt
	for i := range n.Body {
		if n.Body[i].Op == "store" {
			st = &n.Body[i]
		}
	}
	mem := g.r.store[n.Name]
	if st == nil || mem == nil || st.Buffer != n.Name || st.Index.String() != c.Store.String() {
		return false
	}
	outDT := st.DType // the value stored: the cat's dtype
	names := loopNames("x", len(n.Ranges))
	g.line("/* %s: one copy loop per input (cat_copy.go) */", catCopyNote)
	if clause != "" {
		g.line("#pragma omp parallel %s", clause)
		g.line("{")
		g.ind++
	}
	g.use(n.Name)
	for _, p := range c.Parts {
		sizes := append([]loopir.Expr{}, n.Ranges...)
		sizes[c.Dim] = loopir.C(p.Size)
		if clause != "" {
			if k := len(sizes) - 1; k > 1 {
				g.line("#pragma omp for collapse(%d) nowait", k)
			} else {
				g.line("#pragma omp for nowait")
			}
		}
		g.openLoops(names, sizes, "", false)
		g.push()
		load, store := map[string]string{}, map[string]string{}
		for _, nm := range names {
			load[nm], store[nm] = nm, nm
		}
		store[names[c.Dim]] = fmt.Sprintf("(%s + %d)", names[c.Dim], p.Start)
		v := g.load(loopir.Stmt{Op: "load", Buffer: p.Buffer, Index: p.Index, DType: p.DType}, load, nil)
		v = g.cast(v, outDT)
		g.line("%s[%s] = %s;  // %s", mem.c, g.expr(st.Index, store, nil), g.storeExpr(mem.dt, v.c), Comment(strings.Join(n.Origins, ", ")))
		g.pop()
		g.closeLoops(len(names))
	}
	if clause != "" {
		g.ind--
		g.line("}")
	}
	return g.err == nil
}
