package sched

import (
	"fmt"

	"gcdbg/loopir"
)

// A fused kernel's iteration space: an outer loop of numel(outer) points
// and, inside it, a reduce loop of numel(reduce) points. Members iterate
// it through their own ranges (a [2, 8, 96] epilogue of a [16, 96] GEMM
// walks the same 1536 points), so index expressions of different members
// are compared by evaluating them at the same flat points.
type space struct {
	outer, reduce []loopir.Expr
}

func mergedSpace(a, b *group) space {
	if rankKind(b.kind) > rankKind(a.kind) {
		return space{b.outer, b.reduce}
	}
	return space{a.outer, a.reduce}
}

// numel is the product of sizes in the canonical form of index
// expressions, so that 8*s0 and s0*8 compare equal by String.
func numel(rs []loopir.Expr) string {
	if len(rs) == 0 {
		return "1"
	}
	return loopir.Mul(rs...).String()
}

func sameNumel(a, b []loopir.Expr) bool { return numel(a) == numel(b) }

// nodeMap binds a node's loop variables to a point (o, q) of a space:
// x0.. unravel o (or o*R+q for a member running inside the reduce loop)
// over the node's ranges, r0.. unravel q over its reduce ranges.
type nodeMap struct {
	x, r   []int64 // the node's range sizes (hints for symbols)
	inner  bool    // the node runs inside the reduce loop
	reduce int64   // R, to flatten (o, q) for inner pointwise members
	isRed  bool
}

func unravel(flat int64, dims []int64, prefix string, env map[string]int64) {
	for i := len(dims) - 1; i >= 0; i-- {
		d := max(dims[i], 1)
		env[fmt.Sprintf("%s%d", prefix, i)] = flat % d
		flat /= d
	}
}

func (m nodeMap) env(pt []int64, syms map[string]int64) map[string]int64 {
	env := make(map[string]int64, len(syms)+len(m.x)+len(m.r))
	for k, v := range syms {
		env[k] = v
	}
	switch {
	case m.isRed:
		unravel(pt[0], m.x, "x", env)
		unravel(pt[1], m.r, "r", env)
	case m.inner:
		unravel(pt[0]*m.reduce+pt[1], m.x, "x", env)
	default:
		unravel(pt[0], m.x, "x", env)
	}
	return env
}

// mapping places node n in space sp, or reports that it does not fit.
func (s *state) mapping(n *loopir.Node, sp space) (nodeMap, bool) {
	var m nodeMap
	var err error
	ranges := nodeRanges(n, s.p)
	if m.x, err = s.sizes(ranges); err != nil {
		return m, false
	}
	if m.reduce, err = s.prod(sp.reduce); err != nil {
		return m, false
	}
	if n.Kind == loopir.Reduction {
		if m.r, err = s.sizes(n.ReduceRanges); err != nil {
			return m, false
		}
		m.isRed, m.inner = true, true
		return m, sameNumel(ranges, sp.outer) && sameNumel(n.ReduceRanges, sp.reduce)
	}
	switch {
	case sameNumel(ranges, sp.outer):
	case len(sp.reduce) > 0 && sameNumel(ranges, concat(sp.outer, sp.reduce)):
		m.inner = true
	default:
		return m, false
	}
	return m, true
}

func (s *state) sizes(rs []loopir.Expr) ([]int64, error) {
	out := make([]int64, len(rs))
	for i, r := range rs {
		v, err := eval(r, s.env)
		if err != nil {
			return nil, err
		}
		out[i] = v
	}
	return out, nil
}

func (s *state) prod(rs []loopir.Expr) (int64, error) {
	n, ok := product(rs, s.env)
	if !ok {
		return 0, fmt.Errorf("cannot evaluate the sizes %s", tuple(rs))
	}
	return n, nil
}

// samplePoints enumerates the (o, q) points of a space when it is small
// and otherwise takes its corners plus a deterministic pseudo-random
// sample: index expressions are affine pieces with floor division and
// modulo, so a mismatch shows at some of these points.
func (s *state) samplePoints(sp space) ([][]int64, error) {
	o, err := s.prod(sp.outer)
	if err != nil {
		return nil, err
	}
	r, err := s.prod(sp.reduce)
	if err != nil {
		return nil, err
	}
	if o <= 0 || r <= 0 {
		return nil, nil // an empty loop reads nothing
	}
	var pts [][]int64
	if o*r <= 8192 {
		for i := int64(0); i < o; i++ {
			for j := int64(0); j < r; j++ {
				pts = append(pts, []int64{i, j})
			}
		}
		return pts, nil
	}
	pts = append(pts, []int64{0, 0}, []int64{0, r - 1}, []int64{o - 1, 0}, []int64{o - 1, r - 1})
	seed := uint64(0x9E3779B97F4A7C15)
	next := func(n int64) int64 {
		seed = seed*6364136223846793005 + 1442695040888963407
		return int64((seed >> 33) % uint64(n))
	}
	for k := 0; k < 1024; k++ {
		pts = append(pts, []int64{next(o), next(r)})
	}
	return pts, nil
}

// writeIndex returns how node p addresses buffer buf when it stores it.
// A node without an index (an extern call) writes its output densely:
// the index is the buffer's strides dotted with the loop variables.
func (s *state) writeIndex(p *loopir.Node, buf string) func(map[string]int64) (int64, error) {
	for _, w := range p.Writes {
		if w.Buffer == buf && w.Index != nil && w.Index != loopir.StarIndex {
			idx := w.Index
			return func(env map[string]int64) (int64, error) { return eval(idx, env) }
		}
	}
	b := s.p.Buffers[buf]
	return func(env map[string]int64) (int64, error) {
		if b == nil || len(b.Strides) != len(nodeRanges(p, s.p)) {
			return 0, fmt.Errorf("%s writes %s without an index and its layout does not match its ranges", p.Name, buf)
		}
		var off int64
		for i, st := range b.Strides {
			v, err := eval(st, env)
			if err != nil {
				return 0, err
			}
			off += v * env[fmt.Sprintf("x%d", i)]
		}
		return off, nil
	}
}

func (s *state) writeIndexString(p *loopir.Node, buf string) string {
	for _, w := range p.Writes {
		if w.Buffer == buf && w.Index != nil && w.Index != loopir.StarIndex {
			return w.Index.String()
		}
	}
	return "dense"
}

// nodeRanges is a node's pointwise ranges; an extern or fallback call
// without loops of its own iterates its output buffer's sizes.
func nodeRanges(n *loopir.Node, p *loopir.Program) []loopir.Expr {
	if len(n.Ranges) > 0 || n.Kind == loopir.Pointwise || n.Kind == loopir.Reduction || len(n.Writes) == 0 {
		return n.Ranges
	}
	if b := p.Buffers[n.Writes[0].Buffer]; b != nil {
		return b.Sizes
	}
	return nil
}

// hasIndirect reports whether an index depends on loaded data (a gather):
// such a read may touch any element, so it cannot fuse with its producer.
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
