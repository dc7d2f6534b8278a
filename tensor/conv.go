package tensor

import (
	"fmt"
	"math"
)

// This file holds 2-D convolution and pooling (torch.nn.functional.conv2d,
// max_pool2d, avg_pool2d, adaptive_avg_pool2d). Inputs are [N, C, H, W] or
// unbatched [C, H, W]; the result has the same rank as the input.

func nnFloatOnly(op string, ts ...*Tensor) error {
	for _, t := range ts {
		if t != nil && !t.DType.IsFloat() {
			return fmt.Errorf("%q not implemented for '%s'", op, nnTorchTypeName(t.DType))
		}
	}
	return nil
}

// nnConvDTypes checks a convolution's tensors: floating or int64, which
// PyTorch 1.13's CPU kernels compute (int64 sums in float64 here, exact up to
// 2^53, as mm's). PyTorch refuses bool; its conv1d/2d/3d also take the
// narrower integers, which gcdbg does not: listed out of scope
// (stages.outOfScopeArguments, `gcdbg ops --coverage`).
func nnConvDTypes(op string, ts ...*Tensor) error {
	for _, t := range ts {
		if t == nil || t.DType.IsFloat() || t.DType == Int64 {
			continue
		}
		if t.DType == Bool {
			return fmt.Errorf("%q not implemented for '%s'", op, nnTorchTypeName(t.DType))
		}
		return fmt.Errorf("%s of %s tensors is not supported by gcdbg (floating and int64 are; out of scope, `gcdbg ops --coverage`)", op, torchName(t.DType))
	}
	return nil
}

func nnTorchTypeName(dt DType) string {
	switch dt {
	case Bool:
		return "Bool"
	case Uint8:
		return "Byte"
	case Int8:
		return "Char"
	case Int32:
		return "Int"
	case Int64:
		return "Long"
	case Float16:
		return "Half"
	case BFloat16:
		return "BFloat16"
	case Float32:
		return "Float"
	case Float64:
		return "Double"
	}
	return dt.String()
}

// nnAs4D returns x viewed as [N, C, H, W] and whether it was unbatched.
func nnAs4D(op string, x *Tensor) (*Tensor, bool, error) {
	switch x.Dim() {
	case 4:
		return x, false, nil
	case 3:
		return x.View(append([]int{1}, x.Shape...), append([]int{0}, x.Strides...), x.Offset), true, nil
	}
	return nil, false, fmt.Errorf("Expected 3D (unbatched) or 4D (batched) input to %s, but got input of size: %v", op, x.Shape)
}

func nnSqueeze4D(t *Tensor, unbatched bool) *Tensor {
	if unbatched {
		t.Shape = t.Shape[1:]
		t.Strides = ContiguousStrides(t.Shape)
	}
	return t
}

// Conv2d is torch.nn.functional.conv2d with zero padding. x is [N, C, H, W]
// or [C, H, W]; w is [Cout, C/groups, kh, kw]; b ([Cout]) may be nil.
func Conv2d(x, w, b *Tensor, stride, padding, dilation [2]int, groups int) (*Tensor, error) {
	if err := nnNilCheck("conv2d", x, w); err != nil {
		return nil, err
	}
	for i := 0; i < 2; i++ {
		if padding[i] < 0 {
			return nil, fmt.Errorf("negative padding is not supported")
		}
	}
	return nnConv2dCore(x, w, b, stride, padding, padding, dilation, groups)
}

// Conv2dPadMode is conv2d with padding="valid" or padding="same" (stride
// must be 1 for "same"; odd total padding puts the extra row/column at the
// bottom/right, as PyTorch does).
func Conv2dPadMode(x, w, b *Tensor, stride [2]int, mode string, dilation [2]int, groups int) (*Tensor, error) {
	if err := nnNilCheck("conv2d", x, w); err != nil {
		return nil, err
	}
	switch mode {
	case "valid":
		return nnConv2dCore(x, w, b, stride, [2]int{}, [2]int{}, dilation, groups)
	case "same":
		if stride[0] != 1 || stride[1] != 1 {
			return nil, fmt.Errorf("padding='same' is not supported for strided convolutions")
		}
		if w.Dim() != 4 {
			return nil, fmt.Errorf("conv2d: expected weight to be 4-D, but got weight of size %v", w.Shape)
		}
		var lo, hi [2]int
		for i := 0; i < 2; i++ {
			total := dilation[i] * (w.Shape[2+i] - 1)
			if total < 0 {
				total = 0
			}
			lo[i] = total / 2
			hi[i] = total - lo[i]
		}
		return nnConv2dCore(x, w, b, stride, lo, hi, dilation, groups)
	}
	return nil, fmt.Errorf("Invalid padding string: '%s'", mode)
}

func nnConv2dCore(x, w, b *Tensor, stride, padLo, padHi, dilation [2]int, groups int) (*Tensor, error) {
	x4, unb, err := nnAs4D("conv2d", x)
	if err != nil {
		return nil, err
	}
	if w.Dim() != 4 {
		return nil, fmt.Errorf("conv2d: expected weight to be 4-D, but got weight of size %v", w.Shape)
	}
	if err := nnConvDTypes("slow_conv2d_cpu", x, w, b); err != nil {
		return nil, err
	}
	for i := 0; i < 2; i++ {
		if stride[i] <= 0 {
			return nil, fmt.Errorf("non-positive stride is not supported")
		}
		if dilation[i] <= 0 {
			return nil, fmt.Errorf("dilation should be greater than zero")
		}
	}
	if groups <= 0 {
		return nil, fmt.Errorf("non-positive groups is not supported")
	}
	N, C, H, W := x4.Shape[0], x4.Shape[1], x4.Shape[2], x4.Shape[3]
	Cout, Cg, KH, KW := w.Shape[0], w.Shape[1], w.Shape[2], w.Shape[3]
	if Cout%groups != 0 {
		return nil, fmt.Errorf("Given groups=%d, expected weight to be divisible by %d at dimension 0, but got weight of size %v instead", groups, groups, w.Shape)
	}
	if Cg*groups != C {
		return nil, fmt.Errorf("Given groups=%d, weight of size %v, expected input%v to have %d channels, but got %d channels instead", groups, w.Shape, x.Shape, Cg*groups, C)
	}
	if b != nil && (b.Dim() != 1 || b.Shape[0] != Cout) {
		return nil, fmt.Errorf("Given weight of size %v, expected bias to be 1-dimensional with %d elements, but got bias of size %v instead", w.Shape, Cout, b.Shape)
	}
	ph, pw := H+padLo[0]+padHi[0], W+padLo[1]+padHi[1]
	ekh, ekw := dilation[0]*(KH-1)+1, dilation[1]*(KW-1)+1
	if ph < ekh || pw < ekw {
		return nil, fmt.Errorf("Calculated padded input size per channel: (%d x %d). Kernel size: (%d x %d). Kernel size can't be greater than actual input size", ph, pw, ekh, ekw)
	}
	OH, OW := (ph-ekh)/stride[0]+1, (pw-ekw)/stride[1]+1
	dt := Promote(x.DType, w.DType)
	if b != nil {
		dt = Promote(dt, b.DType)
	}
	xd, wd := nnData(x4), nnData(w)
	var bd []float64
	if b != nil {
		bd = nnData(b)
	}
	out := make([]float64, N*Cout*OH*OW)
	if dt.IsFloat() {
		cs := newConvShape([]int{N, C, H, W}, w.Shape, OH, OW, stride, padLo, padHi, dilation, groups)
		if cs.forwardBLAS(xd, wd, bd, out) {
			return nnSqueeze4D(nnFromData(dt, []int{N, Cout, OH, OW}, out), unb), nil
		}
	}
	coutG := Cout / groups
	sh, sw, dh, dw := stride[0], stride[1], dilation[0], dilation[1]
	owLo, owHi := convColRanges(KW, W, OW, sw, dw, padLo[1])
	// Each output plane (image, channel) is its own sum: the planes are
	// split across the cores, each computed as the serial loop does.
	parallelRows(N*Cout, N*Cout*Cg*KH*KW*OH*OW, func(lo, hi int) {
		for nc := lo; nc < hi; nc++ {
			n, oc := nc/Cout, nc%Cout
			g := oc / coutG
			plane := out[(n*Cout+oc)*OH*OW : (n*Cout+oc+1)*OH*OW]
			if bd != nil {
				for i := range plane {
					plane[i] = bd[oc]
				}
			}
			for icg := 0; icg < Cg; icg++ {
				ic := g*Cg + icg
				xin := xd[(n*C+ic)*H*W : (n*C+ic+1)*H*W]
				wk := wd[(oc*Cg+icg)*KH*KW : (oc*Cg+icg+1)*KH*KW]
				for kh := 0; kh < KH; kh++ {
					for oh := 0; oh < OH; oh++ {
						ih := oh*sh - padLo[0] + kh*dh
						if ih < 0 || ih >= H {
							continue
						}
						xrow := xin[ih*W : (ih+1)*W]
						orow := plane[oh*OW : (oh+1)*OW]
						for kw := 0; kw < KW; kw++ {
							wv := wk[kh*KW+kw]
							off := kw*dw - padLo[1]
							for ow := owLo[kw]; ow < owHi[kw]; ow++ {
								orow[ow] += wv * xrow[ow*sw+off]
							}
						}
					}
				}
			}
		}
	})
	return nnSqueeze4D(nnFromData(dt, []int{N, Cout, OH, OW}, out), unb), nil
}

// nnPoolOutSize is PyTorch's pooling_output_shape: floor (or ceil) division,
// where in ceil mode the last window must start inside the input or the
// left padding.
func nnPoolOutSize(in, k, pad, stride, dil int, ceil bool) int {
	num := in + 2*pad - dil*(k-1) - 1
	if ceil {
		num += stride - 1
	}
	// division rounding toward negative infinity
	q := num / stride
	if num%stride != 0 && (num < 0) != (stride < 0) {
		q--
	}
	out := q + 1
	if ceil && (out-1)*stride >= in+pad {
		out--
	}
	return out
}

func nnPoolCheck(op string, x *Tensor, kernel, stride, padding, dilation [2]int, ceil bool) (OH, OW int, err error) {
	if x.Dim() != 3 && x.Dim() != 4 {
		return 0, 0, fmt.Errorf("non-empty 3D or 4D (batch mode) tensor expected for input to %s, got shape %v", op, x.Shape)
	}
	for i, d := range x.Shape {
		if d == 0 && !(x.Dim() == 4 && i == 0) {
			return 0, 0, fmt.Errorf("Expected 3D or 4D (batch mode) tensor with optional 0 dim batch size for input, but got:%v", x.Shape)
		}
	}
	for i := 0; i < 2; i++ {
		if kernel[i] <= 0 {
			return 0, 0, fmt.Errorf("kernel size should be greater than zero, but got kH: %d kW: %d", kernel[0], kernel[1])
		}
		if stride[i] <= 0 {
			return 0, 0, fmt.Errorf("stride should be greater than zero, but got dH: %d dW: %d", stride[0], stride[1])
		}
		if dilation[i] <= 0 {
			return 0, 0, fmt.Errorf("dilation should be greater than zero, but got dilationH: %d dilationW: %d", dilation[0], dilation[1])
		}
		if padding[i] < 0 || padding[i] > kernel[i]/2 {
			return 0, 0, fmt.Errorf("pad should be at most half of kernel size, but got pad=%d and kernel_size=%d", padding[i], kernel[i])
		}
	}
	H, W := x.Shape[x.Dim()-2], x.Shape[x.Dim()-1]
	OH = nnPoolOutSize(H, kernel[0], padding[0], stride[0], dilation[0], ceil)
	OW = nnPoolOutSize(W, kernel[1], padding[1], stride[1], dilation[1], ceil)
	if OH < 1 || OW < 1 {
		return 0, 0, fmt.Errorf("Given input size: (%dx%dx%d). Calculated output size: (%dx%dx%d). Output size is too small", x.Shape[x.Dim()-3], H, W, x.Shape[x.Dim()-3], OH, OW)
	}
	return OH, OW, nil
}

// MaxPool2d is torch.nn.functional.max_pool2d (values only). A zero stride
// means stride = kernel. Padding acts as -inf; NaN propagates.
func MaxPool2d(x *Tensor, kernel, stride, padding, dilation [2]int, ceilMode bool) (*Tensor, error) {
	if err := nnNilCheck("max_pool2d", x); err != nil {
		return nil, err
	}
	if stride == [2]int{} {
		stride = kernel
	}
	OH, OW, err := nnPoolCheck("max_pool2d", x, kernel, stride, padding, dilation, ceilMode)
	if err != nil {
		return nil, err
	}
	if err := nnFloatOnly("max_pool2d", x); err != nil {
		return nil, err
	}
	x4, unb, _ := nnAs4D("max_pool2d", x)
	N, C, H, W := x4.Shape[0], x4.Shape[1], x4.Shape[2], x4.Shape[3]
	xd := nnData(x4)
	out := make([]float64, N*C*OH*OW)
	for nc := 0; nc < N*C; nc++ {
		in := xd[nc*H*W : (nc+1)*H*W]
		o := out[nc*OH*OW : (nc+1)*OH*OW]
		for oh := 0; oh < OH; oh++ {
			h0 := oh*stride[0] - padding[0]
			for ow := 0; ow < OW; ow++ {
				w0 := ow*stride[1] - padding[1]
				m := math.Inf(-1)
			win:
				for kh := 0; kh < kernel[0]; kh++ {
					ih := h0 + kh*dilation[0]
					if ih < 0 || ih >= H {
						continue
					}
					for kw := 0; kw < kernel[1]; kw++ {
						iw := w0 + kw*dilation[1]
						if iw < 0 || iw >= W {
							continue
						}
						v := in[ih*W+iw]
						if math.IsNaN(v) {
							m = v
							break win
						}
						if v > m {
							m = v
						}
					}
				}
				o[oh*OW+ow] = m
			}
		}
	}
	return nnSqueeze4D(nnFromData(x.DType, []int{N, C, OH, OW}, out), unb), nil
}

// AvgPool2d is torch.nn.functional.avg_pool2d. A zero stride means stride =
// kernel; divisorOverride 0 means none.
func AvgPool2d(x *Tensor, kernel, stride, padding [2]int, ceilMode, countIncludePad bool, divisorOverride int) (*Tensor, error) {
	if err := nnNilCheck("avg_pool2d", x); err != nil {
		return nil, err
	}
	if stride == [2]int{} {
		stride = kernel
	}
	OH, OW, err := nnPoolCheck("avg_pool2d", x, kernel, stride, padding, [2]int{1, 1}, ceilMode)
	if err != nil {
		return nil, err
	}
	if x.DType.IsInt() { // integer sums, truncating division (pool_nd.go)
		return AvgPoolND(x, 2, kernel[:], stride[:], padding[:], ceilMode, countIncludePad, divisorOverride)
	}
	if err := nnFloatOnly("avg_pool2d", x); err != nil {
		return nil, err
	}
	x4, unb, _ := nnAs4D("avg_pool2d", x)
	N, C, H, W := x4.Shape[0], x4.Shape[1], x4.Shape[2], x4.Shape[3]
	xd := nnData(x4)
	out := make([]float64, N*C*OH*OW)
	for nc := 0; nc < N*C; nc++ {
		in := xd[nc*H*W : (nc+1)*H*W]
		o := out[nc*OH*OW : (nc+1)*OH*OW]
		for oh := 0; oh < OH; oh++ {
			for ow := 0; ow < OW; ow++ {
				hs, ws := oh*stride[0]-padding[0], ow*stride[1]-padding[1]
				he, we := min(hs+kernel[0], H+padding[0]), min(ws+kernel[1], W+padding[1])
				poolSize := (he - hs) * (we - ws)
				hs, ws = max(hs, 0), max(ws, 0)
				he, we = min(he, H), min(we, W)
				if hs >= he || ws >= we {
					o[oh*OW+ow] = 0
					continue
				}
				s := 0.0
				for ih := hs; ih < he; ih++ {
					for _, v := range in[ih*W+ws : ih*W+we] {
						s += v
					}
				}
				var div float64
				switch {
				case divisorOverride != 0:
					div = float64(divisorOverride)
				case countIncludePad:
					div = float64(poolSize)
				default:
					div = float64((he - hs) * (we - ws))
				}
				o[oh*OW+ow] = s / div
			}
		}
	}
	return nnSqueeze4D(nnFromData(x.DType, []int{N, C, OH, OW}, out), unb), nil
}

// AdaptiveAvgPool2d is torch.nn.functional.adaptive_avg_pool2d: output cell
// i averages input rows floor(i*in/out) .. ceil((i+1)*in/out)-1.
func AdaptiveAvgPool2d(x *Tensor, out [2]int) (*Tensor, error) {
	if err := nnNilCheck("adaptive_avg_pool2d", x); err != nil {
		return nil, err
	}
	x4, unb, err := nnAs4D("adaptive_avg_pool2d", x)
	if err != nil {
		return nil, err
	}
	for i := 1; i < 4; i++ {
		if x4.Shape[i] == 0 {
			return nil, fmt.Errorf("adaptive_avg_pool2d(): Expected input to have non-zero size for non-batch dimensions, but input has sizes %v with dimension %d being empty", x.Shape, i)
		}
	}
	if out[0] < 0 || out[1] < 0 {
		return nil, fmt.Errorf("adaptive_avg_pool2d: elements of output_size must be greater than or equal to 0 but received %v", out)
	}
	if err := nnFloatOnly("adaptive_avg_pool2d", x); err != nil {
		return nil, err
	}
	N, C, H, W := x4.Shape[0], x4.Shape[1], x4.Shape[2], x4.Shape[3]
	OH, OW := out[0], out[1]
	xd := nnData(x4)
	res := make([]float64, N*C*OH*OW)
	for nc := 0; nc < N*C; nc++ {
		in := xd[nc*H*W : (nc+1)*H*W]
		o := res[nc*OH*OW : (nc+1)*OH*OW]
		for oh := 0; oh < OH; oh++ {
			hs, he := oh*H/OH, ((oh+1)*H+OH-1)/OH
			for ow := 0; ow < OW; ow++ {
				ws, we := ow*W/OW, ((ow+1)*W+OW-1)/OW
				s := 0.0
				for ih := hs; ih < he; ih++ {
					for _, v := range in[ih*W+ws : ih*W+we] {
						s += v
					}
				}
				o[oh*OW+ow] = s / float64((he-hs)*(we-ws))
			}
		}
	}
	return nnSqueeze4D(nnFromData(x.DType, []int{N, C, OH, OW}, res), unb), nil
}

// convColRanges is, for each of KW kernel columns, the output columns
// [lo, hi) whose input column ow*sw + kw*dw - pad lies inside 0..W-1.
func convColRanges(KW, W, OW, sw, dw, pad int) (lo, hi []int) {
	lo, hi = make([]int, KW), make([]int, KW)
	for kw := 0; kw < KW; kw++ {
		off := kw*dw - pad // iw = ow*sw + off
		l := 0
		if off < 0 {
			l = (-off + sw - 1) / sw
		}
		h := OW // exclusive
		if m := W - 1 - off; m < 0 {
			h = 0
		} else if m/sw+1 < h {
			h = m/sw + 1
		}
		lo[kw], hi[kw] = l, h
	}
	return lo, hi
}
