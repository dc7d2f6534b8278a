package sched

import (
	"fmt"

	"gcdbg/loopir"
)

// Merging a kernel's reduce loops, as Inductor's _simplify_loops merges
// dimensions that every access walks contiguously. BatchNorm's sums run
// over (N, H, W) of an NCHW tensor: H and W are one run of H·W floats per
// image, so the reduce loops (N, H, W) are (N, H·W). The renderer merges
// them itself (render/reduce_merge.go) but not in a kernel with pointwise
// members inside the reduce loop, which the loop reordering (reorder.go)
// now puts there; so for such a kernel the scheduler merges them in the
// loop IR: the inner dimension's variable takes the merged range, the outer
// one becomes a loop of 1 (its variable 0), which addresses the same
// element wherever the outer coefficient is the inner one times its size.
// The walk is the same row-major order, in the same lanes as the
// renderer's merge.

// mergeReduceLoops merges the reduce loops of every kernel holding a
// reordered member, where every access of every member allows it, and
// replaces the members by copies.
func (s *state) mergeReduceLoops(kernels []*loopir.Kernel) {
	for _, k := range kernels {
		reordered := false
		for _, n := range k.Nodes {
			if _, ok := s.reorderRoot[n]; ok {
				reordered = true
			}
		}
		if !reordered {
			continue
		}
		if out := mergeKernelLoops(k.Nodes); out != nil {
			for i, n := range k.Nodes {
				if out[i] != n {
					s.replace(n, out[i])
					k.Nodes[i] = out[i]
				}
			}
		}
	}
}

// replace records that c stands for n in the scheduled program.
func (s *state) replace(n, c *loopir.Node) {
	root := n
	if r, ok := s.reorderRoot[n]; ok {
		root = r
	}
	s.reordered[root], s.reorderRoot[c] = c, root
}

// loopDim is one squeezed reduce dimension of a kernel as each member
// names it: a reduction's r variable, an inner pointwise member's x
// variable ("" for a member that does not run over it).
type loopDim struct {
	size  int64
	names map[*loopir.Node]string
}

// mergeKernelLoops returns the members with their reduce loops merged, or
// nil when nothing merges. Only for static sizes, reductions of one
// space, and inner members whose loops are the kernel's exactly.
func mergeKernelLoops(nodes []*loopir.Node) []*loopir.Node {
	var red *loopir.Node
	for _, n := range nodes {
		if n.Kind == loopir.Reduction {
			red = n
			break
		}
	}
	if red == nil {
		return nil
	}
	outer, reduce := squeeze(red.Ranges), squeeze(red.ReduceRanges)
	osize, ok1 := constSizes(outer)
	rsize, ok2 := constSizes(reduce)
	if !ok1 || !ok2 || len(rsize) < 2 {
		return nil
	}
	dims := make([]loopDim, len(rsize))
	for i, n := range rsize {
		dims[i] = loopDim{size: n, names: map[*loopir.Node]string{}}
	}
	full := concat(outer, reduce)
	for _, n := range nodes {
		switch {
		case n.Kind == loopir.Reduction:
			if !rangesEqual(squeeze(n.Ranges), outer) || !rangesEqual(squeeze(n.ReduceRanges), reduce) {
				return nil
			}
			bindDims(dims, n.ReduceRanges, "r", n, 0)
		case n.Kind != loopir.Pointwise:
			return nil
		case numel(squeeze(n.Ranges)) == numel(outer):
			// once per outer point: no reduce variable
		case rangesEqual(squeeze(n.Ranges), full):
			bindDims(dims, n.Ranges, "x", n, len(osize))
		default:
			return nil
		}
	}
	// merge[k]: dimension k joins dimension k+1 (inner to it)
	merge := make([]bool, len(dims))
	merged := false
	for k := 0; k+1 < len(dims); k++ {
		merge[k] = contiguous(nodes, dims[k], dims[k+1])
		merged = merged || merge[k]
	}
	if !merged {
		return nil
	}
	out := make([]*loopir.Node, len(nodes))
	for i, n := range nodes {
		m := map[string]loopir.Expr{}
		sizes := map[string]int64{}
		// A run of merged dimensions k..j: the innermost's variable walks
		// the product, the others are 0.
		for k := 0; k < len(dims); k++ {
			j, prod := k, dims[k].size
			for j < len(dims)-1 && merge[j] {
				j++
				prod *= dims[j].size
			}
			if j > k {
				for q := k; q < j; q++ {
					if v := dims[q].names[n]; v != "" {
						m[v] = loopir.C(0)
						sizes[v] = 1
					}
				}
				if v := dims[j].names[n]; v != "" {
					m[v] = loopir.V(v, loopir.C(prod))
					sizes[v] = prod
				}
			}
			k = j
		}
		if len(m) == 0 {
			out[i] = n
			continue
		}
		c := substCopy(n, m)
		c.Ranges = resize(n.Ranges, "x", sizes)
		c.ReduceRanges = resize(n.ReduceRanges, "r", sizes)
		out[i] = c
	}
	return out
}

// bindDims names each squeezed dimension after the member's variable of
// the same place (skip: the leading squeezed dimensions that are not
// reduce loops, the outer ones of an inner pointwise member).
func bindDims(dims []loopDim, ranges []loopir.Expr, prefix string, n *loopir.Node, skip int) {
	j := -skip
	for i, r := range ranges {
		if r.String() == "1" {
			continue
		}
		if j >= 0 {
			dims[j].names[n] = fmt.Sprintf("%s%d", prefix, i)
		}
		j++
	}
}

// contiguous reports whether, in every access of every member, the outer
// dimension's coefficient is the inner one's times the inner size, each
// variable appearing only as a plain linear term (and in no index_expr).
func contiguous(nodes []*loopir.Node, outer, inner loopDim) bool {
	for _, n := range nodes {
		vo, vi := outer.names[n], inner.names[n]
		if vo == "" && vi == "" {
			continue
		}
		if vo == "" || vi == "" {
			return false
		}
		check := func(e loopir.Expr) bool {
			if e == nil || e == loopir.StarIndex {
				return true
			}
			l := linearOf(e)
			if !l.ok {
				return !mentionsVar(e, vo) && !mentionsVar(e, vi)
			}
			var co, ci int64
			for _, m := range l.terms {
				for _, name := range m.names {
					if name != vo && name != vi {
						continue
					}
					if len(m.names) != 1 {
						return false
					}
					if name == vo {
						co += m.k
					} else {
						ci += m.k
					}
				}
			}
			return co == ci*inner.size
		}
		for _, st := range n.Body {
			if st.Op == "index_expr" && (mentionsVar(st.Index, vo) || mentionsVar(st.Index, vi)) {
				return false
			}
			if !check(st.Index) {
				return false
			}
		}
		for _, ds := range [][]loopir.Dep{n.Reads, n.Writes} {
			for _, d := range ds {
				if !check(d.Index) {
					return false
				}
			}
		}
	}
	return true
}

// mentionsVar reports whether e uses loop variable v.
func mentionsVar(e loopir.Expr, v string) bool {
	if e == nil || e == loopir.StarIndex {
		return false
	}
	return loopir.Subst(e, map[string]loopir.Expr{v: loopir.C(1 << 40)}).String() != e.String()
}

// resize sets the sizes of the named variables' ranges.
func resize(ranges []loopir.Expr, prefix string, sizes map[string]int64) []loopir.Expr {
	out := append([]loopir.Expr{}, ranges...)
	for i := range out {
		if n, ok := sizes[fmt.Sprintf("%s%d", prefix, i)]; ok {
			out[i] = loopir.C(n)
		}
	}
	return out
}
