package sched_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"gcdbg/interp"
	"gcdbg/loopir"
)

// BatchNorm in training mode over an NCHW activation: its statistics sum
// over C then (N, H, W), while x - mean and its square walk (N, C, H, W).
// The scheduler permutes the pointwise producer's loops into the
// reduction's order (reorder.go), so the squared deviations are computed
// inside the second sum's loop instead of written to memory and read back,
// and both sums are one kernel (two passes over each channel); H and W
// then merge into one loop (loopmerge.go), as the renderer merges them in a
// plain reduction. Before: four kernels, now two (the statistics, then the
// normalize with the ReLU). The fused kernels compute what the eager
// interpreter computes, and the loop-IR stage keeps the lowering's nodes.
func TestBatchNormTrainingStatisticsInOneKernel(t *testing.T) {
	u := load(t, "../fixtures/bn_dropout_train.json")[0]
	fwd := u.Programs[0]
	if fwd.Role != "forward" {
		t.Fatalf("first program is %q, want the forward graph", fwd.Role)
	}
	log := fwd.Schedule.Log()
	// Every loop node lowered from bn1's decomposition (its decomposed
	// nodes are named bn1_batch_norm_functional_*) runs in two kernels.
	bnKernels := 0
	for _, k := range fwd.Schedule.Kernels {
		for _, n := range k.Nodes {
			if slices.ContainsFunc(n.Origins, func(o string) bool { return strings.HasPrefix(o, "bn1_") }) {
				bnKernels++
				break
			}
		}
	}
	if bnKernels != 2 {
		t.Errorf("bn1's forward runs in %d kernels, want 2 (statistics, normalize)\n%s", bnKernels, log)
	}
	// The statistics kernel holds both sums and the squares they sum.
	var bnKernel *loopir.Kernel
	for _, k := range fwd.Schedule.Kernels {
		for _, n := range k.Nodes {
			if slices.Contains(n.Origins, "bn1_batch_norm_functional_sum_1") {
				bnKernel = k
			}
		}
	}
	if bnKernel == nil {
		t.Fatalf("no kernel computes bn1's second sum\n%s", log)
	}
	var sums, squares int
	for _, n := range bnKernel.Nodes {
		if n.Kind == loopir.Reduction {
			sums++
		}
		if slices.Contains(n.Origins, "bn1_batch_norm_functional_mul") {
			squares++
		}
	}
	if sums != 2 || squares != 1 {
		t.Errorf("bn1's statistics kernel has %d reductions and %d square nodes, want 2 and 1\n%s", sums, squares, log)
	}
	if !strings.Contains(log, "reordered from (4, 8, 8, 8) to (8, 4, 8, 8)") {
		t.Errorf("the fusion log does not say which loops were reordered\n%s", log)
	}

	// The lowering's nodes are untouched: the kernels hold copies, which
	// the schedule's program lists, and the loop-IR stage prints the
	// lowering's program.
	lowered := map[*loopir.Node]bool{}
	byName := map[string]*loopir.Node{}
	for _, n := range fwd.Lowered.Nodes {
		lowered[n], byName[n.Name] = true, n
	}
	inProgram := map[*loopir.Node]bool{}
	for _, n := range fwd.Schedule.Program.Nodes {
		inProgram[n] = true
	}
	copies := 0
	for _, k := range fwd.Schedule.Kernels {
		for _, n := range k.Nodes {
			if !inProgram[n] {
				t.Errorf("kernel %s's node %s is not in the schedule's program", k.Name, n.Name)
			}
			if lowered[n] {
				continue
			}
			copies++
			// Pointwise members walk (C, N, H·W) (reordered, then H and W
			// merged: loopmerge.go), the sums (N, H·W).
			o := byName[n.Name]
			switch {
			case o == nil:
				t.Errorf("scheduled node %s has no lowered node", n.Name)
			case n.Kind == loopir.Pointwise:
				if fmt.Sprint(o.Ranges) != "[4 8 8 8]" || fmt.Sprint(n.Ranges) != "[8 4 1 64]" {
					t.Errorf("node %s: lowered ranges %v, scheduled %v; want [4 8 8 8] and [8 4 1 64]", n.Name, o.Ranges, n.Ranges)
				}
			case n.Kind == loopir.Reduction:
				if fmt.Sprint(o.ReduceRanges) != "[4 8 8]" || fmt.Sprint(n.ReduceRanges) != "[4 1 64]" {
					t.Errorf("node %s: lowered reduce ranges %v, scheduled %v; want [4 8 8] and [4 1 64]", n.Name, o.ReduceRanges, n.ReduceRanges)
				}
			}
		}
	}
	if copies == 0 || fwd.Loops != fwd.Schedule.Program || fwd.Lowered == fwd.Loops {
		t.Errorf("%d permuted copies; Loops is the schedule's program: %v; Lowered kept apart: %v",
			copies, fwd.Loops == fwd.Schedule.Program, fwd.Lowered != fwd.Loops)
	}

	// Values: forward then backward (fed the forward's saved tensors), the
	// fused schedule run by the loop-IR interpreter against the eager one.
	saved := interp.Inputs{}
	for _, lp := range u.Programs {
		checkProgram(t, u, lp, saved)
	}
}
