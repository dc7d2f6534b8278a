package render

import (
	"math"

	"gcdbg/loopir"
)

// A load whose index holds an indirect atom is a gather, checked and kept
// out of "omp simd" (simdSafe): the atom is data. But some atoms are not:
// the backward of a strided slice (avg_pool's windows, a stride-2
// decomposition) scatters through slice_scatter, whose source index is
// clamp(floordiv(x - start, step), 0, n - 1) of the loop variable, and
// AvgPool1d(4, 2, 1)'s backward at 16 x 64 x 16000 spent 148 ms in one such
// kernel at 0.66 GB/s: four checked scalar loads per element, no
// vectorization. An atom computed from the loop variables and constants
// alone, whose value range the clamp bounds, indexes like an affine
// index: when the whole index is proven inside the buffer (and each atom
// inside its dimension), the load is unchecked and the loop may carry
// "omp simd" (the gathered buffer is read, never written, by the nest; the
// memory plan gives a buffer read at another index than the store its own
// storage: sched's inPlace). gcc 12 still does not vectorize that loop
// (the clamped load becomes a masked gather of 64-bit indices it has no
// vector type for); without the four checks the kernel above took 68-145
// ms against 145-245 ms, alternating builds under a load of 6.6. avg_pool1d
// with padding no longer comes here (stages: avg_pool2d's window kernels).

// irange is an integer value's inclusive range; a missing side is
// unbounded.
type irange struct {
	lo, hi       int64
	hasLo, hasHi bool
}

// pureRanges are the integer temporaries of n computed from its loop
// variables and constants alone (no load), with their ranges where known.
func pureRanges(n *loopir.Node) map[string]irange {
	pure := map[string]irange{}
	for _, s := range n.Body {
		if s.Dst == "" || s.DType.IsFloat() {
			continue
		}
		var args []irange
		ok := true
		for _, a := range s.Args {
			r, isPure := pure[a]
			if !isPure {
				ok = false
				break
			}
			args = append(args, r)
		}
		if !ok {
			continue
		}
		switch s.Op {
		case "constant":
			if s.Value == math.Trunc(s.Value) && math.Abs(s.Value) < 1<<53 {
				v := int64(s.Value)
				pure[s.Dst] = irange{v, v, true, true}
			}
		case "index_expr":
			if hasIndirect(s.Index) {
				continue
			}
			if lo, hi, ok := loopir.BoundsConst(s.Index, nil); ok {
				pure[s.Dst] = irange{lo, hi, true, true}
			} else {
				pure[s.Dst] = irange{}
			}
		case "maximum", "minimum":
			if len(args) != 2 {
				continue
			}
			a, b := args[0], args[1]
			// max(a, b) >= either known lower bound, <= the larger upper
			// bound where both are known; min the mirror image.
			var r irange
			if s.Op == "maximum" {
				r.lo, r.hasLo = either(a.lo, a.hasLo, b.lo, b.hasLo, maxI64)
				r.hi, r.hasHi = both(a.hi, a.hasHi, b.hi, b.hasHi, maxI64)
			} else {
				r.hi, r.hasHi = either(a.hi, a.hasHi, b.hi, b.hasHi, minI64)
				r.lo, r.hasLo = both(a.lo, a.hasLo, b.lo, b.hasLo, minI64)
			}
			pure[s.Dst] = r
		case "where":
			if len(args) != 3 {
				continue
			}
			a, b := args[1], args[2]
			pure[s.Dst] = irange{min(a.lo, b.lo), max(a.hi, b.hi), a.hasLo && b.hasLo, a.hasHi && b.hasHi}
		case "to_dtype", "clone":
			if len(args) == 1 {
				pure[s.Dst] = args[0]
			}
		default:
			pure[s.Dst] = irange{} // pure, range unknown
		}
	}
	return pure
}

func maxI64(x, y int64) int64 { return max(x, y) }
func minI64(x, y int64) int64 { return min(x, y) }

// either combines two bounds of which one known suffices.
func either(x int64, hx bool, y int64, hy bool, pick func(x, y int64) int64) (int64, bool) {
	switch {
	case hx && hy:
		return pick(x, y), true
	case hx:
		return x, true
	}
	return y, hy
}

// both combines two bounds that must both be known.
func both(x int64, hx bool, y int64, hy bool, pick func(x, y int64) int64) (int64, bool) {
	return pick(x, y), hx && hy
}

// computedLoad reports whether load s of node n reads at an index whose
// indirect atoms are pure and bounded and which is proven inside the
// buffer and each atom inside its dimension: no check, no gather.
func (g *kernelGen) computedLoad(n *loopir.Node, s loopir.Stmt) bool {
	if n == nil || s.Op != "load" || !hasIndirect(s.Index) {
		return false
	}
	b := g.r.p.Buffers[s.Buffer]
	if b == nil || len(b.Strides) != len(b.Sizes) {
		return false
	}
	if g.pure == nil {
		g.pure = map[*loopir.Node]map[string]irange{}
	}
	pr, ok := g.pure[n]
	if !ok {
		pr = pureRanges(n)
		g.pure[n] = pr
	}
	ind := func(tmp string) (int64, int64, bool) {
		r, ok := pr[tmp]
		return r.lo, r.hi, ok && r.hasLo && r.hasHi
	}
	for _, a := range indirectsOf(s.Index) {
		if _, _, ok := ind(a.Tmp); !ok {
			return false
		}
		if a.Bound != nil && !loopir.ProvenWithin(a, a.Bound, ind) {
			return false
		}
	}
	// The buffer's extent, 1 + sum((size - 1) * stride), with every size
	// at least 1.
	ext := []loopir.Expr{loopir.C(1)}
	for i := range b.Sizes {
		if !loopir.ProvenWithin(loopir.C(0), b.Sizes[i], nil) {
			return false
		}
		ext = append(ext, loopir.Mul(loopir.Sub(b.Sizes[i], loopir.C(1)), b.Strides[i]))
	}
	return loopir.ProvenWithin(s.Index, loopir.Add(ext...), ind)
}

// simdSafeHere is simdSafe, with loads at a computed index (computedLoad)
// of a buffer no member writes counted as safe.
func (g *kernelGen) simdSafeHere(ns []*loopir.Node) bool {
	written := map[string]bool{}
	for _, n := range ns {
		for _, w := range n.Writes {
			written[w.Buffer] = true
		}
	}
	for _, n := range ns {
		for _, s := range n.Body {
			if s.Op == "load" && hasIndirect(s.Index) && (written[s.Buffer] || !g.computedLoad(n, s)) {
				return false
			}
		}
	}
	return true
}
