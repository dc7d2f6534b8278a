package tensor

import (
	"fmt"
	"math"
)

// Max pooling that returns the indices (max_pool{1,2,3}d_with_indices,
// adaptive_max_pool{1,2,3}d_with_indices) and its inverse, max_unpool.
// Inputs are [N, C, *spatial] or unbatched [C, *spatial] with nd spatial
// dims. An index is the flat position of the chosen element in its input
// plane (d*H*W + h*W + w), as PyTorch's CPU kernels record it: the window
// is walked in row-major order from -inf and an element replaces the
// running maximum when it is greater or NaN, so the first maximum wins and
// the last NaN of a window wins over everything; a window whose elements
// are all -inf keeps its first in-bounds element.

// poolDims splits x into planes of nd spatial dims; batch may be zero.
func poolDims(op string, x *Tensor, nd int) (lead, in []int, err error) {
	if err := nnNilCheck(op, x); err != nil {
		return nil, nil, err
	}
	if x.Dim() != nd+1 && x.Dim() != nd+2 {
		return nil, nil, fmt.Errorf("%s: non-empty %dD or %dD (batch mode) tensor expected for input, got shape %v", op, nd+1, nd+2, x.Shape)
	}
	for i, d := range x.Shape {
		if d == 0 && !(x.Dim() == nd+2 && i == 0) {
			return nil, nil, fmt.Errorf("%s: Expected %dD or %dD (batch mode) tensor with optional 0 dim batch size for input, but got: %v", op, nd+1, nd+2, x.Shape)
		}
	}
	k := x.Dim() - nd
	return x.Shape[:k], x.Shape[k:], nil
}

// window3 is one output cell's window along one dim: taps start,
// start+step, ... (count of them), clipped to [0, size).
type window3 func(dim, o int) (start, step, count int)

// maxPoolPlanes runs the window search over every plane; in and out are
// padded to 3 dims (leading 1s).
func maxPoolPlanes(x *Tensor, lead, in, out []int, win window3) (*Tensor, *Tensor) {
	nd := len(in)
	var I, O [3]int
	for i := 0; i < 3; i++ {
		I[i], O[i] = 1, 1
	}
	copy(I[3-nd:], in)
	copy(O[3-nd:], out)
	pad := 3 - nd
	planeIn, planeOut := I[0]*I[1]*I[2], O[0]*O[1]*O[2]
	planes := Numel(lead)
	xd := nnData(x)
	vals := make([]float64, planes*planeOut)
	idx := make([]int64, planes*planeOut)
	type span struct{ lo, step, n int }
	spans := [3][]span{}
	for d := 0; d < 3; d++ {
		spans[d] = make([]span, O[d])
		for o := 0; o < O[d]; o++ {
			if d < pad {
				spans[d][o] = span{0, 1, 1}
				continue
			}
			s, st, c := win(d-pad, o)
			// clip to the input: skip taps before 0, stop at the size
			for c > 0 && s < 0 {
				s += st
				c--
			}
			for c > 0 && s+(c-1)*st >= I[d] {
				c--
			}
			spans[d][o] = span{s, st, c}
		}
	}
	for p := 0; p < planes; p++ {
		src := xd[p*planeIn : (p+1)*planeIn]
		j := p * planeOut
		for a := 0; a < O[0]; a++ {
			sa := spans[0][a]
			for b := 0; b < O[1]; b++ {
				sb := spans[1][b]
				for c := 0; c < O[2]; c++ {
					sc := spans[2][c]
					best := (sa.lo*I[1]+sb.lo)*I[2] + sc.lo
					m := math.Inf(-1)
					for i := 0; i < sa.n; i++ {
						z := sa.lo + i*sa.step
						for k := 0; k < sb.n; k++ {
							y := sb.lo + k*sb.step
							for l := 0; l < sc.n; l++ {
								at := (z*I[1]+y)*I[2] + sc.lo + l*sc.step
								if v := src[at]; v > m || math.IsNaN(v) {
									m, best = v, at
								}
							}
						}
					}
					vals[j], idx[j] = m, int64(best)
					j++
				}
			}
		}
	}
	shape := append(append([]int{}, lead...), out...)
	it := New(Int64, shape...)
	copy(it.S.I, idx)
	return nnFromData(x.DType, shape, vals), it
}

// MaxPoolWithIndices is max_pool{nd}d_with_indices: kernel, stride,
// padding and dilation have nd entries (stride nil: the kernel).
func MaxPoolWithIndices(x *Tensor, nd int, kernel, stride, padding, dilation []int, ceil bool) (*Tensor, *Tensor, error) {
	op := fmt.Sprintf("max_pool%dd_with_indices", nd)
	lead, in, err := poolDims(op, x, nd)
	if err != nil {
		return nil, nil, err
	}
	if stride == nil {
		stride = kernel
	}
	if len(kernel) != nd || len(stride) != nd || len(padding) != nd || len(dilation) != nd {
		return nil, nil, fmt.Errorf("%s: kernel_size, stride, padding and dilation must have %d values each", op, nd)
	}
	out := make([]int, nd)
	for i := 0; i < nd; i++ {
		switch {
		case kernel[i] <= 0:
			return nil, nil, fmt.Errorf("%s: kernel size should be greater than zero, but got %v", op, kernel)
		case stride[i] <= 0:
			return nil, nil, fmt.Errorf("%s: stride should be greater than zero, but got %v", op, stride)
		case dilation[i] <= 0:
			return nil, nil, fmt.Errorf("%s: dilation should be greater than zero, but got %v", op, dilation)
		case padding[i] < 0 || padding[i] > kernel[i]/2:
			return nil, nil, fmt.Errorf("%s: pad should be smaller than or equal to half of kernel size, but got padding %v and kernel_size %v", op, padding, kernel)
		}
		out[i] = nnPoolOutSize(in[i], kernel[i], padding[i], stride[i], dilation[i], ceil)
		if out[i] < 1 {
			return nil, nil, fmt.Errorf("%s: Given input size %v, calculated output size %v: output size is too small", op, in, out)
		}
	}
	if err := nnFloatOnly(op, x); err != nil {
		return nil, nil, err
	}
	v, i := maxPoolPlanes(x, lead, in, out, func(d, o int) (int, int, int) {
		return o*stride[d] - padding[d], dilation[d], kernel[d]
	})
	return v, i, nil
}

// AdaptiveMaxPoolWithIndices is adaptive_max_pool{nd}d_with_indices:
// output cell o of a dim of size I (output size O) takes the input range
// floor(o*I/O) .. ceil((o+1)*I/O)-1. An output size below 0 keeps the
// input's size (PyTorch's None).
func AdaptiveMaxPoolWithIndices(x *Tensor, nd int, outSize []int) (*Tensor, *Tensor, error) {
	op := fmt.Sprintf("adaptive_max_pool%dd", nd)
	lead, in, err := poolDims(op, x, nd)
	if err != nil {
		return nil, nil, err
	}
	if len(outSize) != nd {
		return nil, nil, fmt.Errorf("%s: output_size must have %d values, got %v", op, nd, outSize)
	}
	out := append([]int{}, outSize...)
	for i, o := range out {
		if o < 0 {
			out[i] = in[i]
		}
	}
	if err := nnFloatOnly(op, x); err != nil {
		return nil, nil, err
	}
	v, i := maxPoolPlanes(x, lead, in, out, func(d, o int) (int, int, int) {
		s := o * in[d] / out[d]
		e := ((o+1)*in[d] + out[d] - 1) / out[d]
		return s, 1, e - s
	})
	return v, i, nil
}

// MaxUnpoolOutputSize is torch.nn.functional's _unpool_output_size: the
// default (in-1)*stride - 2*padding + kernel per spatial dim, or
// outputSize (nd values, or nd+2 with the leading ones ignored) when it
// lies within stride of the default.
func MaxUnpoolOutputSize(in, kernel, stride, padding, outputSize []int) ([]int, error) {
	nd := len(in)
	def := make([]int, nd)
	for d := 0; d < nd; d++ {
		def[d] = (in[d]-1)*stride[d] + kernel[d] - 2*padding[d]
	}
	if outputSize == nil {
		return def, nil
	}
	if len(outputSize) == nd+2 {
		outputSize = outputSize[2:]
	}
	if len(outputSize) != nd {
		return nil, fmt.Errorf("output_size should be a sequence containing %d or %d elements, but it has a length of '%d'", nd, nd+2, len(outputSize))
	}
	for d := 0; d < nd; d++ {
		lo, hi := def[d]-stride[d], def[d]+stride[d]
		if outputSize[d] < lo || outputSize[d] > hi {
			return nil, fmt.Errorf("invalid output_size %v (dim %d must be between %d and %d)", outputSize, d, lo, hi)
		}
	}
	return append([]int{}, outputSize...), nil
}

// MaxUnpool is max_unpool{nd}d with the output's spatial size: each
// element of x is written to the position indices names in its output
// plane, in order (a repeated index keeps the last), the rest are zero.
func MaxUnpool(x, indices *Tensor, nd int, outSize []int) (*Tensor, error) {
	op := fmt.Sprintf("max_unpool%dd", nd)
	lead, _, err := poolDims(op, x, nd)
	if err != nil {
		return nil, err
	}
	if err := nnNilCheck(op, indices); err != nil {
		return nil, err
	}
	if indices.DType != Int64 {
		return nil, fmt.Errorf("%s: elements in indices should be type int64 but got: %s", op, indices.DType)
	}
	if !equalInts(x.Shape, indices.Shape) {
		return nil, fmt.Errorf("%s: Expected shape of indices to be same as that of the input tensor (%v) but got indices tensor with shape: %v", op, x.Shape, indices.Shape)
	}
	if len(outSize) != nd {
		return nil, fmt.Errorf("%s: output_size must have %d values, got %v", op, nd, outSize)
	}
	plane := Numel(outSize)
	planes := Numel(lead)
	shape := append(append([]int{}, lead...), outSize...)
	res := New(x.DType, shape...)
	xc, ic := x.Contiguous(), indices.Contiguous()
	per := 0
	if planes > 0 {
		per = x.Numel() / planes
	}
	for p := 0; p < planes; p++ {
		for i := 0; i < per; i++ {
			j := ic.S.I[ic.Offset+p*per+i]
			if j < 0 || j >= int64(plane) {
				return nil, fmt.Errorf("%s: Found an invalid max index: %d (output volumes are of size %v)", op, j, outSize)
			}
			to, from := p*plane+int(j), xc.Offset+p*per+i
			if res.S.F != nil {
				res.S.F[to] = xc.S.F[from]
			} else {
				res.S.I[to] = xc.S.I[from]
			}
		}
	}
	return res, nil
}

// MaxPoolIndicesBackward is the gradient of max pooling with indices
// (max_pool{1,2,3}d_with_indices_backward, adaptive_max_pool{1,2,3}d_backward):
// zeros of x's shape, each output gradient added at the element its index
// names in its plane. grad and indices share a shape, x has the same
// leading dims and nd spatial dims.
func MaxPoolIndicesBackward(grad, x, indices *Tensor, nd int) (*Tensor, error) {
	op := fmt.Sprintf("max_pool%dd_backward", nd)
	lead, _, err := poolDims(op, x, nd)
	if err != nil {
		return nil, err
	}
	if err := nnNilCheck(op, grad, indices); err != nil {
		return nil, err
	}
	if indices.DType != Int64 || !equalInts(grad.Shape, indices.Shape) || grad.Dim() != x.Dim() || !equalInts(grad.Shape[:len(lead)], lead) {
		return nil, fmt.Errorf("%s: grad_output %v and int64 indices %v must share a shape with the input's leading dims %v", op, grad.Shape, indices.Shape, lead)
	}
	if err := nnFloatOnly(op, grad); err != nil {
		return nil, err
	}
	planes := Numel(lead)
	per, outPer := 0, 0
	if planes > 0 {
		per, outPer = x.Numel()/planes, grad.Numel()/planes
	}
	gd, ic := nnData(grad), indices.Contiguous()
	gx := make([]float64, x.Numel())
	for p := 0; p < planes; p++ {
		for i := 0; i < outPer; i++ {
			j := ic.S.I[ic.Offset+p*outPer+i]
			if j < 0 || j >= int64(per) {
				return nil, fmt.Errorf("%s: index %d out of range for a plane of %d elements", op, j, per)
			}
			gx[p*per+int(j)] += gd[p*outPer+i]
		}
	}
	return nnFromData(grad.DType, x.Shape, gx), nil
}

// AvgPoolND is avg_pool{nd}d as PyTorch's CPU kernels compute it, for
// floating and integer inputs: window o of a dim starts at o*stride -
// padding and ends at min(start + kernel, size + padding) (pool size: the
// product of those lengths, counting padding); the sum over its in-bounds
// elements is divided by divisorOverride (0: none), the pool size
// (countIncludePad) or the in-bounds count. Integers sum exactly in int64
// and divide truncating toward zero, as C++ does.
func AvgPoolND(x *Tensor, nd int, kernel, stride, padding []int, ceil, countIncludePad bool, divisorOverride int) (*Tensor, error) {
	op := fmt.Sprintf("avg_pool%dd", nd)
	lead, in, err := poolDims(op, x, nd)
	if err != nil {
		return nil, err
	}
	if stride == nil {
		stride = kernel
	}
	if len(kernel) != nd || len(stride) != nd || len(padding) != nd {
		return nil, fmt.Errorf("%s: kernel_size, stride and padding must have %d values each", op, nd)
	}
	if x.DType != Int64 && !x.DType.IsFloat() { // PyTorch's CPU kernels: floating types and Long
		return nil, fmt.Errorf("%q not implemented for '%s'", op, nnTorchTypeName(x.DType))
	}
	out := make([]int, nd)
	for i := 0; i < nd; i++ {
		switch {
		case kernel[i] <= 0:
			return nil, fmt.Errorf("%s: kernel size should be greater than zero, but got %v", op, kernel)
		case stride[i] <= 0:
			return nil, fmt.Errorf("%s: stride should be greater than zero, but got %v", op, stride)
		case padding[i] < 0 || padding[i] > kernel[i]/2:
			return nil, fmt.Errorf("%s: pad should be smaller than or equal to half of kernel size, but got padding %v and kernel_size %v", op, padding, kernel)
		}
		out[i] = nnPoolOutSize(in[i], kernel[i], padding[i], stride[i], 1, ceil)
		if out[i] < 1 {
			return nil, fmt.Errorf("%s: Given input size %v, calculated output size %v: output size is too small", op, in, out)
		}
	}
	var I, O, K, S, P [3]int
	for i := 0; i < 3; i++ {
		I[i], O[i], K[i], S[i] = 1, 1, 1, 1
	}
	off := 3 - nd
	copy(I[off:], in)
	copy(O[off:], out)
	copy(K[off:], kernel)
	copy(S[off:], stride)
	copy(P[off:], padding)
	type win struct{ lo, hi, size int }
	wins := [3][]win{}
	for d := 0; d < 3; d++ {
		for o := 0; o < O[d]; o++ {
			s := o*S[d] - P[d]
			e := min(s+K[d], I[d]+P[d])
			wins[d] = append(wins[d], win{max(s, 0), min(e, I[d]), e - s})
		}
	}
	isInt := !x.DType.IsFloat()
	xc := x.Contiguous()
	planes, planeIn := Numel(lead), I[0]*I[1]*I[2]
	shape := append(append([]int{}, lead...), out...)
	res := New(x.DType, shape...)
	j := 0
	for p := 0; p < planes; p++ {
		base := xc.Offset + p*planeIn
		for a := 0; a < O[0]; a++ {
			wa := wins[0][a]
			for b := 0; b < O[1]; b++ {
				wb := wins[1][b]
				for c := 0; c < O[2]; c++ {
					wc := wins[2][c]
					if wa.lo >= wa.hi || wb.lo >= wb.hi || wc.lo >= wc.hi { // a window all padding: 0, as PyTorch
						res.SetFlat(j, 0)
						j++
						continue
					}
					div := divisorOverride
					if div == 0 {
						if countIncludePad {
							div = wa.size * wb.size * wc.size
						} else {
							div = (wa.hi - wa.lo) * (wb.hi - wb.lo) * (wc.hi - wc.lo)
						}
					}
					var si int64
					sf := 0.0
					for z := wa.lo; z < wa.hi; z++ {
						for y := wb.lo; y < wb.hi; y++ {
							at := base + (z*I[1]+y)*I[2]
							for w := wc.lo; w < wc.hi; w++ {
								if isInt {
									si += xc.S.I[at+w]
								} else {
									sf += xc.S.F[at+w]
								}
							}
						}
					}
					switch {
					case isInt && div == 0:
						return nil, fmt.Errorf("%s: integer division by zero", op)
					case isInt:
						res.SetFlatInt(j, si/int64(div))
					default:
						res.SetFlat(j, sf/float64(div))
					}
					j++
				}
			}
		}
	}
	return res, nil
}
