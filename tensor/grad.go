package tensor

import (
	"fmt"
	"math"
)

// Backward kernels the joint graph emits for convolution and pooling, and
// scatter_add (the backward of gather, sort and topk). Each is the
// reference semantics of the aten op of the same name; results accumulate
// in float64 and round once to the gradient's dtype.

// gradAs4D checks that shape is [N, C, H, W] or unbatched [C, H, W] and
// returns it as 4-D.
func gradAs4D(op, what string, shape []int) ([]int, bool, error) {
	switch len(shape) {
	case 4:
		return shape, false, nil
	case 3:
		return append([]int{1}, shape...), true, nil
	}
	return nil, false, fmt.Errorf("%s: expected %s to be 3-D or 4-D, got shape %v", op, what, shape)
}

// gradCheckOut checks grad_output against the forward's output shape.
func gradCheckOut(op string, g *Tensor, want []int, unbatched bool) error {
	if unbatched {
		want = want[1:]
	}
	if !equalInts(g.Shape, want) {
		return fmt.Errorf("%s: grad_output has shape %v but the forward output has shape %v", op, g.Shape, want)
	}
	return nil
}

// convGeom validates a convolution's geometry and returns its output size.
func convGeom(op string, in, w []int, stride, padding, dilation [2]int, groups int) (OH, OW int, err error) {
	if len(w) != 4 {
		return 0, 0, fmt.Errorf("%s: expected weight to be 4-D, got shape %v", op, w)
	}
	for i := 0; i < 2; i++ {
		if stride[i] <= 0 || dilation[i] <= 0 || padding[i] < 0 {
			return 0, 0, fmt.Errorf("%s: stride and dilation must be positive and padding non-negative, got %v %v %v", op, stride, dilation, padding)
		}
	}
	if groups <= 0 || w[0]%groups != 0 || w[1]*groups != in[1] {
		return 0, 0, fmt.Errorf("%s: groups=%d does not fit weight %v and input %v", op, groups, w, in)
	}
	OH = (in[2]+2*padding[0]-dilation[0]*(w[2]-1)-1)/stride[0] + 1
	OW = (in[3]+2*padding[1]-dilation[1]*(w[3]-1)-1)/stride[1] + 1
	if OH < 1 || OW < 1 {
		return 0, 0, fmt.Errorf("%s: kernel %v larger than padded input %v", op, w[2:], in[2:])
	}
	return OH, OW, nil
}

// convWalk visits every (input, weight, output) triple of flat indices that a
// convolution multiplies together, one row at a time: f(xi, xs, wi, gi, cnt)
// stands for the triples (xi + j*xs, wi, gi + j), j = 0..cnt-1, in that
// order (the output columns whose input column is inside the image), so the
// callers' sums run as plain loops instead of a call per product, in the
// same order as one call per triple.
// The batch images [nLo, nHi) and output channels [ocLo, ocHi) are
// visited, in the order of the whole walk: a caller whose every sum falls
// within one image (the input gradient) or one output channel (the weight
// gradient) splits the walk across the cores by that dimension
// (convWalkSplit) and gets the sums of the serial walk, bit for bit.
func convWalk(in, w []int, OH, OW int, stride, padding, dilation [2]int, groups int, nLo, nHi, ocLo, ocHi int, f func(xi, xs, wi, gi, cnt int)) {
	_, C, H, W := in[0], in[1], in[2], in[3]
	Cout, Cg, KH, KW := w[0], w[1], w[2], w[3]
	coutG := Cout / groups
	sw := stride[1]
	owLo, owHi := convColRanges(KW, W, OW, sw, dilation[1], padding[1])
	for n := nLo; n < nHi; n++ {
		for oc := ocLo; oc < ocHi; oc++ {
			g := oc / coutG
			for icg := 0; icg < Cg; icg++ {
				ic := g*Cg + icg
				for kh := 0; kh < KH; kh++ {
					for oh := 0; oh < OH; oh++ {
						ih := oh*stride[0] - padding[0] + kh*dilation[0]
						if ih < 0 || ih >= H {
							continue
						}
						for kw := 0; kw < KW; kw++ {
							lo, hi := owLo[kw], owHi[kw]
							if lo >= hi {
								continue
							}
							wi := ((oc*Cg+icg)*KH+kh)*KW + kw
							iw := lo*sw - padding[1] + kw*dilation[1]
							f(((n*C+ic)*H+ih)*W+iw, sw, wi, ((n*Cout+oc)*OH+oh)*OW+lo, hi-lo)
						}
					}
				}
			}
		}
	}
}

// convWalkSplit runs convWalk over the whole convolution, split across the
// cores by batch image (byImage: every sum of f stays within one image) or
// by output channel (every sum within one channel).
func convWalkSplit(in, w []int, OH, OW int, stride, padding, dilation [2]int, groups int, byImage bool, f func(xi, xs, wi, gi, cnt int)) {
	work := Numel(in) / max(in[1], 1) * Numel(w) // multiply-adds, roughly
	if byImage {
		parallelRows(in[0], work, func(lo, hi int) {
			convWalk(in, w, OH, OW, stride, padding, dilation, groups, lo, hi, 0, w[0], f)
		})
		return
	}
	parallelRows(w[0], work, func(lo, hi int) {
		convWalk(in, w, OH, OW, stride, padding, dilation, groups, 0, in[0], lo, hi, f)
	})
}

// Conv2dBackwardInput is the input gradient of conv2d (a transposed
// convolution of grad_output with the weight) for an input of inShape.
func Conv2dBackwardInput(gradOut, w *Tensor, inShape []int, stride, padding, dilation [2]int, groups int) (*Tensor, error) {
	const op = "conv2d_backward_input"
	if err := checkT(gradOut, w); err != nil {
		return nil, err
	}
	if err := nnConvDTypes(op, gradOut, w); err != nil { // int64: conv_transpose1d/2d's forward
		return nil, err
	}
	in, unb, err := gradAs4D(op, "input_size", inShape)
	if err != nil {
		return nil, err
	}
	if err := checkSizes(in); err != nil {
		return nil, err
	}
	OH, OW, err := convGeom(op, in, w.Shape, stride, padding, dilation, groups)
	if err != nil {
		return nil, err
	}
	if err := gradCheckOut(op, gradOut, []int{in[0], w.Shape[0], OH, OW}, unb); err != nil {
		return nil, err
	}
	gd, wd := nnData(gradOut), nnData(w)
	gx := make([]float64, Numel(in))
	if dt := Promote(gradOut.DType, w.DType); dt.IsFloat() {
		cs := newConvShape(in, w.Shape, OH, OW, stride, padding, padding, dilation, groups)
		if cs.backwardInputBLAS(gd, wd, gx) {
			return nnFromData(dt, inShape, gx), nil
		}
	}
	convWalkSplit(in, w.Shape, OH, OW, stride, padding, dilation, groups, true, func(xi, xs, wi, gi, cnt int) {
		wv := wd[wi]
		for j, gv := range gd[gi : gi+cnt] {
			gx[xi+j*xs] += gv * wv
		}
	})
	return nnFromData(Promote(gradOut.DType, w.DType), inShape, gx), nil
}

// Conv2dBackwardWeight is the weight gradient of conv2d (a correlation of
// the input with grad_output) for a weight of wShape.
func Conv2dBackwardWeight(gradOut, x *Tensor, wShape []int, stride, padding, dilation [2]int, groups int) (*Tensor, error) {
	const op = "conv2d_backward_weight"
	if err := checkT(gradOut, x); err != nil {
		return nil, err
	}
	if err := nnFloatOnly(op, gradOut, x); err != nil {
		return nil, err
	}
	in, unb, err := gradAs4D(op, "input", x.Shape)
	if err != nil {
		return nil, err
	}
	if err := checkSizes(wShape); err != nil {
		return nil, err
	}
	OH, OW, err := convGeom(op, in, wShape, stride, padding, dilation, groups)
	if err != nil {
		return nil, err
	}
	if err := gradCheckOut(op, gradOut, []int{in[0], wShape[0], OH, OW}, unb); err != nil {
		return nil, err
	}
	gd, xd := nnData(gradOut), nnData(x)
	gw := make([]float64, Numel(wShape))
	cs := newConvShape(in, wShape, OH, OW, stride, padding, padding, dilation, groups)
	if cs.backwardWeightBLAS(gd, xd, gw) {
		return nnFromData(Promote(gradOut.DType, x.DType), wShape, gw), nil
	}
	convWalkSplit(in, wShape, OH, OW, stride, padding, dilation, groups, false, func(xi, xs, wi, gi, cnt int) {
		acc := gw[wi]
		for j, gv := range gd[gi : gi+cnt] {
			acc += gv * xd[xi+j*xs]
		}
		gw[wi] = acc
	})
	return nnFromData(Promote(gradOut.DType, x.DType), wShape, gw), nil
}

// poolGrad runs the shared checks of the pooling backwards and returns the
// input as 4-D data plus the geometry.
func poolGrad(op string, gradOut, x *Tensor, OH, OW int) (xd []float64, N, C, H, W int, err error) {
	if err := checkT(gradOut, x); err != nil {
		return nil, 0, 0, 0, 0, err
	}
	if err := nnFloatOnly(op, gradOut, x); err != nil {
		return nil, 0, 0, 0, 0, err
	}
	in, unb, err := gradAs4D(op, "self", x.Shape)
	if err != nil {
		return nil, 0, 0, 0, 0, err
	}
	if err := gradCheckOut(op, gradOut, []int{in[0], in[1], OH, OW}, unb); err != nil {
		return nil, 0, 0, 0, 0, err
	}
	return nnData(x), in[0], in[1], in[2], in[3], nil
}

// MaxPool2dBackward routes each output gradient to the input element the
// forward picked: the first maximum of its window (or its last NaN: an
// element takes over when greater or NaN), as PyTorch's CPU kernel
// (MaxPoolKernel.cpp) records in its indices.
func MaxPool2dBackward(gradOut, x *Tensor, kernel, stride, padding, dilation [2]int, ceilMode bool) (*Tensor, error) {
	const op = "max_pool2d_backward"
	if stride == [2]int{} {
		stride = kernel
	}
	if err := checkT(x); err != nil {
		return nil, err
	}
	OH, OW, err := nnPoolCheck(op, x, kernel, stride, padding, dilation, ceilMode)
	if err != nil {
		return nil, err
	}
	xd, N, C, H, W, err := poolGrad(op, gradOut, x, OH, OW)
	if err != nil {
		return nil, err
	}
	gd := nnData(gradOut)
	gx := make([]float64, len(xd))
	for nc := 0; nc < N*C; nc++ {
		base := nc * H * W
		for oh := 0; oh < OH; oh++ {
			for ow := 0; ow < OW; ow++ {
				best, m := -1, math.Inf(-1)
				for kh := 0; kh < kernel[0]; kh++ {
					ih := oh*stride[0] - padding[0] + kh*dilation[0]
					if ih < 0 || ih >= H {
						continue
					}
					for kw := 0; kw < kernel[1]; kw++ {
						iw := ow*stride[1] - padding[1] + kw*dilation[1]
						if iw < 0 || iw >= W {
							continue
						}
						if v := xd[base+ih*W+iw]; v > m || math.IsNaN(v) || best < 0 {
							best, m = ih*W+iw, v
						}
					}
				}
				if best >= 0 {
					gx[base+best] += gd[(nc*OH+oh)*OW+ow]
				}
			}
		}
	}
	return nnFromData(gradOut.DType, x.Shape, gx), nil
}

// AvgPool2dBackward spreads each output gradient evenly (by the forward's
// divisor) over the input elements of its window.
func AvgPool2dBackward(gradOut, x *Tensor, kernel, stride, padding [2]int, ceilMode, countIncludePad bool, divisorOverride int) (*Tensor, error) {
	const op = "avg_pool2d_backward"
	if stride == [2]int{} {
		stride = kernel
	}
	if err := checkT(x); err != nil {
		return nil, err
	}
	OH, OW, err := nnPoolCheck(op, x, kernel, stride, padding, [2]int{1, 1}, ceilMode)
	if err != nil {
		return nil, err
	}
	xd, N, C, H, W, err := poolGrad(op, gradOut, x, OH, OW)
	if err != nil {
		return nil, err
	}
	gd := nnData(gradOut)
	gx := make([]float64, len(xd))
	for nc := 0; nc < N*C; nc++ {
		base := nc * H * W
		for oh := 0; oh < OH; oh++ {
			for ow := 0; ow < OW; ow++ {
				hs, ws := oh*stride[0]-padding[0], ow*stride[1]-padding[1]
				he, we := min(hs+kernel[0], H+padding[0]), min(ws+kernel[1], W+padding[1])
				poolSize := (he - hs) * (we - ws)
				hs, ws, he, we = max(hs, 0), max(ws, 0), min(he, H), min(we, W)
				if hs >= he || ws >= we {
					continue
				}
				div := float64(poolSize)
				switch {
				case divisorOverride != 0:
					div = float64(divisorOverride)
				case !countIncludePad:
					div = float64((he - hs) * (we - ws))
				}
				g := gd[(nc*OH+oh)*OW+ow] / div
				for ih := hs; ih < he; ih++ {
					for iw := ws; iw < we; iw++ {
						gx[base+ih*W+iw] += g
					}
				}
			}
		}
	}
	return nnFromData(gradOut.DType, x.Shape, gx), nil
}

// AdaptiveAvgPool2dBackward spreads each output gradient evenly over the
// input window adaptive_avg_pool2d averaged for it.
func AdaptiveAvgPool2dBackward(gradOut, x *Tensor) (*Tensor, error) {
	const op = "adaptive_avg_pool2d_backward"
	if err := checkT(gradOut, x); err != nil {
		return nil, err
	}
	if gradOut.Dim() != x.Dim() || x.Dim() < 3 {
		return nil, fmt.Errorf("%s: grad_output %v does not match self %v", op, gradOut.Shape, x.Shape)
	}
	OH, OW := gradOut.Shape[gradOut.Dim()-2], gradOut.Shape[gradOut.Dim()-1]
	xd, N, C, H, W, err := poolGrad(op, gradOut, x, OH, OW)
	if err != nil {
		return nil, err
	}
	gd := nnData(gradOut)
	gx := make([]float64, len(xd))
	for nc := 0; nc < N*C; nc++ {
		base := nc * H * W
		for oh := 0; oh < OH; oh++ {
			hs, he := oh*H/OH, ((oh+1)*H+OH-1)/OH
			for ow := 0; ow < OW; ow++ {
				ws, we := ow*W/OW, ((ow+1)*W+OW-1)/OW
				g := gd[(nc*OH+oh)*OW+ow] / float64((he-hs)*(we-ws))
				for ih := hs; ih < he; ih++ {
					for iw := ws; iw < we; iw++ {
						gx[base+ih*W+iw] += g
					}
				}
			}
		}
	}
	return nnFromData(gradOut.DType, x.Shape, gx), nil
}

// ScatterAdd is torch.scatter_add: a copy of x where, for every position p
// of index, out[p with p[dim] replaced by index[p]] += src[p]. index must
// have x's rank and fit inside src (and inside x off dim).
func ScatterAdd(x *Tensor, dim int, index, src *Tensor) (*Tensor, error) {
	if err := checkT(x, index, src); err != nil {
		return nil, err
	}
	if !index.DType.IsInt() {
		return nil, fmt.Errorf("scatter_add(): Expected dtype int64 for index, got %s", index.DType)
	}
	d, err := NormDim(dim, max(x.Dim(), 1))
	if err != nil {
		return nil, err
	}
	if max(index.Dim(), 1) != max(x.Dim(), 1) || max(src.Dim(), 1) != max(x.Dim(), 1) {
		return nil, fmt.Errorf("scatter_add(): index %v, self %v and src %v must have the same number of dimensions", index.Shape, x.Shape, src.Shape)
	}
	x, ts, restore := scatterScalars(x, index, src)
	index, src = ts[0], ts[1]
	for i := range index.Shape {
		if index.Shape[i] > src.Shape[i] || (i != d && index.Shape[i] > x.Shape[i]) {
			return nil, fmt.Errorf("scatter_add(): index %v must be no larger than src %v, and than self %v apart from dimension %d", index.Shape, src.Shape, x.Shape, d)
		}
	}
	if src.DType != x.DType {
		return nil, fmt.Errorf("scatter_add(): Expected self.dtype to be equal to src.dtype, got %s and %s", x.DType, src.DType)
	}
	size := x.Shape[d]
	out := x.Clone()
	if index.Numel() == 0 {
		return restore(out), nil
	}
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
			return nil, fmt.Errorf("scatter_add(): index %d is out of bounds for dimension %d with size %d", j, d, size)
		}
		copy(dst, idx)
		if len(dst) > 0 {
			dst[d] = j
		}
		p, q := out.Pos(dst), src.Pos(idx)
		if out.S.F != nil {
			out.S.F[p] = Round(out.DType, out.S.F[p]+src.S.F[q])
		} else {
			out.S.I[p] = wrapInt(out.DType, out.S.I[p]+src.S.I[q])
		}
	}
	return restore(out), nil
}
