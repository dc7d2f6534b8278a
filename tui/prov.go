package tui

import (
	"gcdbg/ir"
)

// provIndex links the nodes of every graph stage of one Unit through their
// provenance (ir.Node.From: the names of the nodes of the stage before that
// this node came from). It is built once per Unit; related() walks it.
type provIndex struct {
	up, down map[nodeID][]nodeID
	parent   []int // per stage: the stage its From names refer to, -1 if none
}

// newProvIndex finds, for each graph stage, the stage its From names refer
// to: the nearest earlier graph stage that has every name (the backward
// graph's From names are joint-graph nodes, not forward-graph ones), else
// the earlier stage that has the most of them.
func newProvIndex(graphs []*ir.Graph) *provIndex {
	p := &provIndex{up: map[nodeID][]nodeID{}, down: map[nodeID][]nodeID{}, parent: make([]int, len(graphs))}
	names := make([]map[string]bool, len(graphs))
	for i, g := range graphs {
		if g == nil {
			continue
		}
		names[i] = make(map[string]bool, len(g.Nodes))
		for _, n := range g.Nodes {
			names[i][n.Name] = true
		}
	}
	for i, g := range graphs {
		p.parent[i] = -1
		if g == nil {
			continue
		}
		best, bestHits := -1, 0
		for j := i - 1; j >= 0; j-- {
			if names[j] == nil {
				continue
			}
			hits, total := 0, 0
			for _, n := range g.Nodes {
				for _, f := range n.From {
					total++
					if names[j][f] {
						hits++
					}
				}
			}
			if total > 0 && hits == total {
				best = j
				break
			}
			if hits > bestHits {
				best, bestHits = j, hits
			}
		}
		p.parent[i] = best
		if best < 0 {
			continue
		}
		for _, n := range g.Nodes {
			child := nodeID{i, n.Name}
			for _, f := range n.From {
				if !names[best][f] {
					continue
				}
				par := nodeID{best, f}
				p.up[child] = append(p.up[child], par)
				p.down[par] = append(p.down[par], child)
			}
		}
	}
	return p
}

// related is every node the selection came from or became, transitively,
// in every stage (the selection included). A node also counts as the same
// value as a sibling of the same name made from the same parent: the
// partition copies a saved tensor into both the forward and the backward
// graph, and selecting one should light up the other.
func (p *provIndex) related(sel []nodeID) map[nodeID]bool {
	out := map[nodeID]bool{}
	walk := func(start nodeID, edges map[nodeID][]nodeID) {
		stack := []nodeID{start}
		for len(stack) > 0 {
			n := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			for _, m := range edges[n] {
				if !out[m] {
					out[m] = true
					stack = append(stack, m)
				}
			}
		}
	}
	for _, s := range sel {
		out[s] = true
		walk(s, p.up)
		walk(s, p.down)
	}
	// Same-name siblings (saved tensors), then what they became.
	var twins []nodeID
	for n := range out {
		for _, par := range p.up[n] {
			for _, sib := range p.down[par] {
				if sib.name == n.name && sib.stage != n.stage && !out[sib] {
					twins = append(twins, sib)
				}
			}
		}
	}
	for _, t := range twins {
		out[t] = true
		walk(t, p.down)
	}
	return out
}
