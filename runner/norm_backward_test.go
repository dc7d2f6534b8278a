package runner

import (
	"fmt"
	"strings"
	"testing"

	"gcdbg/loopir"
	"gcdbg/stages"
)

// BatchNorm (training) and GroupNorm backward (testdata/norm_backward,
// exported from PyTorch 1.13: three independent branches, a BatchNorm2d
// with ReLU and a residual, a GroupNorm(3, 6) with SiLU, a BatchNorm2d of
// an input holding NaN and +Inf, each times a fixed tensor). The backward
// program's full-size reductions of the derivative (of the 8x6x12x12 and
// 4x4x10x10 tensors; not the statistics it recomputes) are at most three
// per normalization plus GroupNorm's two affine sums, none waits for
// another (so each norm's sums take one pass), and they sit in four
// kernels: one per normalization's sums of one iteration space (GroupNorm's
// rows, and its weight and bias sums over N, H, W). Before
// stages/simplify_bwd.go: 15 reductions in 11 kernels, the fifth sum of
// each BatchNorm (and the third of GroupNorm's rows) summing a tensor made
// from another sum; before sched/prologue_first.go, GroupNorm's weight
// and bias sums were two kernels (its g * y stored by the row kernel). Every output, gradient and running stat matches
// PyTorch and the eager interpreter, the NaN/Inf channels included.
func TestNormBackwardSumsInOnePass(t *testing.T) {
	tr, units, _ := renderFirstProgram(t, "testdata/norm_backward.json")
	var bwd *stages.LoopProgram
	for _, lp := range units[0].Programs {
		if lp.Role == stages.RoleBackward {
			bwd = lp
		}
	}
	if bwd == nil || bwd.Schedule == nil {
		t.Fatal("no scheduled backward program")
	}
	numel := func(es []loopir.Expr) int64 {
		n := int64(1)
		for _, e := range es {
			n *= e.Eval(nil)
		}
		return n
	}
	full := map[*loopir.Node]bool{}
	kernelOf := map[*loopir.Node]string{}
	for _, k := range bwd.Schedule.Kernels {
		for _, n := range k.Nodes {
			kernelOf[n] = k.Name
			if all := numel(n.Ranges) * numel(n.ReduceRanges); n.Kind == loopir.Reduction && (all == 8*6*12*12 || all == 4*4*10*10) {
				full[n] = true
			}
		}
	}
	writer := map[string]*loopir.Node{}
	for _, n := range bwd.Loops.Nodes {
		for _, w := range n.Writes {
			writer[w.Buffer] = n
		}
	}
	// Only the derivative's sums: not the statistics the backward
	// recomputes from the saved input (mean, then variance: these tensors
	// are too small to be saved, stages/partition.go).
	recomputed := map[string]bool{}
	for _, n := range units[0].Partition.Recomputed {
		recomputed[n] = true
	}
	for r := range full {
		forward := true
		for _, o := range r.Origins {
			names := bwd.Aliases[o]
			if names == nil {
				names = []string{o}
			}
			for _, name := range names {
				forward = forward && recomputed[name]
			}
		}
		if forward {
			delete(full, r)
		}
	}
	kernels := map[string]bool{}
	for r := range full {
		kernels[kernelOf[r]] = true
		seen := map[*loopir.Node]bool{}
		var walk func(n *loopir.Node)
		walk = func(n *loopir.Node) {
			for _, d := range n.Reads {
				p := writer[d.Buffer]
				if p == nil || seen[p] {
					continue
				}
				seen[p] = true
				if full[p] {
					t.Errorf("reduction %s (%s) waits for the full-size reduction %s (%s): a second pass", r.Name, strings.Join(r.Origins, ","), p.Name, strings.Join(p.Origins, ","))
				}
				walk(p)
			}
		}
		walk(r)
	}
	if len(full) > 3+3+2+3 || len(kernels) > 4 {
		var names []string
		for r := range full {
			names = append(names, fmt.Sprintf("%s %s %v", kernelOf[r], r.Name, r.Origins))
		}
		t.Errorf("%d full-size reductions in %d kernels, want at most 11 in 4: %v", len(full), len(kernels), names)
	}

	res, err := RunUnits(tr, units, Options{Runs: 1, Device: "cpu"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Backend != "compiled" || !res.OK {
		t.Fatalf("backend %q: does not match:\n%s", res.Backend, res.Summary())
	}
	g := res.Graphs[0]
	if len(g.Outputs) != 3 || len(g.Grads) != 9 || len(g.Buffers) != 6 {
		t.Fatalf("%d outputs, %d grads, %d buffers; want 3, 9, 6", len(g.Outputs), len(g.Grads), len(g.Buffers))
	}
	checkAllMatch(t, g, "")
}
