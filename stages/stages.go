// Package stages is gcdbg's compiler pipeline: one table of stages, each a
// real transformation of what the previous stages produced, with a printer.
// The TUI, dump, report and watch mode know stages only through Table, so
// adding a stage is one file and one line here (the spirit of Go's
// cmd/compile/internal/ssa/compile.go pass list).
package stages

import (
	"fmt"
	"strings"

	"gcdbg/ir"
	"gcdbg/termsafe"
	"gcdbg/trace"
)

// Unit is one captured graph travelling through the pipeline, with the
// artifact each stage made for it. Stages read earlier fields and fill their own.
type Unit struct {
	Trace    *trace.Trace
	Captured *ir.Graph // the graph as the producer captured it
	// Guards are the checks a compiled artifact of this graph needs to hold
	// before it may be reused: derived by gcdbg, beside the producer's own.
	Guards *GuardSet
	// Normalized is Captured rewritten to the canonical torch-level op set:
	// modules become functional calls, aliases collapse, args bound to schemas.
	Normalized *ir.Graph
	// Functional has no mutation: in-place ops and mutation through views
	// become out-of-place ops; input mutations are written back at the end.
	Functional *ir.Graph
	// Decomposed uses only the core op set (ir.CoreOps).
	Decomposed *ir.Graph
	// Joint is the forward+backward graph (nil when nothing requires grad).
	Joint *Joint
	// Partition splits Joint into forward and backward graphs (min-cut);
	// SaveAll is the save-everything partition kept for comparison.
	Partition, SaveAll *Partition
	// Programs are the graphs that get compiled (forward and backward for a
	// training graph, the decomposed graph otherwise), each lowered to the
	// loop IR, fused into kernels and memory-planned (stages/loops.go).
	Programs []*LoopProgram
	// Failure is set when a stage failed on this graph: the stages before it
	// keep their artifacts, the later ones did not run (stages/failure.go).
	Failure *Failure

	functional *FunctionalInfo // the functional stage's write-backs (Unit.FunctionalInfo)
	random     []RandomDraw    // the normalized graph's random nodes (Unit.RandomDraws)
}

// Joint is AOTAutograd's joint graph: placeholders primals_1..n (the
// decomposed graph's placeholders, then its get_attr tensors; each keeps
// the original Target so its value is found in Graph.Tensors) and
// tangents_1..k (one per floating output; Target "tangents_i"); the output
// node returns (outputs..., grads...) with one grad per entry of GradTargets.
type Joint struct {
	Graph       *ir.Graph
	NumOutputs  int      // how many leading outputs are forward outputs
	GradTargets []string // the primal Targets the trailing grads are for
	Tangents    []string // the tangent placeholder Targets, in output order
}

// Partition is a split of the joint graph. Forward takes the primals and
// returns (outputs..., saved...); Backward takes (saved..., tangents...)
// and returns the grads in Joint.GradTargets order.
type Partition struct {
	Forward, Backward *ir.Graph
	Saved             []SavedTensor
	SavedBytes        int64
	Recomputed        []string // joint nodes computed again in backward instead of saved
}

// SavedTensor is one value the forward hands to the backward.
type SavedTensor struct {
	Name  string
	Meta  *ir.TensorMeta
	Bytes int64
}

// GuardSet holds the guards of one graph.
type GuardSet struct {
	Derived  []ir.Guard // gcdbg's own, from the graph's inputs
	Producer []ir.Guard // what the producer recorded
	// Dynamic names the input dimensions made symbolic ("x:0" -> "s0").
	Dynamic map[string]string
}

// Stage is one row of the pipeline table: everything gcdbg knows about a
// stage lives here, and every view (dump, TUI, report, watch, the graph
// drawing) reads it from here.
type Stage struct {
	Name    string
	Explain string // one line: what the compiler does here and why
	Teach   string // the longer explanation (TUI e, report, tour); "" = Explain alone
	Run     func(u *Unit) error
	Print   func(u *Unit) string
	Graph   func(u *Unit) *ir.Graph // the stage's graph, for node counts and provenance; nil if none
	// Parent is the stage whose node names this graph stage's ir.Node.From
	// holds; "" = the nearest earlier graph stage.
	Parent string
	// Lang is the artifact's language, for syntax colouring: "python",
	// "c", "log" or "" (plain text).
	Lang string
	// Loop: the artifact's text names the compiled programs' buffers, loop
	// nodes and kernels (Unit.Programs), which provenance resolves to nodes.
	Loop bool
	// Open: shown when a view opens (the report's unfolded columns).
	Open bool
}

// Table is the pipeline, in order.
var Table = []Stage{
	{Name: "captured", Explain: "The graph exactly as the producer captured it (torch.fx / Dynamo): modules, methods, operator.* calls.",
		Teach: teachCaptured, Print: printCaptured, Graph: func(u *Unit) *ir.Graph { return u.Captured }, Lang: "python", Open: true},
	{Name: "guards", Explain: "Checks a compiled artifact needs before reuse, as Dynamo derives them from the inputs: dtype, device, shape, stride, requires_grad, constants, no aliasing.",
		Teach: teachGuards, Run: deriveGuards, Print: printGuards, Lang: "python"},
	{Name: "normalized", Explain: "One canonical torch-level op set: modules become functional calls, aliases (x + y, torch.add, Tensor.add) one op, every argument bound to its schema and every shape inferred.",
		Teach: teachNormalized, Run: normalize, Print: printNormalized, Graph: func(u *Unit) *ir.Graph { return u.Normalized }, Lang: "python"},
	{Name: "functional", Explain: "No mutation left: in-place ops and writes through views become out-of-place ops, and mutated inputs are written back at the end.",
		Teach: teachFunctional, Run: functionalize, Print: printFunctional, Graph: func(u *Unit) *ir.Graph { return u.Functional }, Lang: "python"},
	{Name: "decomposed", Explain: "Every op lowered to the small core op set (pointwise prims, reductions, mm/bmm, conv, views, indexing) that the later stages understand.",
		Teach: teachDecomposed, Run: decompose, Print: printDecomposed, Graph: func(u *Unit) *ir.Graph { return u.Decomposed }, Lang: "python", Open: true},
	{Name: "joint", Explain: "AOTAutograd's joint graph: the forward and, by reverse-mode autodiff, the backward in one graph from (primals, tangents) to (outputs, grads).",
		Teach: teachJoint, Run: buildJoint, Print: printJoint, Graph: jointGraph, Lang: "python"},
	{Name: "forward", Explain: "The min-cut partition's forward graph: what runs first, returning the outputs and the tensors saved for backward (cheap ops are recomputed instead of saved).",
		Teach: teachForward, Run: partition, Print: printForward, Graph: func(u *Unit) *ir.Graph { return partGraph(u, true) }, Parent: "joint", Lang: "python", Open: true},
	{Name: "backward", Explain: "The min-cut partition's backward graph: from the saved tensors and the tangents to the gradients.",
		Teach: teachBackward, Print: printBackward, Graph: func(u *Unit) *ir.Graph { return partGraph(u, false) }, Parent: "joint", Lang: "python"},
	{Name: "loopir", Explain: "Inductor's loop IR: every core op of each compiled graph (forward and backward, or the inference graph) becomes a pointwise or reduction loop body over buffers (views fold into index expressions), an extern call (mm, conv) or an eager fallback. The backward graph first merges duplicate pointwise nodes and pulls factors constant over a sum's dims out of it, one reduction per distinct summand (cse.go, simplify_bwd.go).",
		Teach: teachLoopIR, Run: lowerLoops, Print: printLoopIR, Lang: "python", Loop: true},
	{Name: "fusion", Explain: "The scheduler fuses loop nodes into kernels, best score first (category, bytes of memory traffic saved, proximity), and says why it refuses each pair it does not fuse.",
		Teach: teachFusion, Run: scheduleFusion, Print: printFusion, Lang: "log", Loop: true, Open: true},
	{Name: "memory", Explain: "Memory planning of what the rendered program allocates: each buffer's lifetime over the kernels, dead buffers reused and pointwise results written in place (graph outputs keep their own storage); peak bytes (held for the whole call) before and after.",
		Teach: teachMemory, Run: planMemory, Print: printMemory, Lang: "log", Loop: true},
	{Name: "kernels", Explain: "Code generation: each fused kernel becomes one C function (OpenMP-parallel outer loop, SIMD inner loop, fused producers kept in registers, GEMMs through OpenBLAS), named after its origins and commented with the user's source lines; a kernel repeating an earlier one's code with other buffers (an unrolled recurrence's step) calls that one's function.",
		Teach: teachKernels, Run: renderKernels, Print: printKernels, Lang: "c", Loop: true},
	{Name: "wrapper", Explain: "The generated driver: one entry point per segment of compiled kernels between eager fallbacks, timing each kernel; buffers in one arena at the memory plan's offsets.",
		Teach: teachWrapper, Print: printWrapper, Lang: "c", Loop: true},
	{Name: "pytorch", Explain: "PyTorch's own artifacts for this graph, when the trace is a TORCH_TRACE import: Dynamo's guards, AOTAutograd's joint/forward/backward/inference graphs, Inductor's post-grad graph and output code, compilation metrics and recompile reasons.",
		Print: printPyTorch, Lang: "python"},
}

func jointGraph(u *Unit) *ir.Graph {
	if u.Joint == nil {
		return nil
	}
	return u.Joint.Graph
}

func partGraph(u *Unit, fwd bool) *ir.Graph {
	if u.Partition == nil {
		return nil
	}
	if fwd {
		return u.Partition.Forward
	}
	return u.Partition.Backward
}

// PrintStage prints st's artifact for u; a printer that panics on a Unit
// an earlier stage left half-built, or a row without one, is an error
// naming the stage instead of a crash (the TUI and the report print
// through it).
func PrintStage(st Stage, u *Unit) (text string, err error) {
	defer func() {
		if r := recover(); r != nil {
			text, err = "", fmt.Errorf("stage %s could not print: %v", st.Name, r)
		}
	}()
	if st.Print == nil {
		return "", fmt.Errorf("stage %s has no printer", st.Name)
	}
	return st.Print(u), nil
}

// Lookup finds a stage by name.
func Lookup(name string) (*Stage, error) {
	for i := range Table {
		if Table[i].Name == name {
			return &Table[i], nil
		}
	}
	return nil, fmt.Errorf("unknown stage %q (stages: %s)", name, strings.Join(Names(), ", "))
}

// Names lists the stage names in order.
func Names() []string {
	out := make([]string, len(Table))
	for i, s := range Table {
		out[i] = s.Name
	}
	return out
}

// Run takes every graph of a trace through the stages up to and including
// `until` ("" = all) and returns one Unit per graph. A stage that fails on a
// graph stops only that graph's later stages: the Unit keeps every earlier
// artifact and records the Failure (stage, node, reason, suggestion), the
// other graphs go on, and the error returned names the first failure. A
// panic in a stage becomes an *InternalError naming stage, graph and node.
func Run(tr *trace.Trace, until string) ([]*Unit, error) {
	if until != "" {
		if _, err := Lookup(until); err != nil {
			return nil, err
		}
	}
	units := make([]*Unit, len(tr.Graphs))
	var first error
	for i, g := range tr.Graphs {
		u := &Unit{Trace: tr, Captured: g}
		units[i] = u
		for si := range Table {
			st := &Table[si]
			if st.Run != nil {
				if err := runStage(st, u); err != nil {
					u.Failure = newFailure(u, si, err)
					if first == nil {
						first = fmt.Errorf("%s: stage %s: %w", tr.Where(), st.Name, u.Failure)
					}
					break
				}
			}
			if st.Name == until {
				break
			}
		}
	}
	return units, first
}

func printCaptured(u *Unit) string {
	text := ir.FXGraph(u.Captured)
	f := u.Failure
	if f == nil {
		return text
	}
	// Mark the node the pipeline stopped at, and say why, under the graph.
	var b strings.Builder
	marked := false
	for _, line := range strings.SplitAfter(text, "\n") {
		b.WriteString(line)
		if !marked && f.Node != "" && strings.HasPrefix(strings.TrimSpace(line), "%"+f.Node+" ") {
			fmt.Fprintf(&b, "    # ^ gcdbg stops here: stage %s: %s\n", f.Stage, termsafe.String(f.Reason()))
			if f.Suggestion != "" {
				fmt.Fprintf(&b, "    #   suggestion: %s\n", f.Suggestion)
			}
			marked = true
		}
	}
	if !marked {
		fmt.Fprintf(&b, "# gcdbg stops at stage %s: %s\n", f.Stage, termsafe.String(f.Reason()))
	}
	return b.String()
}

func printNormalized(u *Unit) string {
	return ir.Readable(u.Normalized)
}
