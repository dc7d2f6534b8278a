package tensor

import (
	"fmt"
	"math"
)

// reduceDims normalizes dims (nil/empty = all) into a mask over x's dims.
func reduceDims(x *Tensor, dims []int) ([]bool, error) {
	nd := x.Dim()
	mask := make([]bool, nd)
	if len(dims) == 0 {
		for i := range mask {
			mask[i] = true
		}
		return mask, nil
	}
	seen := make([]bool, max(nd, 1))
	for _, d := range dims {
		n, err := NormDim(d, nd)
		if err != nil {
			return nil, err
		}
		if seen[n] {
			return nil, fmt.Errorf("dim %d appears multiple times in the list of dims", n)
		}
		seen[n] = true
		if nd > 0 {
			mask[n] = true
		}
	}
	return mask, nil
}

// reduceLayout returns the output shape, the storage positions of x grouped
// so that each output element's inputs are a run of length r, and r.
func reduceLayout(x *Tensor, mask []bool, keepdim bool) (out []int, pos []int, r int) {
	var ksh, kst, rsh, rst []int
	out = []int{}
	r = 1
	for i, s := range x.Shape {
		if mask[i] {
			rsh = append(rsh, s)
			rst = append(rst, x.Strides[i])
			r *= s
			if keepdim {
				out = append(out, 1)
			}
		} else {
			ksh = append(ksh, s)
			kst = append(kst, x.Strides[i])
			out = append(out, s)
		}
	}
	v := x.View(append(ksh, rsh...), append(kst, rst...), x.Offset)
	return out, positions(v), r
}

// Reduce is torch.{sum,mean,amax,amin,prod,any,all}(x, dims, keepdim).
// dims nil/empty reduces over all dims.
func Reduce(op string, x *Tensor, dims []int, keepdim bool) (*Tensor, error) {
	if err := checkT(x); err != nil {
		return nil, err
	}
	mask, err := reduceDims(x, dims)
	if err != nil {
		return nil, err
	}
	dt := x.DType
	var odt DType
	switch op {
	case "sum", "prod":
		odt = dt
		if !dt.IsFloat() {
			odt = Int64
		}
	case "mean":
		if !dt.IsFloat() {
			return nil, fmt.Errorf("mean(): could not infer output dtype. Input dtype must be either a floating point or complex dtype. Got: %s", torchName(dt))
		}
		odt = dt
	case "amax", "amin":
		odt = dt
	case "any", "all":
		odt = Bool
		if dt == Uint8 {
			odt = Uint8
		}
	default:
		return nil, fmt.Errorf("unknown reduction %q", op)
	}
	shape, pos, r := reduceLayout(x, mask, keepdim)
	nout := Numel(shape)
	if r == 0 && (op == "amax" || op == "amin") {
		if len(dims) == 0 {
			return nil, fmt.Errorf("%s(): Expected reduction dim to be specified for input.numel() == 0. Specify the reduction dim with the 'dim' argument.", op)
		}
		for i, m := range mask {
			if m && x.Shape[i] == 0 {
				return nil, fmt.Errorf("%s(): Expected reduction dim %d to have non-zero size.", op, i)
			}
		}
	}
	if x.S.F != nil {
		src := x.S.F
		res := make([]float64, nout)
		parallelWork(nout, nout*r, func(olo, ohi int) { reduceF(op, odt, src, pos, r, res, olo, ohi) })
		return fromF(odt, shape, res), nil
	}
	src := x.S.I
	res := make([]int64, nout)
	for o := 0; o < nout; o++ {
		run := pos[o*r : o*r+r]
		var acc int64
		switch op {
		case "sum":
			for _, p := range run {
				acc += src[p]
			}
		case "prod":
			acc = 1
			for _, p := range run {
				acc *= src[p]
			}
		case "amax":
			acc = src[run[0]]
			for _, p := range run[1:] {
				acc = max(acc, src[p])
			}
		case "amin":
			acc = src[run[0]]
			for _, p := range run[1:] {
				acc = min(acc, src[p])
			}
		case "any":
			for _, p := range run {
				if src[p] != 0 {
					acc = 1
					break
				}
			}
		case "all":
			acc = 1
			for _, p := range run {
				if src[p] == 0 {
					acc = 0
					break
				}
			}
		}
		res[o] = acc
	}
	return fromI(odt, shape, res), nil
}

// meanOf is mean's sum/n as PyTorch 1.13's CPU mean computes it, the sum
// in the output dtype then divided: a sum past the dtype's range is ±Inf
// and so is the mean (a float32 row of 1,000 values of 1e36: Inf, not
// 1e36). Otherwise the float64 sum is divided before rounding, as before.
func meanOf(dt DType, sum float64, n int) float64 {
	if s := Round(dt, sum); math.IsInf(s, 0) && !math.IsInf(sum, 0) {
		return s
	}
	return sum / float64(n)
}

// Sum is Reduce("sum", ...).
func Sum(x *Tensor, dims []int, keepdim bool) (*Tensor, error) {
	return Reduce("sum", x, dims, keepdim)
}

// Mean is Reduce("mean", ...).
func Mean(x *Tensor, dims []int, keepdim bool) (*Tensor, error) {
	return Reduce("mean", x, dims, keepdim)
}

// Var is torch.var(x, dims, correction=correction, keepdim=keepdim).
func Var(x *Tensor, dims []int, correction float64, keepdim bool) (*Tensor, error) {
	return varStd(x, dims, correction, keepdim, false)
}

// Std is torch.std(x, dims, correction=correction, keepdim=keepdim).
func Std(x *Tensor, dims []int, correction float64, keepdim bool) (*Tensor, error) {
	return varStd(x, dims, correction, keepdim, true)
}

func varStd(x *Tensor, dims []int, correction float64, keepdim, std bool) (*Tensor, error) {
	if err := checkT(x); err != nil {
		return nil, err
	}
	if !x.DType.IsFloat() {
		return nil, fmt.Errorf("std and var only support floating point and complex dtypes")
	}
	mask, err := reduceDims(x, dims)
	if err != nil {
		return nil, err
	}
	shape, pos, r := reduceLayout(x, mask, keepdim)
	nout := Numel(shape)
	res := make([]float64, nout)
	src := x.S.F
	for o := 0; o < nout; o++ {
		run := pos[o*r : o*r+r]
		var mean float64
		for _, p := range run {
			mean += src[p]
		}
		mean /= float64(r)
		var ss float64
		for _, p := range run {
			d := src[p] - mean
			ss += d * d
		}
		v := ss / math.Max(0, float64(r)-correction)
		if std {
			v = math.Sqrt(v)
		}
		res[o] = v
	}
	return fromF(x.DType, shape, res), nil
}

// Argmax is torch.argmax(x, dim, keepdim): the first index of the maximum
// (NaN counts as the maximum); dim nil = over the flattened tensor.
func Argmax(x *Tensor, dim *int, keepdim bool) (*Tensor, error) {
	return argReduce("argmax", x, dim, keepdim)
}

// Argmin is torch.argmin (NaN counts as the minimum, as in PyTorch).
func Argmin(x *Tensor, dim *int, keepdim bool) (*Tensor, error) {
	return argReduce("argmin", x, dim, keepdim)
}

func argReduce(op string, x *Tensor, dim *int, keepdim bool) (*Tensor, error) {
	if err := checkT(x); err != nil {
		return nil, err
	}
	if x.DType == Bool {
		return nil, notImpl(op+"_cpu", x.DType)
	}
	var mask []bool
	if dim == nil {
		if x.Numel() == 0 {
			return nil, fmt.Errorf("%s(): Expected reduction dim to be specified for input.numel() == 0.", op)
		}
		mask, _ = reduceDims(x, nil)
	} else {
		d, err := NormDim(*dim, x.Dim())
		if err != nil {
			return nil, err
		}
		mask = make([]bool, x.Dim())
		if x.Dim() > 0 {
			mask[d] = true
			if x.Shape[d] == 0 {
				return nil, fmt.Errorf("%s(): Expected reduction dim %d to have non-zero size.", op, d)
			}
		}
	}
	shape, pos, r := reduceLayout(x, mask, keepdim)
	if dim == nil && !keepdim {
		shape = []int{}
	}
	nout := Numel(shape)
	res := make([]int64, nout)
	for o := 0; o < nout; o++ {
		run := pos[o*r : o*r+r]
		best := 0
		if x.S.F != nil {
			bv := x.S.F[run[0]]
			for i, p := range run {
				if math.IsNaN(bv) {
					break
				}
				v := x.S.F[p]
				if math.IsNaN(v) || (op == "argmax" && v > bv) || (op == "argmin" && v < bv) {
					best, bv = i, v
				}
			}
		} else {
			bv := x.S.I[run[0]]
			for i, p := range run {
				v := x.S.I[p]
				if (op == "argmax" && v > bv) || (op == "argmin" && v < bv) {
					best, bv = i, v
				}
			}
		}
		res[o] = int64(best)
	}
	return fromI(Int64, shape, res), nil
}

// reduceF is Reduce's floating op over the outputs [olo, ohi): output o's
// inputs are src at pos[o*r : o*r+r].
func reduceF(op string, odt DType, src []float64, pos []int, r int, res []float64, olo, ohi int) {
	for o := olo; o < ohi; o++ {
		run := pos[o*r : o*r+r]
		var acc float64
		switch op {
		case "sum", "mean":
			for _, p := range run {
				acc += src[p]
			}
			if op == "mean" {
				acc = meanOf(odt, acc, r)
			}
		case "prod":
			acc = 1
			for _, p := range run {
				acc *= src[p]
			}
		case "amax", "amin":
			acc = src[run[0]]
			for _, p := range run[1:] {
				v := src[p]
				if math.IsNaN(acc) {
					break
				}
				if math.IsNaN(v) || (op == "amax" && v > acc) || (op == "amin" && v < acc) {
					acc = v
				}
			}
		case "any":
			for _, p := range run {
				if src[p] != 0 {
					acc = 1
					break
				}
			}
		case "all":
			acc = 1
			for _, p := range run {
				if src[p] == 0 {
					acc = 0
					break
				}
			}
		}
		res[o] = acc
	}
}
