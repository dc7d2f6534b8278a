package stages

// A small max-flow / min-cut (Dinic's algorithm) for the partitioner. The
// graphs it sees have a few thousand vertices at most, so clarity wins over
// speed: adjacency lists of edge indices, BFS levels, DFS blocking flows.

// Inf is the capacity of an edge that must never be cut. It is far above
// any byte count and small enough that sums of a few of them cannot overflow.
const Inf int64 = 1 << 60

// FlowNet is a directed graph with integer capacities.
type FlowNet struct {
	adj   [][]int // vertex -> indices into edges
	edges []flowEdge
	names []string
	index map[string]int
}

type flowEdge struct {
	to       int
	cap      int64 // residual capacity
	original int64 // capacity as added (0 for the reverse half)
}

// NewFlowNet returns an empty network.
func NewFlowNet() *FlowNet { return &FlowNet{index: map[string]int{}} }

// Vertex returns the id of the vertex called name, adding it if new.
func (f *FlowNet) Vertex(name string) int {
	if v, ok := f.index[name]; ok {
		return v
	}
	v := len(f.names)
	f.names = append(f.names, name)
	f.index[name] = v
	f.adj = append(f.adj, nil)
	return v
}

// AddEdge adds an edge from → to with capacity c (use Inf for uncuttable).
// Edges are stored in pairs: edge i and its residual reverse i^1.
func (f *FlowNet) AddEdge(from, to string, c int64) {
	u, v := f.Vertex(from), f.Vertex(to)
	if c > Inf {
		c = Inf
	}
	f.adj[u] = append(f.adj[u], len(f.edges))
	f.edges = append(f.edges, flowEdge{to: v, cap: c, original: c})
	f.adj[v] = append(f.adj[v], len(f.edges))
	f.edges = append(f.edges, flowEdge{to: u})
}

// MaxFlow pushes as much flow as possible from s to t and returns its value.
// The result saturates at Inf: a value >= Inf means no finite cut exists.
func (f *FlowNet) MaxFlow(s, t string) int64 {
	src, sink := f.Vertex(s), f.Vertex(t)
	var total int64
	for {
		level := f.levels(src)
		if level[sink] < 0 {
			return total
		}
		next := make([]int, len(f.adj)) // per-vertex edge cursor (Dinic's "current arc")
		for {
			pushed := f.push(src, sink, Inf, level, next)
			if pushed == 0 {
				break
			}
			total += pushed
			if total >= Inf {
				return Inf
			}
		}
	}
}

// levels is the BFS distance from s over edges with residual capacity (-1: unreachable).
func (f *FlowNet) levels(s int) []int {
	level := make([]int, len(f.adj))
	for i := range level {
		level[i] = -1
	}
	level[s] = 0
	queue := []int{s}
	for len(queue) > 0 {
		u := queue[0]
		queue = queue[1:]
		for _, ei := range f.adj[u] {
			e := f.edges[ei]
			if e.cap > 0 && level[e.to] < 0 {
				level[e.to] = level[u] + 1
				queue = append(queue, e.to)
			}
		}
	}
	return level
}

// push finds one augmenting path along strictly increasing levels and
// sends up to limit units along it.
func (f *FlowNet) push(u, t int, limit int64, level, next []int) int64 {
	if u == t {
		return limit
	}
	for ; next[u] < len(f.adj[u]); next[u]++ {
		ei := f.adj[u][next[u]]
		e := &f.edges[ei]
		if e.cap <= 0 || level[e.to] != level[u]+1 {
			continue
		}
		if got := f.push(e.to, t, min(limit, e.cap), level, next); got > 0 {
			e.cap -= got
			f.edges[ei^1].cap += got
			return got
		}
	}
	return 0
}

// SinkSide returns, after MaxFlow, the vertices that can still reach t in
// the residual graph. Its complement is the source side of the minimum cut
// closest to the sink: of all minimum cuts it leaves the most vertices on
// the source side. The partitioner wants exactly that one: among the
// equally cheap choices of what to save, it recomputes the least.
func (f *FlowNet) SinkSide(t string) map[int]bool {
	sink := f.Vertex(t)
	// radj[v] lists edges that end at v, so we can walk residual edges backwards.
	radj := make([][]int, len(f.adj))
	for ei, e := range f.edges {
		radj[e.to] = append(radj[e.to], ei)
	}
	seen := map[int]bool{sink: true}
	queue := []int{sink}
	for len(queue) > 0 {
		v := queue[0]
		queue = queue[1:]
		for _, ei := range radj[v] {
			from := f.edges[ei^1].to // the reverse half points back at the tail
			if f.edges[ei].cap > 0 && !seen[from] {
				seen[from] = true
				queue = append(queue, from)
			}
		}
	}
	return seen
}

// CutEdge is one edge of a minimum cut.
type CutEdge struct {
	From, To string
	Cap      int64
}

// MinCut runs MaxFlow and returns its value with the edges of the minimum
// cut closest to the sink (see SinkSide), in the order they were added.
func (f *FlowNet) MinCut(s, t string) (int64, []CutEdge) {
	value := f.MaxFlow(s, t)
	sinkSide := f.SinkSide(t)
	var cut []CutEdge
	for ei := 0; ei < len(f.edges); ei += 2 {
		e := f.edges[ei]
		from := f.edges[ei^1].to
		if !sinkSide[from] && sinkSide[e.to] && e.original > 0 {
			cut = append(cut, CutEdge{f.names[from], f.names[e.to], e.original})
		}
	}
	return value, cut
}
