package tensor

import (
	"fmt"
	"math"
)

// BatchNormTrain is torch.nn.functional.batch_norm with training=True over
// x [N, C, ...]: the output is normalized with the batch statistics of each
// channel (mean and biased variance over every dim but 1). When runningMean
// and runningVar are given it also returns their updated values, as ATen's
// batch_norm_cpu_update_stats computes them (without mutating its inputs):
//
//	new_mean = momentum * mean + (1 - momentum) * running_mean
//	new_var  = momentum * var * n / (n - 1) + (1 - momentum) * running_var
//
// with n the number of values per channel (the unbiased variance). The
// caller writes them back (the eager op, or the functional graph's epilogue).
func BatchNormTrain(x, runningMean, runningVar, w, b *Tensor, momentum, eps float64) (out, newMean, newVar *Tensor, err error) {
	if err := nnNilCheck("batch_norm", x); err != nil {
		return nil, nil, nil, err
	}
	if x.Dim() < 2 {
		return nil, nil, nil, fmt.Errorf("batch_norm: expected input with at least 2 dims [N, C, ...], got shape %v", x.Shape)
	}
	if (runningMean == nil) != (runningVar == nil) {
		return nil, nil, nil, fmt.Errorf("batch_norm: running_mean and running_var must both be given or both be None")
	}
	C := x.Shape[1]
	for _, p := range []struct {
		name string
		t    *Tensor
	}{{"running_mean", runningMean}, {"running_var", runningVar}, {"weight", w}, {"bias", b}} {
		if p.t != nil && p.t.Numel() != C {
			return nil, nil, nil, fmt.Errorf("%s should contain %d elements not %d", p.name, C, p.t.Numel())
		}
	}
	if err := nnFloatOnly("batch_norm", x, runningMean, runningVar, w, b); err != nil {
		return nil, nil, nil, err
	}
	outer, _, inner := nnSplit(x.Shape, 1)
	n := outer * inner
	if n <= 1 {
		return nil, nil, nil, fmt.Errorf("Expected more than 1 value per channel when training, got input size %v", x.Shape)
	}
	dt := x.DType
	for _, t := range []*Tensor{w, b} {
		if t != nil {
			dt = Promote(dt, t.DType)
		}
	}
	xd := nnData(x)
	mean, varb := make([]float64, C), make([]float64, C)
	for c := 0; c < C; c++ {
		s := 0.0
		for o := 0; o < outer; o++ {
			base := (o*C + c) * inner
			for i := base; i < base+inner; i++ {
				s += xd[i]
			}
		}
		m := s / float64(n)
		ss := 0.0
		for o := 0; o < outer; o++ {
			base := (o*C + c) * inner
			for i := base; i < base+inner; i++ {
				d := xd[i] - m
				ss += d * d
			}
		}
		mean[c], varb[c] = m, ss/float64(n)
	}
	var wd, bd []float64
	if w != nil {
		wd = nnData(w)
	}
	if b != nil {
		bd = nnData(b)
	}
	res := make([]float64, len(xd))
	for o := 0; o < outer; o++ {
		for c := 0; c < C; c++ {
			scale, shift := 1/math.Sqrt(varb[c]+eps), 0.0
			if wd != nil {
				scale *= wd[c]
			}
			if bd != nil {
				shift = bd[c]
			}
			base := (o*C + c) * inner
			for i := base; i < base+inner; i++ {
				res[i] = (xd[i]-mean[c])*scale + shift
			}
		}
	}
	out = nnFromData(dt, append([]int{}, x.Shape...), res)
	if runningMean == nil {
		return out, nil, nil, nil
	}
	rm, rv := nnData(runningMean), nnData(runningVar)
	nm, nv := make([]float64, C), make([]float64, C)
	for c := 0; c < C; c++ {
		nm[c] = momentum*mean[c] + (1-momentum)*rm[c]
		nv[c] = momentum*varb[c]*float64(n)/float64(n-1) + (1-momentum)*rv[c]
	}
	newMean = nnFromData(runningMean.DType, append([]int{}, runningMean.Shape...), nm)
	newVar = nnFromData(runningVar.DType, append([]int{}, runningVar.Shape...), nv)
	return out, newMean, newVar, nil
}
