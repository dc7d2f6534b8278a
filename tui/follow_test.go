package tui

import (
	"path/filepath"
	"strings"
	"testing"

	"gcdbg/trace"
)

// cursorRow is the rendered screen's row holding the focused cursor (▶).
func cursorRow(t *testing.T, m Model) string {
	t.Helper()
	for _, row := range strings.Split(screen(m), "\n") {
		if i := strings.Index(row, "▶ "); i >= 0 {
			return row[i:]
		}
	}
	t.Fatalf("no ▶ on screen:\n%s", screen(m))
	return ""
}

// follow selects node in the captured graph, then steps the focused pane
// with ] through every stage and back with [: the selection never
// changes, the cursor sits on a lit line of every stage where the node
// lives, the kernels stage draws ◆ on the C lines computing it, and [
// brings the cursor back to the node's own line.
func follow(t *testing.T, fixture, node string) {
	m := loaded(t, fixture, 160, 50)
	m = press(typeText(press(m, "g"), node), "enter")
	if got := m.cursorNodes(); got != node {
		t.Fatalf("g %s selects %q", node, got)
	}
	start := cursorRow(t, m)
	if !strings.Contains(start, "%"+node+" :") {
		t.Fatalf("the cursor is on %q", start)
	}
	lived, diamonds := 0, 0
	for m.panes[0].stage < len(m.doc().stages)-1 {
		m = press(m, "]")
		d := m.stageDoc(0)
		if got := m.cursorNodes(); got != node {
			t.Fatalf("%s: ] changed the selection to %q", d.name, got)
		}
		if !m.relatedStages()[d.idx] {
			continue
		}
		lived++
		c := m.panes[0].cursor
		if !lineRelated(d, c, m.related) {
			t.Errorf("%s: the cursor is on an unlit line %q", d.name, d.lines[c])
		}
		row := cursorRow(t, m)
		if want := strings.TrimSpace(d.lines[c]); want != "" && !strings.Contains(row, strings.TrimSpace(want[:min(len(want), 40)])) {
			t.Errorf("%s: the screen's cursor row %q is not line %q", d.name, row, d.lines[c])
		}
		if d.name == "kernels" {
			diamonds = strings.Count(screen(m), "◆ ")
		}
	}
	if lived < 8 {
		t.Errorf("%s lives in only %d stages after captured", node, lived)
	}
	if diamonds == 0 {
		t.Errorf("the kernels stage draws no ◆ for %s", node)
	}
	for m.panes[0].stage > 0 {
		m = press(m, "[")
	}
	if row := cursorRow(t, m); row != start || m.cursorNodes() != node {
		t.Errorf("back in captured the cursor is on %q selecting %q", row, m.cursorNodes())
	}
}

func TestFollowSoftmaxThroughTheTransformerBlock(t *testing.T) {
	follow(t, "transformer_block.json", "softmax")
}

func TestFollowConvThroughTheConvNet(t *testing.T) {
	follow(t, "conv_add.json", "conv")
}

// o walks the other pane's lit lines: in the joint graph the ReLU's
// forward line, then its backward, then back to the first.
func TestOtherPaneLitLines(t *testing.T) {
	m := loaded(t, "mlp.json", 160, 40)
	m = press(typeText(press(m, "g"), "linear_relu_stack_1"), "enter")
	m.setStage(1, stageIndex("joint"))
	d := m.stageDoc(1)
	var lit []int
	for i := range d.lines {
		if lineRelated(d, i, m.related) {
			lit = append(lit, i)
		}
	}
	if len(lit) < 3 {
		t.Fatalf("joint lights %d lines", len(lit))
	}
	if m.panes[1].cursor != lit[0] {
		t.Fatalf("the joint pane's cursor is on %q, not the first lit line", d.lines[m.panes[1].cursor])
	}
	seen := map[int]bool{}
	for range lit {
		m = press(m, "o")
		c := m.panes[1].cursor
		if !lineRelated(d, c, m.related) || seen[c] {
			t.Fatalf("o went to %d %q", c, d.lines[c])
		}
		seen[c] = true
		if !strings.Contains(screen(m), "▷ "+strings.TrimSpace(d.lines[c])[:10]) && !strings.Contains(screen(m), "lit line") {
			t.Errorf("line %q not on screen", d.lines[c])
		}
	}
	if m.panes[1].cursor != lit[0] {
		t.Errorf("o did not wrap to the first lit line")
	}
	if m = press(m, "O"); m.panes[1].cursor != lit[len(lit)-1] {
		t.Errorf("O did not wrap back to the last lit line")
	}
	if m.cursorNodes() != "linear_relu_stack_1" {
		t.Errorf("o changed the selection to %q", m.cursorNodes())
	}
}

// Provenance by identity, never by a word of text: with x selected on the
// first screen no "# File: ... code: ...(x)" line lights up; in the joint
// graph, selecting the gelu's exp does not light "# backward of
// softmax_exp (exp)"; nodes without a tensor type (size, split) are found
// on their own lines.
func TestNoWordMatchFalsePositives(t *testing.T) {
	m := loaded(t, "mlp.json", 160, 40)
	if got := m.cursorNodes(); got != "x" {
		t.Fatalf("the first screen selects %q", got)
	}
	for _, l := range lit(m, stageNamed(t, m, "normalized")) {
		if strings.Contains(l, "# File:") {
			t.Errorf("x lights the source comment %q", l)
		}
	}
	m = loaded(t, "transformer_block.json", 160, 40)
	m.setStage(0, stageIndex("joint"))
	m = press(typeText(press(m, "g"), "exp"), "enter")
	if got := m.cursorNodes(); got != "exp" {
		t.Fatalf("g exp selects %q", got)
	}
	for _, l := range lit(m, m.stageDoc(0)) {
		if strings.Contains(l, "softmax_exp") {
			t.Errorf("the gelu's exp lights %q", l)
		}
	}
	// In the generated C, the user's code quoted in a "// File:" comment
	// names no node: selecting softmax marks no such line ◆.
	m.setStage(0, stageIndex("captured"))
	m = press(typeText(press(m, "g"), "softmax"), "enter")
	kern := stageNamed(t, m, "kernels")
	for i, l := range kern.lines {
		if strings.Contains(l, "// File:") && lineDirect(kern, i, m.related) {
			t.Errorf("softmax marks the source comment %q ◆", l)
		}
	}
	norm := stageNamed(t, m, "normalized")
	for _, n := range []string{"size", "split"} {
		if l, ok := norm.defLine[n]; !ok || !strings.HasPrefix(strings.TrimSpace(norm.lines[l]), n+" = aten.") {
			t.Errorf("%s is not found on its own line (line %d)", n, l)
		}
	}
}

// On every fixture, the first captured node a kernel computes can be
// followed with ] to its kernel lines and back with [ (follow's checks).
func TestFollowOnEveryFixture(t *testing.T) {
	paths, _ := filepath.Glob("../fixtures/*.json")
	if len(paths) < 8 {
		t.Fatalf("%d fixtures", len(paths))
	}
	for _, p := range paths {
		f := filepath.Base(p)
		t.Run(f, func(t *testing.T) {
			tr, err := trace.Load(p)
			if err != nil {
				t.Fatal(err)
			}
			if msg := load(tr); msg.err != nil {
				t.Skipf("the pipeline fails on %s (%v): nothing to follow", f, msg.err)
			}
			m := loaded(t, f, 160, 50)
			capt := stageIndex("captured")
			ks := m.doc().prov.Kernels(m.doc().unit, capt)
			node := ""
			for _, n := range m.doc().prov.Graph(capt).Nodes {
				if ks[n.Name] != "" {
					node = n.Name
					break
				}
			}
			if node == "" {
				t.Fatalf("no captured node of %s is computed by a kernel", f)
			}
			follow(t, f, node)
		})
	}
}
