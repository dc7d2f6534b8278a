package render

import (
	"fmt"

	"gcdbg/loopir"
)

// tinyInnerMax is the largest innermost loop that tinyInner moves inside
// the SIMD loop (a pixel shuffle's factor: 2, 3, 4).
const tinyInnerMax = 4

// tinyInner reports whether a pointwise nest should run its SIMD loop one
// level out, with its innermost loop (2–4 points) inside it: a pixel
// shuffle's copy [N, C, H, r, W, r] reads r input planes along the
// innermost loop (a stride of a whole plane) and each of them with unit
// stride along W. As the innermost loop, the r points made a vector of r
// lanes at most, so GCC emitted scalar code with a branch per element
// (PReLU's select taken on random signs); with W as the SIMD loop and the
// r points unrolled inside it the loads are unit-stride vectors and the
// stores interleave them (SLP), no branch. sr_resnet's PixelShuffle(2) +
// PReLU backward kernel (3 stores, one 18.9 MB load), standalone C, two
// threads, best of 10 (load 4–5): 4.18 ms → 2.26–2.37 ms, the same
// bytes out. Each point computes what it did (pointwise members only, no
// reduction), so the values are bit for bit the same; only the order of
// the points changes, and a pointwise kernel stores no point another
// point of it loads (sched's in-place rule: only at the writer's own
// index).
//
// Taken for static sizes (innermost 2..tinyInnerMax, the next at least
// 16), in a CPU dialect, when a load or store jumps by 16 or more
// elements along the innermost loop and moves by one along the next.
func (g *kernelGen) tinyInner(members []*loopir.Node) bool {
	o := g.sp.outer
	k := len(o)
	if g.r.d.SIMD == "" || g.r.d.ParallelFor == "" || k < 2 || !simdSafe(members) {
		return false
	}
	for _, e := range o {
		if _, ok := e.(loopir.Const); !ok {
			return false
		}
	}
	in, ok1 := o[k-1].(loopir.Const)
	next, ok2 := o[k-2].(loopir.Const)
	if !ok1 || !ok2 || in.V < 2 || in.V > tinyInnerMax || next.V < 16 {
		return false
	}
	// Each member's variables over the loops by unravelling the flat point
	// (what bind computes, whichever way it writes it), its streams'
	// steps along the last two loops from the first point.
	env := func(j int) map[string]int64 {
		e := map[string]int64{}
		for i := range o {
			e[fmt.Sprintf("@l%d", i)] = 0
		}
		if j >= 0 {
			e[fmt.Sprintf("@l%d", j)] = 1
		}
		return e
	}
	var flat loopir.Expr = loopir.C(0)
	for j := range o {
		flat = loopir.Add(flat, loopir.Mul(append([]loopir.Expr{loopir.V(fmt.Sprintf("@l%d", j), o[j])}, o[j+1:]...)...))
	}
	found := false
	for _, n := range members {
		if numel(n.Ranges) != numel(o) {
			return false
		}
		m := map[string]loopir.Expr{}
		for i, r := range n.Ranges {
			v := flat
			if rest := n.Ranges[i+1:]; len(rest) > 0 {
				v = loopir.FloorDiv(v, loopir.Mul(rest...))
			}
			if i > 0 {
				v = loopir.Mod(v, r)
			}
			m[fmt.Sprintf("x%d", i)] = v
		}
		for _, st := range n.Body {
			real := st.Op == "load" && g.inline[st.Buffer] == nil || st.Op == "store" && g.inline[n.Name] == nil
			if !real || st.Index == nil || st.Index == loopir.StarIndex || hasIndirect(st.Index) {
				continue
			}
			idx := loopir.Subst(st.Index, m)
			at := idx.Eval(env(-1))
			di, dn := idx.Eval(env(k-1))-at, idx.Eval(env(k-2))-at
			if max(di, -di) >= 16 && dn == 1 {
				found = true
			}
		}
	}
	return found
}

// openTinyInnerLoops opens the nest as openLoops does, but with the SIMD
// pragma on the next-to-last loop and the last (tinyInner's few points)
// inside it without one.
func (g *kernelGen) openTinyInnerLoops(names []string, sizes []loopir.Expr, parallel string) {
	k := len(names)
	g.openLoops(names[:k-1], sizes[:k-1], parallel, true)
	t := g.idxType()
	g.line("for (%s %s = 0; %s < %s; %s++) {", t, names[k-1], names[k-1], g.expr(sizes[k-1], nil, nil), names[k-1])
	g.ind++
}
