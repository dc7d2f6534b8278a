package render

import (
	"fmt"
	"strings"

	"gcdbg/loopir"
)

// reduction: one block per outer point; within it, the passes of the CPU
// nest (loops.go passes()) in order, each reduce loop strided over the
// block's threads and finished by a block reduction.
func (g *simtGen) reduction() {
	d := g.r.d
	g.launch = Launch{Shape: "reduction", Units: g.r.sizeText(loopir.Mul(append([]loopir.Expr{loopir.C(1)}, g.sp.outer...)...)), PerGroup: 1, Block: simtBlock}
	pass, slot := g.passes()
	npass := 0
	for _, p := range pass {
		npass = max(npass, p+1)
	}
	t := g.idxType()
	g.line("const %s lid = %s;", t, d.LocalIdx)
	g.line("for (%s xo = %s; xo < %s; xo += %s) {", t, d.GroupIdx, g.size(g.sp.outer), d.NumGroups)
	g.ind++
	g.unravel("xo", loopNames("x", len(g.sp.outer)), g.sp.outer)
	g.push()
	for p := 0; p <= npass; p++ {
		var outer []*loopir.Node
		for _, n := range g.k.Nodes {
			if s, ok := slot[n]; ok && s == p {
				outer = append(outer, n)
			}
		}
		g.emitMembers(outer, true)
		if p == npass {
			break
		}
		g.reducePassSIMT(p, pass)
	}
	g.pop()
	g.ind--
	g.line("}")
}

// reducePassSIMT is one reduce loop: per-thread accumulators, the strided
// loop (with this pass's inner members), the block reduction, then each
// finished reduction's epilogue and store.
func (g *simtGen) reducePassSIMT(p int, pass map[*loopir.Node]int) {
	d := g.r.d
	var accs []*accum
	var inner []*loopir.Node
	for _, n := range g.k.Nodes {
		if q, ok := pass[n]; !ok || q != p || g.inline[n.Name] != nil {
			continue
		}
		if n.Kind != loopir.Reduction {
			inner = append(inner, n)
			continue
		}
		a := &accum{n: n, at: -1, vars: g.varsOf(n), tmps: map[string]value{}}
		for i, s := range n.Body {
			if s.Op == "reduction" {
				a.at, a.op, a.dt = i, s.ReduceOp, s.DType
			}
		}
		if a.at < 0 {
			g.fail("reduction node %s has no reduction statement", n.Name)
			return
		}
		accs = append(accs, a)
	}
	for _, a := range accs {
		g.initAccum(a)
	}
	t := g.idxType()
	rs := loopNames("r", len(g.sp.reduce))
	g.line("for (%s ri = lid; ri < %s; ri += %s) {", t, g.size(g.sp.reduce), d.LocalSize)
	g.ind++
	g.unravel("ri", rs, g.sp.reduce)
	g.push()
	for _, n := range g.k.Nodes {
		for _, a := range accs {
			if a.n == n {
				g.stmts(n, n.Body[:a.at], a.vars, a.tmps)
				g.combine(a, rs)
			}
		}
		for _, m := range inner {
			if m == n {
				g.emitMember(m)
			}
		}
	}
	g.pop()
	g.ind--
	g.line("}")
	for _, a := range accs {
		g.blockReduce(a)
	}
	for _, a := range accs {
		a.tmps[a.n.Body[a.at].Dst] = g.finish(a)
		g.emitOne(a.n, a.vars, a.tmps, a.n.Body[a.at+1:], true)
	}
}

// blockReduce combines the threads' accumulators of a: a tree in shared
// memory down to one warp, then shuffles (CUDA) or the tree to the end;
// the result is read back by every thread.
func (g *simtGen) blockReduce(a *accum) {
	d := g.r.d
	at := g.accType(a)
	sh := "sh_" + a.acc
	g.shared = append(g.shared, fmt.Sprintf("%s %s[%d];", at, sh, simtBlock))
	shi := ""
	if a.idx != "" {
		shi = "shi_" + a.acc
		g.shared = append(g.shared, fmt.Sprintf("%s %s[%d];", g.idxType(), shi, simtBlock))
	}
	lid := "lid"
	g.line("%s[%s] = %s;", sh, lid, a.acc)
	if shi != "" {
		g.line("%s[%s] = %s;", shi, lid, a.idx)
	}
	g.line("%s", d.Barrier)
	stop := 0
	if d.Shuffle != "" && d.WarpSize > 0 && simtBlock >= 2*d.WarpSize {
		stop = d.WarpSize
	}
	// With shuffles the tree stops when one warp's worth of partials is
	// left (s = WarpSize is its last step); without, it runs to s = 1.
	cond := "s > 0"
	if stop > 0 {
		cond = fmt.Sprintf("s >= %d", stop)
	}
	g.line("for (int s = %d; %s; s >>= 1) {", simtBlock/2, cond)
	g.ind++
	g.line("if (%s < s) {", lid)
	g.ind++
	g.pair(a, at, sh+"["+lid+"]", sh+"["+lid+" + s]", shi, lid+" + s")
	g.ind--
	g.line("}")
	g.line("%s", d.Barrier)
	g.ind--
	g.line("}")
	if stop > 0 {
		// The last warp: one value per lane, halved by shuffles.
		g.line("if (%s < %d) {", lid, stop)
		g.ind++
		g.line("%s v = %s[%s];", at, sh, lid)
		if shi != "" {
			g.line("%s vi = %s[%s];", g.idxType(), shi, lid)
		}
		g.line("for (int o = %d; o > 0; o >>= 1) {", stop/2)
		g.ind++
		g.line("const %s w = %s;", at, g.shuffle(at, "v"))
		if shi != "" {
			g.line("const %s wi = %s;", g.idxType(), g.shuffle(g.idxType(), "vi"))
		}
		g.pairVals(a, "v", "w", "vi", "wi")
		g.ind--
		g.line("}")
		g.line("if (%s == 0) { %s[0] = v;%s }", lid, sh, map[bool]string{true: " " + shi + "[0] = vi;", false: ""}[shi != ""])
		g.ind--
		g.line("}")
		g.line("%s", d.Barrier)
	}
	g.line("%s = %s[0];", a.acc, sh)
	if shi != "" {
		g.line("%s = %s[0];", a.idx, shi)
	}
	// Nobody overwrites the shared slots (next pass, next outer point)
	// before every thread has read the result.
	g.line("%s", d.Barrier)
}

// shuffle spells a warp shuffle of v by o lanes; types the intrinsic has
// no overload for travel as int.
func (g *simtGen) shuffle(t, v string) string {
	switch t {
	case "float", "double", "int", "int32_t", "int64_t", "long long", "unsigned int":
		return strings.NewReplacer("$0", v, "$1", "o").Replace(g.r.d.Shuffle)
	}
	return "(" + t + ")" + strings.NewReplacer("$0", "(int)"+v, "$1", "o").Replace(g.r.d.Shuffle)
}

// pair folds the shared slot b (index bi) into the slot x.
func (g *simtGen) pair(a *accum, at, x, b, shi, bi string) {
	if shi != "" {
		g.pairVals(a, x, b, shi+"[lid]", shi+"["+bi+"]")
		return
	}
	g.pairVals(a, x, b, "", "")
}

// pairVals folds value b into x (indices bi into xi for arg reductions):
// NaN wins for max/min as in combine(); argmax/argmin keep the first
// index among equals, whichever thread saw it.
func (g *simtGen) pairVals(a *accum, x, b, xi, bi string) {
	switch a.op {
	case "sum":
		g.line("%s += %s;", x, b)
	case "prod":
		g.line("%s *= %s;", x, b)
	case "amax":
		g.line("%s = (%s > %s || %s != %s) ? %s : %s;", x, b, x, b, b, b, x)
	case "amin":
		g.line("%s = (%s < %s || %s != %s) ? %s : %s;", x, b, x, b, b, b, x)
	case "argmax", "argmin":
		cmp := ">"
		if a.op == "argmin" {
			cmp = "<"
		}
		g.line("if (%s %s %s || (%s != %s && %s == %s) || ((%s == %s || (%s != %s && %s != %s)) && %s < %s)) { %s = %s; %s = %s; }",
			b, cmp, x, b, b, x, x, b, x, b, b, x, x, bi, xi, x, b, xi, bi)
	}
}
