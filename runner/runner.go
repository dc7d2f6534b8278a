// Package runner runs a trace end to end — the pipeline's stages, then the
// eager interpreter — and compares every output with the producer's
// expected values. Its Result is the machine-readable contract of
// `gcdbg run --json` (shared spec run-json.md); the CLI and the TUI both use it.
package runner

import (
	"fmt"
	"sort"
	"time"

	"gcdbg/compiler"
	"gcdbg/stages"
	"gcdbg/termsafe"
	"gcdbg/trace"
	"gcdbg/verdict"
)

// Result is `gcdbg run --json`.
type Result struct {
	Trace  string `json:"trace"`
	Device string `json:"device"`
	// Backend says what computed the compared values: "compiled" (C
	// kernels, --device cpu) or "eager" (the pipeline's graphs under the
	// eager interpreter, --device eager).
	Backend string        `json:"backend"`
	OK      bool          `json:"ok"`
	Error   string        `json:"error,omitempty"`
	Graphs  []GraphResult `json:"graphs"`
	// Recompiles is filled by `run --input` (runner/guards.go).
	Recompiles []GraphRecompiles `json:"recompiles,omitempty"`
}

// GraphResult is one graph's comparison.
type GraphResult struct {
	Name     string         `json:"name"`
	Break    string         `json:"break,omitempty"`
	Outputs  []OutputResult `json:"outputs"`
	Grads    []GradResult   `json:"grads"`
	Stages   map[string]any `json:"stages"`
	Timing   Timing         `json:"timing"`
	Kernels  []any          `json:"kernels"`
	Fallback []string       `json:"fallback_nodes"`
	// Buffers compares every buffer the graph mutates (BatchNorm's running
	// stats in training mode); empty when nothing is mutated.
	Buffers []BufferResult `json:"buffers"`
	// OutputKeys names the outputs in the text (the trace's output_keys),
	// nil when it has none; run-json.md's outputs keep their indices.
	OutputKeys []string `json:"-"`
	// Verdict states the accuracy rule every comparison follows.
	Verdict string `json:"verdict"`
	// NotComparedWithPyTorch says why no value of this graph was compared
	// with PyTorch's although the trace records them (random nodes that
	// drew gcdbg's own numbers: an elementwise comparison means nothing).
	NotComparedWithPyTorch string `json:"not_compared_with_pytorch,omitempty"`
	// FirstDifference, for a graph that mismatched, is the first stage
	// whose result already differs from the stage before it (package
	// bisect): where to look.
	FirstDifference string `json:"first_difference,omitempty"`
	// Stopped says where the pipeline stopped for this graph when a stage
	// of the compiled back end failed: the values above are then the graph
	// stages' under the interpreter (--device eager).
	Stopped string `json:"stopped,omitempty"`
}

// OutputResult compares one output.
type OutputResult struct {
	Index      int                `json:"index"`
	DType      string             `json:"dtype"`
	Shape      []int              `json:"shape"`
	VsExpected *verdict.Judgement `json:"vs_expected,omitempty"`
	VsEager    *verdict.Judgement `json:"vs_eager,omitempty"`
}

// GradResult compares one gradient.
type GradResult struct {
	Name       string             `json:"name"`
	VsExpected *verdict.Judgement `json:"vs_expected,omitempty"`
	VsEager    *verdict.Judgement `json:"vs_eager,omitempty"`
}

// BufferResult compares one mutated buffer's value after the run.
type BufferResult struct {
	Name       string             `json:"name"`
	VsExpected *verdict.Judgement `json:"vs_expected,omitempty"`
	VsEager    *verdict.Judgement `json:"vs_eager,omitempty"`
}

// Rule is the accuracy rule in words, for every view that shows a verdict.
const Rule = "match: rmse(result, F) <= multiplier x baseline_rmse + 1e-5 x rms(F), and the same for the worst element; " +
	"F is gcdbg's eager interpreter in float64, itself checked against PyTorch's result where the trace has one (docs/verdict.md)"

// Timing holds medians in milliseconds. Covers says what they cover:
// "forward" until the backward graph exists.
type Timing struct {
	EagerMS         float64 `json:"eager_ms"`
	CompiledMS      float64 `json:"compiled_ms,omitempty"`
	ProducerEagerMS float64 `json:"producer_eager_ms,omitempty"`
	// The compiled time's parts (medians over the runs with kernel times):
	// in eager fallback nodes, and outside kernels and fallbacks (the
	// wrapper's own code and the worker round trip of each segment).
	FallbackMS float64 `json:"fallback_ms,omitempty"`
	OutsideMS  float64 `json:"outside_ms,omitempty"`
	Runs       int     `json:"runs"`
	// EagerRuns is how many timings EagerMS is the median of: Runs, or
	// fewer where one eager run is slow (timeEager's budget).
	EagerRuns int    `json:"eager_runs"`
	Covers    string `json:"covers"`
}

// Options tune a run.
type Options struct {
	Runs int // timed repetitions of the eager interpreter (median reported)
	// Device "cpu" also runs the compiled programs (compiled.go) and
	// compares their values; "eager" (or "") the pipeline's graphs alone.
	Device string
	// AOT, when set, are the programs of a `gcdbg compile` directory the
	// cpu run uses instead of building (RunAOT).
	AOT []compiler.AOTProgram
	// Progress receives the run's one-line notices while it goes on (the
	// reference runs or a C compilation still running, a damaged cache
	// entry rebuilt): the CLI writes them to its standard error, the
	// explorer to its status line. nil: standard error (progress.go).
	Progress func(msg string)
	// ProgressEvery is how often a step still running says so (0: 10 s).
	ProgressEvery time.Duration
}

// Run takes tr through the pipeline and the eager interpreter. An error
// means the trace could not be compiled or run (exit status 2); mismatches
// are reported in the Result (OK false).
//
// What is compared: the pipeline's result (the min-cut partition's forward
// then backward graph for training graphs, the decomposed graph otherwise,
// all run by the eager interpreter) against PyTorch's expected values
// (vs_expected) and against gcdbg's eager reference (vs_eager: the
// normalized graph for outputs, the joint graph for grads).
func Run(tr *trace.Trace, opt Options) (*Result, error) {
	units, err := stages.Run(tr, "")
	if err != nil && !(opt.Device == "eager" && onlyCompiledStagesFailed(units)) {
		if onlyCompiledStagesFailed(units) {
			err = fmt.Errorf("%w\n(every graph stage up to the partition was built: --device eager judges those graphs under the interpreter)", err)
		}
		return newResult(tr, opt), err
	}
	return RunUnits(tr, units, opt)
}

// onlyCompiledStagesFailed: every graph reached its min-cut partition (all
// the eager interpreter runs) and what failed, if anything, is a stage of
// the compiled back end (loop IR onwards: a dtype the C renderer has no
// type for, bfloat16). --device eager never builds those, so it runs.
func onlyCompiledStagesFailed(units []*stages.Unit) bool {
	last := -1
	for i, st := range stages.Table {
		if st.Name == "backward" {
			last = i
		}
	}
	for _, u := range units {
		if u == nil || last < 0 || !u.Reached(last) {
			return false
		}
	}
	return true
}

// RunUnits is Run on units the caller already took through every stage
// (stages.Run(tr, "")): the explorer, watch mode and the report have
// them, and running the pipeline a second time would double their wait.
func RunUnits(tr *trace.Trace, units []*stages.Unit, opt Options) (*Result, error) {
	if opt.Runs <= 0 {
		opt.Runs = 5
	}
	res := newResult(tr, opt)
	for _, u := range units {
		gr, refs, err := runGraph(tr, u, opt)
		if u.Failure != nil {
			gr.Stopped = fmt.Sprintf("stage %s: %v", u.Failure.Stage, u.Failure)
		}
		if err == nil && opt.Device == "cpu" {
			err = addCompiled(tr, u, opt, &gr, refs)
		} else if err == nil && IsGPU(opt.Device) {
			err = addGPU(tr, u, opt, &gr, res, refs) // gpu.go
		}
		if err != nil {
			return res, err
		}
		if opt.Device == "cpu" || opt.Device == "eager" || opt.Device == "" {
			locate(tr, u, opt, &gr)
		}
		res.OK = res.OK && graphMatches(&gr)
		res.Graphs = append(res.Graphs, gr)
	}
	return res, nil
}

func newResult(tr *trace.Trace, opt Options) *Result {
	res := &Result{Trace: tr.Name, Device: "cpu", Backend: "eager", OK: true}
	if opt.Device == "cpu" || IsGPU(opt.Device) {
		res.Backend = "compiled"
	}
	return res
}

func runGraph(tr *trace.Trace, u *stages.Unit, opt Options) (GraphResult, *references, error) {
	name := u.Captured.Name
	where := func(err error) error { return fmt.Errorf("%s: graph %q: %w", tr.Where(), name, err) }
	gr := GraphResult{Name: name, Stages: map[string]any{}, Outputs: []OutputResult{}, Grads: []GradResult{},
		Kernels: []any{}, Fallback: []string{}, Buffers: []BufferResult{}, Verdict: Rule}
	if u.Captured.Break != nil {
		gr.Break = u.Captured.Break.Reason
	}
	gr.OutputKeys = u.Captured.OutputKeys
	for _, st := range stages.Table {
		if st.Graph != nil {
			if g := st.Graph(u); g != nil {
				gr.Stages[st.Name] = map[string]int{"nodes": len(g.Nodes)}
			}
		}
	}
	LoopStats(u, gr.Stages)
	if u.Partition != nil {
		gr.Stages["saved_bytes"] = u.Partition.SavedBytes
		gr.Stages["saved_bytes_save_everything"] = u.SaveAll.SavedBytes
	}

	saying := func(what string) func() {
		return stillRunning(opt, fmt.Sprintf("graph %q's %s", termsafe.String(name), what))
	}
	refs, err := newReferencesSaying(u, saying)
	if err != nil {
		return gr, nil, where(err)
	}
	stop := saying("pipeline graphs under the eager interpreter")
	outs, grads, saved, err := u.RunPipelineSaved()
	stop()
	if err != nil {
		return gr, nil, where(err)
	}
	if err := judgeGraph(u, refs, &gr, outs, grads, savedTensors(saved), nil); err != nil {
		return gr, nil, where(err)
	}
	stop = saying("eager interpreter timing")
	gr.Timing, err = timeEager(u, opt.Runs, refs.native.Seconds)
	stop()
	if err != nil {
		return gr, nil, where(err)
	}
	return gr, refs, nil
}

// EagerNote says, when the eager time is the median of fewer timings
// than the compiled one (a slow eager run, timeEager's budget), how many:
// "" otherwise. Every view that prints EagerMS appends it.
func (t Timing) EagerNote() string {
	if t.EagerRuns <= 0 || t.EagerRuns >= t.Runs {
		return ""
	}
	return fmt.Sprintf(" (eager: %d of %d runs; its runs are repeated only while they add up to less than %v)", t.EagerRuns, t.Runs, eagerTimingBudget)
}

// eagerTimingBudget bounds how long timeEager repeats the eager
// interpreter: the timings (the native reference run's included) stop at
// Options.Runs or once they add up to this, so a graph whose eager run
// takes a minute is timed once, by the reference run itself, instead of
// five more times (Timing.EagerRuns says how many).
const eagerTimingBudget = 2 * time.Second

// timeEager times gcdbg's eager reference like for like with the producer's
// timing: forward plus backward (the joint graph) for training graphs.
// first is the native reference run's timing of that same work
// (stages.RefRun.Seconds), the first of the timings.
func timeEager(u *stages.Unit, runs int, first float64) (Timing, error) {
	times := make([]float64, 0, runs)
	times = append(times, first*1000)
	spent := time.Duration(first * float64(time.Second))
	for len(times) < runs && spent < eagerTimingBudget {
		t0 := time.Now()
		var err error
		if u.Joint != nil {
			_, _, err = u.RunJoint()
		} else {
			_, err = u.RunEager()
		}
		if err != nil {
			return Timing{}, err
		}
		d := time.Since(t0)
		spent += d
		times = append(times, float64(d.Microseconds())/1000)
	}
	sort.Float64s(times)
	t := Timing{EagerMS: times[len(times)/2], Runs: runs, EagerRuns: len(times), Covers: "forward"}
	if u.Joint != nil {
		t.Covers = "forward+backward"
	}
	if tm := u.Captured.Timing; tm != nil {
		t.ProducerEagerMS = tm.EagerForwardMS
		if u.Joint != nil {
			t.ProducerEagerMS += tm.EagerBackwardMS
		}
	}
	return t, nil
}
