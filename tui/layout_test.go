package tui

import (
	"errors"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	xansi "github.com/charmbracelet/x/ansi"

	"gcdbg/trace"
)

// At 80×24 the stage list hides and one pane takes the width (the status
// line names both stages); \ brings the list back, z both panes; every
// screen keeps exactly 24 rows.
func TestLayoutAt80x24(t *testing.T) {
	for _, f := range []string{"transformer_block.json", "conv_add.json", "conv_pool_train.json"} {
		m := loaded(t, f, 80, 24)
		s := screen(m)
		rows := strings.Split(s, "\n")
		if len(rows) != 24 {
			t.Fatalf("%s: %d rows", f, len(rows))
		}
		if strings.Contains(s, " stages ") || strings.Contains(s, "│") {
			t.Errorf("%s: 80 columns still show the stage list or two panes:\n%s", f, s)
		}
		if !strings.Contains(rows[1], "captured") || !strings.Contains(rows[23], "[captured] ↔ normalized") {
			t.Errorf("%s: the full-width pane or the status line lacks the stages:\n%s", f, s)
		}
		m = press(m, "\\")
		if s := screen(m); !strings.Contains(s, " stages") {
			t.Errorf("%s: \\ does not show the stage list", f)
		}
		m = press(m, "z")
		if s := screen(m); !strings.Contains(s, "│") || len(strings.Split(s, "\n")) != 24 {
			t.Errorf("%s: z does not show both panes", f)
		}
		m = send(m, tea.WindowSizeMsg{Width: 200, Height: 50})
		if s := screen(m); strings.Contains(s, "│") {
			t.Errorf("%s: z (zoomed at 80 columns) does not carry to 200", f)
		}
		if s := screen(press(m, "z")); !strings.Contains(s, "│") {
			t.Errorf("%s: z does not bring back both panes at 200 columns", f)
		}
	}
}

// A click on a stage of the stage list shows it in the focused pane; a
// click on a line of a pane focuses it and selects that line's node.
func TestMouseClickSelects(t *testing.T) {
	m := loaded(t, "transformer_block.json", 160, 50)
	// The stage list: title row, then two rows per stage (name, explain).
	fusion := stageIndex("fusion")
	m = send(m, tea.MouseClickMsg{X: 3, Y: 1 + 1 + 2*fusion, Button: tea.MouseLeft})
	if m.stageDoc(m.focus).name != "fusion" {
		t.Fatalf("clicking the fusion row shows %s", m.stageDoc(m.focus).name)
	}
	m.setStage(0, stageIndex("captured"))
	d := m.stageDoc(1)
	line := d.defLine["softmax"]
	m.panes[1].top = max(0, line-5)
	lw, pw := m.layout()
	m = send(m, tea.MouseClickMsg{X: lw + pw + 10, Y: 1 + 1 + line - m.panes[1].top, Button: tea.MouseLeft})
	if m.focus != 1 || m.cursorNodes() != "softmax" {
		t.Fatalf("clicking normalized's softmax line: focus %d, selects %q", m.focus, m.cursorNodes())
	}
	if row := cursorRow(t, m); !strings.Contains(row, "softmax: ") {
		t.Errorf("the cursor row is %q", row)
	}
	if l := lit(m, m.stageDoc(0)); len(l) == 0 || !strings.Contains(strings.Join(l, "\n"), "%softmax :") {
		t.Errorf("the captured pane does not light softmax: %q", l)
	}
}

// A long pipeline error opens in a box that shows all of it and scrolls;
// esc closes it.
func TestLongErrorOpensInAPanel(t *testing.T) {
	m := loaded(t, "mlp.json", 100, 30)
	long := "stage decomposed: graph \"g0\": node \"x\": " + strings.Repeat("a long reason that goes on ", 40) + "THE END"
	m.loadErr = long
	m = send(m, nil)
	s := screen(m)
	if !strings.Contains(s, "error (esc closes") {
		t.Fatalf("no error box:\n%s", s)
	}
	found := false
	for i := 0; i < 50 && !found; i++ {
		found = strings.Contains(screen(m), "THE END")
		m = press(m, "}")
	}
	if !found {
		t.Error("the end of the error is unreachable")
	}
	if m = press(m, "esc"); strings.Contains(screen(m), "error (esc closes") {
		t.Error("esc does not close the error box")
	}
}

// When the pipeline fails before any graph is shown, the whole error is
// on screen, wrapped to the width.
func TestLoadErrorWrapped(t *testing.T) {
	m := New(&trace.Trace{Name: "broken"}, Options{})
	m = send(m, tea.WindowSizeMsg{Width: 60, Height: 20})
	long := "stage normalized: graph \"g0\": node \"x\": " + strings.Repeat("more words of the reason ", 10) + "THE END"
	m = send(m, loadedMsg{err: errors.New(long)})
	s := screen(m)
	if !strings.Contains(s, "THE END") {
		t.Errorf("the end of the error is cut:\n%s", s)
	}
	for _, row := range strings.Split(s, "\n") {
		if xansi.StringWidth(row) > 60 {
			t.Errorf("row wider than the terminal: %q", row)
		}
	}
}

// While the pipeline runs the screen says so and the spinner turns.
func TestLoadingIndicator(t *testing.T) {
	tr, err := trace.Load("../fixtures/mlp.json")
	if err != nil {
		t.Fatal(err)
	}
	m := New(tr, Options{})
	nm, cmd := m.Update(tea.WindowSizeMsg{Width: 100, Height: 30})
	m = nm.(Model)
	if cmd == nil {
		t.Fatal("no spinner tick while the pipeline runs")
	}
	first := screen(m)
	if !strings.Contains(first, "running the pipeline on mlp…") {
		t.Errorf("no loading message:\n%s", first)
	}
	m = send(m, loadTickMsg{})
	if screen(m) == first {
		t.Error("the spinner does not turn")
	}
	m = send(m, load(tr))
	if _, cmd := m.Update(loadTickMsg{}); cmd != nil {
		t.Error("the spinner keeps ticking after the pipeline finished")
	}
}

// Stepping the focused pane onto the stage the other pane shows says so
// in the status line: "[normalized] ↔ normalized (both panes)".
func TestStatusSaysBothPanesShowOneStage(t *testing.T) {
	m := loaded(t, "transformer_block.json", 200, 50)
	if s := screen(m); strings.Contains(s, "(both panes)") {
		t.Fatalf("captured ↔ normalized says both panes:\n%s", s)
	}
	m = press(press(m, "]"), "]") // captured -> guards -> normalized
	s := screen(m)
	rows := strings.Split(s, "\n")
	if last := rows[len(rows)-1]; !strings.Contains(last, "[normalized] ↔ normalized (both panes)") {
		t.Errorf("after ] ] both panes show normalized and the status line does not say so: %q", last)
	}
	if s := screen(press(m, "]")); strings.Contains(s, "(both panes)") {
		t.Errorf("after a third ] the panes differ and the status line still says both panes")
	}
}
