// Package sched is gcdbg's scheduler: it fuses the nodes of a loop-IR
// program into kernels (Inductor's Scheduler.fuse_nodes, in a few hundred
// lines), says why whenever it refuses, and plans the memory of the result.
package sched

import (
	"fmt"
	"sort"
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
	// and for the reachability search.
	pos, seen, visit int
	label            string // name(), once computed (a group never changes)
}

func (g *group) name() string {
	if g.label != "" {
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
		outer: squeeze(nodeRanges(n, p)), writes: map[string]bool{}, reads: map[string]bool{}}
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

// merge returns the union of a and b; the caller has checked legality, so
// the iteration space is the larger of the two (a reduction or extern
// group hosts pointwise members).
func merge(id int, a, b *group) *group {
	g := &group{id: id, kind: a.kind, outer: a.outer, reduce: a.reduce, writes: map[string]bool{}, reads: map[string]bool{}}
	if rankKind(b.kind) > rankKind(a.kind) {
		g.kind, g.outer, g.reduce = b.kind, b.outer, b.reduce
	}
	type member struct {
		n *loopir.Node
		o int
	}
	var ms []member
	for _, x := range []*group{a, b} {
		for i, n := range x.nodes {
			ms = append(ms, member{n, x.order[i]})
		}
		for k := range x.writes {
			g.writes[k] = true
		}
		for k := range x.reads {
			g.reads[k] = true
		}
	}
	sort.Slice(ms, func(i, j int) bool { return ms[i].o < ms[j].o })
	for _, m := range ms {
		g.nodes = append(g.nodes, m.n)
		g.order = append(g.order, m.o)
	}
	return g
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
