package render

import "gcdbg/ir"

// indexGraph maps the graph's node names to nodes once per render: the
// kernels look nodes up for every origin, extern and fallback, and
// ir.(*Graph).Node is a linear scan (7 s of a 10k-node render). The map
// lives in the renderer, not the graph, so graphs shared by the TUI's
// goroutines stay read-only.
func (r *renderer) indexGraph() {
	if r.p.Graph == nil {
		return
	}
	r.irNodes = make(map[string]*ir.Node, len(r.p.Graph.Nodes))
	for _, n := range r.p.Graph.Nodes {
		if n == nil {
			continue
		}
		if _, dup := r.irNodes[n.Name]; !dup {
			r.irNodes[n.Name] = n // the first, as Graph.Node finds it
		}
	}
}

// irNode is the graph node called name, or nil (also without a graph).
func (r *renderer) irNode(name string) *ir.Node { return r.irNodes[name] }
