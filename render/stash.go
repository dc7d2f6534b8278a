package render

import (
	"gcdbg/loopir"
)

// Stashing a transcendental between the passes of a row kernel (CPU
// dialect). A softmax row kernel makes three passes over the row: the
// max, Σ exp(x - max), and exp(x - max) / sum. The exp is an inlined
// member, so each pass that reads it computed it again: two vector expf
// per element where PyTorch's kernel computes one (it writes exp into the
// output in the sum pass and scales the output in place). Here the first
// pass that computes such a value also stores it into the output of the
// kernel's last pass, at the same point, and the later passes load it
// back instead of computing it again; the last pass then overwrites it
// with the result. The row is still in L1/L2 when it is read back.
//
// Sound because: the output is written by a member of the last pass at
// exactly the point the stashed value belongs to (both indices are
// affine and equal at every loop point), it has the value's dtype, no
// member reads it before the last pass's store (the writer is in the last
// pass; readers after it read the final value), the last pass reads the
// stash back before that store overwrites it (a member of the last pass
// emitted no later than the holder reads the value through inlined
// members: planStash; the pass keeps it in a register for its later
// readers, and a read after the holder's store that still reaches the
// stash recomputes instead: stashedLoad), and a multi-pass
// kernel's output never shares memory with a buffer the kernel reads
// (render.go does not honour in-place plans in multi-pass kernels).
// Values computed once are exact copies: the results are bit for bit
// those of the recomputing kernel.
//
// Only for rows of at most stashMaxRow elements (a longer row would not
// stay in cache between the passes: writing and reading it back costs
// more than the transcendental) and only for values whose statements call
// one of stashOps.
//
// Measured (bench/models/softmax_rows.py, 4096 x 1024, one thread, CPU
// time, min of 20): 4.0 -> 2.5 ms.

const stashMaxRow = 16384

var stashOps = map[string]bool{
	"exp": true, "log": true, "log1p": true, "expm1": true, "tanh": true, "erf": true, "pow": true,
	"sin": true, "cos": true, "tan": true, "sinh": true, "cosh": true, "atan": true, "atan2": true,
	"asin": true, "acos": true, "asinh": true, "acosh": true, "atanh": true, "log2": true, "log10": true,
	"sigmoid": true, "erfc": true,
}

// stashPlan maps an inlined buffer to the output it is stashed in.
type stashPlan struct {
	out    map[string]*loopir.Node // inlined buffer -> the last pass's member whose output holds it
	stored map[string]int          // inlined buffer -> the pass that stored it (absent: not yet)
	pass   int                     // the pass being written; -1 outside the passes
	last   int                     // the kernel's last pass (holds the outputs)
	wrote  map[*loopir.Node]bool   // holders whose own store has been written
}

// planStash finds, for a reduction kernel of npass passes, the inlined
// values worth stashing and the outputs that can hold them.
func (g *kernelGen) planStash(pass map[*loopir.Node]int, npass int) *stashPlan {
	if g.r.d.Name != "c" || npass < 2 {
		return nil
	}
	if c, ok := loopir.Mul(g.sp.reduce...).(loopir.Const); !ok || c.V > stashMaxRow {
		return nil
	}
	var lastInner []*loopir.Node
	for n, p := range pass {
		if p == npass-1 && n.Kind != loopir.Reduction && g.inline[n.Name] == nil && g.level(n) == "inner" && g.r.store[n.Name] != nil {
			lastInner = append(lastInner, n)
		}
	}
	// passes[b]: how many passes compute the inlined buffer b (through
	// the inlined members their members read).
	passes := map[string]int{}
	for q := 0; q < npass; q++ {
		seen := map[string]bool{}
		var walk func(n *loopir.Node)
		walk = func(n *loopir.Node) {
			for _, rd := range n.Reads {
				if p := g.inline[rd.Buffer]; p != nil && !seen[rd.Buffer] {
					seen[rd.Buffer] = true
					passes[rd.Buffer]++
					walk(p)
				}
			}
		}
		for n, p := range pass {
			if p == q {
				walk(n)
			}
		}
	}
	plan := &stashPlan{out: map[string]*loopir.Node{}, stored: map[string]int{}, pass: -1, last: npass - 1, wrote: map[*loopir.Node]bool{}}
	// readBy(m, b): a member of the last pass, m or one emitted before it
	// (kernel order), computes b: the last pass loads the stash there,
	// before m's store overwrites it.
	readBy := func(m *loopir.Node, b string) bool {
		for _, r := range g.k.Nodes {
			if p, ok := pass[r]; ok && p == npass-1 && g.inline[r.Name] == nil && g.readsInlined(r, b, plan.out) {
				return true
			}
			if r == m {
				return false
			}
		}
		return false
	}
	taken := map[*loopir.Node]bool{}
	for _, n := range g.k.Nodes { // kernel order: deterministic
		if g.inline[n.Name] == nil || g.level(n) != "inner" || !costly(n) || passes[n.Name] < 2 {
			continue
		}
		ni, ok := storeIndex(n)
		if !ok {
			continue
		}
		for _, m := range g.k.Nodes {
			// The last pass must read n at or before m: an output
			// written before any read of n (a sibling row's result, as
			// log_softmax's beside softmax's) would be read back
			// overwritten.
			if taken[m] || !contains(lastInner, m) || !readBy(m, n.Name) || g.r.p.Buffers[m.Name] == nil || g.r.p.Buffers[n.Name] == nil ||
				g.r.p.Buffers[m.Name].DType != g.r.p.Buffers[n.Name].DType {
				continue
			}
			mi, ok := storeIndex(m)
			if !ok || !sameVars(g.varsOf(n), g.varsOf(m)) || !sameAffine(ni, mi) {
				continue
			}
			plan.out[n.Name], taken[m] = m, true
			break
		}
	}
	// A value stashed later may cut a chain checked above: keep only the
	// pairs still read in time (dropping a pair only lengthens the
	// others' chains).
	for b, m := range plan.out {
		if !readBy(m, b) {
			delete(plan.out, b)
		}
	}
	if len(plan.out) == 0 {
		return nil
	}
	return plan
}

// stashedLoad is load's hook for an inlined buffer: the stashed value in
// a pass after the one that stored it, else nothing (ok false).
func (g *kernelGen) stashedLoad(buf string) (value, bool) {
	sp := g.stash
	if sp == nil || sp.pass < 0 {
		return value{}, false
	}
	m := sp.out[buf]
	if m == nil {
		return value{}, false
	}
	if p, ok := sp.stored[buf]; !ok || p >= sp.pass {
		return value{}, false
	}
	if sp.wrote[m] {
		return value{}, false // m's store already overwrote the stash: recompute
	}
	n := g.inline[buf]
	idx, _ := storeIndex(m)
	mem := g.r.store[m.Name]
	g.use(m.Name)
	v := g.declExact(mem.dt, g.loadExpr(mem.dt, mem.c+"["+g.expr(idx, g.varsOf(m), nil)+"]"))
	_ = n
	return v, true
}

// stashStore stores a just computed inlined value when it is to be
// stashed and this is the first pass computing it.
func (g *kernelGen) stashStore(buf string, v value) {
	sp := g.stash
	if sp == nil || sp.pass < 0 {
		return
	}
	m := sp.out[buf]
	if m == nil {
		return
	}
	if p, ok := sp.stored[buf]; (ok && p != sp.pass) || sp.pass >= sp.last {
		return // already stashed, or the last pass: nothing later reads it, and m may be stored already
	}
	sp.stored[buf] = sp.pass
	idx, _ := storeIndex(m)
	mem := g.r.store[m.Name]
	g.use(m.Name)
	g.line("%s[%s] = %s;  // stashed for the later passes (stash.go)", mem.c, g.expr(idx, g.varsOf(m), nil), g.storeExpr(mem.dt, v.c))
	g.addVecNote("a transcendental computed in an earlier pass is stashed in the output and read back, not recomputed (stash.go)")
}

// readsInlined reports whether m reads buf directly or through a chain of
// inlined members, none of them itself stashed (a stashed member's value
// is loaded back, not computed from buf).
func (g *kernelGen) readsInlined(m *loopir.Node, buf string, stashed map[string]*loopir.Node) bool {
	seen := map[string]bool{}
	var walk func(n *loopir.Node) bool
	walk = func(n *loopir.Node) bool {
		for _, rd := range n.Reads {
			if rd.Buffer == buf {
				return true
			}
			if p := g.inline[rd.Buffer]; p != nil && !seen[rd.Buffer] {
				seen[rd.Buffer] = true
				if stashed[rd.Buffer] == nil {
					if walk(p) {
						return true
					}
				}
			}
		}
		return false
	}
	return walk(m)
}

// stashWrote records that n's own store has been written (storeValue):
// a stash n holds is gone from then on.
func (g *kernelGen) stashWrote(n *loopir.Node) {
	if g.stash != nil {
		g.stash.wrote[n] = true
	}
}

func costly(n *loopir.Node) bool {
	for _, s := range n.Body {
		if stashOps[s.Op] {
			return true
		}
	}
	return false
}

func contains(ns []*loopir.Node, x *loopir.Node) bool {
	for _, n := range ns {
		if n == x {
			return true
		}
	}
	return false
}

// storeIndex is the index of n's store, when it is affine in n's variables.
func storeIndex(n *loopir.Node) (loopir.Expr, bool) {
	for _, s := range n.Body {
		if s.Op == "store" || s.Op == "store_reduction" {
			return s.Index, s.Index != nil && affine(s.Index)
		}
	}
	return nil, false
}

func affine(e loopir.Expr) bool {
	switch x := e.(type) {
	case loopir.Const, loopir.Var:
		return true
	case *loopir.Sum:
		for _, t := range x.Terms {
			if len(t.Factors) > 1 {
				return false
			}
			for _, f := range t.Factors {
				if _, ok := f.(loopir.Var); !ok {
					return false
				}
			}
		}
		return true
	}
	return false
}

// sameAffine reports whether two affine indices are equal everywhere: at
// the origin and at each variable's unit point.
func sameAffine(a, b loopir.Expr) bool {
	vars := map[string]bool{}
	collect := func(e loopir.Expr) {
		switch x := e.(type) {
		case loopir.Var:
			vars[x.Name] = true
		case *loopir.Sum:
			for _, t := range x.Terms {
				for _, f := range t.Factors {
					if v, ok := f.(loopir.Var); ok {
						vars[v.Name] = true
					}
				}
			}
		}
	}
	collect(a)
	collect(b)
	if a.Eval(map[string]int64{}) != b.Eval(map[string]int64{}) {
		return false
	}
	for v := range vars {
		env := map[string]int64{v: 1}
		if a.Eval(env) != b.Eval(env) {
			return false
		}
	}
	return true
}

func sameVars(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}
