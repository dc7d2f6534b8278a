package sched

import (
	"fmt"

	"gcdbg/loopir"
)

// Loop reordering, as Inductor's loop_ordering_after_fusion
// (SchedulerNode.apply_new_loop_order): a pointwise node may walk its
// points in any order, so when a pointwise group would join a reduction
// group inside its reduce loop but walks the same points in another order
// (BatchNorm's x - mean over (N, C, H, W) against its sum over C, then
// (N, H, W)), its loops are permuted into the reduction's order and the
// pair is checked again. The reduction keeps its own loop order, so no sum
// changes its order and the values are the same bits.
//
// Nodes are never changed in place: the reordered members are copies
// (the loop-IR stage still prints what lowering made), and
// Schedule.Program lists them in place of the originals.

// maxReorderTries bounds the permutations tried for one pair: a group's
// dims of equal size can be matched in several ways (three reduce loops of
// 32), and the index check decides which is right.
const maxReorderTries = 24

// maxReorderDims bounds the loops of a group that is reordered.
const maxReorderDims = 8

// reorderInto tries to permute the loops of a, a pointwise group, so
// that it runs inside b, a reduction group reading what it writes, element
// for element (a is the producer, b the consumer, as indexCheck takes
// them). On success the copies replace the members for good and the
// note says what was done; otherwise nothing changes.
func (s *state) reorderInto(a, b *group) (note string, ok bool) {
	// Only a producer: inside the reduce loop it is computed where it is
	// summed, and its buffer (BatchNorm's squared deviations) is no longer
	// written and read back. A consumer (the normalize after the sums)
	// would trade its contiguous walk for the reduction's per-channel one,
	// image by image at a stride of C·H·W: measured slower on this machine
	// (an 8 MB activation sits in the cache either way, and the strided
	// walk's runs of H·W map to the same cache sets).
	// And only when that removes its stores: a producer whose buffers
	// other kernels read is stored anyway, and its walk in the reduction's
	// order measured slower than its own (resnet_block_train's backward).
	p, r := a, b
	if r.kind != loopir.Reduction || p.kind != loopir.Pointwise || len(r.reduce) == 0 || s.feeds(b, a) {
		return "", false
	}
	for buf := range p.writes {
		if s.outputs[buf] || !s.onlyReadBy(buf, p, r) {
			return "", false
		}
	}
	target := concat(r.outer, r.reduce)
	tsize, ok := constSizes(target)
	if !ok || len(tsize) > maxReorderDims || !sameNumel(p.outer, target) {
		return "", false
	}
	ranges := p.nodes[0].Ranges
	for _, n := range p.nodes {
		if n.Kind != loopir.Pointwise || !rangesEqual(n.Ranges, ranges) {
			return "", false
		}
	}
	psize, ok := constSizes(ranges)
	if !ok {
		return "", false
	}
	var dims []int // p's loops of size > 1
	for i, n := range psize {
		if n != 1 {
			dims = append(dims, i)
		}
	}
	if len(dims) != len(tsize) {
		return "", false
	}
	identity := rangesEqual(squeeze(ranges), target)
	orig := append([]*loopir.Node{}, p.nodes...)
	tries := 0
	assign := make([]int, len(dims)) // dims[i] -> target loop assign[i]
	used := make([]bool, len(tsize))
	var found bool
	var try func(i int) bool
	try = func(i int) bool {
		if i == len(dims) {
			if identity && isIdentity(assign) {
				return false // the check that failed already tried this order
			}
			tries++
			if s.tryOrder(a, b, p, orig, psize, dims, assign, target) {
				found = true
				return true
			}
			return tries >= maxReorderTries
		}
		for j := range tsize {
			if used[j] || tsize[j] != psize[dims[i]] {
				continue
			}
			used[j], assign[i] = true, j
			if try(i + 1) {
				return true
			}
			used[j] = false
		}
		return false
	}
	try(0)
	if !found {
		return "", false
	}
	if s.reordered == nil {
		s.reordered, s.reorderRoot = map[*loopir.Node]*loopir.Node{}, map[*loopir.Node]*loopir.Node{}
	}
	for i, n := range orig {
		c := p.nodes[i]
		delete(s.groupOf, n)
		s.groupOf[c] = p
		s.replace(n, c)
	}
	return fmt.Sprintf("loops of %s reordered from %s to %s", p.name(), tuple(ranges), tuple(target)), true
}

// tryOrder puts copies of p's members, their loops permuted by assign,
// in p's place and runs the index check of (a, b); on failure it puts the
// members back.
func (s *state) tryOrder(a, b, p *group, orig []*loopir.Node, psize []int64, dims, assign []int, target []loopir.Expr) bool {
	m := map[string]loopir.Expr{}
	for i, n := range psize {
		if n == 1 {
			m[fmt.Sprintf("x%d", i)] = loopir.C(0)
		}
	}
	for i, d := range dims {
		j := assign[i]
		m[fmt.Sprintf("x%d", d)] = loopir.V(fmt.Sprintf("x%d", j), target[j])
	}
	for i, n := range orig {
		c := reorderedCopy(n, m, target)
		p.nodes[i] = c
		for _, w := range c.Writes {
			s.writer[w.Buffer] = c
		}
	}
	if s.indexCheck(a, b) == "" {
		return true
	}
	for i, n := range orig {
		p.nodes[i] = n
		for _, w := range n.Writes {
			s.writer[w.Buffer] = n
		}
	}
	return false
}

// reorderedCopy is n over ranges with its loop variables replaced by m.
func reorderedCopy(n *loopir.Node, m map[string]loopir.Expr, ranges []loopir.Expr) *loopir.Node {
	c := substCopy(n, m)
	c.Ranges = append([]loopir.Expr{}, ranges...)
	return c
}

// substCopy is a copy of n with its loop variables replaced by m in every
// index (the caller sets the ranges).
func substCopy(n *loopir.Node, m map[string]loopir.Expr) *loopir.Node {
	c := *n
	c.Ranges = append([]loopir.Expr{}, n.Ranges...)
	c.ReduceRanges = append([]loopir.Expr(nil), n.ReduceRanges...)
	subst := func(e loopir.Expr) loopir.Expr {
		if e == nil || e == loopir.StarIndex {
			return e
		}
		return loopir.Subst(e, m)
	}
	c.Body = make([]loopir.Stmt, len(n.Body))
	for i, st := range n.Body {
		st.Index = subst(st.Index)
		st.Args = append([]string(nil), st.Args...)
		c.Body[i] = st
	}
	deps := func(ds []loopir.Dep) []loopir.Dep {
		out := make([]loopir.Dep, len(ds))
		for i, d := range ds {
			out[i] = loopir.Dep{Buffer: d.Buffer, Index: subst(d.Index)}
		}
		return out
	}
	c.Reads, c.Writes = deps(n.Reads), deps(n.Writes)
	c.Origins = append([]string(nil), n.Origins...)
	return &c
}

func constSizes(rs []loopir.Expr) ([]int64, bool) {
	out := make([]int64, len(rs))
	for i, r := range rs {
		c, ok := r.(loopir.Const)
		if !ok {
			return nil, false
		}
		out[i] = c.V
	}
	return out, true
}

func isIdentity(assign []int) bool {
	for i, j := range assign {
		if i != j {
			return false
		}
	}
	return true
}

// program is p with the reordered members in place of the originals (p
// itself when nothing was reordered).
func (s *state) program() *loopir.Program {
	if len(s.reordered) == 0 {
		return s.p
	}
	q := *s.p
	q.Nodes = make([]*loopir.Node, len(s.p.Nodes))
	for i, n := range s.p.Nodes {
		if c, ok := s.reordered[n]; ok {
			n = c
		}
		q.Nodes[i] = n
	}
	return &q
}
