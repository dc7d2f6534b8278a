package tui

import (
	"regexp"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"gcdbg/ir"
	"gcdbg/stages"
	"gcdbg/trace"
)

var gvANSI = regexp.MustCompile("\x1b\\[[0-9;]*m")

func gvGraph(t *testing.T, fixture string) *ir.Graph {
	t.Helper()
	tr, err := trace.Load("../fixtures/" + fixture)
	if err != nil {
		t.Fatal(err)
	}
	us, err := stages.Run(tr, "decomposed")
	if err != nil {
		t.Fatal(err)
	}
	return us[0].Decomposed
}

func gvPress(v GraphView, keys ...string) GraphView {
	for _, k := range keys {
		var msg tea.KeyPressMsg
		switch k {
		case "tab":
			msg = tea.KeyPressMsg{Code: tea.KeyTab}
		case "down":
			msg = tea.KeyPressMsg{Code: tea.KeyDown}
		case "right":
			msg = tea.KeyPressMsg{Code: tea.KeyRight}
		case "enter":
			msg = tea.KeyPressMsg{Code: tea.KeyEnter}
		default:
			msg = tea.KeyPressMsg{Code: rune(k[0]), Text: k}
		}
		v, _ = v.Update(msg)
	}
	return v
}

func gvText(v GraphView) string { return gvANSI.ReplaceAllString(v.View().Content, "") }

func TestGraphViewPanSelect(t *testing.T) {
	v := NewGraphView(gvGraph(t, "mlp.json"), GraphViewOptions{})
	if v.Err() != nil {
		t.Fatal(v.Err())
	}
	v.SetSize(60, 20)
	text := gvText(v)
	lines := strings.Split(text, "\n")
	if len(lines) != 20 {
		t.Fatalf("%d lines, want 20", len(lines))
	}
	if !strings.Contains(text, "│ x ") {
		t.Errorf("first node not in the top-left view:\n%s", text)
	}
	if down := gvText(gvPress(v, "down", "down", "down")); down == text {
		t.Error("panning down changed nothing")
	}
	v = gvPress(v, "tab")
	if sel := v.Selected(); len(sel) != 1 || sel[0] != "x" {
		t.Errorf("tab selected %v, want [x]", sel)
	}
	v.SetSelected([]string{"no such node", "linear_relu_stack_4"})
	text = gvText(v)
	if sel := v.Selected(); len(sel) != 1 || sel[0] != "linear_relu_stack_4" {
		t.Errorf("selected %v", sel)
	}
	// The view scrolled to the selection, drawn with a double border.
	if !strings.Contains(text, "║ linear_relu_stack_4") || !strings.Contains(text, "╔") {
		t.Errorf("selection not shown:\n%s", text)
	}
	v.SetHighlight(map[string]bool{"linear_relu_stack_4_mm": true})
	if !strings.Contains(gvText(v), "linear_relu_stack_4_mm") {
		t.Error("highlighted node not drawn")
	}
}

func TestGraphViewCollapse(t *testing.T) {
	g := gvGraph(t, "transformer_block.json")
	v := NewGraphView(g, GraphViewOptions{})
	v.SetSize(100, 40)
	boxes := func(v GraphView) int { return len(v.scene.Boxes) }
	if boxes(v) != len(g.Nodes) {
		t.Fatalf("expanded: %d boxes for %d nodes", boxes(v), len(g.Nodes))
	}
	v = gvPress(v, "-")
	collapsed := boxes(v)
	if collapsed >= len(g.Nodes) {
		t.Fatalf("after -: %d boxes for %d nodes", collapsed, len(g.Nodes))
	}
	v.SetSelected([]string{"softmax_exp"})
	if sel := v.Selected(); len(sel) < 10 {
		t.Errorf("selecting a node of collapsed attn selected %v", sel)
	}
	if !strings.Contains(gvText(v), "▸ attn") {
		t.Errorf("collapsed attn box not shown:\n%s", gvText(v))
	}
	v = gvPress(v, "+") // expands the selected group only
	if b := boxes(v); b <= collapsed || b >= len(g.Nodes) {
		t.Errorf("after + on attn: %d boxes (collapsed %d, nodes %d)", b, collapsed, len(g.Nodes))
	}
	v = gvPress(v, "enter") // softmax_exp is selected again: collapse attn back
	if boxes(v) != collapsed {
		t.Errorf("after enter: %d boxes, want %d", boxes(v), collapsed)
	}
	v.SetSelected(nil)
	v = gvPress(v, "+")
	if boxes(v) != len(g.Nodes) {
		t.Errorf("after + with no selection: %d boxes, want %d", boxes(v), len(g.Nodes))
	}
	big := NewGraphView(g, GraphViewOptions{CollapseAbove: 10})
	if boxes(big) >= len(g.Nodes) {
		t.Errorf("a graph over CollapseAbove did not start collapsed")
	}
}

func TestGraphViewNil(t *testing.T) {
	v := NewGraphView(nil, GraphViewOptions{})
	v.SetSize(40, 5)
	v, _ = v.Update(tea.KeyPressMsg{Code: tea.KeyDown})
	if !strings.Contains(gvText(v), "no graph") || v.Selected() != nil {
		t.Errorf("nil graph view: %q", gvText(v))
	}
}
