package tui

import (
	"testing"

	"gcdbg/stages"
)

// The tour is built from the table: with the guards row gone it still
// starts, skips the guard step and never names the missing stage.
func TestTourWithoutAStage(t *testing.T) {
	old := stages.Table
	defer func() { stages.Table = old }()
	var rows []stages.Stage
	for _, st := range old {
		if st.Name != "guards" {
			rows = append(rows, st)
		}
	}
	stages.Table = rows
	m := press(loaded(t, "conv_add.json", 160, 40), "t")
	if m.tour == nil || len(m.tour.steps) < 5 {
		t.Fatalf("tour %v", m.tour)
	}
	for _, s := range m.tour.steps {
		if s.left == "guards" || s.right == "guards" {
			t.Errorf("a step shows the missing guards stage")
		}
	}
}
