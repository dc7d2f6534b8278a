package interp

import (
	"fmt"

	"gcdbg/ir"
	"gcdbg/tensor"
	"gcdbg/verdict"
)

// Refs are one graph's outputs under the three precisions the accuracy
// verdict needs, for callers that judge against gcdbg's eager interpreter
// alone (`run --input`'s calls, the guards' static comparisons).
type Refs struct {
	Native, F64, Noise []Value
	F64Err             error
}

// Value is a graph output value.
type Value = ir.Value

// NoiseSeed makes the simulated float32 rounding reproducible run to run.
const NoiseSeed = 0x6763646267

// RunRefs runs g with override natively, in float64 and in float64 with
// simulated float32 rounding. An error is the native run's.
func RunRefs(g *ir.Graph, override Inputs) (*Refs, error) {
	native, err := Run(g, override)
	if err != nil {
		return nil, err
	}
	r := &Refs{Native: native}
	if r.F64, r.F64Err = RunWith(g, override, Options{Precision: Float64}); r.F64Err == nil {
		r.Noise, _ = RunWith(g, override, Options{Precision: Float64Noise, Seed: NoiseSeed})
	}
	return r, nil
}

// Judge is the verdict on got as output i of the graph.
func (r *Refs) Judge(i int, got *tensor.Tensor) verdict.Judgement {
	native := pickTensor(r.Native, i)
	if native == nil {
		return verdict.Judgement{Why: fmt.Sprintf("output %d: no tensor to compare", i)}
	}
	f64, noise := pickTensor(r.F64, i), pickTensor(r.Noise, i)
	note := ""
	if r.F64Err != nil {
		note = r.F64Err.Error()
	}
	return verdict.Judge(verdict.Input{Result: got, Against: native, Ref64: f64, RefNote: note, Baselines: verdict.Baselines(nil, native, noise)})
}

func pickTensor(vs []Value, i int) *tensor.Tensor {
	if i >= len(vs) || vs[i] == nil {
		return nil
	}
	t, err := AsTensor(vs[i])
	if err != nil {
		return nil
	}
	return t
}
