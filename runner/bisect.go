package runner

import (
	"fmt"

	"gcdbg/bisect"
	"gcdbg/compiler"
	"gcdbg/stages"
	"gcdbg/tensor"
	"gcdbg/trace"
	"gcdbg/verdict"
)

// A mismatch names where to look: the first stage whose result already
// differs (package bisect) — gcdbg's eager interpreter vs PyTorch, the loop
// IR vs the eager interpreter node by node, the compiled kernels vs the
// loop IR.

// graphMatches reports whether every comparison of gr matched.
func graphMatches(gr *GraphResult) bool {
	ok := true
	gr.Judgements(func(_, _ string, j *verdict.Judgement) { ok = ok && j.Match })
	return ok
}

// locate fills gr.FirstDifference for a graph that mismatched.
func locate(tr *trace.Trace, u *stages.Unit, opt Options, gr *GraphResult) {
	if graphMatches(gr) {
		return
	}
	var run bisect.Kernels
	if opt.Device == "cpu" {
		run = cpuKernels(tr, u, opt)
	}
	agrees, checked := true, false
	gr.Judgements(func(_, _ string, j *verdict.Judgement) {
		if j.Check != nil {
			checked = true
			agrees = agrees && j.Check.Agree
		}
	})
	f, err := bisect.FirstDifference(u, run, bisect.Options{ReferenceAgrees: checked && agrees})
	switch {
	case err != nil:
		gr.FirstDifference = "not located: " + err.Error()
	case f == nil:
		gr.FirstDifference = "not located: every stage agrees with the one before it within a loose tolerance; the difference is in rounding (see the verdict's numbers)"
	default:
		gr.FirstDifference = f.String()
	}
}

// cpuKernels runs one compiled program on loop IR inputs (by buffer name).
func cpuKernels(tr *trace.Trace, u *stages.Unit, opt Options) bisect.Kernels {
	return func(lp *stages.LoopProgram, in map[string]*tensor.Tensor) ([]*tensor.Tensor, error) {
		p, err := program(tr, u, lp, opt)
		if err != nil {
			return nil, err
		}
		args := map[string]*tensor.Tensor{}
		for _, b := range p.Manifest.Buffers {
			if b.Kind != "input" && b.Kind != "constant" {
				continue
			}
			key := b.Target
			if key == "" {
				key = b.Name
			}
			t := in[b.Name]
			if t == nil {
				t = in[key]
			}
			if t == nil {
				return nil, fmt.Errorf("buffer %q: no loop IR input", b.Name)
			}
			args[key] = t
		}
		res, err := compiler.Exec(p.Library, p.Manifest, args, compiler.ExecOptions{Runs: 1, Autotune: compiler.AutotuneEnabled()})
		if err != nil {
			return nil, err
		}
		return res.Outputs, nil
	}
}
