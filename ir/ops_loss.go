package ir

import (
	"fmt"
	"math"
	"slices"

	"gcdbg/tensor"
)

// Losses and misc torch.nn.functional ops taken by OpInfo conformance:
// gaussian_nll_loss, F.unfold (im2col). Their decompositions are in
// stages/decomp_loss.go; semantics follow torch/nn/functional.py and
// ATen (1.13).

// GaussianNLLVar is the shape var takes in gaussian_nll_loss: var itself
// when it has input's shape; with input's shape minus the last dim it
// gains a trailing 1 (homoscedastic); with a trailing 1 in place of
// input's last dim it is kept. unsqueeze says that a 1 is added.
func GaussianNLLVar(input, v []int) (unsqueeze bool, err error) {
	if slices.Equal(input, v) {
		return false, nil
	}
	if len(input) > 0 && slices.Equal(input[:len(input)-1], v) {
		return true, nil
	}
	if len(input) > 0 && len(v) > 0 && slices.Equal(input[:len(input)-1], v[:len(v)-1]) && v[len(v)-1] == 1 {
		return false, nil
	}
	return false, fmt.Errorf("var is of incorrect size")
}

// Im2colShape is F.unfold's sliding-block count per spatial dim for an
// input of spatial size h, w; an error as ATen's when a block count is
// below one.
func Im2colShape(h, w int, k, d, p, s [2]int) (oh, ow int, err error) {
	for i, v := range [][2]int{k, d, s} {
		if v[0] <= 0 || v[1] <= 0 {
			return 0, 0, fmt.Errorf("im2col: %s should be greater than zero, but got %v", []string{"kernel size", "dilation", "stride"}[i], v)
		}
	}
	if p[0] < 0 || p[1] < 0 {
		return 0, 0, fmt.Errorf("im2col: padding should be non-negative, but got %v", p)
	}
	oh = (h+2*p[0]-(d[0]*(k[0]-1)+1))/s[0] + 1
	ow = (w+2*p[1]-(d[1]*(k[1]-1)+1))/s[1] + 1
	if h+2*p[0]-(d[0]*(k[0]-1)+1) < 0 || w+2*p[1]-(d[1]*(k[1]-1)+1) < 0 || oh < 1 || ow < 1 {
		return 0, 0, fmt.Errorf("Given input with spatial size (%d, %d), kernel_size=%v, dilation=%v, padding=%v, calculated shape of the array of sliding blocks as (%d, %d), but its components must be at least one", h, w, k, d, p, oh, ow)
	}
	return oh, ow, nil
}

func im2colArgs(a Args) (k, d, p, s [2]int, err error) {
	for i, dst := range []*[2]int{&k, &d, &p, &s} {
		if *dst, err = pair(a, i+1); err != nil {
			return
		}
	}
	return
}

func init() {
	Register("gaussian_nll_loss(input, target, var, full=False, eps=1e-06, reduction='mean')", KindLoss, func(a Args) (Value, error) {
		r := &ar{a: a}
		x, t, v, full, eps := r.t(0), r.t(1), r.t(2), r.b(3), r.f(4)
		if r.err != nil {
			return nil, r.err
		}
		un, err := GaussianNLLVar(x.Shape, v.Shape)
		if err != nil {
			return nil, err
		}
		if un {
			if v, err = tensor.Unsqueeze(v, -1); err != nil {
				return nil, err
			}
		}
		if red, ok := a.V[5].(string); ok && red != "none" && red != "mean" && red != "sum" {
			return nil, fmt.Errorf("%s is not valid", red)
		}
		neg := false
		if _, err := tensor.MapFloat("gaussian_nll_loss", func(w []float64) float64 {
			neg = neg || w[0] < 0
			return 0
		}, v); err != nil {
			return nil, err
		}
		if neg {
			return nil, fmt.Errorf("var has negative entry/entries")
		}
		l, err := tensor.MapFloat("gaussian_nll_loss", func(w []float64) float64 {
			vv := w[2]
			if vv < eps {
				vv = eps
			}
			d := w[0] - w[1]
			o := 0.5 * (math.Log(vv) + d*d/vv)
			if full {
				o += 0.5 * math.Log(2*math.Pi)
			}
			return o
		}, x, t, v)
		if err != nil {
			return nil, err
		}
		return reduceLoss(l, a.V[5])
	})
	Register("im2col(input, kernel_size, dilation=1, padding=0, stride=1)", KindOther, func(a Args) (Value, error) {
		r := &ar{a: a}
		x := r.t(0)
		if r.err != nil {
			return nil, r.err
		}
		k, d, p, s, err := im2colArgs(a)
		if err != nil {
			return nil, err
		}
		if x.Dim() != 3 && x.Dim() != 4 {
			return nil, fmt.Errorf("Expected 3D or 4D (batch mode) tensor for input with possibly 0 batch size and non-zero dimensions for input, but got: %v", x.Shape)
		}
		batched := x.Dim() == 4
		if !batched {
			if x, err = tensor.Unsqueeze(x, 0); err != nil {
				return nil, err
			}
		}
		n, c, h, w := x.Shape[0], x.Shape[1], x.Shape[2], x.Shape[3]
		oh, ow, err := Im2colShape(h, w, k, d, p, s)
		if err != nil {
			return nil, err
		}
		xp, err := tensor.Pad(x, []int{p[1], p[1], p[0], p[0]}, "constant", 0)
		if err != nil {
			return nil, err
		}
		var blocks []*tensor.Tensor
		for i := 0; i < k[0]; i++ {
			for j := 0; j < k[1]; j++ {
				r0, r1, rs := i*d[0], i*d[0]+(oh-1)*s[0]+1, s[0]
				c0, c1, cs := j*d[1], j*d[1]+(ow-1)*s[1]+1, s[1]
				bl, err := tensor.Slice(xp, 2, &r0, &r1, &rs)
				if err != nil {
					return nil, err
				}
				if bl, err = tensor.Slice(bl, 3, &c0, &c1, &cs); err != nil {
					return nil, err
				}
				blocks = append(blocks, bl)
			}
		}
		st, err := tensor.Stack(blocks, 2) // [n, c, kh*kw, oh, ow]
		if err != nil {
			return nil, err
		}
		out, err := tensor.Reshape(st, []int{n, c * k[0] * k[1], oh * ow})
		if err != nil || batched {
			return out, err
		}
		return tensor.Reshape(out, out.Shape[1:])
	})
}

// floatOperands takes integer operands to the default float dtype
// (float32) when no operand is floating: the losses and distances whose
// Python forms add a float scalar (margin, eps) or apply exp/log/tanh to
// integer tensors compute in float32 there. Mixed operands keep their
// dtypes (MapFloat promotes them).
func floatOperands(ts ...**tensor.Tensor) {
	ops := make([]tensor.Operand, len(ts))
	for i, t := range ts {
		ops[i] = (*t).Operand()
	}
	if tensor.ResultType(ops...).IsFloat() {
		return
	}
	for _, t := range ts {
		*t = (*t).To(tensor.Float32)
	}
}

// BilinearBatch checks F.bilinear's operands (x1 [.., I], x2 [.., J] with
// the same batch dims, weight [O, I, J], bias [O]) and returns the batch
// dims.
func BilinearBatch(x1, x2, w []int, bias []int, hasBias bool) ([]int, error) {
	if len(w) != 3 {
		return nil, fmt.Errorf("bilinear(): weight must be 3-dimensional, got %v", w)
	}
	if len(x1) == 0 || len(x1) != len(x2) || !slices.Equal(x1[:len(x1)-1], x2[:len(x2)-1]) {
		return nil, fmt.Errorf("bilinear(): input batch dimensions do not match: got %v and %v", x1, x2)
	}
	if x1[len(x1)-1] != w[1] || x2[len(x2)-1] != w[2] {
		return nil, fmt.Errorf("bilinear(): input sizes %v and %v do not match the weight %v", x1, x2, w)
	}
	if hasBias && (len(bias) != 1 || bias[0] != w[0]) {
		return nil, fmt.Errorf("bilinear(): bias size does not match weight size: got %v but expected [%d]", bias, w[0])
	}
	return x1[:len(x1)-1], nil
}

// CosineEmbeddingDim is the dim cosine_embedding_loss reduces: 1 for a
// 1-D target with 2-D inputs, 0 for a 0-d target with 1-D inputs.
func CosineEmbeddingDim(x1, x2, t []int) (int, error) {
	switch {
	case len(t) == 1 && len(x1) == 2 && len(x2) == 2:
		return 1, nil
	case len(t) == 0 && len(x1) == 1 && len(x2) == 1:
		return 0, nil
	case len(t) > 1:
		return 0, fmt.Errorf("0D or 1D target tensor expected, multi-target not supported")
	}
	return 0, fmt.Errorf("%dD target tensor expects %dD input tensors, but found inputs with sizes %v and %v", len(t), len(t)+1, x1, x2)
}

// CosineEmbeddingEps is ATen's EPSILON added to each squared magnitude.
const CosineEmbeddingEps = 1e-12

// NormDims are the trailing dims of an input of rank r that a norm over
// normalized_shape ns reduces; an error when ns does not match them.
func NormDims(xs, ns []int) ([]int, error) {
	if len(ns) == 0 || len(ns) > len(xs) || !slices.Equal(xs[len(xs)-len(ns):], ns) {
		return nil, fmt.Errorf("Given normalized_shape=%v, expected input with shape [*, %v], but got input of size %v", ns, ns, xs)
	}
	dims := make([]int, len(ns))
	for i := range dims {
		dims[i] = len(xs) - len(ns) + i
	}
	return dims, nil
}

// GroupNormCheck validates group_norm's input [N, C, *] against G groups.
func GroupNormCheck(xs []int, g int) error {
	if len(xs) < 2 {
		return fmt.Errorf("group_norm: expected an input of at least 2 dims [N, C, *], got %v", xs)
	}
	if g <= 0 || xs[1]%g != 0 {
		return fmt.Errorf("Expected number of channels in input to be divisible by num_groups, but got input of shape %v and num_groups=%d", xs, g)
	}
	return nil
}

func init() {
	Register("bilinear(input1, input2, weight, bias=None)", KindOther, func(a Args) (Value, error) {
		r := &ar{a: a}
		x1, x2, w, bias := r.t(0), r.t(1), r.t(2), r.ot(3)
		if r.err != nil {
			return nil, r.err
		}
		var bs []int
		if bias != nil {
			bs = bias.Shape
		}
		batch, err := BilinearBatch(x1.Shape, x2.Shape, w.Shape, bs, bias != nil)
		if err != nil {
			return nil, err
		}
		o, i, j, n := w.Shape[0], w.Shape[1], w.Shape[2], tensor.Numel(batch)
		// y[b, o] = sum_j (x1[b, :] @ W[:, o, j]) * x2[b, j]
		wp, err := tensor.Permute(w, []int{1, 0, 2})
		if err != nil {
			return nil, err
		}
		if wp, err = tensor.Reshape(wp, []int{i, o * j}); err != nil {
			return nil, err
		}
		x1f, err := tensor.Reshape(x1, []int{n, i})
		if err != nil {
			return nil, err
		}
		t, err := tensor.Mm(x1f, wp)
		if err != nil {
			return nil, err
		}
		if t, err = tensor.Reshape(t, []int{n, o, j}); err != nil {
			return nil, err
		}
		x2f, err := tensor.Reshape(x2, []int{n, 1, j})
		if err != nil {
			return nil, err
		}
		if t, err = tensor.Binary("mul", t, x2f); err != nil {
			return nil, err
		}
		if t, err = tensor.Sum(t, []int{2}, false); err != nil {
			return nil, err
		}
		if !x1.DType.IsFloat() {
			t = t.To(x1.DType) // PyTorch's _trilinear sums integers in their own dtype (wrapping)
		}
		if bias != nil {
			if t, err = tensor.Binary("add", t, bias); err != nil {
				return nil, err
			}
		}
		return tensor.Reshape(t, append(slices.Clone(batch), o))
	})
	Register("cosine_embedding_loss(input1, input2, target, margin=0.0, reduction='mean')", KindLoss, func(a Args) (Value, error) {
		r := &ar{a: a}
		x1, x2, t, m := r.t(0), r.t(1), r.t(2), r.f(3)
		if r.err != nil {
			return nil, r.err
		}
		d, err := CosineEmbeddingDim(x1.Shape, x2.Shape, t.Shape)
		if err != nil {
			return nil, err
		}
		sumProd := func(u, v *tensor.Tensor) (*tensor.Tensor, error) {
			p, err := tensor.Binary("mul", u, v)
			if err != nil {
				return nil, err
			}
			return tensor.Sum(p, []int{d}, false)
		}
		ps, err := sumProd(x1, x2)
		if err != nil {
			return nil, err
		}
		m1, err := sumProd(x1, x1)
		if err != nil {
			return nil, err
		}
		m2, err := sumProd(x2, x2)
		if err != nil {
			return nil, err
		}
		floatOperands(&ps, &m1, &m2, &t)
		l, err := tensor.MapFloat("cosine_embedding_loss", func(v []float64) float64 {
			c := v[0] / math.Sqrt((v[1]+CosineEmbeddingEps)*(v[2]+CosineEmbeddingEps))
			o := 0.0
			if v[3] == 1 {
				o += 1 - c
			}
			if v[3] == -1 {
				o += math.Max(c-m, 0)
			}
			return o
		}, ps, m1, m2, t)
		if err != nil {
			return nil, err
		}
		return reduceLoss(l, a.V[4])
	})
	Register("pdist(input, p=2)", KindOther, func(a Args) (Value, error) {
		r := &ar{a: a}
		x, p := r.t(0), r.f(1)
		if r.err != nil {
			return nil, r.err
		}
		if x.Dim() != 2 {
			return nil, fmt.Errorf("pdist only supports 2D tensors, got: %dD", x.Dim())
		}
		if p < 0 {
			return nil, fmt.Errorf("pdist only supports non-negative p values")
		}
		if !x.DType.IsFloat() {
			return nil, fmt.Errorf("pdist only supports floating-point dtypes")
		}
		n := x.Shape[0]
		parts := []*tensor.Tensor{}
		for i := 0; i+1 < n; i++ {
			xi, err := tensor.Narrow(x, 0, i, 1)
			if err != nil {
				return nil, err
			}
			rest, err := tensor.Narrow(x, 0, i+1, n-i-1)
			if err != nil {
				return nil, err
			}
			d, err := tensor.Binary("sub", xi, rest)
			if err != nil {
				return nil, err
			}
			parts = append(parts, d)
		}
		if len(parts) == 0 {
			e, err := tensor.Narrow(x, 0, 0, 0)
			if err != nil {
				return nil, err
			}
			parts = append(parts, e)
		}
		d, err := tensor.Cat(parts, 0)
		if err != nil {
			return nil, err
		}
		return tensor.VectorNorm(d, p, []int{-1}, false)
	})
	Register("native_layer_norm(input, normalized_shape, weight, bias, eps)", KindNorm, func(a Args) (Value, error) {
		r := &ar{a: a}
		x, ns, w, b, eps := r.t(0), r.ints(1), r.ot(2), r.ot(3), r.f(4)
		if r.err != nil {
			return nil, r.err
		}
		dims, err := NormDims(x.Shape, ns)
		if err != nil {
			return nil, err
		}
		out, err := tensor.LayerNorm(x, ns, w, b, eps)
		if err != nil {
			return nil, err
		}
		mean, err := tensor.Mean(x, dims, true)
		if err != nil {
			return nil, err
		}
		xc, err := tensor.Binary("sub", x, mean)
		if err != nil {
			return nil, err
		}
		if xc, err = tensor.Binary("mul", xc, xc); err != nil {
			return nil, err
		}
		v, err := tensor.Mean(xc, dims, true)
		if err != nil {
			return nil, err
		}
		rstd, err := tensor.MapFloat("native_layer_norm", func(e []float64) float64 { return 1 / math.Sqrt(e[0]+eps) }, v)
		if err != nil {
			return nil, err
		}
		return Tuple{out, mean, rstd}, nil
	})
	Register("group_norm(input, num_groups, weight=None, bias=None, eps=1e-05)", KindNorm, func(a Args) (Value, error) {
		r := &ar{a: a}
		x, g, w, b, eps := r.t(0), r.i(1), r.ot(2), r.ot(3), r.f(4)
		if r.err != nil {
			return nil, r.err
		}
		if err := GroupNormCheck(x.Shape, g); err != nil {
			return nil, err
		}
		k := tensor.Numel(x.Shape[1:]) / g
		y, err := tensor.Reshape(x, []int{x.Shape[0], g, k})
		if err != nil {
			return nil, err
		}
		if y, err = tensor.LayerNorm(y, []int{k}, nil, nil, eps); err != nil {
			return nil, err
		}
		if y, err = tensor.Reshape(y, x.Shape); err != nil {
			return nil, err
		}
		ps := make([]int, x.Dim()-1)
		for i := range ps {
			ps[i] = 1
		}
		ps[0] = x.Shape[1]
		for _, p := range []struct {
			t  *tensor.Tensor
			op string
		}{{w, "mul"}, {b, "add"}} {
			if p.t == nil {
				continue
			}
			pv, err := tensor.Reshape(p.t, ps)
			if err != nil {
				return nil, err
			}
			if y, err = tensor.Binary(p.op, y, pv); err != nil {
				return nil, err
			}
		}
		return y, nil
	})
	Register("multilabel_soft_margin_loss(input, target, weight=None, reduction='mean')", KindLoss, func(a Args) (Value, error) {
		r := &ar{a: a}
		x, t, w := r.t(0), r.t(1), r.ot(2)
		if r.err != nil {
			return nil, r.err
		}
		if x.Dim() == 0 {
			return nil, fmt.Errorf("multilabel_soft_margin_loss: expected an input of at least 1 dim")
		}
		ls := func(v float64) float64 { return math.Min(v, 0) - math.Log1p(math.Exp(-math.Abs(v))) }
		ts := []*tensor.Tensor{x, t}
		if w != nil {
			ts = append(ts, w)
		}
		l, err := tensor.MapFloat("multilabel_soft_margin_loss", func(v []float64) float64 {
			o := -(v[1]*ls(v[0]) + (1-v[1])*ls(-v[0]))
			if len(v) > 2 {
				o *= v[2]
			}
			return o
		}, ts...)
		if err != nil {
			return nil, err
		}
		cd := x.Dim() - 1
		if l, err = tensor.Sum(l, []int{cd}, false); err != nil {
			return nil, err
		}
		if l, err = tensor.Binary("div", l, tensor.PyNumber(int64(x.Shape[cd]))); err != nil {
			return nil, err
		}
		return reduceLoss(l, a.V[3])
	})
}

// MultiMarginShape checks multi_margin_loss's input (0-d, [C] or [N, C])
// and target ([], [1] or [N]) and returns the frames and classes.
func MultiMarginShape(xs, ts []int) (frames, classes int, err error) {
	if len(xs) > 2 {
		return 0, 0, fmt.Errorf("multi_margin_loss: expected non-empty vector or matrix with optional 0-dim batch size, but got: %v", xs)
	}
	frames, classes = 1, 1
	switch len(xs) {
	case 1:
		classes = xs[0]
	case 2:
		frames, classes = xs[0], xs[1]
	}
	if len(ts) > 1 || tensor.Numel(ts) != frames || classes == 0 {
		return 0, 0, fmt.Errorf("inconsistent target size: %v for input of size: %v", ts, xs)
	}
	return frames, classes, nil
}

func init() {
	mm := Register("multi_margin_loss(input, target, p=1, margin=1, weight=None, reduction='mean')", KindLoss, func(a Args) (Value, error) {
		r := &ar{a: a}
		x, t, p, m, w := r.t(0), r.t(1), r.i(2), r.f(3), r.ot(4)
		if r.err != nil {
			return nil, r.err
		}
		if p != 1 && p != 2 {
			return nil, fmt.Errorf("only p == 1 and p == 2 supported")
		}
		if w != nil && w.Dim() != 1 {
			return nil, fmt.Errorf("weight must be one-dimensional")
		}
		if t.DType != tensor.Int64 {
			return nil, a.errf(1, "expected an int64 target, got %s", t.DType)
		}
		frames, classes, err := MultiMarginShape(x.Shape, t.Shape)
		if err != nil {
			return nil, err
		}
		xv, tv := x.Contiguous().Floats(), t.Contiguous().Ints()
		var wv []float64
		if w != nil {
			wv = w.Contiguous().Floats()
		}
		out := make([]float64, frames)
		for f := range out {
			y := int(tv[f])
			if y < 0 || y >= classes {
				return nil, fmt.Errorf("target out of range")
			}
			s := 0.0
			for i := 0; i < classes; i++ {
				z := m - xv[f*classes+y] + xv[f*classes+i]
				if i == y || !(z > 0) {
					continue
				}
				if p == 2 {
					z *= z
				}
				if wv != nil {
					z *= wv[y]
				}
				s += z
			}
			out[f] = s / float64(classes)
		}
		shape := []int{}
		if len(t.Shape) > 0 {
			shape = []int{frames}
		}
		return reduceLoss(tensor.FromFloats(x.DType, shape, out), a.V[5])
	})
	mm.Infer = marginLossInfer(MultiMarginShape, 5, 0)
}

func init() {
	registerInplace("threshold") // F.threshold(x, t, v, inplace=True), F.threshold_
}

// MultilabelMarginShape checks multilabel_margin_loss's input (0-d, [C] or
// [N, C]) and target (the input's shape) and returns the frames and
// classes.
func MultilabelMarginShape(xs, ts []int) (frames, classes int, err error) {
	if len(xs) > 2 || !slices.Equal(xs, ts) && !(len(xs) == 0 && tensor.Numel(ts) == 1) {
		return 0, 0, fmt.Errorf("inconsistent target size: %v for input of size: %v", ts, xs)
	}
	frames, classes = 1, 1
	switch len(xs) {
	case 1:
		classes = xs[0]
	case 2:
		frames, classes = xs[0], xs[1]
	}
	return frames, classes, nil
}

func init() {
	ml := Register("multilabel_margin_loss(input, target, reduction='mean')", KindLoss, func(a Args) (Value, error) {
		r := &ar{a: a}
		x, t := r.t(0), r.t(1)
		if r.err != nil {
			return nil, r.err
		}
		if !x.DType.IsFloat() || t.DType != tensor.Int64 {
			return nil, fmt.Errorf("multilabel_margin_loss: expected a floating input and an int64 target, got %s and %s", x.DType, t.DType)
		}
		frames, classes, err := MultilabelMarginShape(x.Shape, t.Shape)
		if err != nil {
			return nil, err
		}
		xv, tv := x.Contiguous().Floats(), t.Contiguous().Ints()
		out := make([]float64, frames)
		for f := range out {
			row, tr := xv[f*classes:(f+1)*classes], tv[f*classes:(f+1)*classes]
			isTarget := make([]bool, classes)
			for _, y := range tr {
				if y < 0 {
					break
				}
				if y >= int64(classes) {
					return nil, fmt.Errorf("multilabel_margin_loss: target index %d is out of bounds for %d classes", y, classes)
				}
				isTarget[y] = true
			}
			s := 0.0
			for _, y := range tr {
				if y < 0 {
					break
				}
				for d := range row {
					if z := 1 - row[y] + row[d]; !isTarget[d] && z > 0 {
						s += z
					}
				}
			}
			out[f] = s / float64(classes)
		}
		shape := []int{}
		if len(t.Shape) > 1 {
			shape = []int{frames}
		}
		return reduceLoss(tensor.FromFloats(x.DType, shape, out), a.V[2])
	})
	ml.Infer = marginLossInfer(MultilabelMarginShape, 2, 1)
}

// marginLossInfer infers multi_margin_loss and multilabel_margin_loss by
// shapes (an example target of ones can be out of range): a float input,
// an int64 target; with reduction "none" [frames] when the target has
// more than minDim dims, else a scalar.
func marginLossInfer(shapes func(xs, ts []int) (int, int, error), red, minDim int) EvalFunc {
	return func(a Args) (Value, error) {
		x, err := a.meta(0)
		if err != nil {
			return nil, err
		}
		t, err := a.meta(1)
		if err != nil {
			return nil, err
		}
		frames, _, err := shapes(x.Shape.Sizes(), t.Shape.Sizes())
		if err != nil {
			return nil, err
		}
		if !x.DType.IsFloat() || t.DType != tensor.Int64 {
			return nil, fmt.Errorf("%s: expected a floating input and an int64 target, got %s and %s", a.Op.Name, x.DType, t.DType)
		}
		shape := []int{}
		if r, _ := a.V[red].(string); (r == "none" || a.V[red] == int64(0)) && len(t.Shape) > minDim {
			shape = []int{frames}
		}
		return contig(x.DType, shape), nil
	}
}
