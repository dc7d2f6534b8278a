package report

import (
	"fmt"
	"strings"

	"gcdbg/stages"
)

// provenance numbers every node of every graph stage (and every buffer,
// loop node and kernel of the loop stages) and records the nodes each came
// from, following ir.Node.From across stages and loopir's Origins into the
// graph it was lowered from. The page's script walks these edges both ways,
// so clicking a name colours its ancestors and descendants in every stage.
type provenance struct {
	ids   map[string]int
	from  map[int][]int
	label []string // "g0 joint: mm_1", the tooltip of every occurrence (set by the script)
}

func newProvenance() *provenance {
	return &provenance{ids: map[string]int{}, from: map[int][]int{}}
}

func provKey(unit int, scope, name string) string {
	return fmt.Sprintf("%d\x00%s\x00%s", unit, scope, name)
}

// id returns the number of (unit, scope, name), allocating one if new.
func (p *provenance) id(unit int, scope, name, graph string) int {
	k := provKey(unit, scope, name)
	if id, ok := p.ids[k]; ok {
		return id
	}
	id := len(p.label)
	p.ids[k] = id
	p.label = append(p.label, fmt.Sprintf("%s %s: %s", graph, scope, name))
	return id
}

// lookup returns the id of (unit, scope, name) if it was recorded.
func (p *provenance) lookup(unit int, scope, name string) (int, bool) {
	id, ok := p.ids[provKey(unit, scope, name)]
	return id, ok
}

func (p *provenance) link(child, parent int) {
	for _, f := range p.from[child] {
		if f == parent {
			return
		}
	}
	p.from[child] = append(p.from[child], parent)
}

// provenanceParent names the stage a graph stage's From refers to when it
// is not simply the previous graph stage: both halves of the partition
// come from the joint graph.
var provenanceParent = map[string]string{"forward": "joint", "backward": "joint"}

// loopScope is the scope the loop stages (loopir, fusion, memory) share
// for one compiled program: the same buffer is one value in all three.
func loopScope(role string) string { return "loop " + role }

// graphStageOfRole is the graph stage a loop program was lowered from.
func graphStageOfRole(role string) string {
	if role == "inference" {
		return "decomposed"
	}
	return role
}

// addUnit records every graph stage's nodes and loop program of unit ui.
func (p *provenance) addUnit(ui int, u *stages.Unit) {
	gname := u.Captured.Name
	prev := ""
	for _, st := range stages.Table {
		if st.Graph == nil {
			continue
		}
		g := st.Graph(u)
		if g == nil {
			continue
		}
		parent := prev
		if pp, ok := provenanceParent[st.Name]; ok {
			parent = pp
		}
		for _, n := range g.Nodes {
			id := p.id(ui, st.Name, n.Name, gname)
			for _, f := range n.From {
				if pid, ok := p.lookup(ui, parent, f); ok && parent != "" {
					p.link(id, pid)
				}
			}
		}
		prev = st.Name
	}
	for _, lp := range u.Programs {
		if lp.Loops == nil {
			continue
		}
		scope, src := loopScope(lp.Role), graphStageOfRole(lp.Role)
		linkTo := func(id int, node string) {
			if pid, ok := p.lookup(ui, src, node); ok {
				p.link(id, pid)
			}
		}
		for _, name := range lp.Loops.Order {
			b := lp.Loops.Buffers[name]
			if b == nil {
				continue
			}
			linkTo(p.id(ui, scope, name, gname), b.Node)
		}
		for _, n := range lp.Loops.Nodes {
			id := p.id(ui, scope, n.Name, gname)
			for _, o := range n.Origins {
				linkTo(id, o)
			}
			if n.IRNode != "" {
				linkTo(id, n.IRNode)
			}
		}
		if lp.Schedule == nil {
			continue
		}
		for _, k := range lp.Schedule.Kernels {
			id := p.id(ui, scope, k.Name, gname)
			names := make([]string, len(k.Nodes))
			for i, n := range k.Nodes {
				names[i] = n.Name
				if nid, ok := p.lookup(ui, scope, n.Name); ok {
					p.link(id, nid)
				}
			}
			// The scheduler names a fused group by its nodes (buf0_buf1).
			if gid, ok := p.group(ui, scope, strings.Join(names, "_"), gname); ok && gid != id {
				p.link(id, gid)
			}
		}
	}
}

// group links a fused-group name (buf0_buf1, named by its nodes joined
// with "_") to its members; it returns false when name is not one.
// Buffer names contain "_" themselves (arg0_1), so parts are rejoined
// greedily, longest known name first.
func (p *provenance) group(ui int, scope, name, graph string) (int, bool) {
	if id, ok := p.lookup(ui, scope, name); ok {
		return id, true
	}
	parts := strings.Split(name, "_")
	var members []int
	for i := 0; i < len(parts); {
		found := false
		for j := len(parts); j > i; j-- {
			if id, ok := p.lookup(ui, scope, strings.Join(parts[i:j], "_")); ok {
				members = append(members, id)
				i, found = j, true
				break
			}
		}
		if !found {
			return 0, false
		}
	}
	if len(members) < 2 {
		return 0, false
	}
	id := p.id(ui, scope, name, graph)
	for _, m := range members {
		p.link(id, m)
	}
	return id, true
}

// provData is what the page's script reads: each id's label (its
// tooltip, kept out of the spans because a name occurs many times) and
// the ids each came from.
type provData struct {
	Labels []string         `json:"labels"`
	From   map[string][]int `json:"from"`
}

func (p *provenance) data() provData {
	m := make(map[string][]int, len(p.from))
	for id, fs := range p.from {
		m[fmt.Sprint(id)] = fs
	}
	return provData{Labels: p.label, From: m}
}
