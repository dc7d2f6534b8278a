package tensor

import (
	"fmt"
	"math"
)

// Padding, interpolation, convolutions beyond 2-D, scatter and distances:
// reference semantics, direct loops in float64.

// Pad is F.pad: pads holds (lo, hi) pairs from the last dim backwards;
// negative amounts crop. mode: constant, reflect, replicate, circular.
func Pad(x *Tensor, pads []int, mode string, value float64) (*Tensor, error) {
	if err := checkT(x); err != nil {
		return nil, err
	}
	if len(pads)%2 != 0 || len(pads)/2 > x.Dim() {
		return nil, fmt.Errorf("Padding length must be divisible by 2 and at most twice the number of dims, got %d for %d dims", len(pads), x.Dim())
	}
	out := append([]int{}, x.Shape...)
	lo := make([]int, x.Dim())
	// circular wraps around the input cropped by the negative amounts
	// (ATen's _pad_circular copies the cropped input, then the pads from it)
	crop, cropped := make([]int, x.Dim()), append([]int{}, x.Shape...)
	for i := 0; i < len(pads)/2; i++ {
		d := x.Dim() - 1 - i
		lo[d] = pads[2*i]
		out[d] += pads[2*i] + pads[2*i+1]
		n := x.Shape[d]
		if mode == "circular" {
			crop[d], lo[d] = max(-pads[2*i], 0), max(pads[2*i], 0)
			cropped[d] = n - crop[d] - max(-pads[2*i+1], 0)
		}
		if mode != "constant" && n == 0 && (pads[2*i] > 0 || pads[2*i+1] > 0) {
			return nil, fmt.Errorf("%s padding of an empty dimension %d of input %v", mode, d, x.Shape)
		}
		if out[d] < 0 {
			return nil, fmt.Errorf("The input size %d, plus negative padding %d and %d resulted in a negative output size", n, pads[2*i], pads[2*i+1])
		}
		switch mode {
		case "reflect":
			if pads[2*i] >= n || pads[2*i+1] >= n {
				return nil, fmt.Errorf("Argument #4: Padding size should be less than the corresponding input dimension, but got: padding (%d, %d) at dimension %d of input %v", pads[2*i], pads[2*i+1], d, x.Shape)
			}
		case "circular":
			if pads[2*i] > n || pads[2*i+1] > n {
				return nil, fmt.Errorf("Padding value causes wrapping around more than once.")
			}
		case "replicate", "constant":
		default:
			return nil, fmt.Errorf("Unrecognised padding mode %s", mode)
		}
	}
	if err := checkSizes(out); err != nil {
		return nil, err
	}
	// An empty input padded with constants is all value (only constant
	// padding of an empty input has elements: the other modes refuse to pad
	// an empty dimension above, and leave the output empty otherwise).
	if Numel(out) == 0 {
		return New(x.DType, out...), nil
	}
	src := x.Contiguous()
	res := New(x.DType, out...)
	idx := make([]int, len(out))
	for k := 0; k < res.Numel(); k++ {
		rem := k
		for d := len(out) - 1; d >= 0; d-- {
			idx[d] = rem % out[d]
			rem /= out[d]
		}
		inside := true
		s := 0
		for d := range out {
			n := x.Shape[d]
			i := idx[d] - lo[d]
			switch mode {
			case "reflect":
				i = (n - 1) - absInt((n-1)-absInt(i))
			case "replicate":
				i = min(max(i, 0), n-1)
			case "circular":
				if c := cropped[d]; c > 0 {
					i = ((i%c)+c)%c + crop[d]
				}
			default:
				if i < 0 || i >= n {
					inside = false
				}
			}
			if inside {
				s = s*n + i
			}
		}
		if !inside {
			res.SetFlat(k, value)
			continue
		}
		if src.S.F != nil {
			res.S.F[k] = src.S.F[src.Offset+s]
		} else {
			res.S.I[k] = src.S.I[src.Offset+s]
		}
	}
	return res, nil
}

func absInt(a int) int {
	if a < 0 {
		return -a
	}
	return a
}

// Interpolate is upsample_nearest / upsample_bilinear2d over the trailing
// spatial dims: out the output sizes, scales the user's scale factors (nil
// or 0 entries: in/out is used), as ATen's kernels compute them in float.
func Interpolate(x *Tensor, out []int, scales []float64, mode string, alignCorners bool) (*Tensor, error) {
	if err := checkT(x); err != nil {
		return nil, err
	}
	sp := len(out)
	if x.Dim() != sp+2 {
		return nil, fmt.Errorf("interpolate: expected a %d-D input for %d spatial sizes, got %v", sp+2, sp, x.Shape)
	}
	if need, ok := map[string]int{"linear": 1, "bilinear": 2, "bicubic": 2, "trilinear": 3}[mode]; ok && sp != need {
		return nil, fmt.Errorf("interpolate: mode %s needs %d spatial dims", mode, need)
	}
	// ATen's nearest kernels take uint8 as well (a copy of the picked elements); the others float
	if !x.DType.IsFloat() && (mode != "nearest" || x.DType != Uint8) {
		return nil, notImpl("upsample", x.DType)
	}
	res := x.Contiguous()
	for k := sp - 1; k >= 0; k-- {
		d := 2 + k
		in := res.Shape[d]
		o := out[k]
		if o <= 0 || in <= 0 {
			return nil, fmt.Errorf("Input and output sizes should be greater than 0, but got input %v and output %v", x.Shape, out)
		}
		sc := 0.0
		if k < len(scales) {
			sc = scales[k]
		}
		shape := append([]int{}, res.Shape...)
		shape[d] = o
		next := New(x.DType, shape...)
		data := nnData(res)
		outer, inner := 1, 1
		for i := 0; i < d; i++ {
			outer *= shape[i]
		}
		for i := d + 1; i < len(shape); i++ {
			inner *= shape[i]
		}
		for j := 0; j < o; j++ {
			// the input indices output j reads along d, and their weights
			var idx []int
			var w []float64
			switch mode {
			case "nearest":
				idx, w = []int{NearestIndex(j, in, o, sc)}, []float64{1}
			case "area": // adaptive average pooling: the window [floor(j*in/o), ceil((j+1)*in/o))
				lo, hi := j*in/o, ((j+1)*in+o-1)/o
				for i := lo; i < hi; i++ {
					idx = append(idx, i)
				}
			case "bicubic":
				i4, w4 := CubicTaps(j, in, o, sc, alignCorners, x.DType == Float64)
				idx, w = i4[:], w4[:]
			default:
				i0, i1, l1 := LinearIndex(j, in, o, sc, alignCorners, x.DType == Float64)
				idx, w = []int{i0, i1}, []float64{1 - l1, l1}
			}
			for a := 0; a < outer; a++ {
				for b := 0; b < inner; b++ {
					v := 0.0
					for t, i := range idx {
						if w == nil {
							v += data[(a*in+i)*inner+b]
						} else {
							v += data[(a*in+i)*inner+b] * w[t]
						}
					}
					if w == nil {
						v /= float64(len(idx))
					}
					if next.S.F == nil { // uint8 nearest: v is the element picked
						next.S.I[(a*o+j)*inner+b] = int64(v)
						continue
					}
					next.S.F[(a*o+j)*inner+b] = Round(x.DType, v)
				}
			}
		}
		res = next
	}
	return res, nil
}

// NearestIndex is ATen's nearest_idx: float arithmetic, clamped.
func NearestIndex(j, in, out int, scale float64) int {
	if out == in {
		return j
	}
	if out == 2*in {
		return j >> 1
	}
	s := float32(float64(in) / float64(out))
	if scale > 0 {
		s = float32(1 / scale)
	}
	return min(int(math.Floor(float64(float32(j)*s))), in-1)
}

// LinearIndex is ATen's linear interpolation source: the two input indices
// and the weight of the second, computed in the op math type (float for
// float32 and the half types, double for float64).
func LinearIndex(j, in, out int, scale float64, alignCorners, double bool) (int, int, float64) {
	real := interpSource(j, in, out, scale, alignCorners, double, false)
	i0 := int(real)
	l := opRound(double, real-float64(i0))
	l = math.Min(math.Max(l, 0), 1)
	i1 := i0
	if i0 < in-1 {
		i1 = i0 + 1
	}
	return i0, i1, l
}

// opRound rounds to the op math type: float, unless double.
func opRound(double bool, v float64) float64 {
	if double {
		return v
	}
	return float64(float32(v))
}

// interpSource is ATen's area_pixel_compute_source_index with
// area_pixel_compute_scale: the real input coordinate of output index j
// (clamped at 0 except for cubic).
func interpSource(j, in, out int, scale float64, alignCorners, double, cubic bool) float64 {
	rd := func(v float64) float64 { return opRound(double, v) }
	var s float64
	switch {
	case alignCorners && out > 1:
		s = rd(rd(float64(in-1)) / rd(float64(out-1)))
	case alignCorners:
		s = 0
	case scale > 0:
		s = rd(1 / scale)
	default:
		s = rd(float64(in) / float64(out))
	}
	if alignCorners {
		return rd(s * float64(j))
	}
	real := rd(rd(s*rd(float64(j)+0.5)) - 0.5)
	if real < 0 && !cubic {
		real = 0
	}
	return real
}

// CubicTaps is ATen's bicubic source for output index j: four input
// indices (clamped to the input) and their weights, the cubic convolution
// kernel with A = -0.75 at the fractional part t of the source coordinate.
func CubicTaps(j, in, out int, scale float64, alignCorners, double bool) ([4]int, [4]float64) {
	real := interpSource(j, in, out, scale, alignCorners, double, true)
	i0 := math.Floor(real)
	t := opRound(double, real-i0)
	w := CubicWeights(t)
	var idx [4]int
	for k := range idx {
		idx[k] = min(max(int(i0)-1+k, 0), in-1)
		w[k] = opRound(double, w[k])
	}
	return idx, w
}

// CubicWeights is get_cubic_upsample_coefficients (A = -0.75).
func CubicWeights(t float64) [4]float64 {
	const A = -0.75
	c1 := func(x float64) float64 { return ((A+2)*x-(A+3))*x*x + 1 }
	c2 := func(x float64) float64 { return ((A*x-5*A)*x+8*A)*x - 4*A }
	return [4]float64{c2(t + 1), c1(t), c1(1 - t), c2(2 - t)}
}

// Conv3d is F.conv3d with zero padding.
func Conv3d(x, w, b *Tensor, stride, padding, dilation [3]int, groups int) (*Tensor, error) {
	if err := nnNilCheck("conv3d", x, w); err != nil {
		return nil, err
	}
	if err := nnConvDTypes("conv3d", x, w, b); err != nil {
		return nil, err
	}
	if x.Dim() != 5 || w.Dim() != 5 {
		return nil, fmt.Errorf("conv3d: expected 5-D input and weight, got %v and %v", x.Shape, w.Shape)
	}
	N, C, D, H, W := x.Shape[0], x.Shape[1], x.Shape[2], x.Shape[3], x.Shape[4]
	O, Cg, KD, KH, KW := w.Shape[0], w.Shape[1], w.Shape[2], w.Shape[3], w.Shape[4]
	if groups <= 0 || C != Cg*groups || O%groups != 0 {
		return nil, fmt.Errorf("conv3d: weight %v does not fit input %v with groups=%d", w.Shape, x.Shape, groups)
	}
	od := (D+2*padding[0]-dilation[0]*(KD-1)-1)/stride[0] + 1
	oh := (H+2*padding[1]-dilation[1]*(KH-1)-1)/stride[1] + 1
	ow := (W+2*padding[2]-dilation[2]*(KW-1)-1)/stride[2] + 1
	if od <= 0 || oh <= 0 || ow <= 0 {
		return nil, fmt.Errorf("conv3d: output size is too small")
	}
	xd, wd := nnData(x), nnData(w)
	var bd []float64
	if b != nil {
		bd = nnData(b)
	}
	out := make([]float64, N*O*od*oh*ow)
	og := O / groups
	for n := 0; n < N; n++ {
		for o := 0; o < O; o++ {
			g := o / og
			for a := 0; a < od; a++ {
				for bb := 0; bb < oh; bb++ {
					for c := 0; c < ow; c++ {
						s := 0.0
						if bd != nil {
							s = bd[o]
						}
						for ci := 0; ci < Cg; ci++ {
							cc := g*Cg + ci
							for kd := 0; kd < KD; kd++ {
								z := a*stride[0] - padding[0] + kd*dilation[0]
								if z < 0 || z >= D {
									continue
								}
								for kh := 0; kh < KH; kh++ {
									y := bb*stride[1] - padding[1] + kh*dilation[1]
									if y < 0 || y >= H {
										continue
									}
									for kw := 0; kw < KW; kw++ {
										xx := c*stride[2] - padding[2] + kw*dilation[2]
										if xx < 0 || xx >= W {
											continue
										}
										s += xd[(((n*C+cc)*D+z)*H+y)*W+xx] * wd[(((o*Cg+ci)*KD+kd)*KH+kh)*KW+kw]
									}
								}
							}
						}
						out[(((n*O+o)*od+a)*oh+bb)*ow+c] = s
					}
				}
			}
		}
	}
	return nnFromData(x.DType, []int{N, O, od, oh, ow}, out), nil
}

// Scatter is Tensor.scatter(dim, index, src) (src a tensor, or value when
// src is nil); reduce "" replaces, "add" / "multiply" accumulate.
func Scatter(x *Tensor, dim int, index, src *Tensor, value float64, reduce string) (*Tensor, error) {
	if err := checkT(x, index); err != nil {
		return nil, err
	}
	if index.DType != Int64 {
		return nil, fmt.Errorf("scatter(): Expected dtype int64 for index")
	}
	d, err := NormDim(dim, max(x.Dim(), 1))
	if err != nil {
		return nil, err
	}
	if max(index.Dim(), 1) != max(x.Dim(), 1) || (src != nil && max(src.Dim(), 1) != max(x.Dim(), 1)) {
		return nil, fmt.Errorf("Index tensor must have the same number of dimensions as self tensor")
	}
	x, ts, restore := scatterScalars(x, index, src)
	index, src = ts[0], ts[1]
	for i := range index.Shape {
		if (src != nil && index.Shape[i] > src.Shape[i]) || (i != d && index.Shape[i] > x.Shape[i]) {
			return nil, fmt.Errorf("Expected index %v to be smaller than self %v apart from dimension %d and to be smaller size than src %v", index.Shape, x.Shape, d, src.Shape)
		}
	}
	if src != nil && src.DType != x.DType {
		return nil, fmt.Errorf("scatter(): Expected self.dtype to be equal to src.dtype")
	}
	size := x.Shape[d]
	out := x.Contiguous().Clone()
	idx := make([]int, index.Dim())
	dst := make([]int, index.Dim())
	for i := 0; i < index.Numel(); i++ {
		rem := i
		for k := len(idx) - 1; k >= 0; k-- {
			idx[k] = rem % index.Shape[k]
			rem /= index.Shape[k]
		}
		j := int(index.S.I[index.Pos(idx)])
		if j < 0 || j >= size {
			return nil, fmt.Errorf("index %d is out of bounds for dimension %d with size %d", j, d, size)
		}
		copy(dst, idx)
		if len(dst) > 0 {
			dst[d] = j
		}
		v := value
		if src != nil {
			v = src.At(idx...)
		}
		p := out.Pos(dst)
		cur := 0.0
		if out.S.F != nil {
			cur = out.S.F[p]
		} else {
			cur = float64(out.S.I[p])
		}
		switch reduce {
		case "add":
			v += cur
		case "multiply":
			v *= cur
		case "":
		default:
			return nil, fmt.Errorf("reduce argument must be either add or multiply, got %s", reduce)
		}
		if out.S.F != nil {
			out.S.F[p] = Round(out.DType, v)
		} else {
			out.S.I[p] = wrapInt(out.DType, int64(v))
		}
	}
	return restore(out), nil
}

// Cdist is torch.cdist(x1, x2, p): pairwise p-norm distances of the rows
// of [..., P, M] and [..., R, M], computed directly.
func Cdist(x1, x2 *Tensor, p float64) (*Tensor, error) {
	if err := nnNilCheck("cdist", x1, x2); err != nil {
		return nil, err
	}
	if err := nnFloatOnly("cdist", x1, x2); err != nil {
		return nil, err
	}
	if x1.Dim() < 2 || x2.Dim() < 2 || x1.Shape[x1.Dim()-1] != x2.Shape[x2.Dim()-1] {
		return nil, fmt.Errorf("cdist only supports at least 2D tensors with the same last dimension, got %v and %v", x1.Shape, x2.Shape)
	}
	if p < 0 {
		return nil, fmt.Errorf("cdist only supports non-negative p values")
	}
	a, err := Unsqueeze(x1, -2)
	if err != nil {
		return nil, err
	}
	b, err := Unsqueeze(x2, -3)
	if err != nil {
		return nil, err
	}
	diff, err := MapFloat("cdist", func(v []float64) float64 { return v[0] - v[1] }, a, b)
	if err != nil {
		return nil, err
	}
	return VectorNorm(diff, p, []int{-1}, false)
}
