package runner

import (
	"bytes"
	"errors"
	"fmt"
	"os/exec"

	"gcdbg/compiler"
	"gcdbg/ir"
	"gcdbg/stages"
	"gcdbg/tensor"
	"gcdbg/termsafe"
	"gcdbg/trace"
)

// `run --device cpu`: every compiled program of a graph (inference, or
// forward then backward fed the saved tensors) is rendered to C, built and
// run by the compiler's worker; the outputs and grads it computes are what
// vs_expected and vs_eager then compare, and its timings fill
// timing.compiled_ms and kernels.

// Program is one built program: its manifest and shared object.
type Program struct {
	Manifest *compiler.Manifest
	Library  string
	// Cache is "hit" (found in the build cache), "miss" (compiled now) or
	// "aot" (loaded from a `gcdbg compile` directory); BuildMS is the time
	// it took.
	Cache   string
	BuildMS float64
}

// BuildInfo is one program's build in the JSON (stages.build).
type BuildInfo struct {
	Role  string  `json:"role"`
	Cache string  `json:"cache"` // hit, miss, aot
	MS    float64 `json:"ms"`
	Hash  string  `json:"hash,omitempty"`
}

// RunAOT is Run with --device cpu using the programs of a `gcdbg compile`
// directory (compiler.LoadAOT) instead of rendering and building: no C
// compiler runs. tr must be the trace they were compiled from.
func RunAOT(tr *trace.Trace, progs []compiler.AOTProgram, opt Options) (*Result, error) {
	opt.Device = "cpu"
	opt.AOT = progs
	return Run(tr, opt)
}

// program finds the built program for lp: from opt.AOT (RunAOT), else built.
func program(tr *trace.Trace, u *stages.Unit, lp *stages.LoopProgram, opt Options) (*Program, error) {
	if opt.AOT == nil {
		if BuildProgram == nil {
			return nil, errors.New("--device cpu: the C renderer is not part of this build (use --device eager)")
		}
		return BuildProgram(tr, u, lp, opt)
	}
	for _, p := range opt.AOT {
		if p.Manifest.Graph == u.Captured.Name && p.Manifest.Role == lp.Role {
			m := p.Manifest
			return &Program{Manifest: &m, Library: p.Library, Cache: "aot"}, nil
		}
	}
	return nil, fmt.Errorf("the compiled directory has no %s program of graph %q (compiled from another trace?)", lp.Role, u.Captured.Name)
}

// BuildProgram renders and builds one loop program; opt's Progress gets the
// compiler's notices. It is nil until the C renderer and builder are linked
// in (compiler.Build); --device cpu then says so instead of running.
var BuildProgram func(tr *trace.Trace, u *stages.Unit, lp *stages.LoopProgram, opt Options) (*Program, error)

// KernelResult is one entry of the JSON's kernels (medians over the runs).
type KernelResult struct {
	Name   string  `json:"name"`
	Role   string  `json:"role"` // inference, forward, backward
	Kind   string  `json:"kind"` // pointwise, reduction, extern, fused
	MS     float64 `json:"ms"`
	GBps   float64 `json:"gbps"`
	GFlops float64 `json:"gflops"`
	// BestMS is the kernel's shortest time over the runs (MS is their
	// median): what a STREAM-style roof, itself the best of its runs, is
	// compared with (gcdbg bench's kernel table).
	BestMS float64  `json:"best_ms,omitempty"`
	Nodes  []string `json:"nodes"`
	// Choice is the kernel's alternative chosen by measurement, with the
	// timings that decided it (compiler/autotune.go); nil when it has none
	// or autotuning is off (GCDBG_AUTOTUNE=0).
	Choice *compiler.Decision `json:"choice,omitempty"`
}

// KernelOf reads one GraphResult.Kernels entry whatever the device that
// timed it: a CPU kernel (KernelResult) or a GPU one (GPUKernelResult, its
// copy fraction beside). ok is false for anything else.
func KernelOf(k any) (KernelResult, bool) {
	switch k := k.(type) {
	case KernelResult:
		return k, true
	case *KernelResult:
		if k != nil {
			return *k, true
		}
	case GPUKernelResult:
		return k.KernelResult, true
	case *GPUKernelResult:
		if k != nil {
			return k.KernelResult, true
		}
	}
	return KernelResult{}, false
}

// DefaultDevice is "cpu" when a C compiler is on PATH and the renderer is
// linked in, else "eager" with the reason.
func DefaultDevice() (string, string) {
	if BuildProgram == nil {
		return "eager", "the C renderer is not part of this build"
	}
	if _, err := exec.LookPath("cc"); err != nil {
		return "eager", "no C compiler (cc) on PATH"
	}
	return "cpu", ""
}

// compiledRun is what the compiled programs of one graph computed.
type compiledRun struct {
	results               *stages.Results[*tensor.Tensor]
	seconds               []float64 // per run, all programs together
	fallbackSecs, outside []float64 // the same, in fallbacks and outside kernels (compiler.ExecResult)
	kernels               []KernelResult
	fallback              []string
	builds                []BuildInfo
	// probe reads what the backward computes and does not return
	// (probeBackward); nil where there is none.
	probe func(names []string) (map[string]*tensor.Tensor, error)
}

// addCompiled runs u's compiled programs and puts their results in gr:
// the comparisons are recomputed with the compiled values.
func addCompiled(tr *trace.Trace, u *stages.Unit, opt Options, gr *GraphResult, refs *references) error {
	cr, err := runCompiled(tr, u, opt)
	if err != nil {
		return err
	}
	if opt.AOT == nil && u.Partition != nil {
		cr.probe = probeBackward(tr, u, opt, cr.results)
	}
	return cr.fill(u, gr, refs)
}

// probeBackward reads nodes of u's backward that its compiled program
// computes but does not return (flips.go: the comparisons it recomputes):
// the backward built again with them returned too (stages.ProbeProgram),
// run once on the judged run's saved tensors. Their values are believed
// only where the probe's gradients are bit-identical to the judged run's
// (res.Grads): a probe whose fusion changed the rounding computed
// something else.
func probeBackward(tr *trace.Trace, u *stages.Unit, opt Options, res *stages.Results[*tensor.Tensor]) func(names []string) (map[string]*tensor.Tensor, error) {
	return func(want []string) (map[string]*tensor.Tensor, error) {
		stop := stillRunning(opt, fmt.Sprintf("graph %q's backward probe (the compiled comparisons' decisions, %d)", termsafe.String(u.Captured.Name), len(want)))
		defer stop()
		lp, names, err := u.ProbeProgram(stages.RoleBackward, want)
		if err != nil {
			return nil, err
		}
		p, err := program(tr, u, lp, opt)
		if err != nil {
			return nil, fmt.Errorf("backward probe: %w", err)
		}
		in, err := programInputs(p.Manifest, lp.Graph, res.Saved)
		if err != nil {
			return nil, fmt.Errorf("backward probe: %w", err)
		}
		out, err := compiler.Exec(p.Library, p.Manifest, in, compiler.ExecOptions{Runs: 1, NoKernelTimes: true, Autotune: compiler.AutotuneEnabled()})
		if err != nil {
			return nil, fmt.Errorf("backward probe: %w", err)
		}
		n := len(res.Grads)
		if len(out.Outputs) != n+len(names) {
			return nil, fmt.Errorf("backward probe: %d outputs, want %d gradients and %d probed", len(out.Outputs), n, len(names))
		}
		for i, g := range res.Grads {
			if g == nil || out.Outputs[i] == nil || !bytes.Equal(g.Bytes(), out.Outputs[i].Bytes()) {
				return nil, fmt.Errorf("backward probe: gradient %d differs from the judged run's (the probe's kernels round otherwise)", i)
			}
		}
		vals := map[string]*tensor.Tensor{}
		for i, name := range names {
			vals[name] = out.Outputs[n+i]
		}
		return vals, nil
	}
}

// runCompiled builds (or finds) and runs u's compiled programs.
func runCompiled(tr *trace.Trace, u *stages.Unit, opt Options) (*compiledRun, error) {
	if len(u.Programs) == 0 {
		return nil, fmt.Errorf("graph %q: no compiled program (the loop stages did not run)", u.Captured.Name)
	}
	cr := &compiledRun{}
	results := stages.NewResults[*tensor.Tensor]()
	cr.results = results
	for _, lp := range u.Programs {
		p, err := program(tr, u, lp, opt)
		if err != nil {
			return nil, fmt.Errorf("graph %q (%s): %w", u.Captured.Name, lp.Role, err)
		}
		cr.builds = append(cr.builds, BuildInfo{Role: lp.Role, Cache: p.Cache, MS: p.BuildMS, Hash: p.Manifest.Hash})
		in, err := programInputs(p.Manifest, lp.Graph, results.Saved)
		if err != nil {
			return nil, fmt.Errorf("graph %q (%s): %w", u.Captured.Name, lp.Role, err)
		}
		stop := stillRunning(opt, fmt.Sprintf("graph %q's compiled %s program (%d timed runs)", termsafe.String(u.Captured.Name), lp.Role, opt.Runs))
		res, err := compiler.Exec(p.Library, p.Manifest, in, compiler.ExecOptions{Runs: opt.Runs, Autotune: compiler.AutotuneEnabled()})
		stop()
		if err != nil {
			return nil, fmt.Errorf("graph %q: %w", u.Captured.Name, err)
		}
		cr.add(lp.Role, p.Manifest, res)
		if err := results.Add(u, lp.Role, res.Outputs); err != nil {
			return nil, err
		}
	}
	return cr, nil
}

func (cr *compiledRun) add(role string, m *compiler.Manifest, res *compiler.ExecResult) {
	cr.seconds = addRuns(cr.seconds, res.Seconds)
	cr.fallbackSecs = addRuns(cr.fallbackSecs, res.FallbackSeconds)
	cr.outside = addRuns(cr.outside, res.OutsideSeconds)
	med := res.MedianKernelSeconds()
	chosen := map[int]*compiler.Decision{}
	for i := range res.Choices {
		chosen[res.Choices[i].Index] = &res.Choices[i]
	}
	for _, st := range m.Steps {
		if st.Kind == "fallback" {
			cr.fallback = append(cr.fallback, st.IRNode)
		}
		for _, k := range st.Kernels {
			kr := KernelResult{Name: k.Name, Role: role, Kind: k.Kind, Nodes: append([]string{}, k.Origins...), Choice: chosen[k.Index]}
			if k.Index < len(med) && med[k.Index] > 0 {
				s := med[k.Index]
				kr.MS = s * 1e3
				kr.GBps = float64(k.Bytes) / s / 1e9
				kr.GFlops = float64(k.Flops) / s / 1e9
				kr.BestMS = res.BestKernelSeconds(k.Index) * 1e3
			}
			cr.kernels = append(cr.kernels, kr)
		}
	}
}

// addRuns adds one program's per-run seconds into the sums over programs.
func addRuns(sum, runs []float64) []float64 {
	if sum == nil {
		sum = make([]float64, len(runs))
	}
	for r := range sum {
		if r < len(runs) {
			sum[r] += runs[r]
		}
	}
	return sum
}

// programInputs gathers every input and constant slot's tensor: a saved
// tensor of the forward, else the graph's own tensor of that name.
func programInputs(m *compiler.Manifest, g *ir.Graph, saved map[string]*tensor.Tensor) (map[string]*tensor.Tensor, error) {
	in := map[string]*tensor.Tensor{}
	for _, b := range m.Buffers {
		if b.Kind != "input" && b.Kind != "constant" {
			continue
		}
		key := b.Target
		if key == "" {
			key = b.Name
		}
		if t := saved[key]; t != nil {
			in[key] = t
			continue
		}
		td := g.Tensors[key]
		if td == nil || td.T == nil {
			return nil, fmt.Errorf("buffer %q: no tensor %q in the graph or the saved values", b.Name, key)
		}
		in[key] = td.T
	}
	return in, nil
}

// fill replaces gr's comparisons with the compiled values' and adds the
// timings.
func (cr *compiledRun) fill(u *stages.Unit, gr *GraphResult, refs *references) error {
	if err := judgeGraph(u, refs, gr, tensorsToValues(cr.results.Outputs), tensorsToValues(cr.results.Grads), cr.results.Saved, cr.probe); err != nil {
		return fmt.Errorf("graph %q: compiled: %w", u.Captured.Name, err)
	}
	gr.Timing.CompiledMS = compiler.Median(cr.seconds) * 1e3
	gr.Timing.FallbackMS = compiler.Median(cr.fallbackSecs) * 1e3
	gr.Timing.OutsideMS = compiler.Median(cr.outside) * 1e3
	gr.Kernels = gr.Kernels[:0]
	for _, k := range cr.kernels {
		gr.Kernels = append(gr.Kernels, k)
	}
	gr.Fallback = append(gr.Fallback[:0], cr.fallback...)
	gr.Stages["build"] = cr.builds
	return nil
}
