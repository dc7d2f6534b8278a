package tui

import (
	"fmt"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/exp/teatest/v2"

	"gcdbg/stages"
)

// typeText sends each character of s as a key press.
func typeText(m Model, s string) Model {
	for _, r := range s {
		m = press(m, string(r))
	}
	return m
}

func stageNamed(t *testing.T, m Model, name string) *stageDoc {
	t.Helper()
	for _, d := range m.doc().stages {
		if d.name == name {
			return d
		}
	}
	t.Fatalf("no stage %q", name)
	return nil
}

// lit lists the lines of a stage the current selection lights up.
func lit(m Model, d *stageDoc) []string {
	var out []string
	for i := range d.lines {
		if lineRelated(d, i, m.related) {
			out = append(out, d.lines[i])
		}
	}
	return out
}

// Selecting the first ReLU in the captured graph lights up aten.relu in
// the normalized and decomposed graphs, its backward in the joint graph,
// and the kernel that computes it in the fusion stage, and nothing else.
func TestSelectionSyncFollowsTheReLU(t *testing.T) {
	m := loaded(t, "mlp.json", 200, 50)
	m = typeText(press(m, "g"), "linear_relu_stack_1")
	m = press(m, "enter")
	if got := m.cursorNodes(); got != "linear_relu_stack_1" {
		t.Fatalf("cursor selects %q", got)
	}
	norm := stageNamed(t, m, "normalized")
	l := lit(m, norm)
	if len(l) != 1 || !strings.Contains(l[0], "linear_relu_stack_1:") || !strings.Contains(l[0], "aten.relu(") {
		t.Errorf("normalized lights %q, want the one aten.relu node", l)
	}
	dec := stageNamed(t, m, "decomposed")
	if l := lit(m, dec); len(l) != 1 || !strings.Contains(l[0], "aten.relu(linear_relu_stack_0)") {
		t.Errorf("decomposed lights %q", l)
	}
	joint := strings.Join(lit(m, stageNamed(t, m, "joint")), "\n")
	for _, want := range []string{"aten.relu(linear_relu_stack_0)", "gt_1", "where_1", "# backward of linear_relu_stack_1 (relu)"} {
		if !strings.Contains(joint, want) {
			t.Errorf("joint does not light %q; lit:\n%s", want, joint)
		}
	}
	// The fusion stage: the kernel whose loop nodes have the ReLU as origin.
	var kernel string
	for _, lp := range m.doc().unit.Programs {
		if lp.Role != "forward" {
			continue
		}
		for _, k := range lp.Schedule.Kernels {
			for _, n := range k.Nodes {
				for _, o := range n.Origins {
					if o == "linear_relu_stack_1" {
						kernel = k.Name
					}
				}
			}
		}
	}
	if kernel == "" {
		t.Fatal("no forward kernel computes linear_relu_stack_1")
	}
	fus := stageNamed(t, m, "fusion")
	var header []string
	forward := false
	for i, l := range fus.lines {
		if strings.HasPrefix(l, "## ") {
			forward = l == "## forward graph"
		}
		if forward && strings.HasPrefix(l, "kernel") && lineRelated(fus, i, m.related) {
			header = append(header, l)
		}
	}
	if len(header) != 1 || !strings.HasPrefix(header[0], kernel+":") {
		t.Errorf("fusion lights kernels %q, want %s", header, kernel)
	}
	// The stage list marks every stage where the ReLU lives.
	rel := m.relatedStages()
	for _, name := range []string{"captured", "normalized", "functional", "decomposed", "joint", "forward", "backward", "loopir", "fusion", "memory"} {
		if !rel[stageIndex(name)] {
			t.Errorf("stage list does not mark %s", name)
		}
	}
	if rel[stageIndex("guards")] {
		t.Error("stage list marks guards")
	}
	// The other pane scrolled its cursor onto the ReLU's line.
	if o := m.panes[1]; !strings.Contains(norm.lines[o.cursor], "aten.relu") {
		t.Errorf("the normalized pane's cursor is on %q", norm.lines[o.cursor])
	}
}

// From a line of a kernel's body, Enter finds the captured nodes it came
// from and the user's source line.
func TestEnterFromKernelShowsSource(t *testing.T) {
	m := loaded(t, "mlp.json", 200, 50)
	m.setStage(0, stageIndex("fusion"))
	m = press(m, "/")
	m = typeText(m, "ops.relu")
	m = press(m, "enter")
	if got := m.cursorNodes(); got != "linear_relu_stack_1" {
		t.Fatalf("the relu line of kernel0 selects %q", got)
	}
	m = press(m, "enter")
	if m.panes[1].stage != stageIndex("captured") {
		t.Errorf("the other pane shows %s, want captured", m.stageDoc(1).name)
	}
	src := strings.Join(m.source, "\n")
	if !strings.Contains(src, "mlp.py:23") || !strings.Contains(src, ">   23          logits = self.linear_relu_stack(x)") {
		t.Errorf("source panel:\n%s", src)
	}
	if !strings.Contains(screen(m), "user source") {
		t.Error("the source panel is not on screen")
	}
}

func TestSearchFindsNodesAndCycles(t *testing.T) {
	m := loaded(t, "mlp.json", 200, 50)
	m.setStage(0, stageIndex("normalized"))
	m = typeText(press(m, "/"), "aten.relu")
	first := m.panes[0].cursor
	if !strings.Contains(m.stageDoc(0).lines[first], "aten.relu") {
		t.Fatalf("search landed on %q", m.stageDoc(0).lines[first])
	}
	m = press(m, "enter", "n")
	second := m.panes[0].cursor
	if second == first || !strings.Contains(m.stageDoc(0).lines[second], "linear_relu_stack_3") {
		t.Errorf("n went to %q", m.stageDoc(0).lines[second])
	}
	m = press(m, "N")
	if m.panes[0].cursor != first {
		t.Error("N did not go back")
	}
	m = typeText(press(m, "/"), "no such text")
	m = press(m, "esc")
	if m.panes[0].cursor != first {
		t.Error("esc did not restore the cursor")
	}
}

func TestHelpListsEveryKey(t *testing.T) {
	m := press(loaded(t, "mlp.json", 200, 50), "?")
	s := screen(m)
	for _, g := range keys.groups() {
		for _, kb := range g {
			if h := kb.Help(); !strings.Contains(s, h.Key) || !strings.Contains(s, h.Desc) {
				t.Errorf("help lacks %q %q", h.Key, h.Desc)
			}
		}
	}
	if m = press(m, "x"); m.help {
		t.Error("a key did not close the help")
	}
}

func TestNavigationKeys(t *testing.T) {
	m := loaded(t, "mlp.json", 200, 50)
	if m.panes[0].stage != stageIndex("captured") || m.panes[1].stage != stageIndex("normalized") {
		t.Fatalf("default panes %s, %s", m.stageDoc(0).name, m.stageDoc(1).name)
	}
	m = press(m, "tab", "]")
	if m.focus != 1 || m.stageDoc(1).name != "functional" {
		t.Errorf("tab ] gives focus %d on %s", m.focus, m.stageDoc(1).name)
	}
	m = press(m, "[", "[", "[", "[")
	if m.stageDoc(1).name != stages0() {
		t.Errorf("[ stops at %s", m.stageDoc(1).name)
	}
	before := m.panes[1].cursor
	m = press(m, "j")
	if m.panes[1].cursor <= before || len(m.stageDoc(1).refs[m.panes[1].cursor]) == 0 {
		t.Error("j did not move to the next node line")
	}
	m.setStage(1, stageIndex("joint"))
	m = send(m, tea.WindowSizeMsg{Width: 90, Height: 20})
	if s := screen(m); len(strings.Split(s, "\n")) != 20 {
		t.Errorf("after resizing, the screen has %d lines", len(strings.Split(s, "\n")))
	}
	m = send(m, tea.MouseWheelMsg{X: 80, Y: 5, Button: tea.MouseWheelDown})
	if m.panes[1].top == 0 {
		t.Error("the wheel over the right pane did not scroll it")
	}
}

func stages0() string { return "captured" }

// A trace with a graph break has two graphs; > switches between them.
func TestGraphSwitch(t *testing.T) {
	m := loaded(t, "graph_break.json", 160, 40)
	if len(m.units) < 2 {
		t.Fatalf("graph_break has %d graphs", len(m.units))
	}
	m = press(m, ">")
	if m.graph != 1 || !strings.Contains(screen(m), "(2/") {
		t.Errorf("> left graph %d", m.graph)
	}
	m = press(m, "<")
	if m.graph != 0 {
		t.Errorf("< left graph %d", m.graph)
	}
}

// Every fixture opens and renders every stage: the focused pane's header
// names the stage, the screen keeps its size, a stage with an artifact
// shows its first line, e explains it with the stage table's own text,
// and the tour's every step shows its title.
func TestEveryFixtureRendersEveryStage(t *testing.T) {
	for _, f := range []string{"mlp.json", "sin_cos.json", "clamp_min.json", "mul_relu_div_sum.json", "conv_add.json", "mlp_logsoftmax_sort.json", "graph_break.json", "transformer_block.json"} {
		m := loaded(t, f, 120, 30)
		m.setStage(0, 0)
		for i, st := range stages.Table {
			if i > 0 {
				m = press(m, "]")
			}
			d := m.stageDoc(0)
			if d.name != st.Name {
				t.Fatalf("%s: ] shows %s, want %s", f, d.name, st.Name)
			}
			m = press(m, "e")
			s := screen(m)
			rows := strings.Split(s, "\n")
			if len(rows) != 30 {
				t.Errorf("%s %s: %d rows", f, st.Name, len(rows))
			}
			if !strings.Contains(rows[1], " "+st.Name+" ") && !strings.Contains(rows[1], " "+st.Name+" ·") {
				t.Errorf("%s: the pane header %q does not name %s", f, rows[1], st.Name)
			}
			if !strings.Contains(s, "stage "+st.Name+" (e to close)") || !strings.Contains(s, firstWords(st.Explain)) {
				t.Errorf("%s %s: e does not explain the stage:\n%s", f, st.Name, s)
			}
			if d.err == "" && !strings.Contains(s, firstWords(strings.TrimSpace(d.lines[m.panes[0].top]))) {
				t.Errorf("%s %s: the pane does not show its text", f, st.Name)
			}
			if d.err == "" && strings.Contains(strings.Join(d.lines, "\n"), "could not print") {
				t.Errorf("%s %s: printer failed", f, st.Name)
			}
			m = press(m, "e")
		}
		m = press(m, "t")
		for i := range m.tour.steps {
			if s := screen(m); !strings.Contains(s, fmt.Sprintf("tour %d/%d", i+1, len(m.tour.steps))) {
				t.Errorf("%s: tour step %d not on screen", f, i+1)
			}
			m = press(m, "space")
		}
		m = press(m, "esc", "esc", "esc")
	}
}

// firstWords is the first 20 bytes of s, cut at a space.
func firstWords(s string) string {
	if len(s) <= 20 {
		return s
	}
	s = s[:20]
	if i := strings.LastIndex(s, " "); i > 0 {
		s = s[:i]
	}
	return s
}

func TestTourStepsSelectTheirNodes(t *testing.T) {
	for _, f := range []string{"mlp.json", "transformer_block.json", "conv_add.json", "conv_pool_train.json"} {
		m := press(loaded(t, f, 200, 50), "t")
		if m.tour == nil || len(m.tour.steps) < 6 {
			t.Fatalf("%s: tour %v", f, m.tour)
		}
		var text []string
		for i, s := range m.tour.steps {
			text = append(text, s.text)
			if s.node != "" && m.cursorNodes() != s.node {
				t.Errorf("%s: step %d selects %q, want %s", f, i+1, m.cursorNodes(), s.node)
			}
			if s.find != "" && !strings.Contains(m.stageDoc(0).lines[m.panes[0].cursor], s.find) {
				t.Errorf("%s: step %d: cursor on %q, want %q", f, i+1, m.stageDoc(0).lines[m.panes[0].cursor], s.find)
			}
			if s.node != "" && len(lit(m, m.stageDoc(1))) == 0 {
				t.Errorf("%s: step %d (%s ↔ %s) lights nothing on the right", f, i+1, s.left, s.right)
			}
			if sc := screen(m); !strings.Contains(sc, fmt.Sprintf("tour %d/%d: %s ↔ %s", i+1, len(m.tour.steps), s.left, s.right)) {
				t.Errorf("%s: step %d's title is not on screen", f, i+1)
			}
			m = press(m, "space")
		}
		// The tour talks about this trace: no word of another model's.
		all := strings.Join(text, "\n")
		if f != "mlp.json" && (strings.Contains(all, "linear_relu_stack") || strings.Contains(all, "ReLU")) {
			t.Errorf("%s: the tour talks about the MLP:\n%s", f, all)
		}
		if !strings.Contains(all, m.doc().unit.Captured.Name) {
			t.Errorf("%s: the tour never names the graph", f)
		}
	}
}

// The program itself (teatest): it loads, shows the stages, runs the
// trace on r and reports the comparison with PyTorch.
func TestProgramRunsAndComparesWithPyTorch(t *testing.T) {
	m := loaded(t, "mlp.json", 160, 45)
	tm := teatest.NewTestModel(t, m, teatest.WithInitialTermSize(160, 45))
	teatest.WaitFor(t, tm.Output(), func(b []byte) bool { return strings.Contains(string(b), "linear_relu_stack_1") },
		teatest.WithDuration(10*time.Second))
	tm.Send(keyMsg("r"))
	teatest.WaitFor(t, tm.Output(), func(b []byte) bool { return strings.Contains(string(b), "PASS") },
		teatest.WithDuration(60*time.Second))
	tm.Send(keyMsg("q"))
	fm := tm.FinalModel(t, teatest.WithFinalTimeout(10*time.Second)).(Model)
	res := fm.run.res
	if res == nil || !res.OK || len(res.Graphs) != 1 || len(res.Graphs[0].Grads) == 0 {
		t.Fatalf("run result %+v", res)
	}
	for _, o := range res.Graphs[0].Outputs {
		if o.VsExpected == nil || !o.VsExpected.Match {
			t.Errorf("output %d does not match PyTorch: %+v", o.Index, o.VsExpected)
		}
	}
}

// v draws the focused stage's graph; the selection stays and the other
// pane still follows it.
func TestGraphModeKeepsTheSelection(t *testing.T) {
	m := loaded(t, "mlp.json", 200, 50)
	m = press(typeText(press(m, "g"), "linear_relu_stack_1"), "enter", "v")
	if m.panes[0].gv == nil {
		t.Fatalf("v did not draw the graph: %s", m.notice)
	}
	if got := m.cursorNodes(); got != "linear_relu_stack_1" {
		t.Errorf("graph mode selects %q", got)
	}
	if !strings.Contains(screen(m), "graph drawing") {
		t.Error("no drawing on screen")
	}
	m = press(m, ".")
	if m.cursorNodes() == "linear_relu_stack_1" {
		t.Error(". did not move to the next box")
	}
	if m = press(m, "v"); m.panes[0].gv != nil {
		t.Error("v did not go back to text")
	}
}
