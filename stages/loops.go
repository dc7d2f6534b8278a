package stages

import (
	"fmt"
	"strings"

	"gcdbg/ir"
	"gcdbg/loopir"
	"gcdbg/render"
	"gcdbg/sched"
)

// The loop-level stages (Inductor's lowering, scheduler and memory
// planning) work on the graphs that will be compiled: the min-cut
// partition's forward and backward graphs for a training graph, the
// decomposed graph for an inference graph.

// LoopProgram is one graph taken through the loop-level stages.
type LoopProgram struct {
	Role  string // RoleInference, RoleForward or RoleBackward (execute.go)
	Graph *ir.Graph
	// Loops is the program the later stages render: the lowering's, then
	// after fusion the scheduler's (Schedule.Program: where it permuted a
	// node's loops, a copy listing the permuted node). Lowered stays the
	// lowering's own, which the loopir stage prints.
	Loops    *loopir.Program
	Lowered  *loopir.Program
	Schedule *sched.Schedule
	Memory   *sched.MemoryPlan
	Source   *render.Source // the generated C (stages/kernels.go)
	// Aliases maps the nodes the backward's sum rewrite made (and the
	// reductions it shares between sums) to the nodes of Graph they compute
	// (simplify_bwd.go); provenance reads loop origins through it.
	Aliases map[string][]string
}

// compiledGraphs lists the graphs the loop stages compile, with their roles.
func compiledGraphs(u *Unit) []*LoopProgram {
	if u.Partition != nil {
		return []*LoopProgram{{Role: RoleForward, Graph: u.Partition.Forward}, {Role: RoleBackward, Graph: u.Partition.Backward}}
	}
	if u.Decomposed != nil {
		return []*LoopProgram{{Role: RoleInference, Graph: u.Decomposed}}
	}
	return nil
}

// lowerLoops lowers each compiled graph to the loop IR: one node per core
// op, views folded into index expressions.
func lowerLoops(u *Unit) error {
	u.Programs = compiledGraphs(u)
	for _, lp := range u.Programs {
		if err := lowerProgram(lp); err != nil {
			return err
		}
	}
	return nil
}

// lowerProgram lowers one compiled graph.
func lowerProgram(lp *LoopProgram) error {
	g := lp.Graph
	if lp.Role == RoleBackward {
		g, lp.Aliases = simplifySums(cseGraph(g)) // cse.go: duplicate pointwise nodes merged; simplify_bwd.go: factors out of sums
	}
	p, err := loopir.Lower(g)
	if err != nil {
		return fmt.Errorf("%s graph: %w", lp.Role, err)
	}
	lp.Loops, lp.Lowered = p, p
	return nil
}

// scheduleFusion fuses each program's loop-IR nodes into kernels.
func scheduleFusion(u *Unit) error {
	for _, lp := range u.Programs {
		if err := fuseProgram(u, lp); err != nil {
			return err
		}
	}
	return nil
}

func fuseProgram(u *Unit, lp *LoopProgram) error {
	s, err := sched.Fuse(lp.Loops)
	if err != nil {
		return fmt.Errorf("graph %q (%s): %w", u.Captured.Name, lp.Role, err)
	}
	lp.Schedule, lp.Loops = s, s.Program
	return nil
}

// planMemory gives every materialized buffer of the fused kernels a
// lifetime and a storage, reusing dead buffers and overwriting in place.
func planMemory(u *Unit) error {
	for _, lp := range u.Programs {
		planProgram(lp)
	}
	return nil
}

func planProgram(lp *LoopProgram) {
	if lp.Schedule != nil {
		lp.Memory = render.PlanMemory(lp.Loops, lp.Schedule.Kernels, render.C)
	}
}

// printPrograms prints one section per compiled graph.
func printPrograms(u *Unit, what string, f func(lp *LoopProgram) string) string {
	if len(u.Programs) == 0 {
		return "no " + what + " (no graph to compile)\n"
	}
	var b strings.Builder
	for _, lp := range u.Programs {
		if len(u.Programs) > 1 {
			fmt.Fprintf(&b, "## %s graph\n", lp.Role)
		}
		b.WriteString(f(lp))
		b.WriteString("\n")
	}
	return b.String()
}

func printLoopIR(u *Unit) string {
	return printPrograms(u, "loop IR", func(lp *LoopProgram) string {
		if lp.Lowered != nil {
			return describeSums(lp) + loopir.Print(lp.Lowered)
		}
		return loopir.Print(lp.Loops)
	})
}

// printFusion is TORCH_LOGS=fusion followed by ir_post_fusion.txt.
func printFusion(u *Unit) string {
	return printPrograms(u, "schedule", func(lp *LoopProgram) string {
		return "# fusion log\n" + lp.Schedule.Log() + "\n# kernels after fusion\n" + lp.Schedule.PostFusion()
	})
}

func printMemory(u *Unit) string {
	return printPrograms(u, "memory plan", func(lp *LoopProgram) string { return lp.Memory.Table() })
}
