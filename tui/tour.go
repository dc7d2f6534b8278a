package tui

import (
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"

	"gcdbg/stages"
)

// tourStep shows two stages, puts the left pane's cursor on a node (by
// name) or on the first line containing a text, and explains.
type tourStep struct {
	left, right string
	node, find  string
	text        string
	run         bool
}

// buildTour writes the tour for one captured graph from its own stages and
// nodes: each step's example is picked from this trace (its first module
// call, an op that decomposes, its first guard, a node's backward, its
// largest saved tensor, its first fused kernel and that kernel's C), and
// its explanation is the stage table's own teaching text. A step whose
// stage or example this trace lacks is left out, so the tour fits every
// model and grows with the pipeline.
func buildTour(ud *unitDoc) []tourStep {
	idx := func(name string) int { return stageIndex(name) }
	has := func(name string) bool {
		i := idx(name)
		return i >= 0 && ud.stages[i].err == ""
	}
	teach := func(name string) string {
		if idx(name) < 0 {
			return ""
		}
		st := stages.Table[idx(name)]
		if st.Teach != "" {
			return st.Teach
		}
		return st.Explain
	}
	var steps []tourStep
	add := func(s tourStep) {
		if has(s.left) && has(s.right) {
			steps = append(steps, s)
		}
	}
	capt := idx("captured")
	if capt < 0 || ud.prov.Graph(capt) == nil {
		return nil
	}
	cg := ud.prov.Graph(capt)
	// relatedIn lists the nodes of stage `stage` a captured node became.
	relatedIn := func(node, stage string) []string {
		si := idx(stage)
		if si < 0 {
			return nil
		}
		var out []string
		g := ud.prov.Graph(si)
		if g == nil {
			return nil
		}
		rel := ud.prov.Related(nodeID{Stage: capt, Name: node})
		for _, n := range g.Nodes {
			if rel[nodeID{Stage: si, Name: n.Name}] {
				out = append(out, n.Name)
			}
		}
		return out
	}
	var first, decomposes string
	var parts []string
	for _, n := range cg.Nodes {
		if n.Op == "placeholder" || n.Op == "output" || n.Op == "get_attr" {
			continue
		}
		if first == "" {
			first = n.Name
		}
		if ps := relatedIn(n.Name, "decomposed"); decomposes == "" && len(ps) > 1 {
			decomposes, parts = n.Name, ps
		}
	}
	if first == "" {
		return nil
	}
	add(tourStep{left: "captured", right: "normalized", node: first,
		text: fmt.Sprintf("This is %s as the producer captured it (%d nodes). The cursor is on %s, its first call; the right pane lights up (●) what it became, and the stage list marks (●) every stage where it lives. j/k move the cursor, tab switches panes, ] [ step a pane through the stages and keep the selection, D marks what each stage changed.\n\n%s",
			ud.unit.Captured.Name, len(cg.Nodes), first, teach("captured"))})
	if has("guards") {
		g := ud.stages[idx("guards")]
		for _, l := range g.lines {
			if strings.HasPrefix(l, "  ") && strings.TrimSpace(l) != "" {
				add(tourStep{left: "guards", right: "captured", find: strings.TrimSpace(l)[:min(len(strings.TrimSpace(l)), 30)],
					text: "The first guard this graph needs before a compiled version may be reused: " + strings.Join(strings.Fields(l), " ") + "\n\n" + teach("guards")})
				break
			}
		}
	}
	add(tourStep{left: "captured", right: "normalized", node: first, text: teach("normalized")})
	if decomposes != "" {
		add(tourStep{left: "normalized", right: "decomposed", node: decomposes,
			text: fmt.Sprintf("%s became %d core-op nodes: %s. Each keeps %s as its provenance, which is why they all light up.\n\n%s",
				decomposes, len(parts), strings.Join(limit(parts, 6), ", "), decomposes, teach("decomposed"))})
	}
	if has("joint") {
		back := first
		if decomposes != "" {
			back = decomposes
		}
		add(tourStep{left: "decomposed", right: "joint", node: back,
			text: fmt.Sprintf("In the joint graph %s lights up twice: where the forward computes it, and its backward (press o to walk the lit lines of the right pane).\n\n%s", back, teach("joint"))})
	}
	if p := ud.unit.Partition; p != nil && len(p.Saved) > 0 && has("forward") {
		big := p.Saved[0]
		for _, sv := range p.Saved {
			if sv.Bytes > big.Bytes {
				big = sv
			}
		}
		add(tourStep{left: "forward", right: "backward", node: big.Name,
			text: fmt.Sprintf("The largest tensor the forward saves for the backward is %s (%d bytes of %d saved): the forward returns it, the backward takes it as an input.\n\n%s",
				big.Name, big.Bytes, p.SavedBytes, teach("forward"))})
	}
	// The first fused kernel (two or more loop nodes) of the first program.
	for pi, lp := range ud.unit.Programs {
		if lp.Schedule == nil || !has("fusion") {
			continue
		}
		for _, k := range lp.Schedule.Kernels {
			if len(k.Nodes) < 2 {
				continue
			}
			refs := ud.prov.Resolve(pi, k.Name)
			left := stages.Table[ud.prov.ProgramStage(pi)].Name
			if len(refs) > 0 && ud.prov.ProgramStage(pi) >= 0 {
				add(tourStep{left: left, right: "loopir", node: refs[len(refs)-1].Name, text: teach("loopir")})
			}
			add(tourStep{left: "fusion", right: "loopir", find: k.Name + ":",
				text: fmt.Sprintf("%s (%s graph) fuses %d loop nodes into one kernel: their intermediate buffers never reach memory.\n\n%s", k.Name, lp.Role, len(k.Nodes), teach("fusion"))})
			add(tourStep{left: "fusion", right: "memory", find: k.Name + ":", text: teach("memory")})
			add(tourStep{left: "fusion", right: "kernels", find: k.Name + ":",
				text: fmt.Sprintf("%s as generated code: the lines computing its nodes light up (◆ marks the line computing a selected node itself).\n\n%s", k.Name, teach("kernels"))})
			break
		}
		break
	}
	// The last step selects a captured node some kernel computes.
	computed := first
	if ks := ud.prov.Kernels(ud.unit, capt); len(ks) > 0 {
		for _, n := range cg.Nodes {
			if ks[n.Name] != "" {
				computed = n.Name
				break
			}
		}
	}
	add(tourStep{left: "captured", right: "fusion", node: computed, run: true,
		text: "Finally, the proof: r runs the pipeline and compares every output and gradient with PyTorch's and with gcdbg's eager interpreter, with the accuracy verdict's own numbers (rmse against its bound). Press r again to rerun; esc ends the tour."})
	return steps
}

func limit(xs []string, n int) []string {
	if len(xs) <= n {
		return xs
	}
	return append(xs[:n:n], "…")
}

type tour struct {
	steps []tourStep
	i     int
}

func (t *tour) title() string {
	s := t.steps[t.i]
	return fmt.Sprintf("tour %d/%d: %s ↔ %s   (space next · backspace back · esc ends)", t.i+1, len(t.steps), s.left, s.right)
}

func (t *tour) text() string { return t.steps[t.i].text }

func (m *Model) startTour() tea.Cmd {
	if m.doc() == nil {
		return nil
	}
	steps := buildTour(m.doc())
	if len(steps) == 0 {
		m.notice = "no tour: the pipeline made nothing to show for this graph"
		return nil
	}
	m.tour = &tour{steps: steps}
	return m.applyStep()
}

func (m *Model) tourStep(dir int) tea.Cmd {
	t := m.tour
	if t.i+dir < 0 || t.i+dir >= len(t.steps) {
		return nil
	}
	t.i += dir
	return m.applyStep()
}

func stageIndex(name string) int {
	for i, st := range stages.Table {
		if st.Name == name {
			return i
		}
	}
	return -1
}

// applyStep puts the panes where the step says and selects its node.
func (m *Model) applyStep() tea.Cmd {
	s := m.tour.steps[m.tour.i]
	m.focus = 0
	m.related = nil
	m.setStage(0, stageIndex(s.left))
	m.setStage(1, stageIndex(s.right))
	d := m.stageDoc(0)
	if s.node != "" {
		if l, ok := d.defLine[s.node]; ok {
			m.panes[0].cursor = l
		}
	}
	if s.find != "" {
		for i, l := range d.lines {
			if strings.Contains(l, s.find) {
				m.panes[0].cursor = i
				break
			}
		}
	}
	m.panes[0].top = max(0, m.panes[0].cursor-m.paneBody()/4)
	m.panes[0].clamp(d, m.paneBody())
	m.selAt = [3]int{-1, -1, -1}
	m.refresh()
	if s.run && !m.run.running && m.run.res == nil {
		return m.run.start(m.tr, m.ranUnits(), m.opt)
	}
	return nil
}
