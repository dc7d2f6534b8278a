package tui

import (
	"strings"
	"testing"
)

// The graph view's overview (f) shows the whole graph of the transformer
// block's joint stage in one screen with the selection as █ and the frame
// of the detail view; arrows move the frame, f zooms back in there, and
// the selection survives the round trip and the return to text.
func TestGraphOverviewAndZoom(t *testing.T) {
	m := loaded(t, "transformer_block.json", 160, 45)
	m.setStage(0, stageIndex("decomposed"))
	m = press(typeText(press(m, "g"), "softmax"), "enter", "v")
	if m.panes[0].gv == nil {
		t.Fatalf("no graph view: %s", m.notice)
	}
	detail := screen(m)
	m = press(m, "f")
	s := screen(m)
	if !strings.Contains(s, "overview of") || !strings.Contains(s, "█") || !strings.Contains(s, "▒") || !strings.Contains(s, "┌") {
		t.Fatalf("no overview with the selection, boxes and frame:\n%s", s)
	}
	if rows := strings.Split(s, "\n"); len(rows) != 45 {
		t.Errorf("%d rows", len(rows))
	}
	x0, y0 := m.panes[0].gv.x0, m.panes[0].gv.y0
	m = press(m, "down", "down", "down")
	if m.panes[0].gv.y0 == y0 && m.panes[0].gv.x0 == x0 {
		t.Error("arrows do not move the overview's frame")
	}
	m = press(m, "f")
	if strings.Contains(screen(m), "overview of") || screen(m) == detail {
		t.Error("f does not zoom back in at the moved frame")
	}
	if got := m.cursorNodes(); got != "softmax" {
		t.Errorf("the overview round trip changed the selection to %q", got)
	}
	m = press(m, "v")
	if d := m.stageDoc(0); !strings.Contains(d.lines[m.panes[0].cursor], "softmax: ") {
		t.Errorf("back in text the cursor is on %q", d.lines[m.panes[0].cursor])
	}
}
