package tui

import (
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"

	"gcdbg/stages"
)

// tourStep shows two stages, puts the left pane's cursor on a node (by
// name) or on the first line containing a text, and explains. Steps whose
// stages are not in stages.Table are skipped, so the tour grows with the
// pipeline (the kernels step appears when the kernels stage exists).
type tourStep struct {
	left, right string
	node, find  string
	text        string
	run         bool
}

// mlpTour is written for the embedded example (the seed MLP); on another
// trace the steps still show the stage pairs.
var mlpTour = []tourStep{
	{left: "captured", right: "normalized", node: "linear_relu_stack_1",
		text: "The seed MLP as torch.fx captured it: every module of the nn.Sequential is one call_module node. The cursor is on linear_relu_stack_1, the first ReLU. The right pane lights up (●) what it became, and the stage list marks every stage where it lives. j/k move the cursor, tab switches panes, [ ] change a pane's stage."},
	{left: "captured", right: "normalized", node: "linear_relu_stack_0",
		text: "Normalization: modules became functional aten calls. The first Linear module is now aten.linear(flatten, weight, bias), and its parameters are explicit get_attr nodes; every node has a dtype and shape."},
	{left: "normalized", right: "decomposed", node: "linear_relu_stack_0",
		text: "Decomposition into the core op set: linear = permute (transpose the weight) + mm + add (the bias). The three new nodes keep the linear as their provenance, which is why they all light up."},
	{left: "decomposed", right: "joint", node: "linear_relu_stack_1",
		text: "The joint graph: the forward, then the backward written by reverse-mode autodiff. The ReLU's backward is gt (result > 0) and where(mask, grad, 0): both light up, because they came from the ReLU."},
	{left: "forward", right: "backward", node: "linear_relu_stack_1",
		text: "The min-cut partition: the forward returns the ReLU's output as a saved tensor (see the header's list and the return line) and the backward takes it as an input, to compute its mask. Saved tensors cost memory between forward and backward."},
	{left: "forward", right: "loopir", node: "linear_relu_stack_1",
		text: "Lowering to the loop IR: the ReLU is a pointwise node (buf2) whose body loads, applies relu and stores; origins names the graph node it computes. The mm is an extern call; views fold into index expressions."},
	{left: "loopir", right: "fusion", find: "buf2: SchedulerNode",
		text: "Fusion: the scheduler put the mm, the bias add and the ReLU in one kernel (kernel0): an extern GEMM with a pointwise epilogue, so the intermediate buffers never reach memory."},
	{left: "fusion", right: "loopir", find: "cannot fuse buf2 with",
		text: "A refused fusion and its reason: the ReLU's output (buf2) feeds the next mm, and a library matmul cannot run extra code before it (a prologue), only after it (an epilogue). The log lists every attempt with its score: (category, bytes saved, proximity)."},
	{left: "fusion", right: "memory", find: "kernel0:",
		text: "Memory planning: buf0 and buf1 live only inside kernel0 and are never allocated; buf2 is an output (saved for backward), alive until the end. The plan reports the peak bytes before and after reusing dead buffers."},
	{left: "fusion", right: "kernels", find: "kernel0:",
		text: "Code generation: kernel0 as C. The lines computing the ReLU light up with it: follow the loads, the max with 0, the store."},
	{left: "captured", right: "fusion", node: "linear_relu_stack_1", run: true,
		text: "Finally, the proof: r runs the pipeline and compares every output and gradient with PyTorch's and with gcdbg's eager interpreter (✓ within tolerance, max|Δ| the largest error). Press r again to rerun; esc ends the tour."},
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
	var steps []tourStep
	for _, s := range mlpTour {
		if _, err := stages.Lookup(s.left); err != nil {
			continue
		}
		if _, err := stages.Lookup(s.right); err != nil {
			continue
		}
		steps = append(steps, s)
	}
	if len(steps) == 0 || m.doc() == nil {
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
