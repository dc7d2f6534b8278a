package tui

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"gcdbg/trace"
)

// Names from a trace never reach the terminal as control sequences: a
// trace, graph and node named with an OSC title escape, a BEL and a clear
// screen are drawn escaped in every stage, the status line, the tour and
// the drawing.
func TestHostileNamesAreEscaped(t *testing.T) {
	tr, err := trace.Load("../fixtures/mlp.json")
	if err != nil {
		t.Fatal(err)
	}
	evil := "\x1b]0;pwned\x07\x1b[2J"
	tr.Name = "mlp" + evil
	g := tr.Graphs[0]
	g.Name = "g0" + evil
	for _, n := range g.Nodes {
		if n.Name == "flatten" {
			n.Name = "flatten" + evil
		}
	}
	m := New(tr, Options{Runs: 1})
	m = send(m, tea.WindowSizeMsg{Width: 160, Height: 45})
	msg := load(tr)
	if msg.err != nil {
		t.Skipf("the pipeline refuses the names (%v): nothing reaches the screen", msg.err)
	}
	m = send(m, msg)
	check := func(what string) {
		t.Helper()
		raw := m.View().Content
		for _, bad := range []string{"\x1b]", "\x07", "\x1b[2J"} {
			if strings.Contains(raw, bad) {
				t.Fatalf("%s: %q reaches the terminal", what, bad)
			}
		}
	}
	check("first screen")
	m = press(m, "j") // the flatten node
	check("flatten selected")
	for i := 0; i < len(m.doc().stages); i++ {
		m = press(m, "]")
		check("stage " + m.stageDoc(0).name)
	}
	m.setStage(0, 0)
	m = press(m, "t")
	for range m.tour.steps {
		check("tour")
		m = press(m, "space")
	}
	m = press(m, "esc", "v")
	check("graph drawing")
	if !strings.Contains(m.View().Content, "pwned") {
		t.Error("the names are not shown at all (escaped, they should be)")
	}
}
