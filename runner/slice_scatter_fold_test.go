package runner

import (
	"strings"
	"testing"

	"gcdbg/ir"
	"gcdbg/render"
	"gcdbg/stages"
)

// A language model's training step at toy size (testdata/models/
// lm_slice_ce.py): the logits' gradient is slice_scatter(zeros, g, 1, 0,
// T-1) and the packed q/k/v projection's gradient a sum of three
// slice_scatters of zeros. The joint makes the sum one cat
// (stages/joint_slices.go); the renderer has the producers of g and of the
// cat's three inputs store straight into their places in the result, so
// none of those four buffers is allocated and no kernel copies them
// (render/slice_scatter_fold.go). The loss picks each row's target from the
// logits before subtracting the row statistics (stages/
// decomp_gather_rows.go), and the logits' contiguous copy it picks from
// stays inside its kernel (render/copy_reads.go); outputs and every gradient still match
// PyTorch and the eager interpreter.
func TestSliceScatterAndCatWrittenInPlace(t *testing.T) {
	t.Setenv("GCDBG_AUTOTUNE", "0")
	tr, units, _ := renderFirstProgram(t, "testdata/lm_slice_ce.json")
	var fwd, bwd *stages.LoopProgram
	for _, lp := range units[0].Programs {
		switch lp.Role {
		case stages.RoleForward:
			fwd = lp
		case stages.RoleBackward:
			bwd = lp
		}
	}
	if fwd == nil || bwd == nil {
		t.Fatal("no forward or backward program")
	}
	// The loss gathers from the logits, not from log-probabilities of
	// their size (stages/decomp_gather_rows.go), and the logits' contiguous
	// copy it gathers from is not materialized (render/copy_reads.go).
	for _, n := range fwd.Loops.Graph.Nodes {
		if n.Target != "aten.gather" {
			continue
		}
		if x, ok := n.Args[0].(*ir.Node); !ok || x.Target == "aten.sub" {
			t.Errorf("the loss gathers from %s; want the logits (no [N, C] log-softmax for one pick per row)", ir.FormatArg(n.Args[0], func(x *ir.Node) string { return x.Name + " (" + x.Target + ")" }))
		}
	}
	fplan := render.PlanMemory(fwd.Loops, fwd.Schedule.Kernels, render.C)
	inside := 0
	for _, b := range fplan.Buffers {
		if strings.Contains(b.Note, "copy_reads.go") && !b.Materialized {
			inside++
		}
	}
	if inside != 1 {
		t.Errorf("forward: %d copies read through by their gathers; want the logits' copy", inside)
	}
	cats, scatters := 0, 0
	for _, n := range bwd.Loops.Graph.Nodes {
		switch n.Target {
		case "aten.cat":
			cats++
		case "aten.slice_scatter":
			scatters++
		}
	}
	if cats != 1 || scatters != 1 {
		t.Errorf("backward graph: %d cats and %d slice_scatters; want the q/k/v gradient as 1 cat and the logits' slice_scatter alone", cats, scatters)
	}
	plan := render.PlanMemory(bwd.Loops, bwd.Schedule.Kernels, render.C)
	placed := map[string]int{}
	for _, b := range plan.Buffers {
		if i := strings.Index(b.Note, "straight into its place in "); i >= 0 {
			if b.Materialized {
				t.Errorf("%s is noted as placed but still materialized", b.Name)
			}
			placed[strings.Fields(b.Note[i+len("straight into its place in "):])[0]]++
		}
	}
	// the logits' gradient (one input) and the q/k/v gradient (three)
	counts := []int{}
	for _, n := range placed {
		counts = append(counts, n)
	}
	if len(placed) != 2 || !(counts[0] == 1 && counts[1] == 3 || counts[0] == 3 && counts[1] == 1) {
		t.Fatalf("buffers written straight into their place, by result: %v; want the logits' gradient (1) and the q/k/v cat (3)", placed)
	}
	src, err := render.Render(bwd.Loops, bwd.Schedule.Kernels, bwd.Memory, render.C, render.Options{Trace: "lm_slice_ce", Graph: units[0].Captured.Name, Role: bwd.Role})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(src.Code, "cat: one copy loop per input") {
		t.Errorf("the q/k/v cat is still copied by its own kernel")
	}
	runCompiledMatches(t, tr, units)
}
