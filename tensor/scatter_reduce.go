package tensor

import (
	"fmt"
	"math"
)

// ScatterReduce is torch.scatter_reduce(self, dim, index, src, reduce,
// include_self): a copy of x where every element src[p] (p a position of
// index) is reduced into out[p with p[dim] replaced by index[p]] with
// reduce "sum", "prod", "mean", "amax" or "amin". With include_self=False
// the elements of x that receive a value do not take part (they start from
// the reduction's identity, as ATen's scatter_(dim, index, init) does);
// positions no index names keep x's value either way. "mean" divides by the
// number of values reduced (x's own counting as one when included; floor
// division for integers); amax/amin propagate NaN from src as ATen's CPU
// kernel does (ReduceMaximum: isnan(src) ? src : max(self, src)).
func ScatterReduce(x *Tensor, dim int, index, src *Tensor, reduce string, includeSelf bool) (*Tensor, error) {
	if err := checkT(x, index, src); err != nil {
		return nil, err
	}
	switch reduce {
	case "sum", "prod", "mean", "amax", "amin":
	default:
		return nil, fmt.Errorf("reduce argument must be either sum, prod, mean, amax or amin, got %s", reduce)
	}
	if index.DType != Int64 {
		return nil, fmt.Errorf("scatter_reduce(): Expected dtype int64 for index")
	}
	if src.DType != x.DType {
		return nil, fmt.Errorf("scatter_reduce(): Expected self.dtype to be equal to src.dtype")
	}
	if reduce == "mean" && x.DType == Bool {
		return nil, fmt.Errorf("\"scatter_gather_tensor_cpu_reduce_mean\" not implemented for 'Bool'")
	}
	d, err := NormDim(dim, max(x.Dim(), 1))
	if err != nil {
		return nil, err
	}
	if max(index.Dim(), 1) != max(x.Dim(), 1) || max(src.Dim(), 1) != max(x.Dim(), 1) {
		return nil, fmt.Errorf("Index tensor must have the same number of dimensions as self tensor")
	}
	x, ts, restore := scatterScalars(x, index, src)
	index, src = ts[0], ts[1]
	for i := range index.Shape {
		if index.Shape[i] > src.Shape[i] || (i != d && index.Shape[i] > x.Shape[i]) {
			return nil, fmt.Errorf("Expected index %v to be smaller than self %v apart from dimension %d and to be smaller size than src %v", index.Shape, x.Shape, d, src.Shape)
		}
	}
	size := x.Shape[d]
	out := x.Contiguous().Clone()
	n := index.Numel()
	dsts, srcs := make([]int, n), make([]int, n)
	idx := make([]int, index.Dim())
	dst := make([]int, index.Dim())
	for i := 0; i < n; i++ {
		rem := i
		for k := len(idx) - 1; k >= 0; k-- {
			idx[k] = rem % index.Shape[k]
			rem /= index.Shape[k]
		}
		j := index.S.I[index.Pos(idx)]
		if j < 0 || j >= int64(size) {
			return nil, fmt.Errorf("index %d is out of bounds for dimension %d with size %d", j, d, size)
		}
		copy(dst, idx)
		if len(dst) > 0 {
			dst[d] = int(j)
		}
		dsts[i], srcs[i] = out.Pos(dst), src.Pos(idx)
	}
	count := make([]int64, out.Numel())
	if includeSelf {
		for i := range count {
			count[i] = 1
		}
	}
	touched := make([]bool, out.Numel())
	if out.S.F != nil {
		o := out.S.F
		for i, p := range dsts {
			v := src.S.F[srcs[i]]
			if !touched[p] && !includeSelf {
				o[p] = v
			} else {
				switch reduce {
				case "sum", "mean":
					v += o[p]
				case "prod":
					v *= o[p]
				case "amax":
					if !math.IsNaN(v) && !(o[p] < v) {
						v = o[p]
					}
				case "amin":
					if !math.IsNaN(v) && !(o[p] > v) {
						v = o[p]
					}
				}
				o[p] = Round(out.DType, v)
			}
			touched[p] = true
			count[p]++
		}
		if reduce == "mean" {
			for p, c := range count {
				if touched[p] && c > 1 {
					o[p] = Round(out.DType, o[p]/float64(c))
				}
			}
		}
		return restore(out), nil
	}
	o := out.S.I
	for i, p := range dsts {
		v := src.S.I[srcs[i]]
		if touched[p] || includeSelf {
			switch reduce {
			case "sum", "mean":
				v += o[p]
			case "prod":
				v *= o[p]
			case "amax":
				v = max(v, o[p])
			case "amin":
				v = min(v, o[p])
			}
		}
		if out.DType == Bool && v != 0 {
			v = 1
		}
		o[p] = wrapInt(out.DType, v)
		touched[p] = true
		count[p]++
	}
	if reduce == "mean" {
		for p, c := range count {
			if touched[p] && c > 1 {
				q := o[p] / c
				if (o[p]%c != 0) && ((o[p] < 0) != (c < 0)) {
					q-- // floor division, as div_(count, rounding_mode="floor")
				}
				o[p] = wrapInt(out.DType, q)
			}
		}
	}
	return restore(out), nil
}

// scatterScalars views 0-d operands of a scatter as [1] (PyTorch scatters
// into a 0-d self with a 1-element index, as gather reads from one);
// restore gives the result self's own 0-d shape back.
func scatterScalars(x *Tensor, ts ...*Tensor) (*Tensor, []*Tensor, func(*Tensor) *Tensor) {
	vec := func(t *Tensor) *Tensor {
		if t != nil && t.Dim() == 0 {
			return t.View([]int{1}, []int{1}, t.Offset)
		}
		return t
	}
	out := make([]*Tensor, len(ts))
	for i, t := range ts {
		out[i] = vec(t)
	}
	scalar := x.Dim() == 0
	return vec(x), out, func(r *Tensor) *Tensor {
		if scalar && r != nil {
			return r.View([]int{}, []int{}, r.Offset)
		}
		return r
	}
}
