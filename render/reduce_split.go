package render

import "gcdbg/loopir"

// Split reduce loops. GroupNorm's statistics and normalization run over
// the [N, G, C/G*H*W] view, one reduce loop of C/G*H*W points per (image,
// group), while its per-channel weight and bias are read at
// 2*x1 + r0 / 4096 (channel = group * C/G + point / (H*W)): inside the
// vector loop that index is a gather per vector, and unet_gn's GroupNorm
// kernels ran at 5 GB/s. When a reduction kernel's single reduce loop of
// R points has an index dividing (or reducing modulo) by a constant K
// that divides R, with 16 <= K < R, the loop runs as [R/K, K]: the
// members bind their variable to the flat K*r0 + r1 (bind's unravelled
// path), which loopir folds, so r / K is r0 and r % K is r1 and the
// inner loop of K points reads the weight once. The points are walked in
// the same order; what changes is which vector lane's double partial each
// element joins (lanes restart per run of K points), as any simd
// reduction may.
//
// Taken for static sizes, a CPU dialect (SIMD), a kernel with one reduce
// loop, every reduction over it, sums and max/min only, no index_expr.
func (g *kernelGen) planReduceSplit(reduce []loopir.Expr) int64 {
	if g.r.d.SIMD == "" || len(reduce) != 1 {
		return 0
	}
	rc, ok := reduce[0].(loopir.Const)
	if !ok {
		return 0
	}
	best := int64(0)
	for _, n := range g.k.Nodes {
		vars := g.varsOf(n) // over the loops as they are: an unravelled variable's division shows after substitution
		if n.Kind == loopir.Reduction && !sameRanges(squeeze(n.ReduceRanges), reduce) {
			return 0
		}
		for _, st := range n.Body {
			if st.Op == "index_expr" || st.Op == "reduction" && st.ReduceOp != "sum" && st.ReduceOp != "max" && st.ReduceOp != "min" {
				return 0
			}
			if st.Index == nil || st.Index == loopir.StarIndex {
				continue
			}
			idx := st.Index
			if folded, _, ok := g.substUnravelled(idx, vars); ok {
				idx = folded
			}
			eachDivisor(idx, func(k int64) {
				if k >= 16 && k < rc.V && rc.V%k == 0 && k > best {
					best = k
				}
			})
		}
	}
	return best
}

// eachDivisor calls f with the constant divisor of every // and % in e.
func eachDivisor(e loopir.Expr, f func(int64)) {
	switch x := e.(type) {
	case *loopir.FloorDivE:
		if c, ok := x.B.(loopir.Const); ok {
			f(c.V)
		}
		eachDivisor(x.A, f)
	case *loopir.ModE:
		if c, ok := x.B.(loopir.Const); ok {
			f(c.V)
		}
		eachDivisor(x.A, f)
	case *loopir.Sum:
		for _, t := range x.Terms {
			for _, fa := range t.Factors {
				eachDivisor(fa, f)
			}
		}
	}
}
