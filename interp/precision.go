package interp

import (
	"math"
	"math/rand/v2"

	"gcdbg/ir"
	"gcdbg/tensor"
)

// Precision selects how the interpreter computes floating values.
type Precision int

const (
	// Native computes every op in float64 and rounds to the graph's own
	// dtype after it: gcdbg's eager result.
	Native Precision = iota
	// Float64 runs the graph with every floating input and every floating
	// dtype argument promoted to float64: the accuracy verdict's reference.
	Float64
	// Float64Noise is Float64 with a random relative perturbation of
	// float32's unit roundoff (2^-24, times √K for an op that sums K terms)
	// applied to every op's fresh floating result: Monte Carlo arithmetic,
	// an estimate of how far a plain float32 computation of this graph
	// strays from Float64 through rounding alone.
	Float64Noise
)

// Options tune a run.
type Options struct {
	Precision Precision
	// Seed makes Float64Noise reproducible.
	Seed uint64
}

// unitRoundoff is float32's: half an ulp of 1.
const unitRoundoff = 1.0 / (1 << 24)

// precision is a run's state for the float64 modes; nil is Native.
type precision struct {
	noise bool
	rng   *rand.Rand
}

func newPrecision(opt Options) *precision {
	switch opt.Precision {
	case Float64:
		return &precision{}
	case Float64Noise:
		return &precision{noise: true, rng: rand.New(rand.NewPCG(opt.Seed, 0x9e3779b97f4a7c15))}
	}
	return nil
}

// input promotes a graph input.
func (p *precision) input(t *tensor.Tensor) *tensor.Tensor {
	if p == nil || !t.DType.IsFloat() || t.DType == tensor.Float64 {
		return t
	}
	out := t.To(tensor.Float64)
	out.Wrapped = t.Wrapped
	return out
}

// arg promotes floating dtype arguments (x.to(torch.float32), sum(dtype=...)).
func (p *precision) arg(v ir.Value) ir.Value {
	if p == nil {
		return v
	}
	switch x := v.(type) {
	case tensor.DType:
		if x.IsFloat() {
			return tensor.Float64
		}
	case ir.Tuple:
		out := make(ir.Tuple, len(x))
		for i := range x {
			out[i] = p.arg(x[i])
		}
		return out
	case ir.List:
		out := make(ir.List, len(x))
		for i := range x {
			out[i] = p.arg(x[i])
		}
		return out
	}
	return v
}

// result perturbs an op's fresh floating results under Float64Noise.
func (p *precision) result(d *ir.OpDef, args []ir.Value, out ir.Value) ir.Value {
	if p == nil || !p.noise {
		return out
	}
	var ins []*tensor.Tensor
	for _, a := range args {
		collectTensors(a, &ins)
	}
	var outs []*tensor.Tensor
	collectTensors(out, &outs)
	for _, t := range outs {
		if !t.DType.IsFloat() || shares(t, ins) {
			continue
		}
		scale := unitRoundoff * math.Sqrt(math.Max(1, termsPerResult(d, ins, t)))
		n := t.Numel()
		for i := 0; i < n; i++ {
			v := t.Flat(i)
			if v == 0 || math.IsNaN(v) || math.IsInf(v, 0) {
				continue
			}
			t.SetFlat(i, v*(1+scale*(2*p.rng.Float64()-1)))
		}
	}
	return out
}

// termsPerResult estimates how many rounded terms one result element sums:
// inputs' elements per output element for reductions and norms, the inner
// dimension for matmuls and convolutions (√(|A|·|B|/|out|) of the two
// largest inputs), 1 for pointwise ops.
func termsPerResult(d *ir.OpDef, ins []*tensor.Tensor, out *tensor.Tensor) float64 {
	on := float64(out.Numel())
	if on == 0 {
		return 1
	}
	var a, b float64
	for _, t := range ins {
		n := float64(t.Numel())
		if n > a {
			a, b = n, a
		} else if n > b {
			b = n
		}
	}
	switch d.Kind {
	case ir.KindMatmul, ir.KindConv:
		return math.Sqrt(a * b / on)
	case ir.KindPointwise, ir.KindView, ir.KindCreation:
		return 1
	}
	return a / on
}

func collectTensors(v ir.Value, out *[]*tensor.Tensor) {
	switch x := v.(type) {
	case *tensor.Tensor:
		*out = append(*out, x)
	case ir.Tuple:
		for _, e := range x {
			collectTensors(e, out)
		}
	case ir.List:
		for _, e := range x {
			collectTensors(e, out)
		}
	}
}

// shares reports whether t views the storage of one of ins (an in-place
// op or a view): only fresh results are perturbed.
func shares(t *tensor.Tensor, ins []*tensor.Tensor) bool {
	for _, in := range ins {
		if in.S == t.S {
			return true
		}
	}
	return false
}
