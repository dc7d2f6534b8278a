package render

import (
	"fmt"

	"gcdbg/loopir"
)

// Merged reduce loops (CPU and other dialects alike). A reduction over
// dimensions that are contiguous in every buffer it reads — BatchNorm's and
// a conv bias's per-channel sums over (N, H, W) of an NCHW tensor, where H
// and W are one run of H·W floats per image — had one reduce loop per
// dimension, so its vector loop ran over W alone: 16 or 32 elements, each
// run paying the simd reduction's set-up and horizontal sum (convnet_train's
// six per-channel sums at 4.5–8 GB/s, 0.21–0.31 ms each on one thread).
// When, for every load of every reduction of the kernel, the coefficient of
// each merged variable is the next one's times its size, the inner
// dimensions are one loop: the variable of the innermost of them is bound
// to the merged loop's variable and the others to 0, which is the same
// address (c_i·r_i + c_{i+1}·r_{i+1} = c_{i+1}·(size_{i+1}·r_i + r_{i+1})).
// The merged loop walks the elements in the same row-major order; what
// changes is which vector lane's double partial each element joins (lanes
// over runs of H·W instead of W), as any simd reduction may.
//
// Taken only when it is provably the same address: static sizes, every
// reduce-variable occurrence a plain linear term of a load's index, no
// index_expr over a reduce variable, sums/max/min only (the vector pass's
// accumulators; argmax would read the unmerged variables), no pointwise
// member inside the reduce loop, and every reduction over the same
// squeezed reduce ranges.

// reduceMerge says that the squeezed reduce dimensions from..end run as
// one loop of size.
type reduceMerge struct {
	from int
	size int64
	orig []loopir.Expr // the squeezed reduce ranges before the merge
}

// planReduceMerge looks at the kernel's reduction space before the merge
// (reduce: squeezed ReduceRanges) and returns the merge, nil when none.
// It is a pure function of the kernel, called again by varsOf.
func (g *kernelGen) planReduceMerge(reduce []loopir.Expr) *reduceMerge {
	if len(reduce) < 2 {
		return nil
	}
	sizes := make([]int64, len(reduce))
	for i, r := range reduce {
		c, ok := r.(loopir.Const)
		if !ok {
			return nil
		}
		sizes[i] = c.V
	}
	// coef[i] per load: the coefficient of squeezed reduce dimension i
	var coefs [][]int64
	for _, n := range g.k.Nodes {
		switch n.Kind {
		case loopir.Reduction:
			if !sameRanges(squeeze(n.ReduceRanges), reduce) {
				return nil
			}
			names := reduceVarNames(n)
			for _, s := range n.Body {
				switch s.Op {
				case "reduction":
					switch s.ReduceOp {
					case "sum", "amax", "amin":
					default:
						return nil
					}
				case "index_expr":
					if mentions(s.Index, names) {
						return nil
					}
				case "load":
					c, ok := linearCoefs(s.Index, names)
					if !ok {
						return nil
					}
					coefs = append(coefs, c)
				case "store", "store_reduction":
					if s.Index != nil && mentions(s.Index, names) {
						return nil
					}
				}
			}
		case loopir.Pointwise:
			if g.level(n) != "outer" {
				return nil
			}
		default:
			return nil
		}
	}
	if len(coefs) == 0 {
		return nil
	}
	last := len(reduce) - 1
	from := last
	for from > 0 {
		ok := true
		for _, c := range coefs {
			if c[from-1] != c[from]*sizes[from] {
				ok = false
				break
			}
		}
		if !ok {
			break
		}
		from--
	}
	if from == last {
		return nil
	}
	size := int64(1)
	for _, s := range sizes[from:] {
		size *= s
	}
	return &reduceMerge{from: from, size: size, orig: reduce}
}

// apply replaces the merged dimensions of the space by one.
func (m *reduceMerge) apply(reduce []loopir.Expr) []loopir.Expr {
	out := append([]loopir.Expr{}, reduce[:m.from]...)
	return append(out, loopir.C(m.size))
}

// bindMerged binds a reduction's reduce variables over a merged space;
// false when the kernel's space is not merged (bind does it then).
func (g *kernelGen) bindMerged(vars map[string]string, n *loopir.Node, rs []string) bool {
	orig := squeeze(n.ReduceRanges)
	if sameRanges(orig, g.sp.reduce) {
		return false
	}
	m := g.planReduceMerge(orig)
	if m == nil || !sameRanges(m.apply(orig), g.sp.reduce) {
		return false
	}
	names := reduceVarNames(n)
	for i, name := range names {
		switch {
		case i < m.from:
			vars[name] = rs[i]
		case i < len(names)-1:
			vars[name] = "0"
		default:
			vars[name] = rs[m.from]
		}
	}
	return true
}

// reduceVarNames are the names of n's reduce variables of size > 1, in
// order (r<i> with i its position among all of n's ReduceRanges).
func reduceVarNames(n *loopir.Node) []string {
	var out []string
	for i, r := range n.ReduceRanges {
		if r != nil && r.String() != "1" {
			out = append(out, fmt.Sprintf("r%d", i))
		}
	}
	return out
}

// linearCoefs returns the coefficient of each named variable in e, false
// when one of them occurs other than as a plain linear term (k·r).
func linearCoefs(e loopir.Expr, names []string) ([]int64, bool) {
	out := make([]int64, len(names))
	at := map[string]int{}
	for i, n := range names {
		at[n] = i
	}
	switch x := e.(type) {
	case loopir.Var:
		if i, ok := at[x.Name]; ok {
			out[i] = 1
		}
		return out, true
	case loopir.Const, loopir.Sym:
		return out, true
	case *loopir.Sum:
		for _, t := range x.Terms {
			if len(t.Factors) == 1 {
				if v, ok := t.Factors[0].(loopir.Var); ok {
					if i, ok := at[v.Name]; ok {
						out[i] += t.K
						continue
					}
				}
			}
			for _, f := range t.Factors {
				if mentions(f, names) {
					return nil, false
				}
			}
		}
		return out, true
	}
	return nil, !mentions(e, names)
}

// mentions reports whether e uses one of the named variables (or cannot
// be inspected).
func mentions(e loopir.Expr, names []string) bool {
	switch x := e.(type) {
	case nil:
		return false
	case loopir.Var:
		for _, n := range names {
			if x.Name == n {
				return true
			}
		}
		return false
	case loopir.Const, loopir.Sym:
		return false
	case loopir.Indirect:
		return true
	case *loopir.Sum:
		for _, t := range x.Terms {
			for _, f := range t.Factors {
				if mentions(f, names) {
					return true
				}
			}
		}
		return false
	case *loopir.FloorDivE:
		return mentions(x.A, names) || mentions(x.B, names)
	case *loopir.ModE:
		return mentions(x.A, names) || mentions(x.B, names)
	}
	return true
}
