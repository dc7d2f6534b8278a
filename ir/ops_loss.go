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
