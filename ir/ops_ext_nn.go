package ir

import (
	"fmt"
	"math"

	"gcdbg/tensor"
)

// Neural-network ops beyond the seed set: padding, interpolation,
// convolutions (1-D, 3-D, transposed, aten.convolution), pixel shuffle,
// distances and normalizations, attention, and the remaining core ATen
// shape/creation ops (diagonal, repeat, fill, empty, scatter).

func n2(v []int) [2]int { return [2]int{v[0], v[1]} }

// convArgs reads stride/padding/dilation for k spatial dims.
func convArgs(r *ar, a Args, k int, idx ...int) [][]int {
	out := make([][]int, len(idx))
	for i, j := range idx {
		if r.err != nil {
			return out
		}
		v, err := a.IntsN(j, k)
		if err != nil {
			r.err = err
			return out
		}
		if len(v) == 1 && k > 1 {
			v = append(v, v[0], v[0])[:k]
		}
		if len(v) != k {
			r.err = a.errf(j, "expected %d values, got %d", k, len(v))
			return out
		}
		out[i] = v
	}
	return out
}

// convTranspose2d is conv_transpose2d as the gradient of conv2d by its input.
func convTranspose2d(x, w, b *tensor.Tensor, stride, pad, outPad, dil []int, groups int) (*tensor.Tensor, error) {
	if x.Dim() != 4 || w.Dim() != 4 {
		return nil, fmt.Errorf("conv_transpose2d: expected 4-D input and weight, got %v and %v", x.Shape, w.Shape)
	}
	if groups <= 0 || w.Shape[0] != x.Shape[1] {
		return nil, fmt.Errorf("conv_transpose2d: weight %v does not fit input %v", w.Shape, x.Shape)
	}
	// The full (unpadded) transposed convolution, F = (n-1)*s + d*(k-1) + 1
	// per dim, then cropped by padding on both sides and extended by
	// output_padding at the end (zeros where nothing reaches: output_padding
	// may exceed the stride when the dilation is larger).
	full := []int{x.Shape[0], w.Shape[1] * groups, 0, 0}
	var crop []int // F.pad order: the last dim first
	for i := 1; i >= 0; i-- {
		if outPad[i] >= stride[i] && outPad[i] >= dil[i] {
			return nil, fmt.Errorf("output padding must be smaller than either stride or dilation, but got output_padding=%v, stride=%v, dilation=%v", outPad, stride, dil)
		}
		f := (x.Shape[2+i]-1)*stride[i] + dil[i]*(w.Shape[2+i]-1) + 1
		full[2+i] = f
		out := f - 2*pad[i] + outPad[i]
		if out <= 0 {
			return nil, fmt.Errorf("conv_transpose2d: output size %d is too small", out)
		}
		crop = append(crop, -pad[i], out-(f-pad[i]))
	}
	y, err := tensor.Conv2dBackwardInput(x, w, full, n2(stride), [2]int{0, 0}, n2(dil), groups)
	if err != nil {
		return nil, err
	}
	if y, err = tensor.Pad(y, crop, "constant", 0); err != nil || b == nil {
		return y, err
	}
	bv, err := tensor.Reshape(b, []int{b.Numel(), 1, 1})
	if err != nil {
		return nil, err
	}
	return tensor.Binary("add", y, bv)
}

// unsq/sq wrap a 1-D convolution as a 2-D one (height 1).
func unsq(t *tensor.Tensor) *tensor.Tensor {
	if t == nil {
		return nil
	}
	u, _ := tensor.Unsqueeze(t, 2)
	return u
}

func conv1dAs2d(x, w, b *tensor.Tensor, stride, pad, dil []int, groups int, transposed bool, outPad []int) (*tensor.Tensor, error) {
	if x.Dim() != 3 || w.Dim() != 3 {
		return nil, fmt.Errorf("conv1d: expected 3-D input and weight, got %v and %v", x.Shape, w.Shape)
	}
	var y *tensor.Tensor
	var err error
	if transposed {
		y, err = convTranspose2d(unsq(x), unsq(w), b, []int{1, stride[0]}, []int{0, pad[0]}, []int{0, outPad[0]}, []int{1, dil[0]}, groups)
	} else {
		y, err = tensor.Conv2d(unsq(x), unsq(w), b, [2]int{1, stride[0]}, [2]int{0, pad[0]}, [2]int{1, dil[0]}, groups)
	}
	if err != nil {
		return nil, err
	}
	return tensor.Squeeze(y, []int{2})
}

// StringPadding resolves padding="valid" / "same" of a k-D convolution
// (stride 1) into per-dim amounts, as ATen's _convolution_mode: "same"
// pads dil*(k-1) in total, the odd one at the end (x is padded by it, so
// the returned amounts are symmetric).
func StringPadding(x, w *tensor.Tensor, mode string, stride, dil []int) (*tensor.Tensor, []int, error) {
	k := w.Dim() - 2
	pad := make([]int, k)
	switch mode {
	case "valid":
		return x, pad, nil
	case "same":
	default:
		return nil, nil, fmt.Errorf("Invalid padding string: '%s'", mode)
	}
	for _, s := range stride {
		if s != 1 {
			return nil, nil, fmt.Errorf("padding='same' is not supported for strided convolutions")
		}
	}
	var extra []int // F.pad order: the last dim first
	odd := false
	for i := k - 1; i >= 0; i-- {
		total := dil[i] * (w.Shape[2+i] - 1)
		pad[i] = total / 2
		extra = append(extra, 0, total-2*pad[i])
		odd = odd || total%2 != 0
	}
	if odd {
		var err error
		if x, err = tensor.Pad(x, extra, "constant", 0); err != nil {
			return nil, nil, err
		}
	}
	return x, pad, nil
}

// Convolution is aten.convolution: 1-D, 2-D, 3-D, transposed or not;
// an unbatched input (no batch dim) runs as a batch of one.
func Convolution(x, w, b *tensor.Tensor, stride, pad, dil []int, transposed bool, outPad []int, groups int) (*tensor.Tensor, error) {
	if x == nil || w == nil {
		return nil, fmt.Errorf("convolution: input and weight are required")
	}
	k := w.Dim() - 2
	if k >= 1 && x.Dim() == k+1 {
		xb, err := tensor.Unsqueeze(x, 0)
		if err != nil {
			return nil, err
		}
		y, err := Convolution(xb, w, b, stride, pad, dil, transposed, outPad, groups)
		if err != nil {
			return nil, err
		}
		return tensor.Squeeze(y, []int{0})
	}
	for _, v := range [][]int{stride, pad, dil, outPad} {
		if len(v) != k {
			return nil, fmt.Errorf("convolution: expected %d spatial values, got %v", k, v)
		}
	}
	switch {
	case k == 1:
		return conv1dAs2d(x, w, b, stride, pad, dil, groups, transposed, outPad)
	case k == 2 && transposed:
		return convTranspose2d(x, w, b, stride, pad, outPad, dil, groups)
	case k == 2:
		return tensor.Conv2d(x, w, b, n2(stride), n2(pad), n2(dil), groups)
	case k == 3 && transposed:
		return tensor.ConvTranspose3d(x, w, b, [3]int(stride), [3]int(pad), [3]int(outPad), [3]int(dil), groups)
	case k == 3 && !transposed:
		return tensor.Conv3d(x, w, b, [3]int{stride[0], stride[1], stride[2]}, [3]int{pad[0], pad[1], pad[2]}, [3]int{dil[0], dil[1], dil[2]}, groups)
	}
	return nil, fmt.Errorf("convolution: %d-D (transposed=%v) convolution is not supported by gcdbg", k, transposed)
}

// InterpolateSizes follows F.interpolate: the output sizes and the scale
// factors the kernel uses (nil when sizes were given or recomputed).
func InterpolateSizes(in []int, size []int, scale []float64, recompute bool) ([]int, []float64, error) {
	sp := len(in)
	if size == nil && scale == nil {
		return nil, nil, fmt.Errorf("either size or scale_factor should be defined")
	}
	if size != nil && scale != nil { // aten's upsample_*.vec may carry both
		return size, scale, nil
	}
	if size != nil {
		if len(size) == 1 && sp > 1 {
			for len(size) < sp {
				size = append(size, size[0])
			}
		}
		if len(size) != sp {
			return nil, nil, fmt.Errorf("Input and output must have the same number of spatial dimensions, but got input with spatial dimensions of %v and output size of %v", in, size)
		}
		return size, nil, nil
	}
	if len(scale) == 1 && sp > 1 {
		for len(scale) < sp {
			scale = append(scale, scale[0])
		}
	}
	if len(scale) != sp {
		return nil, nil, fmt.Errorf("scale_factor shape must match input shape")
	}
	out := make([]int, sp)
	for i := range in {
		out[i] = int(math.Floor(float64(in[i]) * scale[i]))
	}
	if recompute {
		return out, nil, nil
	}
	return out, scale, nil
}

func floats(v Value) ([]float64, error) {
	switch x := v.(type) {
	case nil:
		return nil, nil
	case float64:
		return []float64{x}, nil
	case int64:
		return []float64{float64(x)}, nil
	case List, Tuple:
		var items []Value
		if l, ok := x.(List); ok {
			items = l
		} else {
			items = x.(Tuple)
		}
		out := make([]float64, len(items))
		for i, it := range items {
			f, err := floats(it)
			if err != nil || len(f) != 1 {
				return nil, fmt.Errorf("expected numbers")
			}
			out[i] = f[0]
		}
		return out, nil
	}
	return nil, fmt.Errorf("expected a number or a list of numbers, got %s", typeName(v))
}

func init() {
	Register("pad(input, pad, mode='constant', value=None)", KindOther, func(a Args) (Value, error) {
		r := &ar{a: a}
		x, pads, mode := r.t(0), r.ints(1), r.s(2)
		v := 0.0
		if a.V[3] != nil {
			v = r.f(3)
		}
		if r.err != nil {
			return nil, r.err
		}
		return r.done(tensor.Pad(x, pads, mode, v))
	})
	Register("interpolate(input, size=None, scale_factor=None, mode='nearest', align_corners=None, recompute_scale_factor=None, antialias=False)", KindOther, func(a Args) (Value, error) {
		r := &ar{a: a}
		x, size, mode := r.t(0), r.ints(1), r.s(3)
		if r.err != nil {
			return nil, r.err
		}
		scale, err := floats(a.V[2])
		if err != nil {
			return nil, a.errf(2, "%v", err)
		}
		align := a.V[4] == true
		recompute := a.V[5] == true
		if a.V[6] == true {
			return nil, a.errf(6, "antialias=True is not supported by gcdbg")
		}
		if x.Dim() < 3 {
			return nil, fmt.Errorf("interpolate: expected at least a 3-D input, got %v", x.Shape)
		}
		out, sc, err := InterpolateSizes(x.Shape[2:], size, scale, recompute)
		if err != nil {
			return nil, err
		}
		switch mode {
		case "nearest", "area", "linear", "bilinear", "bicubic", "trilinear":
		default:
			return nil, a.errf(3, "mode %q is not supported by gcdbg (nearest, area, linear, bilinear, bicubic, trilinear)", mode)
		}
		if (mode == "nearest" || mode == "area") && a.V[4] != nil {
			return nil, fmt.Errorf("align_corners option can only be set with the interpolating modes: linear | bilinear | bicubic | trilinear")
		}
		return r.done(tensor.Interpolate(x, out, sc, mode, align))
	})
	conv := func(name string, k int, transposed bool) {
		schema := name + "(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1)"
		if transposed {
			schema = name + "(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1)"
		}
		Register(schema, KindConv, func(a Args) (Value, error) {
			r := &ar{a: a}
			x, w, b := r.t(0), r.t(1), r.ot(2)
			var s, p, d, op []int
			var g int
			if transposed {
				v := convArgs(r, a, k, 3, 4, 5, 7)
				s, p, op, d = v[0], v[1], v[2], v[3]
				g = r.i(6)
			} else {
				mode, str := a.V[4].(string)
				pi := 4
				if str {
					pi = 3 // padding comes from the mode below
				}
				v := convArgs(r, a, k, 3, pi, 5)
				s, p, d = v[0], v[1], v[2]
				op = make([]int, k)
				g = r.i(6)
				if str && r.err == nil {
					var err error
					if x, p, err = StringPadding(x, w, mode, s, d); err != nil {
						return nil, a.errf(4, "%v", err)
					}
				}
			}
			if r.err != nil {
				return nil, r.err
			}
			return r.done(Convolution(x, w, b, s, p, d, transposed, op, g))
		})
	}
	conv("conv1d", 1, false)
	conv("conv3d", 3, false)
	conv("conv_transpose1d", 1, true)
	conv("conv_transpose2d", 2, true)
	conv("conv_transpose3d", 3, true)
	Register("convolution(input, weight, bias, stride, padding, dilation, transposed, output_padding, groups)", KindConv, func(a Args) (Value, error) {
		r := &ar{a: a}
		x, w, b := r.t(0), r.t(1), r.ot(2)
		if r.err != nil {
			return nil, r.err
		}
		v := convArgs(r, a, w.Dim()-2, 3, 4, 5, 7)
		tr, g := r.b(6), r.i(8)
		if r.err != nil {
			return nil, r.err
		}
		return r.done(Convolution(x, w, b, v[0], v[1], v[2], tr, v[3], g))
	})
	for _, name := range []string{"pixel_shuffle", "pixel_unshuffle"} {
		op := name
		Register(op+"(self, factor)", KindView, func(a Args) (Value, error) {
			r := &ar{a: a}
			x, f := r.t(0), r.i(1)
			if r.err != nil {
				return nil, r.err
			}
			return r.done(PixelShuffle(x, f, op == "pixel_unshuffle"))
		})
	}
	Register("diagonal(self, offset=0, dim1=0, dim2=1)", KindOther, func(a Args) (Value, error) {
		r := &ar{a: a}
		x, o, d1, d2 := r.t(0), r.i(1), r.i(2), r.i(3)
		if r.err != nil {
			return nil, r.err
		}
		v, err := tensor.Diagonal(x, o, d1, d2)
		if err != nil {
			return r.done(nil, err)
		}
		return v.Clone(), nil // a copy: gcdbg does not model writes through it
	})
	Register("repeat(self, *repeats)", KindOther, func(a Args) (Value, error) {
		r := &ar{a: a}
		x := r.t(0)
		reps, err := sizesArg(a, 1)
		if err != nil {
			return nil, err
		}
		return r.done(tensor.Repeat(x, reps))
	})
	Register("fill(self, value)", KindCreation, func(a Args) (Value, error) {
		r := &ar{a: a}
		x, v := r.t(0), r.f(1)
		if r.err != nil {
			return nil, r.err
		}
		return r.done(tensor.Full(x.Shape, v, x.DType))
	})
	Register("empty(*size, dtype=None, layout=None, device=None, pin_memory=None, memory_format=None, requires_grad=False)", KindCreation, func(a Args) (Value, error) {
		size, err := sizesArg(a, 0)
		if err != nil {
			return nil, err
		}
		dt, err := a.DType(1, tensor.Float32)
		if err != nil {
			return nil, err
		}
		return tensor.Zeros(size, dt) // uninitialized in PyTorch: zeros is one valid content
	})
	Register("empty_strided(size, stride, dtype=None, layout=None, device=None, pin_memory=None, requires_grad=False)", KindCreation, func(a Args) (Value, error) {
		size, err := a.Ints(0)
		if err != nil {
			return nil, err
		}
		dt, err := a.DType(2, tensor.Float32)
		if err != nil {
			return nil, err
		}
		return tensor.Zeros(size, dt)
	})
	sc := Register("scatter(self, dim, index, src=None, value=None, reduce=None)", KindIndex, func(a Args) (Value, error) {
		r := &ar{a: a}
		x, d, idx := r.t(0), r.i(1), r.t(2)
		var src *tensor.Tensor
		v := 0.0
		switch s := a.V[3].(type) {
		case *tensor.Tensor:
			src = s
		case nil:
			if a.V[4] == nil {
				return nil, a.errf(3, "scatter needs src or value")
			}
			v = r.f(4)
		default:
			v = r.f(3)
		}
		red := ""
		if a.V[5] != nil {
			red = r.s(5)
		}
		if r.err != nil {
			return nil, r.err
		}
		return r.done(tensor.Scatter(x, d, idx, src, v, red))
	})
	sc.Infer = inferScatterOp
	sr := Register("scatter_reduce(self, dim, index, src, reduce, include_self=True)", KindIndex, func(a Args) (Value, error) {
		r := &ar{a: a}
		x, d, idx, src, red, inc := r.t(0), r.i(1), r.t(2), r.t(3), r.s(4), r.b(5)
		if r.err != nil {
			return nil, r.err
		}
		return r.done(tensor.ScatterReduce(x, d, idx, src, red, inc))
	})
	sr.Infer = inferScatterOp
	MarkCore("aten.scatter")
	MarkCore("aten.scatter_reduce")
	Register("cdist(x1, x2, p=2.0, compute_mode=None)", KindOther, func(a Args) (Value, error) {
		r := &ar{a: a}
		return r.done(tensor.Cdist(r.t(0), r.t(1), r.f(2)))
	})
	Register("cosine_similarity(x1, x2, dim=1, eps=1e-08)", KindOther, func(a Args) (Value, error) {
		r := &ar{a: a}
		x1, x2, d, eps := r.t(0), r.t(1), r.i(2), r.f(3)
		if r.err != nil {
			return nil, r.err
		}
		return r.done(CosineSimilarity(x1, x2, d, eps))
	})
	Register("normalize(input, p=2.0, dim=1, eps=1e-12, out=None)", KindOther, func(a Args) (Value, error) {
		r := &ar{a: a}
		x, p, d, eps := r.t(0), r.f(1), r.i(2), r.f(3)
		if a.V[4] != nil {
			return nil, a.errf(4, "out= is not supported")
		}
		if r.err != nil {
			return nil, r.err
		}
		n, err := tensor.VectorNorm(x, p, []int{d}, true)
		if err != nil {
			return r.done(nil, err)
		}
		return r.done(tensor.MapFloat("normalize", func(v []float64) float64 { return v[0] / math.Max(v[1], eps) }, x, n))
	})
	Register("take_along_dim(self, indices, dim=None)", KindIndex, func(a Args) (Value, error) {
		r := &ar{a: a}
		x, idx := r.t(0), r.t(1)
		if r.err != nil {
			return nil, r.err
		}
		if a.V[2] == nil {
			fx, err := tensor.Reshape(x, []int{x.Numel()})
			if err != nil {
				return nil, err
			}
			fi, err := tensor.Reshape(idx, []int{idx.Numel()})
			if err != nil {
				return nil, err
			}
			return r.done(tensor.Gather(fx, 0, fi))
		}
		d := r.i(2)
		if r.err != nil {
			return nil, r.err
		}
		xb, ib, err := broadcastExcept(x, idx, d)
		if err != nil {
			return nil, err
		}
		return r.done(tensor.Gather(xb, d, ib))
	})
	Register("scaled_dot_product_attention(query, key, value, attn_mask=None, dropout_p=0.0, is_causal=False, scale=None)", KindOther, func(a Args) (Value, error) {
		r := &ar{a: a}
		q, k, v, m := r.t(0), r.t(1), r.t(2), r.ot(3)
		p, causal := r.f(4), r.b(5)
		sc := r.of(6)
		if r.err != nil {
			return nil, r.err
		}
		if p != 0 {
			return nil, a.errf(4, "dropout_p=%g draws random numbers inside the op (not recorded): not supported by gcdbg, which runs attention without dropout only", p)
		}
		out, _, err := SDPA(q, k, v, m, causal, sc)
		return r.done(out, err)
	})
	// PyTorch 1.13's private form (torch._C._nn._scaled_dot_product_attention,
	// its OpInfo): the output and the attention weights, the weights whatever
	// need_attn_weights says.
	Register("_scaled_dot_product_attention(query, key, value, attn_mask=None, dropout_p=0.0, need_attn_weights=False, is_causal=False)", KindOther, func(a Args) (Value, error) {
		r := &ar{a: a}
		q, k, v, m := r.t(0), r.t(1), r.t(2), r.ot(3)
		p, causal := r.f(4), r.b(6)
		if r.err != nil {
			return nil, r.err
		}
		if p != 0 {
			return nil, a.errf(4, "dropout_p=%g draws random numbers inside the op (not recorded): not supported by gcdbg, which runs attention without dropout only", p)
		}
		out, w, err := SDPA(q, k, v, m, causal, nil)
		if err != nil {
			return nil, err
		}
		return Tuple{out, w}, nil
	})
}

// sizesArg reads a variadic size argument: (2, 3), ([2, 3],) or ((2, 3),).
func sizesArg(a Args, i int) ([]int, error) {
	if t, ok := a.V[i].(Tuple); ok && len(t) == 1 {
		if l, ok := t[0].(List); ok {
			return Args{Op: a.Op, V: []Value{Tuple(l)}}.Ints(0)
		}
	}
	return a.Ints(i)
}

// broadcastExcept broadcasts x and idx against each other in every dim but d.
func broadcastExcept(x, idx *tensor.Tensor, d int) (*tensor.Tensor, *tensor.Tensor, error) {
	if x.Dim() != idx.Dim() {
		return nil, nil, fmt.Errorf("torch.take_along_dim(): input and indices should have the same number of dimensions, but got %d and %d", x.Dim(), idx.Dim())
	}
	dd, err := tensor.NormDim(d, x.Dim())
	if err != nil {
		return nil, nil, err
	}
	xs, is := append([]int{}, x.Shape...), append([]int{}, idx.Shape...)
	xs[dd], is[dd] = 1, 1
	bs, err := tensor.BroadcastShapes(xs, is)
	if err != nil {
		return nil, nil, err
	}
	xt, it := append([]int{}, bs...), append([]int{}, bs...)
	xt[dd], it[dd] = x.Shape[dd], idx.Shape[dd]
	xb, err := tensor.Expand(x, xt)
	if err != nil {
		return nil, nil, err
	}
	ib, err := tensor.Expand(idx, it)
	if err != nil {
		return nil, nil, err
	}
	return xb, ib, nil
}

// PixelShuffle rearranges [N, C*r*r, H, W] to [N, C, H*r, W*r] (or back).
func PixelShuffle(x *tensor.Tensor, r int, unshuffle bool) (*tensor.Tensor, error) {
	if x.Dim() < 3 || r <= 0 {
		return nil, fmt.Errorf("pixel_shuffle expects input to have at least 3 dimensions and a positive factor, got %v and %d", x.Shape, r)
	}
	n := x.Dim()
	lead := x.Shape[:n-3]
	c, h, w := x.Shape[n-3], x.Shape[n-2], x.Shape[n-1]
	var view, perm, out []int
	nl := len(lead)
	if !unshuffle {
		if c%(r*r) != 0 {
			return nil, fmt.Errorf("pixel_shuffle expects its input's 'channel' dimension to be divisible by the square of upscale_factor, but input.size(-3)=%d is not divisible by %d", c, r*r)
		}
		view = append(append([]int{}, lead...), c/(r*r), r, r, h, w)
		perm = []int{0, 3, 1, 4, 2}
		out = append(append([]int{}, lead...), c/(r*r), h*r, w*r)
	} else {
		if h%r != 0 || w%r != 0 {
			return nil, fmt.Errorf("pixel_unshuffle expects height and width to be divisible by downscale_factor, got %d and %d for %d", h, w, r)
		}
		view = append(append([]int{}, lead...), c, h/r, r, w/r, r)
		perm = []int{0, 2, 4, 1, 3}
		out = append(append([]int{}, lead...), c*r*r, h/r, w/r)
	}
	full := make([]int, 0, n+2)
	for i := 0; i < nl; i++ {
		full = append(full, i)
	}
	for _, p := range perm {
		full = append(full, nl+p)
	}
	v, err := tensor.Reshape(x, view)
	if err != nil {
		return nil, err
	}
	p, err := tensor.Permute(v, full)
	if err != nil {
		return nil, err
	}
	return tensor.Reshape(p.Contiguous(), out)
}

// CosineSimilarity is F.cosine_similarity: sum(x1*x2) / sqrt(max(|x1|² * |x2|², eps²)).
func CosineSimilarity(x1, x2 *tensor.Tensor, dim int, eps float64) (*tensor.Tensor, error) {
	prod, err := tensor.MapFloat("cosine_similarity", func(v []float64) float64 { return v[0] * v[1] }, x1, x2)
	if err != nil {
		return nil, err
	}
	sq := func(t *tensor.Tensor) (*tensor.Tensor, error) {
		s, err := tensor.MapFloat("cosine_similarity", func(v []float64) float64 { return v[0] * v[0] }, t)
		if err != nil {
			return nil, err
		}
		b, err := s.BroadcastTo(prod.Shape)
		if err != nil {
			return nil, err
		}
		return tensor.Sum(b, []int{dim}, false)
	}
	w12, err := tensor.Sum(prod, []int{dim}, false)
	if err != nil {
		return nil, err
	}
	n1, err := sq(x1)
	if err != nil {
		return nil, err
	}
	n2, err := sq(x2)
	if err != nil {
		return nil, err
	}
	return tensor.MapFloat("cosine_similarity", func(v []float64) float64 {
		return v[0] / math.Sqrt(math.Max(v[1]*v[2], eps*eps))
	}, w12, n1, n2)
}

// SDPA is scaled_dot_product_attention without dropout:
// softmax(q @ kᵀ * scale + mask) @ v, mask boolean (True keeps) or additive;
// it returns the softmax weights too.
func SDPA(q, k, v, mask *tensor.Tensor, causal bool, scale *float64) (*tensor.Tensor, *tensor.Tensor, error) {
	if q.Dim() < 2 || k.Dim() < 2 || v.Dim() < 2 {
		return nil, nil, fmt.Errorf("scaled_dot_product_attention: expected at least 2-D query, key and value")
	}
	e := q.Shape[q.Dim()-1]
	s := 1 / math.Sqrt(float64(e))
	if scale != nil {
		s = *scale
	}
	kt, err := tensor.Transpose(k, -2, -1)
	if err != nil {
		return nil, nil, err
	}
	att, err := tensor.Matmul(q, kt)
	if err != nil {
		return nil, nil, err
	}
	att, err = tensor.MapFloat("sdpa", func(x []float64) float64 { return x[0] * s }, att)
	if err != nil {
		return nil, nil, err
	}
	L, S := q.Shape[q.Dim()-2], k.Shape[k.Dim()-2]
	if causal {
		if mask != nil {
			return nil, nil, fmt.Errorf("scaled_dot_product_attention: explicit attn_mask should not be set when is_causal=True")
		}
		keep := make([]int64, L*S)
		for i := 0; i < L; i++ {
			for j := 0; j <= i && j < S; j++ {
				keep[i*S+j] = 1
			}
		}
		mask = tensor.FromInts(tensor.Bool, []int{L, S}, keep)
	}
	if mask != nil {
		if mask.DType == tensor.Bool {
			att, err = tensor.MapFloat("sdpa", func(x []float64) float64 {
				if x[1] != 0 {
					return x[0]
				}
				return math.Inf(-1)
			}, att, mask.To(att.DType))
		} else {
			att, err = tensor.MapFloat("sdpa", func(x []float64) float64 { return x[0] + x[1] }, att, mask)
		}
		if err != nil {
			return nil, nil, err
		}
	}
	p, err := tensor.Softmax(att, -1)
	if err != nil {
		return nil, nil, err
	}
	out, err := tensor.Matmul(p, v)
	return out, p, err
}

// inferScatterOp is scatter's and scatter_reduce's inference: a fresh
// row-major copy of self. (Not by example: an example index filled with
// ones is out of bounds wherever self's dim has size 1.) Index values are
// checked when the op runs.
func inferScatterOp(a Args) (Value, error) {
	x, err := a.meta(0)
	if err != nil {
		return nil, err
	}
	idx, err := a.meta(2)
	if err != nil {
		return nil, err
	}
	if idx.DType != tensor.Int64 {
		return nil, fmt.Errorf("%s(): Expected dtype int64 for index", a.Op.Schema.Name)
	}
	if max(len(idx.Shape), 1) != max(len(x.Shape), 1) {
		return nil, fmt.Errorf("Index tensor must have the same number of dimensions as self tensor")
	}
	if src, ok := a.V[3].(*TensorMeta); ok {
		if max(len(src.Shape), 1) != max(len(x.Shape), 1) {
			return nil, fmt.Errorf("Index tensor must have the same number of dimensions as src tensor")
		}
		if src.DType != x.DType {
			return nil, fmt.Errorf("%s(): Expected self.dtype to be equal to src.dtype", a.Op.Schema.Name)
		}
	}
	return contig(x.DType, x.Shape.Sizes()), nil
}
