package sched

import (
	"container/heap"

	"gcdbg/loopir"
)

// Reachability between groups, for the cycle check. A plain depth-first
// search per query made fusion quadratic to cubic on long programs (a
// 2,000-node chain took minutes), so the scheduler keeps a topological
// numbering of the current groups (pos): every edge goes from a lower
// position to a higher one, so a search for `to` never enters a group
// placed after it. Fusing two groups renumbers only the window between
// them (reorder). When the program's dependences are not acyclic to begin
// with (bad input), the numbering is off and the plain search is used.

// initTopo numbers the initial groups topologically: Kahn's algorithm,
// taking the earliest ready group in program order first, so a program
// already in dependence order keeps its order.
func (s *state) initTopo(groups []*group) {
	indeg := make(map[*group]int, len(groups))
	for _, g := range groups {
		for _, c := range s.succs(g) {
			indeg[c]++
		}
	}
	ready := &groupHeap{}
	for _, g := range groups {
		if indeg[g] == 0 {
			heap.Push(ready, g)
		}
	}
	s.byPos = make([]*group, 0, len(groups))
	for ready.Len() > 0 {
		g := heap.Pop(ready).(*group)
		g.pos = len(s.byPos)
		s.byPos = append(s.byPos, g)
		for _, c := range s.succs(g) {
			if indeg[c]--; indeg[c] == 0 {
				heap.Push(ready, c)
			}
		}
	}
	s.topoOK = len(s.byPos) == len(groups)
	s.skip = make([]int, len(s.byPos)+1)
	for i := range s.skip {
		s.skip[i] = i
	}
}

// nextLive is the first position >= i holding a group (len(byPos) when
// none): the holes fused groups leave are skipped through s.skip, a
// union-find with path compression (a slot, once empty, stays empty), so a
// window wide with holes costs what it holds, not its width.
func (s *state) nextLive(i int) int {
	root := i
	for s.skip[root] != root {
		root = s.skip[root]
	}
	for s.skip[i] != root {
		s.skip[i], i = root, s.skip[i]
	}
	return root
}

// reaches reports whether a path of producer→consumer edges leads from
// one group to another.
//
// The search runs from both ends in turn, one group each: forward from
// `from` over groups placed before `to`, backward from `to` over groups
// placed after `from`. It stops when one side meets the other (a path) or
// runs out (none). The answer is the one-sided search's; the cost is about
// the smaller side's: the input projections of two time steps of an
// unrolled LSTM read one weight (a candidate pair) and have no path
// between them; the forward search walked everything downstream of the
// first up to the second, a window growing with their distance, while
// the second's ancestors are a few groups. examples/review/lstm_train.py
// at T=96: fusion 2.1 -> 1.55 s CPU, the same decisions.
func (s *state) reaches(from, to *group) bool {
	if from == to {
		return true
	}
	if !s.topoOK {
		return s.reachesDFS(from, to, map[*group]bool{})
	}
	if from.pos > to.pos {
		return false
	}
	// The edges are walked in place (not through succs and preds, which
	// allocate): this search runs for every candidate pair of every round.
	s.visitGen++
	gen := s.visitGen
	from.visit, to.back = gen, gen
	fwd := append(s.stack[:0], from)
	bwd := append(s.stackBack[:0], to)
	defer func() { s.stack, s.stackBack = fwd[:0], bwd[:0] }()
	for len(fwd) > 0 && len(bwd) > 0 {
		g := fwd[len(fwd)-1]
		fwd = fwd[:len(fwd)-1]
		for _, o := range s.boundary(g) {
			for _, r := range s.succIdx[o] {
				c := s.at[r]
				if c.back == gen {
					return true
				}
				if c.visit != gen && c.pos < to.pos {
					c.visit = gen
					fwd = append(fwd, c)
				}
			}
		}
		g = bwd[len(bwd)-1]
		bwd = bwd[:len(bwd)-1]
		for _, o := range s.boundary(g) {
			for _, w := range s.predIdx[o] {
				p := s.at[w]
				if p.visit == gen {
					return true
				}
				if p.back != gen && p.pos > from.pos {
					p.back = gen
					bwd = append(bwd, p)
				}
			}
		}
	}
	return false
}

// reachesDFS is the unbounded search, for programs whose dependences have
// a cycle of their own.
func (s *state) reachesDFS(from, to *group, seen map[*group]bool) bool {
	if from == to {
		return true
	}
	if seen[from] {
		return false
	}
	seen[from] = true
	for _, c := range s.succs(from) {
		if s.reachesDFS(c, to, seen) {
			return true
		}
	}
	return false
}

// window collects the groups strictly between positions lo and hi that
// are reachable from start, following succs (forward) or preds.
func (s *state) window(start *group, lo, hi int, forward bool) map[*group]bool {
	out := map[*group]bool{}
	stack := []*group{start}
	for len(stack) > 0 {
		g := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		next := s.preds(g)
		if forward {
			next = s.succs(g)
		}
		for _, c := range next {
			if c.pos > lo && c.pos < hi && !out[c] {
				out[c] = true
				stack = append(stack, c)
			}
		}
	}
	return out
}

// reorder renumbers the window between a and b before they merge into m
// (the caller updates groupOf afterwards). The legality check proved no
// group in the window is both reachable from the earlier one and reaching
// the later one, so [groups reaching the later one, the rest, m, groups
// reached from the earlier one] is a topological order of the window;
// each class keeps its relative order. The freed slot stays empty.
func (s *state) reorder(a, b, m *group) {
	if !s.topoOK {
		return
	}
	first, last := a, b
	if first.pos > last.pos {
		first, last = last, first
	}
	lo, hi := first.pos, last.pos
	after := s.window(first, lo, hi, true)
	before := s.window(last, lo, hi, false)
	var l, mid, r []*group
	// The groups are renumbered into the slots they (and a and b) held,
	// in order; the one slot left over becomes a hole.
	slots := []int{lo}
	for i := s.nextLive(lo + 1); i < hi; i = s.nextLive(i + 1) {
		g := s.byPos[i]
		slots = append(slots, i)
		switch {
		case before[g]:
			l = append(l, g)
		case after[g]:
			r = append(r, g)
		default:
			mid = append(mid, g)
		}
	}
	slots = append(slots, hi)
	k := 0
	for _, part := range [][]*group{l, mid, {m}, r} {
		for _, g := range part {
			g.pos = slots[k]
			s.byPos[slots[k]] = g
			k++
		}
	}
	for ; k < len(slots); k++ {
		s.byPos[slots[k]] = nil
		s.skip[slots[k]] = slots[k] + 1
	}
}

// preds lists the groups that write what g reads.
func (s *state) preds(g *group) []*group {
	s.stamp++
	g.seen = s.stamp
	var out []*group
	for _, o := range s.boundary(g) {
		for _, w := range s.predIdx[o] {
			if pg := s.at[w]; pg.seen != s.stamp {
				pg.seen = s.stamp
				out = append(out, pg)
			}
		}
	}
	return out
}

// indexEdges builds succIdx and predIdx from the writer and readers maps;
// succIdx keeps the order of each node's writes and their readers, which
// succs (and so the cycle path reported) follows.
func (s *state) indexEdges() {
	idx := make(map[*loopir.Node]int, len(s.p.Nodes))
	for i, n := range s.p.Nodes {
		idx[n] = i
	}
	s.readerIdx = make(map[string][]int, len(s.readers))
	for buf, rs := range s.readers {
		ix := make([]int, len(rs))
		for i, r := range rs {
			ix[i] = idx[r]
		}
		s.readerIdx[buf] = ix
	}
	s.succIdx = make([][]int, len(s.p.Nodes))
	s.predIdx = make([][]int, len(s.p.Nodes))
	for i, n := range s.p.Nodes {
		for _, w := range n.Writes {
			for _, r := range s.readers[w.Buffer] {
				s.succIdx[i] = append(s.succIdx[i], idx[r])
			}
		}
		for _, r := range n.Reads {
			if w, ok := s.writer[r.Buffer]; ok {
				s.predIdx[i] = append(s.predIdx[i], idx[w])
			}
		}
	}
}

// boundary returns g's members that still have an edge leaving g, in
// program order, first dropping the edges that became internal from each
// member's succIdx and predIdx and the members left with none from g.bnd.
// Every edge and member is dropped at most once over the whole fusion, so
// the walks cost what the group's outside edges are, not its size; and a
// group that has not grown since it was last pruned is not scanned again
// (an unrolled LSTM's gate kernels, hundreds of members with outside
// edges, are visited by the cycle check of every pair near them).
func (s *state) boundary(g *group) []int {
	if g.pruned {
		return g.bnd
	}
	g.pruned = true
	keep := g.bnd[:0]
	for _, o := range g.bnd {
		s.succIdx[o] = s.external(s.succIdx[o], g)
		s.predIdx[o] = s.external(s.predIdx[o], g)
		if len(s.succIdx[o])+len(s.predIdx[o]) > 0 {
			keep = append(keep, o)
		}
	}
	g.bnd = keep
	return keep
}

// external drops the node indices of g's own members from list, in place
// (a group only grows: an internal edge stays internal).
func (s *state) external(list []int, g *group) []int {
	for i, r := range list {
		if s.at[r] == g {
			out := list[:i]
			for _, r := range list[i+1:] {
				if s.at[r] != g {
					out = append(out, r)
				}
			}
			return out
		}
	}
	return list
}

// groupHeap pops the group earliest in program order.
type groupHeap []*group

func (h groupHeap) Len() int           { return len(h) }
func (h groupHeap) Less(i, j int) bool { return h[i].minOrder() < h[j].minOrder() }
func (h groupHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *groupHeap) Push(x any)        { *h = append(*h, x.(*group)) }
func (h *groupHeap) Pop() any {
	old := *h
	g := old[len(old)-1]
	*h = old[:len(old)-1]
	return g
}
