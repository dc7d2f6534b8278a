package render

import (
	"fmt"
	"strings"

	"gcdbg/compiler"
	"gcdbg/loopir"
	"gcdbg/tensor"
)

// The loop nests of the three kinds of fused kernel:
//
//   - pointwise: one nest over the kernel's ranges, the outer loop(s)
//     OpenMP-parallel when the work is large, the innermost loop SIMD;
//   - reduction: an outer nest (parallel) and, per outer point, one or more
//     passes of a reduce loop: a member that reads a reduction's result
//     (softmax's x - max) runs in a pass after the one that finishes it;
//     pointwise members that run once per outer point sit between passes;
//   - extern: the library call (gemm.go), then its epilogue members as a
//     pointwise nest over the call's output.

func squeeze(rs []loopir.Expr) []loopir.Expr {
	var out []loopir.Expr
	for _, r := range rs {
		if r != nil && r.String() != "1" {
			out = append(out, r)
		}
	}
	return out
}

func numel(rs []loopir.Expr) string {
	if len(rs) == 0 {
		return "1"
	}
	return loopir.Mul(rs...).String()
}

func sameRanges(a, b []loopir.Expr) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].String() != b[i].String() {
			return false
		}
	}
	return true
}

// loopNames are the C loop variables of the space: x0.. then r0...
func loopNames(prefix string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("%s%d", prefix, i)
	}
	return out
}

// flat is the row-major flat index of loop variables over sizes.
func (g *kernelGen) flat(names []string, sizes []loopir.Expr) string {
	if len(names) == 0 {
		return "0"
	}
	parts := make([]string, len(names))
	for i := range names {
		stride := numel(sizes[i+1:])
		if stride == "1" {
			parts[i] = names[i]
		} else {
			parts[i] = names[i] + "*" + g.expr(loopir.Mul(sizes[i+1:]...), nil, nil)
		}
	}
	return "(" + strings.Join(parts, " + ") + ")"
}

// bind maps a node's variables prefix0.. over ranges to the loop point: by
// name when its squeezed ranges are the loops' (the common case), else by
// unravelling the flat index (same numel, other shape: [2, 8, 96] over a
// [16, 96] nest).
func (g *kernelGen) bind(vars map[string]string, prefix string, ranges []loopir.Expr, loops []loopir.Expr, names []string) {
	if sameRanges(squeeze(ranges), loops) {
		j := 0
		for i, r := range ranges {
			if r.String() == "1" {
				continue
			}
			vars[fmt.Sprintf("%s%d", prefix, i)] = names[j]
			j++
		}
		return
	}
	if g.bindGroups(vars, prefix, ranges, loops, names) {
		return
	}
	f := g.flat(names, loops)
	texts := map[int]string{}
	for i, r := range ranges {
		if r.String() == "1" {
			continue
		}
		v := f
		if rest := ranges[i+1:]; numel(rest) != "1" {
			v = "(" + v + " / " + g.expr(loopir.Mul(rest...), nil, nil) + ")"
		}
		if i > 0 {
			v = "(" + v + " % " + g.expr(r, nil, nil) + ")"
		}
		vars[fmt.Sprintf("%s%d", prefix, i)] = v
		texts[i] = v
	}
	g.unravelExprs(ranges, loops, names, texts) // unravel.go
}

// bindGroups binds by groups when every loop is the product of
// consecutive ranges (a [64, 128, 512] node over a [8192, 512] nest:
// x0 covers the first two): each variable is its loop's variable, or a
// division and modulo of it within its group, instead of an unravelled
// flat index of the whole nest (a div and mod per dimension that also
// keeps gcc from vectorizing the innermost loop). False when the ranges
// do not group that way (static sizes only); bind then unravels.
func (g *kernelGen) bindGroups(vars map[string]string, prefix string, ranges []loopir.Expr, loops []loopir.Expr, names []string) bool {
	type dim struct {
		i int
		n int64
	}
	var ds []dim
	for i, r := range ranges {
		if r.String() == "1" {
			continue
		}
		c, ok := r.(loopir.Const)
		if !ok {
			return false
		}
		ds = append(ds, dim{i, c.V})
	}
	out := map[string]string{}
	k := 0
	for j, l := range loops {
		c, ok := l.(loopir.Const)
		if !ok {
			return false
		}
		start, prod := k, int64(1)
		for k < len(ds) && prod < c.V {
			prod *= ds[k].n
			k++
		}
		if prod != c.V || k == start {
			return false
		}
		group := ds[start:k]
		for gi, d := range group {
			v := names[j]
			rest := int64(1)
			for _, e := range group[gi+1:] {
				rest *= e.n
			}
			if rest != 1 {
				v = fmt.Sprintf("(%s / %d)", v, rest)
			}
			if gi > 0 {
				v = fmt.Sprintf("(%s %% %d)", v, d.n)
			}
			out[fmt.Sprintf("%s%d", prefix, d.i)] = v
		}
	}
	if k != len(ds) {
		return false
	}
	for name, v := range out {
		vars[name] = v
	}
	return true
}

// level says where a member runs: "outer" (once per outer point), "inner"
// (inside the reduce loop) or "red" (a reduction).
func (g *kernelGen) level(n *loopir.Node) string {
	if n.Kind == loopir.Reduction {
		return "red"
	}
	if len(g.sp.reduce) > 0 && numel(squeeze(n.Ranges)) != numel(g.sp.outer) {
		return "inner"
	}
	return "outer"
}

// varsOf binds n's loop variables at the current point of the nest.
func (g *kernelGen) varsOf(n *loopir.Node) map[string]string {
	vars := map[string]string{}
	xs, rs := loopNames("x", len(g.sp.outer)), loopNames("r", len(g.sp.reduce))
	switch g.level(n) {
	case "red":
		g.bind(vars, "x", n.Ranges, g.sp.outer, xs)
		if !g.bindMerged(vars, n, rs) { // reduce_merge.go
			g.bind(vars, "r", n.ReduceRanges, g.sp.reduce, rs)
		}
	case "inner":
		g.bind(vars, "x", n.Ranges, append(append([]loopir.Expr{}, g.sp.outer...), g.sp.reduce...), append(xs, rs...))
	default:
		g.bind(vars, "x", n.Ranges, g.sp.outer, xs)
	}
	return vars
}

// render writes the kernel function.
func (g *kernelGen) render() (string, error) {
	var ext *loopir.Node
	var red *loopir.Node
	for _, n := range g.k.Nodes {
		switch n.Kind {
		case loopir.Extern:
			ext = n
		case loopir.Reduction:
			if red == nil {
				red = n
			}
		}
	}
	g.push()
	g.ind = 1
	if g.r.opts.Inject != "" && g.idx == firstKernel(g.r) {
		g.line("%s", g.r.opts.Inject)
	}
	if g.idx == crashKernel() {
		// Test hook (GCDBG_TEST_CRASH_KERNEL): a store through a null
		// pointer, so that a run shows how a crashing kernel is reported.
		// The pointer itself is volatile: a constant null store is
		// undefined behaviour that the C compiler may delete along with
		// the rest of the kernel instead of faulting.
		g.line("{ volatile int *volatile gcdbg_test_crash = 0; *gcdbg_test_crash = 1; }")
	}
	switch {
	case ext != nil:
		b := g.r.p.Buffers[ext.Name]
		g.sp = space{outer: squeeze(b.Sizes)}
		if !g.scatterAddIntoProduct(ext) && !g.bmmBatched(ext, without(g.k.Nodes, ext)) { // scatter_gemm.go, gemm_batch.go
			g.extern(ext)
			g.pointwiseNest(without(g.k.Nodes, ext))
		}
	case red != nil:
		g.sp = space{outer: squeeze(red.Ranges), reduce: squeeze(red.ReduceRanges)}
		if m := g.planReduceMerge(g.sp.reduce); m != nil { // reduce_merge.go
			g.sp.reduce = m.apply(g.sp.reduce)
		} else if k := g.planReduceSplit(g.sp.reduce); k > 0 { // reduce_split.go
			g.sp.reduce = []loopir.Expr{loopir.C(g.sp.reduce[0].(loopir.Const).V / k), loopir.C(k)}
		}
		g.reductionNest()
	default:
		g.sp = space{outer: squeeze(g.k.Nodes[0].Ranges)}
		g.pointwiseNest(g.k.Nodes)
	}
	if g.err != nil {
		return "", g.err
	}
	var out strings.Builder
	out.WriteString(g.comment())
	fmt.Fprintf(&out, "%s %s(%s) {\n", g.r.d.KernelPrefix, g.name, strings.Join(g.signature(), ", "))
	out.WriteString(g.withChoice(dropDeadTemps(g.b.String())))
	out.WriteString("}\n")
	return out.String(), nil
}

func firstKernel(r *renderer) int {
	for i, k := range r.kernels {
		if !isFallback(k) {
			return i
		}
	}
	return -1
}

func without(ns []*loopir.Node, x *loopir.Node) []*loopir.Node {
	var out []*loopir.Node
	for _, n := range ns {
		if n != x {
			out = append(out, n)
		}
	}
	return out
}

// signature lists the buffer pointers (read-only ones const) and the size
// symbols.
func (g *kernelGen) signature() []string {
	written := map[string]bool{}
	for _, n := range g.k.Nodes {
		for _, w := range n.Writes {
			written[w.Buffer] = true
		}
		if st := g.r.folded[n]; st != nil {
			written[st.buf] = true
		}
	}
	var ps []string
	for _, name := range g.params {
		st := g.r.store[name]
		q := g.r.d.BufferQualifier
		if !written[name] {
			q += "const "
		}
		ps = append(ps, fmt.Sprintf("%s%s *%s", q, g.stype(st.dt), st.c))
	}
	for _, s := range g.r.man.Symbols {
		ps = append(ps, "const "+g.idxType()+" "+s)
	}
	if len(ps) == 0 {
		return []string{"void"}
	}
	return ps
}

// spec is the kernel's manifest entry.
func (g *kernelGen) spec() compiler.KernelSpec {
	kind := string(g.k.Nodes[0].Kind)
	if len(g.k.Nodes) > 1 {
		kind = "fused"
	}
	var origins []string
	for _, n := range g.k.Nodes {
		origins = append(origins, n.Origins...)
		if st := g.r.folded[n]; st != nil {
			origins = append(origins, st.origins...)
		}
	}
	var bytes int64
	for _, p := range g.params {
		if b := g.r.p.Buffers[p]; b != nil {
			if n, ok := static(b.Sizes); ok {
				bytes += n * int64(b.DType.Size())
			}
		}
	}
	flops := g.flops
	if n, ok := static(g.sp.outer); ok {
		r, _ := static(g.sp.reduce)
		flops *= n * max(r, 1)
	}
	return compiler.KernelSpec{Index: g.idx, Name: g.name, Kind: kind, Origins: origins, Stack: g.stackLines(),
		Bytes: bytes, Flops: flops + g.externFlops()}
}

// parallelIf is the OpenMP clause that runs a nest in parallel only when
// it has enough points (a runtime test, so symbolic sizes work too).
func (g *kernelGen) parallelIf(points []loopir.Expr) (string, bool) {
	if g.r.d.ParallelFor == "" || len(points) == 0 {
		return "", false
	}
	n := loopir.Mul(points...)
	if c, ok := n.(loopir.Const); ok && c.V <= 1 {
		return "", false
	}
	// The pragma is always there, its if() clause deciding at run time, so
	// the source shows the parallel loop and symbolic sizes work too.
	return fmt.Sprintf("if(%s%s > %d)", g.threadChoice(points), g.expr(n, nil, nil), g.r.d.ParallelMin), true
}

// openLoops opens a loop per size; the first gets the parallel pragma
// (collapsing the outer loops collapseDepth picks, never the innermost
// when simd is on), the innermost the SIMD pragma.
func (g *kernelGen) openLoops(names []string, sizes []loopir.Expr, parallel string, simd bool) {
	for i, nm := range names {
		last := i == len(names)-1
		switch {
		case i == 0 && parallel != "" && last && simd:
			g.line("%s simd %s", g.r.d.ParallelFor, parallel)
		case i == 0 && parallel != "":
			coll := len(names)
			if simd {
				coll--
			}
			coll = collapseDepth(sizes[:coll]) // loops_collapse.go
			if coll > 1 {
				g.line("%s collapse(%d) %s", g.r.d.ParallelFor, coll, parallel)
			} else {
				g.line("%s %s", g.r.d.ParallelFor, parallel)
			}
		case last && simd && g.r.d.SIMD != "":
			g.line("%s", g.r.d.SIMD)
		}
		t := g.idxType()
		g.line("for (%s %s = 0; %s < %s; %s++) {", t, nm, nm, g.expr(sizes[i], nil, nil), nm)
		g.ind++
	}
}

func (g *kernelGen) closeLoops(n int) {
	for i := 0; i < n; i++ {
		g.ind--
		g.line("}")
	}
}

// pointwiseNest runs the members (not inlined) at every point of g.sp.outer.
func (g *kernelGen) pointwiseNest(members []*loopir.Node) {
	var emit []*loopir.Node
	for _, n := range members {
		if g.inline[n.Name] == nil {
			emit = append(emit, n)
		}
	}
	if len(emit) == 0 {
		return
	}
	names := loopNames("x", len(g.sp.outer))
	clause, _ := g.parallelIf(g.sp.outer)
	if g.catCopies(emit, clause) { // cat_copy.go
		return
	}
	if g.transposed(members, emit) {
		g.tiledNest(names, clause, members, emit)
		return
	}
	if safe := g.simdSafeHere(members); !safe && g.gatherInner(g.sp.outer) {
		if g.streamGather(names, clause, members, emit) { // gather_stream.go
			return
		}
		g.openGatherLoops(names, g.sp.outer, clause, members) // gather.go
	} else if safe && g.tinyInner(members) {
		g.openTinyInnerLoops(names, g.sp.outer, clause) // loops_tiny.go
	} else {
		g.openLoops(names, g.sp.outer, clause, safe)
	}
	g.push()
	for _, n := range emit {
		g.emitMember(n)
	}
	g.pop()
	g.closeLoops(len(names))
}

// simdSafe reports whether the innermost loop may carry "omp simd": no
// indirect (data-dependent) index, whose gathers could alias a store.
func simdSafe(ns []*loopir.Node) bool {
	for _, n := range ns {
		for _, s := range n.Body {
			if s.Op == "load" && hasIndirect(s.Index) {
				return false
			}
		}
	}
	return true
}

func hasIndirect(e loopir.Expr) bool {
	switch x := e.(type) {
	case loopir.Indirect:
		return true
	case *loopir.Sum:
		for _, t := range x.Terms {
			for _, f := range t.Factors {
				if hasIndirect(f) {
					return true
				}
			}
		}
	case *loopir.FloorDivE:
		return hasIndirect(x.A) || hasIndirect(x.B)
	case *loopir.ModE:
		return hasIndirect(x.A) || hasIndirect(x.B)
	}
	return false
}

// accumulator of one reduction member.
type accum struct {
	n      *loopir.Node
	at     int // index of the reduction statement in the body
	op     string
	in, dt tensor.DType // input dtype, reduction result dtype
	acc    string       // C accumulator
	idx    string       // C index of argmax/argmin
	// In a vector pass (vector.go): part is set while a sum is a vector
	// reduction, nan is the NaN flag of max/min.
	part, nan string
	// floatLanes: a vector pass's float32 sum of squares keeps float
	// partials (reduce.go, floatLaneSum).
	floatLanes bool
	vars       map[string]string
	tmps       map[string]value
}

// reductionNest writes the outer nest and its passes.
func (g *kernelGen) reductionNest() {
	pass, slot := g.passes()
	npass := 0
	for _, p := range pass {
		npass = max(npass, p+1)
	}
	if npass == 1 && g.columnReduction(pass, slot) {
		g.columnNest(slot) // colreduce.go
		return
	}
	xs := loopNames("x", len(g.sp.outer))
	all := append(append([]loopir.Expr{}, g.sp.outer...), g.sp.reduce...)
	clause, _ := g.parallelIf(all)
	if len(xs) == 0 {
		clause = ""
	}
	g.openLoops(xs, g.sp.outer, clause, false)
	if len(xs) == 0 {
		g.line("{")
		g.ind++
	}
	g.push()
	g.stash = g.planStash(pass, npass) // stash.go
	for p := 0; p <= npass; p++ {
		for _, n := range g.k.Nodes {
			if s, ok := slot[n]; ok && s == p && g.inline[n.Name] == nil {
				g.emitMember(n)
			}
		}
		if p == npass {
			break
		}
		if g.stash != nil {
			g.stash.pass = p
		}
		g.reducePass(p, pass)
		if g.stash != nil {
			g.stash.pass = -1
		}
	}
	g.stash = nil
	g.pop()
	if len(xs) == 0 {
		g.ind--
		g.line("}")
	}
	g.closeLoops(len(xs))
}

// passes places every emitted member: reductions and inner members in a
// pass (after the passes finishing the reductions they depend on), outer
// members in a slot before pass p (slot npass = after the last pass).
func (g *kernelGen) passes() (pass, slot map[*loopir.Node]int) {
	pass, slot = map[*loopir.Node]int{}, map[*loopir.Node]int{}
	// need(n) is the earliest time n's inputs are ready, as (pass, slot):
	// a reduction's result is ready for pass p+1 and slot p+1.
	var deps func(n *loopir.Node, seen map[*loopir.Node]bool) int
	deps = func(n *loopir.Node, seen map[*loopir.Node]bool) int {
		t := 0
		for _, rd := range n.Reads {
			w := g.r.writer[rd.Buffer]
			if w == nil || !g.member[w] || seen[w] {
				continue
			}
			switch {
			case g.inline[w.Name] != nil:
				seen[w] = true
				t = max(t, deps(w, seen))
			case w.Kind == loopir.Reduction:
				t = max(t, pass[w]+1)
			case g.level(w) == "inner":
				t = max(t, pass[w])
			default:
				t = max(t, slot[w])
			}
		}
		return t
	}
	for _, n := range g.k.Nodes {
		if g.inline[n.Name] != nil {
			continue
		}
		t := deps(n, map[*loopir.Node]bool{})
		if g.level(n) == "outer" {
			slot[n] = t
		} else {
			pass[n] = t
		}
	}
	npass := 0
	for _, p := range pass {
		npass = max(npass, p+1)
	}
	for n, s := range slot {
		slot[n] = min(s, npass)
	}
	return pass, slot
}

// reducePass writes one reduce loop: accumulators, the loop, and the
// finished reductions' epilogue statements and stores.
func (g *kernelGen) reducePass(p int, pass map[*loopir.Node]int) {
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
		a.in = g.accumInput(a)
	}
	rs := loopNames("r", len(g.sp.reduce))
	vec := g.vectorPass(accs, inner)
	for _, a := range accs {
		a.floatLanes = vec && g.floatLaneSum(a)
		g.initAccum(a)
	}
	if vec {
		g.openVectorLoops(rs, accs)
	} else {
		g.openLoops(rs, g.sp.reduce, "", false)
	}
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
	if vec {
		g.closeVectorLoops(rs, accs)
	} else {
		g.closeLoops(len(rs))
	}
	for _, a := range accs {
		res := g.finish(a)
		a.tmps[a.n.Body[a.at].Dst] = res
		v, ok := g.stmts(a.n, a.n.Body[a.at+1:], a.vars, a.tmps)
		if !ok {
			g.fail("reduction node %s has no store", a.n.Name)
			return
		}
		g.storeValue(a.n, v, a.vars, a.tmps)
	}
}

// tile is the side of the square blocks a transposing nest is cut into:
// 32x32 float32 is 4 KB read and 4 KB written, well inside L1.
const tile = 32

// transposed reports whether a pointwise nest reads some buffer with a
// large stride along its innermost loop (a permute or transposed copy):
// row by row, every load then touches a new cache line, and the nest runs
// at a fraction of the memory bandwidth (measured: 18% of the triad for
// the MLP's 784x512 weight-gradient transposes). Only for static sizes of
// at least two tiles in the last two loops, in a CPU dialect, with every
// emitted member's ranges equal to the loops (so its variables are the
// loops'). The strided load may be in a member inlined into another (a
// permute feeding GELU's chain: the stored node reads only temporaries),
// so every member of the loops' ranges is looked at.
func (g *kernelGen) transposed(members, emit []*loopir.Node) bool {
	o := g.sp.outer
	if g.r.d.ParallelFor == "" || len(o) < 2 || !simdSafe(members) {
		return false
	}
	for _, e := range o[len(o)-2:] {
		if c, ok := e.(loopir.Const); !ok || c.V < 2*tile {
			return false
		}
	}
	for _, n := range emit {
		if !sameRanges(squeeze(n.Ranges), o) {
			return false
		}
	}
	for _, n := range members {
		if !sameRanges(squeeze(n.Ranges), o) {
			continue
		}
		inner := ""
		for i, r := range n.Ranges {
			if r.String() != "1" {
				inner = fmt.Sprintf("x%d", i)
			}
		}
		for _, st := range n.Body {
			if st.Op == "load" && g.inline[st.Buffer] == nil && strideOf(st.Index, inner) >= 16 {
				return true
			}
		}
	}
	return false
}

// jumpingStreams counts the memory streams of a nest whose index strides
// by 16 or more along its k-th last non-trivial loop variable (k = 1: the
// innermost), as transposed finds them: the members' loads of buffers
// not inlined (an inlined member's value is a temporary) and the stores
// of the members that are emitted.
func (g *kernelGen) jumpingStreams(members []*loopir.Node, k int) int {
	count := 0
	for _, n := range members {
		var vars []string
		for i, r := range n.Ranges {
			if r.String() != "1" {
				vars = append(vars, fmt.Sprintf("x%d", i))
			}
		}
		if len(vars) < k {
			continue
		}
		v := vars[len(vars)-k]
		for _, st := range n.Body {
			real := st.Op == "load" && g.inline[st.Buffer] == nil || st.Op == "store" && g.inline[n.Name] == nil
			if real && strideOf(st.Index, v) >= 16 {
				count++
			}
		}
	}
	return count
}

// strideOf is |K| of the term K*v in a flat index (0 when there is none).
func strideOf(e loopir.Expr, v string) int64 {
	sum, ok := e.(*loopir.Sum)
	if !ok {
		return 0
	}
	for _, t := range sum.Terms {
		if len(t.Factors) == 1 {
			if x, ok := t.Factors[0].(loopir.Var); ok && x.Name == v {
				return max(t.K, -t.K)
			}
		}
	}
	return 0
}

// tiledNest runs the members over the loops with the last two cut into
// tile x tile blocks: the outer loops and the block loops in parallel
// (emit: the members not inlined into others).
func (g *kernelGen) tiledNest(names []string, clause string, members, emit []*loopir.Node) {
	o := g.sp.outer
	k := len(o)
	t := g.idxType()
	a, b := names[k-2], names[k-1]
	na, nb := g.expr(o[k-2], nil, nil), g.expr(o[k-1], nil, nil)
	g.line("%s collapse(%d) %s", g.r.d.ParallelFor, k, clause)
	for i := 0; i < k-2; i++ {
		g.line("for (%s %s = 0; %s < %s; %s++) {", t, names[i], names[i], g.expr(o[i], nil, nil), names[i])
		g.ind++
	}
	g.line("for (%s %st = 0; %st < %s; %st += %d) {", t, a, a, na, a, tile)
	g.ind++
	g.line("for (%s %st = 0; %st < %s; %st += %d) {", t, b, b, nb, b, tile)
	g.ind++
	// Inside a tile, the loop along which fewer loads and stores jump runs
	// innermost: a transposed copy keeps b inner (one stream jumps either
	// way), but a sum of many transposed inputs into one output (an
	// unrolled LSTM's per-step weight gradients, 24 inputs of 1 MB: 1.1
	// GB/s with b inner, every input's 32 lines per tile outgrowing L1)
	// reads its inputs along a and jumps only in its store.
	in1, in2 := [2]string{a, na}, [2]string{b, nb}
	if sa, sb := g.jumpingStreams(members, 2), g.jumpingStreams(members, 1); sa < sb {
		in1, in2 = in2, in1
	}
	g.line("for (%s %s = %st; %s < (%st + %d < %s ? %st + %d : %s); %s++) {", t, in1[0], in1[0], in1[0], in1[0], tile, in1[1], in1[0], tile, in1[1], in1[0])
	g.ind++
	// No "omp simd" here: forcing vectorization turns the strided loads
	// into gathers, slower than scalar loads on AMD Zen.
	g.line("for (%s %s = %st; %s < (%st + %d < %s ? %st + %d : %s); %s++) {", t, in2[0], in2[0], in2[0], in2[0], tile, in2[1], in2[0], tile, in2[1], in2[0])
	g.ind++
	g.push()
	for _, n := range emit {
		g.emitMember(n)
	}
	g.pop()
	g.closeLoops(k + 2)
}
