// Package sched is gcdbg's scheduler: it fuses the nodes of a loop-IR
// program into kernels (Inductor's Scheduler.fuse_nodes, in a few hundred
// lines), says why whenever it refuses, and plans the memory of the result.
package sched

import (
	"fmt"
	"strings"

	"gcdbg/loopir"
)

// group is a set of nodes being fused into one kernel (Inductor's
// FusedSchedulerNode). Its iteration space is (outer, reduce): the loops
// every member runs inside. A pure pointwise group has no reduce loops; a
// reduction group's pointwise members run either once per outer point
// (ranges == outer) or over the whole space (ranges == outer ++ reduce).
type group struct {
	id     int
	nodes  []*loopir.Node // in program order
	order  []int          // program-order index of each node
	kind   loopir.NodeKind
	outer  []loopir.Expr // outer (pointwise) ranges, size-1 dims dropped
	reduce []loopir.Expr
	writes map[string]bool
	reads  map[string]bool // buffers read by any member (also in-group ones)
	// pos is the group's place in a topological order of the current
	// groups (reach.go); seen and visit are scratch marks for succs/preds
	// and for the reachability search, back its backward search's mark.
	pos, seen, visit int
	back             int
	label            string // name(), once computed (reset when a merge grows the group)
	// bnd lists, in program order, the members that may still have a
	// dependence edge leaving the group: the edge walks (succs, preds,
	// reaches, feeds) visit only these, so a kernel of 10,000 chained
	// nodes costs as much to walk as its last member. A member whose edges
	// all became internal is dropped lazily (boundary); a group only grows,
	// so it never needs to come back.
	bnd []int
	// pruned says bnd and its members' edge lists hold nothing internal:
	// an edge becomes internal only when its group grows (merge clears it).
	pruned bool
	// streams counts the buffers the group's kernel accesses in memory
	// (stream_cap.go), kept up to date by fuse.
	streams int
}

// maxNamed is how many members a group's name lists in full; a larger
// group is named by its first members, its last and its size
// (buf0_buf1_buf2_…_buf9999 (10000 nodes)), so that naming the groups of
// every decision stays linear in the graph's size.
const maxNamed = 8

func (g *group) name() string {
	if g.label != "" {
		return g.label
	}
	if len(g.nodes) > maxNamed {
		names := make([]string, 0, maxNamed)
		for _, n := range g.nodes[:maxNamed-1] {
			names = append(names, n.Name)
		}
		g.label = fmt.Sprintf("%s_…_%s (%d nodes)", strings.Join(names, "_"), g.nodes[len(g.nodes)-1].Name, len(g.nodes))
		return g.label
	}
	names := make([]string, len(g.nodes))
	for i, n := range g.nodes {
		names[i] = n.Name
	}
	g.label = strings.Join(names, "_")
	return g.label
}

func (g *group) minOrder() int { return g.order[0] }
func (g *group) maxOrder() int { return g.order[len(g.order)-1] }

// newGroup wraps one node.
func newGroup(id, order int, n *loopir.Node, p *loopir.Program) *group {
	g := &group{id: id, nodes: []*loopir.Node{n}, order: []int{order}, kind: n.Kind,
		outer: squeeze(nodeRanges(n, p)), writes: map[string]bool{}, reads: map[string]bool{}, bnd: []int{order}}
	if n.Kind == loopir.Reduction {
		g.reduce = squeeze(n.ReduceRanges)
	}
	for _, d := range n.Writes {
		g.writes[d.Buffer] = true
	}
	for _, d := range n.Reads {
		g.reads[d.Buffer] = true
	}
	return g
}

// merge makes the union of a and b; the caller has checked legality, so
// the iteration space is the larger of the two (a reduction or extern
// group hosts pointwise members). The larger group (by members) absorbs
// the smaller in place and is returned: each node moves O(log n) times
// over a whole fusion, where building a fresh group every time made a
// chain of n nodes cost n²/2.
func merge(a, b *group) *group {
	big, small := a, b
	if len(small.nodes) > len(big.nodes) {
		big, small = small, big
	}
	if rankKind(b.kind) > rankKind(a.kind) {
		big.kind, big.outer, big.reduce = b.kind, b.outer, b.reduce
	} else {
		big.kind, big.outer, big.reduce = a.kind, a.outer, a.reduce
	}
	for k := range small.writes {
		big.writes[k] = true
	}
	for k := range small.reads {
		big.reads[k] = true
	}
	big.nodes, big.order = mergeMembers(big.nodes, big.order, small.nodes, small.order)
	big.bnd = mergeSorted(big.bnd, small.bnd)
	big.label, big.pruned = "", false
	return big
}

// mergeMembers merges two member lists sorted by program order; when one
// lies wholly after the other (a chain growing at its end) it appends.
func mergeMembers(an []*loopir.Node, ao []int, bn []*loopir.Node, bo []int) ([]*loopir.Node, []int) {
	if len(bo) == 0 {
		return an, ao
	}
	if len(ao) == 0 || ao[len(ao)-1] < bo[0] {
		return append(an, bn...), append(ao, bo...)
	}
	nodes := make([]*loopir.Node, 0, len(an)+len(bn))
	order := make([]int, 0, len(ao)+len(bo))
	i, j := 0, 0
	for i < len(ao) || j < len(bo) {
		if j >= len(bo) || (i < len(ao) && ao[i] < bo[j]) {
			nodes, order = append(nodes, an[i]), append(order, ao[i])
			i++
		} else {
			nodes, order = append(nodes, bn[j]), append(order, bo[j])
			j++
		}
	}
	return nodes, order
}

// mergeSorted merges two sorted index lists (appending when it can).
func mergeSorted(a, b []int) []int {
	if len(b) == 0 {
		return a
	}
	if len(a) == 0 || a[len(a)-1] < b[0] {
		return append(a, b...)
	}
	if b[len(b)-1] < a[0] {
		return append(append(make([]int, 0, len(a)+len(b)), b...), a...)
	}
	out := make([]int, 0, len(a)+len(b))
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		if j >= len(b) || (i < len(a) && a[i] < b[j]) {
			out = append(out, a[i])
			i++
		} else {
			out = append(out, b[j])
			j++
		}
	}
	return out
}

// rankKind orders kinds by which one decides a merged group's loops.
func rankKind(k loopir.NodeKind) int {
	switch k {
	case loopir.Extern:
		return 3
	case loopir.Reduction:
		return 2
	case loopir.Pointwise:
		return 1
	}
	return 0
}

// squeeze drops size-1 ranges: a keepdim reduction's [N, 1] and a
// pointwise [N] iterate the same points.
func squeeze(rs []loopir.Expr) []loopir.Expr {
	var out []loopir.Expr
	for _, r := range rs {
		if r != nil && r.String() != "1" {
			out = append(out, r)
		}
	}
	return out
}

func rangesEqual(a, b []loopir.Expr) bool {
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

func concat(a, b []loopir.Expr) []loopir.Expr {
	return append(append([]loopir.Expr{}, a...), b...)
}

// tuple prints ranges as Python prints a tuple: (64, 128) or (4096,).
func tuple(rs []loopir.Expr) string {
	parts := make([]string, len(rs))
	for i, r := range rs {
		parts[i] = r.String()
	}
	if len(parts) == 1 {
		return "(" + parts[0] + ",)"
	}
	return "(" + strings.Join(parts, ", ") + ")"
}

// space prints a group's iteration space the way Inductor prints a node's
// group: (numel,) for pointwise, (numel, rnumel) for reductions.
func (g *group) space(env map[string]int64) string {
	if len(g.reduce) > 0 {
		return "(" + numel(g.outer) + ", " + numel(g.reduce) + ")"
	}
	return "(" + numel(g.outer) + ",)"
}

// product evaluates the product of sizes; ok is false when a size cannot
// be evaluated (an unknown symbol).
func product(rs []loopir.Expr, env map[string]int64) (n int64, ok bool) {
	n = 1
	for _, r := range rs {
		v, err := eval(r, env)
		if err != nil {
			return 0, false
		}
		n *= v
	}
	return n, true
}

// eval calls Expr.Eval, turning a panic (an unbound variable, a division
// by zero) into an error: bad input never panics the scheduler.
func eval(e loopir.Expr, env map[string]int64) (v int64, err error) {
	if e == nil {
		return 0, fmt.Errorf("nil index expression")
	}
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("cannot evaluate %s: %v", e.String(), r)
		}
	}()
	return e.Eval(env), nil
}
