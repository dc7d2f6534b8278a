package sched

import (
	"container/heap"
	"fmt"
	"slices"
	"sort"

	"gcdbg/loopir"
)

// MaxRounds bounds the greedy fusion rounds, as Inductor's fuse_nodes does.
const MaxRounds = 10

// MaxPairAttempts bounds how many later groups touching the same buffer
// each group is paired with (Inductor's
// config.max_fusion_buffer_group_pairwise_attempts): a weight read by
// every layer of a 10k-node chain would otherwise pair every layer with
// every other, tens of millions of pairs all refused as cycles.
const MaxPairAttempts = 64

// Schedule is the scheduler's result: the kernels in execution order and
// every fusion it attempted.
type Schedule struct {
	// Program is the program the kernels' nodes belong to: the input, or a
	// copy of it listing the members whose loops the scheduler permuted
	// (reorder.go) in place of the originals. Render with it.
	Program   *loopir.Program
	Before    []*loopir.Kernel // one kernel per node: the program unfused
	Kernels   []*loopir.Kernel
	Decisions []Decision
	Rounds    []Round
}

// Round is one greedy pass: how many groups it started with, how many
// candidate pairs it found and how many groups it ended with.
type Round struct {
	N, Candidates, After int
}

// Decision is one attempted fusion, taken or refused.
type Decision struct {
	Round      int
	A, B       string // the groups, named by their nodes (buf0_buf1)
	Action     string // "fuse" or "refuse"
	Category   string // empty when refused before a category was found
	BytesSaved int64
	Proximity  int
	Score      Score
	Reason     string // why it was refused
	Note       string // what a fusion changed (a group's loops reordered)
}

// Score orders candidate pairs, best first, as Inductor's score_fusion:
// the category rank (extern epilogues first, then fusions of the same
// kind of node, then a reduction with pointwise work), bytes of memory
// traffic saved, then proximity (minus the distance in program order).
type Score struct {
	Rank      int
	Bytes     int64
	Proximity int
}

// Better reports whether s should be tried before o.
func (s Score) Better(o Score) bool {
	if s.Rank != o.Rank {
		return s.Rank > o.Rank
	}
	if s.Bytes != o.Bytes {
		return s.Bytes > o.Bytes
	}
	return s.Proximity > o.Proximity
}

func (s Score) String() string { return fmt.Sprintf("(%d, %d, %d)", s.Rank, s.Bytes, s.Proximity) }

// state is the scheduler's working set.
type state struct {
	p       *loopir.Program
	el      *Elisions        // the renderer's elisions the memory plan honours (elide.go)
	env     map[string]int64 // symbol hints (s0 -> 8) for sizes
	groupOf map[*loopir.Node]*group
	writer  map[string]*loopir.Node
	readers map[string][]*loopir.Node
	// readerIdx is readers by program-order index (indexEdges).
	readerIdx map[string][]int
	outputs   map[string]bool
	nextID    int
	// at is groupOf by program-order index; succIdx and predIdx list, per
	// node, the nodes reading what it writes and writing what it reads
	// (the dependence edges, built once: the cycle check walks them often).
	at               []*group
	succIdx, predIdx [][]int
	// byPos is the topological order of the groups (reach.go), with holes
	// where fused groups were; topoOK is false when the program's own
	// dependences have a cycle. stamp and visitGen number the scratch marks.
	byPos           []*group
	skip            []int // nextLive's union-find over byPos's holes
	topoOK          bool
	stamp, visitGen int
	sizeOf          map[string]int64  // bufBytes' memo
	stack           []*group          // reaches' scratch stacks: forward,
	stackBack       []*group          // and backward
	lin             map[depKey]linear // the index check's linear forms (affine.go)
	// reordered maps a program node to the copy with permuted loops that
	// replaced it (reorder.go); reorderRoot maps a copy back.
	reordered, reorderRoot map[*loopir.Node]*loopir.Node
}

// Fuse fuses p's nodes into kernels: greedy rounds in which every
// candidate pair (two groups touching a common buffer) is scored, tried
// best first, fused when legal and logged either way; rounds repeat until
// nothing changes (at most MaxRounds).
func Fuse(p *loopir.Program) (*Schedule, error) {
	s, groups, err := newState(p)
	if err != nil {
		return nil, err
	}
	sch := &Schedule{Program: p}
	for _, g := range groups {
		sch.Before = append(sch.Before, &loopir.Kernel{Name: g.nodes[0].Name, Nodes: g.nodes})
	}
	refused := map[string]bool{} // a refusal is logged once, not every round
	for round := 1; round <= MaxRounds; round++ {
		pairs := s.candidates(groups)
		rd := Round{N: len(groups), Candidates: len(pairs)}
		changed := false
		for _, pr := range pairs {
			a, b := s.current(pr[0]), s.current(pr[1])
			if a == b {
				continue
			}
			d := s.decide(round, a, b)
			if d.Action == "refuse" {
				key := d.A + "|" + d.B + "|" + d.Reason
				if !refused[key] {
					refused[key] = true
					sch.Decisions = append(sch.Decisions, d)
				}
				continue
			}
			sch.Decisions = append(sch.Decisions, d)
			s.fuse(a, b)
			changed = true
		}
		groups = s.alive(groups)
		rd.After = len(groups)
		sch.Rounds = append(sch.Rounds, rd)
		if !changed {
			break
		}
	}
	order, err := s.topoOrder(groups)
	if err != nil {
		return nil, err
	}
	for i, g := range order {
		sch.Kernels = append(sch.Kernels, &loopir.Kernel{Name: fmt.Sprintf("kernel%d", i), Nodes: g.nodes})
	}
	if s.reorderRoot != nil {
		s.mergeReduceLoops(sch.Kernels) // loopmerge.go
	}
	sch.Program = s.program()
	return sch, nil
}

func newState(p *loopir.Program) (*state, []*group, error) {
	if p == nil {
		return nil, nil, fmt.Errorf("sched: nil program")
	}
	s := &state{p: p, env: symbolHints(p), groupOf: map[*loopir.Node]*group{}, writer: map[string]*loopir.Node{},
		readers: map[string][]*loopir.Node{}, outputs: map[string]bool{}}
	for _, o := range p.Outputs {
		s.outputs[o] = true
	}
	var groups []*group
	for i, n := range p.Nodes {
		if n == nil {
			return nil, nil, fmt.Errorf("sched: program node %d is nil", i)
		}
		for _, w := range n.Writes {
			if prev, ok := s.writer[w.Buffer]; ok && prev != n {
				return nil, nil, fmt.Errorf("sched: node %q: buffer %q is already written by node %q", n.Name, w.Buffer, prev.Name)
			}
			s.writer[w.Buffer] = n
		}
		for _, r := range n.Reads {
			if p.Buffers[r.Buffer] == nil && s.writer[r.Buffer] == nil {
				return nil, nil, fmt.Errorf("sched: node %q: reads unknown buffer %q", n.Name, r.Buffer)
			}
			if len(s.readers[r.Buffer]) == 0 || s.readers[r.Buffer][len(s.readers[r.Buffer])-1] != n {
				s.readers[r.Buffer] = append(s.readers[r.Buffer], n)
			}
		}
		g := newGroup(s.nextID, i, n, p)
		s.nextID++
		s.groupOf[n] = g
		s.at = append(s.at, g)
		groups = append(groups, g)
	}
	s.indexEdges()
	for _, g := range groups {
		g.streams = s.streamsOf(g)
	}
	s.initTopo(groups)
	return s, groups, nil
}

// symbolHints collects the example value of every symbolic dimension of
// the program's graph, to evaluate symbolic sizes.
func symbolHints(p *loopir.Program) map[string]int64 {
	env := map[string]int64{}
	if p.Graph == nil {
		return env
	}
	for _, n := range p.Graph.Nodes {
		if t := n.Meta.Tensor; t != nil {
			for _, d := range t.Shape {
				if d.Sym != "" {
					env[d.Sym] = int64(d.Size)
				}
			}
		}
	}
	return env
}

// current is the group g's first member now belongs to (g itself until a
// fusion absorbs it). By program-order index: a slice, not a map lookup.
func (s *state) current(g *group) *group { return s.at[g.order[0]] }

func (s *state) alive(groups []*group) []*group {
	seen := map[*group]bool{}
	var out []*group
	for _, g := range groups {
		if c := s.current(g); !seen[c] {
			seen[c] = true
			out = append(out, c)
		}
	}
	return out
}

// candidates lists the pairs of groups that touch a common buffer (one
// writes what the other reads, or both read it), best score first; of
// the groups touching one buffer, in program order, each is paired with
// the next MaxPairAttempts.
func (s *state) candidates(groups []*group) [][2]*group {
	touch := map[string][]*group{}
	var bufs []string
	for _, g := range groups {
		for _, b := range sortedKeys(g.reads, g.writes) {
			if len(touch[b]) == 0 {
				bufs = append(bufs, b)
			}
			touch[b] = append(touch[b], g)
		}
	}
	seen := map[[2]int]bool{}
	type scored struct {
		pair  [2]*group
		score Score
		i     int // the order found, the tie-break
	}
	var list []scored
	for _, b := range bufs {
		gs := touch[b]
		for i := range gs {
			for j := i + 1; j < len(gs) && j <= i+MaxPairAttempts; j++ {
				a, c := gs[i], gs[j]
				if a.minOrder() > c.minOrder() {
					a, c = c, a
				}
				key := [2]int{a.id, c.id}
				if seen[key] {
					continue
				}
				seen[key] = true
				list = append(list, scored{[2]*group{a, c}, s.score(tentative(s, a, c), a, c), len(list)})
			}
		}
	}
	// Equal scores keep the order found (by buffer, then group): the index
	// breaks ties, so an unstable O(n log n) sort gives the stable order
	// (SortStableFunc's merges were a third of a 100k-node fan-out's fusion).
	slices.SortFunc(list, func(x, y scored) int {
		switch {
		case x.score.Better(y.score):
			return -1
		case y.score.Better(x.score):
			return 1
		}
		return x.i - y.i
	})
	out := make([][2]*group, len(list))
	for i, x := range list {
		out[i] = x.pair
	}
	return out
}

// tentative is the category a pair would have if legal, for sorting.
func tentative(s *state, a, b *group) string {
	if a.kind == loopir.Extern || b.kind == loopir.Extern {
		return ExternEpilogue
	}
	vertical := s.feeds(a, b) || s.feeds(b, a)
	ra, rb := a.kind == loopir.Reduction, b.kind == loopir.Reduction
	switch {
	case ra == rb && vertical && ra:
		return ReductionFusion
	case ra == rb && vertical:
		return Vertical
	case !vertical:
		return Horizontal
	}
	return ReductionEpilogue
}

// rank orders categories: an extern call with its epilogue (Inductor's
// template fusion) first, then fusions of nodes of the same kind, then a
// reduction with pointwise work.
func rank(cat string, a, b *group) int {
	switch {
	case cat == ExternEpilogue || cat == ExternEpilogueInput:
		return 3
	case (a.kind == loopir.Reduction) == (b.kind == loopir.Reduction):
		return 2
	}
	return 1
}

func (s *state) score(cat string, a, b *group) Score {
	prox := a.minOrder() - b.maxOrder()
	if d := b.minOrder() - a.maxOrder(); abs(d) > abs(prox) {
		prox = d
	}
	return Score{Rank: rank(cat, a, b), Bytes: s.bytesSaved(a, b), Proximity: -abs(prox)}
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// bytesSaved is the memory traffic a fusion removes: each buffer one group
// writes and the other reads is no longer read back, and no longer written
// at all when nothing outside the pair reads it and it is not an output;
// a buffer both read is read once instead of twice.
func (s *state) bytesSaved(a, b *group) int64 {
	var saved int64
	// Each loop walks the smaller of the two sets it intersects: scoring a
	// pair with a 10,000-node group costs as much as its smaller side.
	for _, pr := range [][2]*group{{a, b}, {b, a}} {
		x, y := pr[0], pr[1]
		count := func(buf string) {
			n := s.bufBytes(buf)
			saved += n
			if !s.outputs[buf] && s.onlyReadBy(buf, x, y) {
				saved += n
			}
		}
		if len(x.writes) <= len(y.reads) {
			for buf := range x.writes {
				if y.reads[buf] {
					count(buf)
				}
			}
		} else {
			for buf := range y.reads {
				if x.writes[buf] {
					count(buf)
				}
			}
		}
	}
	small, big := a, b
	if len(small.reads) > len(big.reads) {
		small, big = big, small
	}
	for buf := range small.reads {
		if big.reads[buf] && !a.writes[buf] && !b.writes[buf] {
			saved += s.bufBytes(buf)
		}
	}
	return saved
}

func (s *state) onlyReadBy(buf string, gs ...*group) bool {
	for _, r := range s.readerIdx[buf] {
		g := s.at[r]
		if g != gs[0] && g != gs[1] {
			return false
		}
	}
	return true
}

// bufBytes is a buffer's size in bytes (0 when a size cannot be evaluated).
// Sizes are memoized: scoring evaluates them for every candidate pair.
func (s *state) bufBytes(name string) int64 {
	if n, ok := s.sizeOf[name]; ok {
		return n
	}
	var n int64
	if b := s.p.Buffers[name]; b != nil {
		if v, ok := product(b.Sizes, s.env); ok {
			n = v * int64(b.DType.Size())
		}
	}
	if s.sizeOf == nil {
		s.sizeOf = map[string]int64{}
	}
	s.sizeOf[name] = n
	return n
}

// decide checks a pair and makes its Decision.
func (s *state) decide(round int, a, b *group) Decision {
	if a.minOrder() > b.minOrder() {
		a, b = b, a
	}
	d := Decision{Round: round, A: a.name(), B: b.name()}
	cat, reason, note := s.check(a, b)
	if reason == "" {
		reason = s.keptForReduction(round, a, b) // prologue_first.go
	}
	d.Note = note
	var sc Score
	if cat == "" {
		sc = s.score(tentative(s, a, b), a, b)
	} else {
		sc = s.score(cat, a, b)
	}
	d.Category, d.BytesSaved, d.Proximity, d.Score = cat, sc.Bytes, sc.Proximity, sc
	if reason != "" {
		d.Action, d.Reason = "refuse", reason
		return d
	}
	d.Action = "fuse"
	return d
}

// fuse merges b into a or a into b (the larger absorbs the smaller, see
// merge): the topological numbering is repaired first, on the groups as
// they were, then only the absorbed group's members are re-pointed.
func (s *state) fuse(a, b *group) {
	big, small := a, b
	if len(small.nodes) > len(big.nodes) {
		big, small = small, big
	}
	streams := s.mergedStreams(a, b)
	s.reorder(a, b, big)
	moved, movedOrder := small.nodes, small.order
	merge(a, b).streams = streams
	for i, n := range moved {
		s.groupOf[n] = big
		s.at[movedOrder[i]] = big
	}
}

// topoOrder orders the final groups so every kernel runs after the
// kernels it reads from; among ready kernels the earliest in program
// order goes first, so an unfused program keeps its order.
func (s *state) topoOrder(groups []*group) ([]*group, error) {
	indeg := map[*group]int{}
	for _, g := range groups {
		for _, c := range s.succs(g) {
			indeg[c]++
		}
	}
	ready := &groupHeap{}
	var out []*group
	for _, g := range groups {
		if indeg[g] == 0 {
			heap.Push(ready, g)
		}
	}
	for ready.Len() > 0 {
		g := heap.Pop(ready).(*group)
		out = append(out, g)
		for _, c := range s.succs(g) {
			if indeg[c]--; indeg[c] == 0 {
				heap.Push(ready, c)
			}
		}
	}
	if len(out) != len(groups) {
		return nil, fmt.Errorf("sched: the fused kernels form a cycle (a legality check failed)")
	}
	return out, nil
}

func sortedKeys(ms ...map[string]bool) []string {
	seen := map[string]bool{}
	var out []string
	for _, m := range ms {
		for k := range m {
			if !seen[k] {
				seen[k] = true
				out = append(out, k)
			}
		}
	}
	sort.Strings(out)
	return out
}
