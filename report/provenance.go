package report

import (
	"fmt"
	"strings"

	"gcdbg/stages"
)

// provenance numbers every node of every graph stage (and every buffer,
// loop node, kernel and fused group the loop stages print) for the page's
// script, with the nodes each came from. The edges are stages.Provenance's
// (ir.Node.From into each stage's Parent, loop names through their
// Origins): the report numbers them, it does not decide them. The script
// walks the edges both ways, so clicking a name colours its ancestors and
// descendants in every stage.
type provenance struct {
	ids   map[string]int
	from  map[int][]int
	label []string // "g0 joint: mm_1", the tooltip of every occurrence (set by the script)
	units map[int]*unitProv
}

// unitProv is one Unit's index and its programs by role.
type unitProv struct {
	sp     *stages.Provenance
	byRole map[string]int
}

func newProvenance() *provenance {
	return &provenance{ids: map[string]int{}, from: map[int][]int{}, units: map[int]*unitProv{}}
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

// loopScope is the scope the loop stages (loopir, fusion, memory, the
// code) share for one compiled program: the same buffer is one value in
// all of them.
func loopScope(role string) string { return "loop " + role }

// addUnit records every graph stage's nodes and every loop program's
// buffers, loop nodes and kernels of unit ui.
func (p *provenance) addUnit(ui int, u *stages.Unit) {
	gname := u.Captured.Name
	sp := stages.NewProvenance(u)
	up := &unitProv{sp: sp, byRole: map[string]int{}}
	p.units[ui] = up
	for i, st := range stages.Table {
		g := sp.Graph(i)
		if g == nil {
			continue
		}
		for _, n := range g.Nodes {
			id := p.id(ui, st.Name, n.Name, gname)
			for _, r := range sp.Up(stages.NodeRef{Stage: i, Name: n.Name}) {
				if pid, ok := p.lookup(ui, stages.Table[r.Stage].Name, r.Name); ok {
					p.link(id, pid)
				}
			}
		}
	}
	for i, lp := range u.Programs {
		up.byRole[lp.Role] = i
		if lp.Loops == nil {
			continue
		}
		scope := loopScope(lp.Role)
		for _, name := range lp.Loops.Order {
			p.group(ui, scope, name, gname)
		}
		for _, n := range lp.Loops.Nodes {
			p.group(ui, scope, n.Name, gname)
		}
		if lp.Schedule != nil {
			for _, k := range lp.Schedule.Kernels {
				p.group(ui, scope, k.Name, gname)
			}
		}
	}
}

// group returns the id of a name a loop stage prints (a buffer, loop
// node, kernel or fused group such as buf0_buf1), linked to the graph
// nodes stages.Provenance resolves it to; false when it resolves to none.
func (p *provenance) group(ui int, scope, name, graph string) (int, bool) {
	if id, ok := p.lookup(ui, scope, name); ok {
		return id, true
	}
	up := p.units[ui]
	role, ok := strings.CutPrefix(scope, "loop ")
	if up == nil || !ok {
		return 0, false
	}
	prog, ok := up.byRole[role]
	if !ok {
		return 0, false
	}
	refs := up.sp.Resolve(prog, name)
	var parents []int
	for _, r := range refs {
		if pid, ok := p.lookup(ui, stages.Table[r.Stage].Name, r.Name); ok {
			parents = append(parents, pid)
		}
	}
	if len(parents) == 0 {
		return 0, false
	}
	id := p.id(ui, scope, name, graph)
	for _, pid := range parents {
		p.link(id, pid)
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
