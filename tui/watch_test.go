package tui

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gcdbg/graphtext"
	"gcdbg/stages"
	"gcdbg/trace"
	"gcdbg/watch"
)

func watchResult(t *testing.T, seq int, text string) watch.Result {
	t.Helper()
	p := filepath.Join(t.TempDir(), "g.py")
	if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	tr, err := graphtext.Load(p)
	if err != nil {
		t.Fatal(err)
	}
	units, err := stages.Run(tr, "")
	if err != nil {
		t.Fatal(err)
	}
	return watch.Result{Seq: seq, Phase: watch.PhaseStages, Final: true, Trace: tr, Units: units}
}

// A new compile keeps the pane's stage and the selected node; a failed one
// keeps the stages and shows the error.
func TestWatchSwapKeepsSelection(t *testing.T) {
	m := New(&trace.Trace{Name: "g"}, Options{Watch: true})
	m.width, m.height = 140, 40
	if m.Init() != nil {
		t.Fatal("--watch: Init should not load; the watcher does")
	}
	r1 := watchResult(t, 1, "def forward(self, x: \"f32[4, 8]\"):\n    y = torch.relu(x)\n    z = torch.sin(y)\n    return (z,)\n")
	m.update(NewWatchMsg(r1))
	m.refresh()
	m.setStage(m.focus, 2) // normalized
	m.gotoNode("z")
	m.refresh()
	r2 := watchResult(t, 2, "def forward(self, x: \"f32[4, 8]\"):\n    w = torch.cos(x)\n    y = torch.relu(x)\n    z = torch.sin(y)\n    return (z, w)\n")
	r2.Diff = watch.DiffUnits(r1.Units, r2.Units)
	m.update(NewWatchMsg(r2))
	m.refresh()
	if m.panes[m.focus].stage != 2 || m.cursorNodes() != "z" {
		t.Fatalf("after the swap: stage %d, node %q", m.panes[m.focus].stage, m.cursorNodes())
	}
	if s := m.statusLine(); !strings.Contains(s, "#2") || !strings.Contains(s, "normalized +1 -0 ~1") {
		t.Errorf("status line: %q", s)
	}
	m.update(NewWatchMsg(watch.Result{Seq: 3, Phase: watch.PhaseStages, Final: true, Err: errors.New(`g.py:1:23: unknown dtype "f33"`), Kept: 2}))
	out := m.render()
	if !strings.Contains(out, "#3 failed: g.py:1:23") || !strings.Contains(out, "showing #2") || m.cursorNodes() != "z" {
		t.Errorf("after a failed compile:\n%s", out)
	}
}

// In watch mode, D pressed twice compares every stage with the previous
// compile: the edit that added w = cos(x) is + on w's line and counted.
func TestWatchDiffAcrossCompiles(t *testing.T) {
	m := New(&trace.Trace{Name: "g"}, Options{Watch: true})
	m.width, m.height = 160, 40
	r1 := watchResult(t, 1, "def forward(self, x: \"f32[4, 8]\"):\n    y = torch.relu(x)\n    z = torch.sin(y)\n    return (z,)\n")
	m = send(m, NewWatchMsg(r1))
	r2 := watchResult(t, 2, "def forward(self, x: \"f32[4, 8]\"):\n    w = torch.cos(x)\n    y = torch.relu(x)\n    z = torch.sin(y)\n    return (z, w)\n")
	r2.Diff = watch.DiffUnits(r1.Units, r2.Units)
	m = send(m, NewWatchMsg(r2))
	m = press(m, "D")
	if !strings.Contains(screen(m), "vs captured") {
		t.Fatalf("the first D is not the stage diff:\n%s", screen(m))
	}
	m = press(m, "D", "D")
	s := screen(m)
	if !strings.Contains(s, "+1 ~1 −0 vs #1") {
		t.Errorf("the normalized pane does not count the edit against #1:\n%s", s)
	}
	found := false
	for _, row := range strings.Split(s, "\n") {
		found = found || strings.Contains(row, "+    w: ")
	}
	if !found {
		t.Errorf("w's line is not marked +:\n%s", s)
	}
	if m = press(m, "D"); m.diff {
		t.Error("a third D does not leave diff mode")
	}
}

// A node followed into the kernels stage stays selected across a
// recompile that keeps it: the pane stays on kernels, on a line it lights.
func TestWatchKeepsAFollowedNode(t *testing.T) {
	m := New(&trace.Trace{Name: "g"}, Options{Watch: true})
	m.width, m.height = 160, 40
	r1 := watchResult(t, 1, "def forward(self, x: \"f32[4, 8]\"):\n    y = torch.relu(x)\n    z = torch.sin(y)\n    return (z,)\n")
	m = send(m, NewWatchMsg(r1))
	m = press(typeText(press(m, "g"), "z"), "enter")
	for m.stageDoc(0).name != "kernels" {
		m = press(m, "]")
	}
	if m.cursorNodes() != "z" {
		t.Fatalf("following z: selection %q", m.cursorNodes())
	}
	r2 := watchResult(t, 2, "def forward(self, x: \"f32[4, 8]\"):\n    w = torch.cos(x)\n    y = torch.relu(x)\n    z = torch.sin(y)\n    return (z, w)\n")
	r2.Diff = watch.DiffUnits(r1.Units, r2.Units)
	m = send(m, NewWatchMsg(r2))
	d := m.stageDoc(0)
	if d.name != "kernels" || m.cursorNodes() != "z" || !lineRelated(d, m.panes[0].cursor, m.related) {
		t.Errorf("after the recompile: %s, selection %q, cursor on %q", d.name, m.cursorNodes(), d.lines[m.panes[0].cursor])
	}
}
