package tui

import (
	"path/filepath"
	"strings"
	"testing"

	"gcdbg/trace"
)

// stageListRow is the stage list's row for a stage on the rendered screen.
func stageListRow(t *testing.T, m Model, name string) string {
	t.Helper()
	for _, row := range strings.Split(screen(m), "\n") {
		if strings.HasPrefix(strings.TrimLeft(row, " ●"), name+" ") {
			return row[:min(len(row), 40)]
		}
	}
	t.Fatalf("no stage list row for %s:\n%s", name, screen(m))
	return ""
}

// D marks what each stage changed against the stage before: on the MLP,
// normalization turns each module (flatten, 3 Linear, 2 ReLU) into an aten
// call (changed, ~) and adds each Linear's weight and bias as get_attr
// nodes (+); functionalization
// changes nothing (=); decomposition adds the permute and mm of each
// linear. The counts are in the stage list and the pane header.
func TestDiffModeMarksChanges(t *testing.T) {
	m := loaded(t, "mlp.json", 200, 50)
	if row := stageListRow(t, m, "functional"); !strings.Contains(row, "=") {
		t.Errorf("an unchanged stage is not shown as such without diff mode: %q", row)
	}
	m = press(m, "D")
	norm := stageNamed(t, m, "normalized")
	if row := stageListRow(t, m, "normalized"); !strings.Contains(row, "+6~6−0") {
		t.Errorf("normalized in the stage list: %q", row)
	}
	if row := stageListRow(t, m, "functional"); !strings.Contains(row, "=") {
		t.Errorf("functional in the stage list: %q", row)
	}
	s := screen(m)
	if !strings.Contains(s, "+6 ~6 −0 vs captured") {
		t.Errorf("the normalized pane's header lacks its diff:\n%s", s)
	}
	var plus, tilde []string
	for i, l := range norm.lines {
		switch norm.diffMark[i] {
		case '+':
			plus = append(plus, strings.TrimSpace(l))
		case '~':
			tilde = append(tilde, strings.TrimSpace(l))
		}
	}
	for _, l := range plus {
		if !strings.Contains(l, "_weight:") && !strings.Contains(l, "_bias:") {
			t.Errorf("added line %q is not a parameter", l)
		}
	}
	if len(tilde) != 6 {
		t.Errorf("changed lines %q", tilde)
	}
	for _, l := range tilde {
		if !strings.Contains(l, "= aten.") {
			t.Errorf("changed line %q is not a module become an aten call", l)
		}
	}
	// On screen: the marks are drawn in the gutter.
	found := 0
	for _, row := range strings.Split(s, "\n") {
		if strings.Contains(row, "~    linear_relu_stack_0: ") || strings.Contains(row, "+    linear_relu_stack_0_weight: ") {
			found++
		}
	}
	if found < 2 {
		t.Errorf("no ~/+ marks drawn on the normalized pane:\n%s", s)
	}
	dec := stageNamed(t, m, "decomposed")
	if !strings.Contains(dec.diffSum, "vs functional") || !strings.Contains(dec.diffSum, "+6 ") {
		t.Errorf("decomposed diff %q, want the 3 permutes and 3 mms added", dec.diffSum)
	}
	// D again: each pane against the other pane's stage. Captured against
	// decomposed: every aten call of decomposed is new or changed.
	m.setStage(1, stageIndex("decomposed"))
	m = press(m, "D")
	s = screen(m)
	if !strings.Contains(s, "vs decomposed") || !strings.Contains(s, "vs captured") {
		t.Errorf("the panes do not compare with each other:\n%s", s)
	}
	marks, sum := m.doc().marks(dec, diffPane, stageIndex("captured"))
	if !strings.Contains(sum, "vs captured") || strings.Count(string(marks), "+")+strings.Count(string(marks), "~") < 9 {
		t.Errorf("decomposed vs captured: %q, %d marks", sum, strings.Count(string(marks), "+"))
	}
	if _, sum := m.doc().marks(stageNamed(t, m, "functional"), diffPane, stageIndex("normalized")); sum != "= normalized" {
		t.Errorf("functional vs normalized: %q", sum)
	}
	if m = press(m, "D"); strings.Contains(screen(m), "vs captured") {
		t.Error("D did not leave diff mode")
	}
}

// Every stage after the first of every fixture has a diff, and diff mode
// renders each one.
func TestEveryStageDiffs(t *testing.T) {
	paths, _ := filepath.Glob("../fixtures/*.json")
	for _, p := range paths {
		f := filepath.Base(p)
		tr, err := trace.Load(p)
		if err != nil {
			t.Fatal(err)
		}
		if msg := load(tr); msg.err != nil {
			t.Logf("skipping %s: the pipeline fails (%v); the stages tests report it", f, msg.err)
			continue
		}
		m := press(loaded(t, f, 160, 40), "D")
		m.setStage(0, 0)
		for i, d := range m.doc().stages {
			if i > 0 && d.err == "" && d.diffSum == "" {
				t.Errorf("%s: stage %s has no diff", f, d.name)
			}
			if i > 0 {
				m = press(m, "]")
			}
			if d.diffSum != "" && !strings.Contains(screen(m), d.diffShort()) {
				t.Errorf("%s %s: %q not in the stage list", f, d.name, d.diffShort())
			}
		}
	}
}
