// Package runner runs a trace end to end — the pipeline's stages, then the
// eager interpreter — and compares every output with the producer's
// expected values. Its Result is the machine-readable contract of
// `gcdbg run --json` (shared spec run-json.md); the CLI and the TUI both use it.
package runner

import (
	"fmt"
	"sort"
	"time"

	"gcdbg/interp"
	"gcdbg/stages"
	"gcdbg/trace"
)

// Result is `gcdbg run --json`.
type Result struct {
	Trace  string        `json:"trace"`
	Device string        `json:"device"`
	OK     bool          `json:"ok"`
	Error  string        `json:"error,omitempty"`
	Graphs []GraphResult `json:"graphs"`
	// Recompiles is filled by `run --input` (runner/guards.go).
	Recompiles []GraphRecompiles `json:"recompiles,omitempty"`
}

// GraphResult is one graph's comparison.
type GraphResult struct {
	Name      string                      `json:"name"`
	Break     string                      `json:"break,omitempty"`
	Outputs   []OutputResult              `json:"outputs"`
	Grads     []GradResult                `json:"grads"`
	Stages    map[string]any              `json:"stages"`
	Timing    Timing                      `json:"timing"`
	Kernels   []any                       `json:"kernels"`
	Fallback  []string                    `json:"fallback_nodes"`
	Tolerance map[string]interp.Tolerance `json:"tolerance"`
}

// OutputResult compares one output.
type OutputResult struct {
	Index      int                `json:"index"`
	DType      string             `json:"dtype"`
	Shape      []int              `json:"shape"`
	VsExpected *interp.Comparison `json:"vs_expected,omitempty"`
	VsEager    *interp.Comparison `json:"vs_eager,omitempty"`
}

// GradResult compares one gradient.
type GradResult struct {
	Name       string             `json:"name"`
	VsExpected *interp.Comparison `json:"vs_expected,omitempty"`
	VsEager    *interp.Comparison `json:"vs_eager,omitempty"`
}

// Timing holds medians in milliseconds. Covers says what they cover:
// "forward" until the backward graph exists.
type Timing struct {
	EagerMS         float64 `json:"eager_ms"`
	CompiledMS      float64 `json:"compiled_ms,omitempty"`
	ProducerEagerMS float64 `json:"producer_eager_ms,omitempty"`
	Runs            int     `json:"runs"`
	Covers          string  `json:"covers"`
}

// Options tune a run.
type Options struct {
	Runs int // timed repetitions of the eager interpreter (median reported)
}

// Run takes tr through the pipeline and the eager interpreter. An error
// means the trace could not be compiled or run (exit status 2); mismatches
// are reported in the Result (OK false).
func Run(tr *trace.Trace, opt Options) (*Result, error) {
	if opt.Runs <= 0 {
		opt.Runs = 5
	}
	res := &Result{Trace: tr.Name, Device: "cpu", OK: true}
	units, err := stages.Run(tr, "")
	if err != nil {
		return res, err
	}
	for _, u := range units {
		gr := GraphResult{Name: u.Captured.Name, Stages: map[string]any{}, Outputs: []OutputResult{}, Grads: []GradResult{},
			Kernels: []any{}, Fallback: []string{}, Tolerance: map[string]interp.Tolerance{}}
		if u.Captured.Break != nil {
			gr.Break = u.Captured.Break.Reason
		}
		for _, st := range stages.Table {
			if st.Graph != nil {
				if g := st.Graph(u); g != nil {
					gr.Stages[st.Name] = map[string]int{"nodes": len(g.Nodes)}
				}
			}
		}
		g := u.Normalized
		var outs []any
		times := make([]float64, 0, opt.Runs)
		for r := 0; r < opt.Runs; r++ {
			t0 := time.Now()
			vals, err := interp.Run(g, nil)
			times = append(times, float64(time.Since(t0).Microseconds())/1000)
			if err != nil {
				return res, fmt.Errorf("%s: %w", tr.Path, err)
			}
			if r == 0 {
				for _, v := range vals {
					outs = append(outs, v)
				}
			}
		}
		sort.Float64s(times)
		gr.Timing = Timing{EagerMS: times[len(times)/2], Runs: opt.Runs, Covers: "forward"}
		if tm := u.Captured.Timing; tm != nil {
			gr.Timing.ProducerEagerMS = tm.EagerForwardMS
		}
		exp := u.Captured.Expected
		for i, v := range outs {
			t, err := interp.AsTensor(v)
			if err != nil {
				return res, fmt.Errorf("%s: graph %q: output %d: %w", tr.Path, g.Name, i, err)
			}
			or := OutputResult{Index: i, DType: t.DType.String(), Shape: t.Shape}
			if exp != nil && i < len(exp.Outputs) {
				tol := interp.DefaultTolerance(exp.Outputs[i].DType)
				gr.Tolerance[exp.Outputs[i].DType.String()] = tol
				c := interp.Compare(t, exp.Outputs[i], tol)
				or.VsExpected = &c
				if !c.Match {
					res.OK = false
				}
			}
			gr.Outputs = append(gr.Outputs, or)
		}
		if exp != nil && len(exp.Outputs) != len(outs) {
			res.OK = false
			return res, fmt.Errorf("%s: graph %q: expected.outputs: the trace lists %d outputs, the graph returns %d", tr.Path, g.Name, len(exp.Outputs), len(outs))
		}
		res.Graphs = append(res.Graphs, gr)
	}
	return res, nil
}
