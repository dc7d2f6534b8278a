package tui

import (
	"strings"
	"testing"
)

// Search counts its matches in every stage and n goes on into the next
// stage that has one: "softmax" in the transformer block is found in the
// captured graph, then in the later stages, and the status line lists the
// count per stage.
func TestSearchAcrossStages(t *testing.T) {
	for _, c := range []struct{ fixture, q string }{{"transformer_block.json", "softmax"}, {"conv_add.json", "conv"}} {
		m := loaded(t, c.fixture, 160, 40)
		m = press(typeText(press(m, "/"), c.q), "enter")
		s := screen(m)
		if !strings.Contains(s, "captured ") || !strings.Contains(s, " stages: captured ") {
			t.Fatalf("%s: no per-stage count on screen:\n%s", c.fixture, s)
		}
		total := 0
		for _, d := range m.doc().stages {
			total += len(matches(d, c.q))
		}
		visited := map[string]bool{}
		for i := 0; i < total; i++ {
			d := m.stageDoc(0)
			if !strings.Contains(strings.ToLower(d.lines[m.panes[0].cursor]), c.q) {
				t.Fatalf("%s: match %d is %q in %s", c.fixture, i, d.lines[m.panes[0].cursor], d.name)
			}
			visited[d.name] = true
			m = press(m, "n")
		}
		for _, d := range m.doc().stages {
			if len(matches(d, c.q)) > 0 && !visited[d.name] {
				t.Errorf("%s: n never reached %s", c.fixture, d.name)
			}
		}
		if m.stageDoc(0).name != "captured" {
			t.Errorf("%s: n did not wrap around to captured (at %s)", c.fixture, m.stageDoc(0).name)
		}
	}
}

// g NAME in a kernel pane goes to the C line computing NAME, not to
// another stage.
func TestGotoInAKernelPane(t *testing.T) {
	m := loaded(t, "mlp.json", 160, 40)
	m.setStage(0, stageIndex("kernels"))
	m = press(typeText(press(m, "g"), "linear_relu_stack_1"), "enter")
	d := m.stageDoc(0)
	if d.name != "kernels" || !strings.HasSuffix(strings.TrimSpace(d.lines[m.panes[0].cursor]), "// linear_relu_stack_1") {
		t.Errorf("g in the kernels pane went to %s %q", d.name, d.lines[m.panes[0].cursor])
	}
}
