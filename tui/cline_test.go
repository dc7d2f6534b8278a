package tui

import (
	"strings"
	"testing"
)

// From the first ReLU of the captured graph to the exact line of generated
// C computing it: in the kernels stage that line (the temporary commented
// with the node's name) is marked as naming the selection itself, while
// the rest of its kernel only lights up as the block around it.
func TestReLULeadsToItsCLine(t *testing.T) {
	m := loaded(t, "mlp.json", 200, 50)
	m = typeText(press(m, "g"), "linear_relu_stack_1")
	m = press(m, "enter")
	d := stageNamed(t, m, "kernels")
	var direct []string
	blockLit := 0
	for i, l := range d.lines {
		if lineDirect(d, i, m.related) {
			direct = append(direct, strings.TrimSpace(l))
		} else if lineRelated(d, i, m.related) {
			blockLit++
		}
	}
	computes := 0
	for _, l := range direct {
		if strings.HasPrefix(l, "const float t") && strings.HasSuffix(l, "// linear_relu_stack_1") {
			computes++
		}
	}
	if computes != 1 {
		t.Fatalf("want exactly one C line computing the ReLU among the directly marked lines; got %q", direct)
	}
	if blockLit == 0 {
		t.Errorf("the kernel around the ReLU's line should light up as a block")
	}
	// On screen: the kernels pane marks that C line with ◆, the rest of
	// the kernel with ●.
	m.setStage(1, stageIndex("kernels"))
	var diamond []string
	for _, row := range strings.Split(screen(m), "\n") {
		if i := strings.Index(row, "◆ "); i >= 0 {
			diamond = append(diamond, row[i:])
		}
	}
	found := false
	for _, r := range diamond {
		found = found || strings.Contains(r, "// linear_relu_stack_1")
	}
	if !found || !strings.Contains(screen(m), "● ") {
		t.Errorf("the screen's ◆ rows %q lack the C line computing the ReLU", diamond)
	}
}
