package render

import (
	"fmt"

	"gcdbg/loopir"
)

// Column reductions (CPU dialect): a reduction whose loads step along
// memory with the kernel's last outer variable and jump by a row with its
// reduce variable — a bias gradient, sum over the 256 rows of a
// [256, 4096] tensor — would read one float per cache line in its reduce
// loop. Such a kernel instead takes a block of columns per task and
// accumulates a row of the block at a time, the loop over the block's
// columns vectorized:
//
//	#pragma omp parallel for
//	for (x0b = 0; x0b < 4096; x0b += 64) {
//	  double acc[64] = {0};
//	  for (r0 = 0; r0 < 256; r0++) {
//	    #pragma omp simd
//	    for (x0 = x0b; x0 < x0e; x0++) acc[x0 - x0b] += (double)in[x0 + 4096*r0];
//	  }
//	  for (x0 = x0b; x0 < x0e; x0++) out[x0] = (float)acc[x0 - x0b];  // and the epilogue
//	}
//
// Each column's sum is still its own double accumulator in row order, so
// the values are those of the scalar loop. Only for kernels of one reduce
// pass of sums or max/min (what vectorPass takes) whose other members run
// after the pass.

const columnBlock = 64

// columnReduction reports whether the kernel is such a column reduction.
func (g *kernelGen) columnReduction(pass, slot map[*loopir.Node]int) bool {
	if g.r.d.SIMD == "" || g.r.d.ParallelFor == "" || len(g.sp.outer) == 0 || len(g.sp.reduce) == 0 {
		return false
	}
	if c, ok := g.sp.outer[len(g.sp.outer)-1].(loopir.Const); !ok || c.V < 16 {
		return false
	}
	column := false
	for _, n := range g.k.Nodes {
		if g.inline[n.Name] != nil {
			continue
		}
		if n.Kind != loopir.Reduction {
			// After the pass (slot 1), or before it (slot 0) where no
			// reduction reads it: columnNest writes both after the pass
			// (cross_entropy over a [B, C, T] logit tensor stores its
			// target mask before the class sum).
			if g.level(n) != "outer" || slot[n] > 1 || slot[n] == 0 && g.feedsReduction(n) {
				return false
			}
			continue
		}
		if pass[n] != 0 || !sameRanges(squeeze(n.Ranges), g.sp.outer) || !sameRanges(squeeze(n.ReduceRanges), g.sp.reduce) {
			return false
		}
		a := g.accumOf(n)
		if a == nil || !g.vectorPass([]*accum{a}, nil) {
			return false
		}
		xl, rl := lastVar("x", n.Ranges), lastVar("r", n.ReduceRanges)
		for _, s := range n.Body {
			if s.Op != "load" {
				continue
			}
			if hasIndirect(s.Index) || strideOf(s.Index, rl) == 1 {
				return false
			}
			if strideOf(s.Index, xl) == 1 && strideOf(s.Index, rl) >= 16 {
				column = true
			}
		}
	}
	return column
}

// feedsReduction reports whether a reduction of the kernel reads n's
// buffer, directly or through inlined members.
func (g *kernelGen) feedsReduction(n *loopir.Node) bool {
	var reads func(m *loopir.Node, seen map[*loopir.Node]bool) bool
	reads = func(m *loopir.Node, seen map[*loopir.Node]bool) bool {
		for _, rd := range m.Reads {
			w := g.r.writer[rd.Buffer]
			if w == nil || !g.member[w] || seen[w] {
				continue
			}
			seen[w] = true
			if w == n || g.inline[w.Name] != nil && reads(w, seen) {
				return true
			}
		}
		return false
	}
	for _, m := range g.k.Nodes {
		if m.Kind == loopir.Reduction && reads(m, map[*loopir.Node]bool{}) {
			return true
		}
	}
	return false
}

// lastVar is the name of the innermost non-unit variable of ranges.
func lastVar(prefix string, ranges []loopir.Expr) string {
	v := ""
	for i, r := range ranges {
		if r.String() != "1" {
			v = fmt.Sprintf("%s%d", prefix, i)
		}
	}
	return v
}

// accumOf is n's accumulator description (nil without a reduction).
func (g *kernelGen) accumOf(n *loopir.Node) *accum {
	a := &accum{n: n, at: -1, vars: g.varsOf(n), tmps: map[string]value{}}
	for i, s := range n.Body {
		if s.Op == "reduction" {
			a.at, a.op, a.dt = i, s.ReduceOp, s.DType
		}
	}
	if a.at < 0 || len(n.Body[a.at].Args) != 1 {
		return nil
	}
	a.in = a.dt
	for _, s := range n.Body[:a.at] {
		if s.Dst == n.Body[a.at].Args[0] {
			a.in = s.DType
		}
	}
	return a
}

// columnNest writes the blocked column reduction and its epilogue.
func (g *kernelGen) columnNest(slot map[*loopir.Node]int) {
	xs := loopNames("x", len(g.sp.outer))
	rs := loopNames("r", len(g.sp.reduce))
	k := len(xs) - 1
	t := g.idxType()
	all := append(append([]loopir.Expr{}, g.sp.outer...), g.sp.reduce...)
	clause, _ := g.parallelIf(all)
	if k > 0 {
		g.line("%s collapse(%d) %s", g.r.d.ParallelFor, k+1, clause)
	} else {
		g.line("%s %s", g.r.d.ParallelFor, clause)
	}
	for i := 0; i < k; i++ {
		g.line("for (%s %s = 0; %s < %s; %s++) {", t, xs[i], xs[i], g.expr(g.sp.outer[i], nil, nil), xs[i])
		g.ind++
	}
	x, n := xs[k], g.expr(g.sp.outer[k], nil, nil)
	g.line("for (%s %sb = 0; %sb < %s; %sb += %d) {", t, x, x, n, x, columnBlock)
	g.ind++
	g.line("const %s %se = %sb + %d < %s ? %sb + %d : %s;", t, x, x, columnBlock, n, x, columnBlock, n)
	var accs []*accum
	for _, m := range g.k.Nodes {
		if m.Kind != loopir.Reduction || g.inline[m.Name] != nil {
			continue
		}
		a := g.accumOf(m)
		arr := g.tmp()
		init := "0"
		if a.op == "amax" || a.op == "amin" {
			init = g.extreme(a.in, a.op == "amax")
		}
		g.line("%s %s[%d];", g.accType(a), arr, columnBlock)
		g.line("for (int j = 0; j < %d; j++) %s[j] = %s;", columnBlock, arr, init)
		a.acc = fmt.Sprintf("%s[%s - %sb]", arr, x, x)
		a.part = a.acc
		if (a.op == "amax" || a.op == "amin") && a.in.IsFloat() {
			nan := g.tmp()
			g.line("int %s[%d] = {0};", nan, columnBlock)
			a.nan = fmt.Sprintf("%s[%s - %sb]", nan, x, x)
		} else if a.op != "sum" {
			a.nan = "-"
		}
		accs = append(accs, a)
	}
	g.openLoops(rs, g.sp.reduce, "", false)
	g.line("%s", g.r.d.SIMD)
	g.line("for (%s %s = %sb; %s < %se; %s++) {", t, x, x, x, x, x)
	g.ind++
	g.push()
	for _, a := range accs {
		a.tmps = map[string]value{}
		g.stmts(a.n, a.n.Body[:a.at], a.vars, a.tmps)
		g.combine(a, rs)
	}
	g.pop()
	g.ind--
	g.line("}")
	g.closeLoops(len(rs))
	g.line("for (%s %s = %sb; %s < %se; %s++) {", t, x, x, x, x, x)
	g.ind++
	g.push()
	for _, a := range accs {
		if a.nan != "" && a.nan != "-" {
			g.line("if (%s) %s = (%s)%s;", a.nan, a.acc, g.ctype(a.in), g.r.d.NaN)
		}
		a.part, a.nan = "", ""
		a.tmps = map[string]value{}
		res := g.finish(a)
		a.tmps[a.n.Body[a.at].Dst] = res
		v, ok := g.stmts(a.n, a.n.Body[a.at+1:], a.vars, a.tmps)
		if !ok {
			g.fail("reduction node %s has no store", a.n.Name)
			return
		}
		g.storeValue(a.n, v, a.vars, a.tmps)
	}
	for _, m := range g.k.Nodes { // kernel order: a slot-0 member before the slot-1 members reading it
		if s, ok := slot[m]; ok && s <= 1 && g.inline[m.Name] == nil && m.Kind != loopir.Reduction {
			g.emitMember(m)
		}
	}
	g.pop()
	g.ind--
	g.line("}")
	g.ind--
	g.line("}")
	g.closeLoops(k)
	g.addVecNote(fmt.Sprintf("column reduction: blocks of %d columns per task, each row of a block added in a vector loop (omp simd)", columnBlock))
}
