package ir

import (
	"gcdbg/tensor"
)

// Reductions, normalizations, matmul-like ops, convolution, pooling,
// embedding and losses.

func init() {
	for _, name := range []string{"sum", "mean", "prod"} {
		op := name
		Register(op+"(self, dim=None, keepdim=False, dtype=None)", KindReduction, func(a Args) (Value, error) {
			x, err := a.Tensor(0)
			if err != nil {
				return nil, err
			}
			dims, err := a.OptInts(1)
			if err != nil {
				return nil, err
			}
			keep, err := a.Bool(2)
			if err != nil {
				return nil, err
			}
			dt, err := a.DType(3, tensor.Invalid)
			if err != nil {
				return nil, err
			}
			if dt != tensor.Invalid {
				x = x.To(dt)
			}
			r, err := tensor.Reduce(op, x, dims, keep)
			if err == nil && dt != tensor.Invalid && r.DType != dt {
				// dtype= is the result's dtype: sum(int8 x, dtype=int32) is int32,
				// prod(bool x, dtype=bool) bool (integer accumulation in int64 wraps to it)
				r = r.To(dt)
			}
			return r, err
		})
	}
	for _, name := range []string{"amax", "amin", "any", "all"} {
		op := name
		Register(op+"(self, dim=[], keepdim=False)", KindReduction, func(a Args) (Value, error) {
			x, err := a.Tensor(0)
			if err != nil {
				return nil, err
			}
			dims, err := a.OptInts(1)
			if err != nil {
				return nil, err
			}
			keep, err := a.Bool(2)
			if err != nil {
				return nil, err
			}
			return tensor.Reduce(op, x, dims, keep)
		})
	}
	// max/min: torch.max(x) is a value, torch.max(x, dim) a (values, indices)
	// pair, torch.max(x, y) is maximum.
	for _, name := range []string{"max", "min"} {
		op := name
		Register(op+"(self, dim=None, keepdim=False)", KindReduction, func(a Args) (Value, error) {
			x, err := a.Tensor(0)
			if err != nil {
				return nil, err
			}
			if y, ok := a.V[1].(*tensor.Tensor); ok {
				return tensor.Binary(map[string]string{"max": "maximum", "min": "minimum"}[op], x, y)
			}
			if a.V[1] == nil {
				return tensor.Reduce("a"+op, x, nil, false)
			}
			d, err := a.Int(1)
			if err != nil {
				return nil, err
			}
			keep, err := a.Bool(2)
			if err != nil {
				return nil, err
			}
			v, err := tensor.Reduce("a"+op, x, []int{d}, keep)
			if err != nil {
				return nil, err
			}
			if x.DType == tensor.Bool {
				x = x.To(tensor.Uint8) // max/min(dim) take bool, argmax/argmin do not: the same order
			}
			var idx *tensor.Tensor
			if op == "max" {
				idx, err = tensor.Argmax(x, &d, keep)
			} else {
				idx, err = tensor.Argmin(x, &d, keep)
			}
			return Tuple{v, idx}, err
		})
	}
	for _, name := range []string{"var", "std"} {
		op := name
		Register(op+"(self, dim=None, unbiased=None, keepdim=False, correction=None)", KindReduction, func(a Args) (Value, error) {
			x, err := a.Tensor(0)
			if err != nil {
				return nil, err
			}
			dims, err := a.OptInts(1)
			if err != nil {
				return nil, err
			}
			corr := 1.0
			if a.V[2] != nil {
				ub, err := a.Bool(2)
				if err != nil {
					return nil, err
				}
				if !ub {
					corr = 0
				}
			}
			if a.V[4] != nil {
				if corr, err = a.Float(4); err != nil {
					return nil, err
				}
			}
			keep, err := a.Bool(3)
			if err != nil {
				return nil, err
			}
			if op == "var" {
				return tensor.Var(x, dims, corr, keep)
			}
			return tensor.Std(x, dims, corr, keep)
		})
	}
	for _, name := range []string{"argmax", "argmin"} {
		op := name
		Register(op+"(self, dim=None, keepdim=False)", KindReduction, func(a Args) (Value, error) {
			x, err := a.Tensor(0)
			if err != nil {
				return nil, err
			}
			d, err := a.OptInt(1)
			if err != nil {
				return nil, err
			}
			keep, err := a.Bool(2)
			if err != nil {
				return nil, err
			}
			if op == "argmax" {
				return tensor.Argmax(x, d, keep)
			}
			return tensor.Argmin(x, d, keep)
		})
	}
	for _, name := range []string{"softmax", "log_softmax"} {
		op := name
		Register(op+"(self, dim, dtype=None)", KindReduction, func(a Args) (Value, error) {
			x, err := a.Tensor(0)
			if err != nil {
				return nil, err
			}
			d, err := a.Int(1)
			if err != nil {
				return nil, err
			}
			dt, err := a.DType(2, tensor.Invalid)
			if err != nil {
				return nil, err
			}
			if dt != tensor.Invalid {
				x = x.To(dt)
			}
			if op == "softmax" {
				return tensor.Softmax(x, d)
			}
			return tensor.LogSoftmax(x, d)
		})
	}
	Register("layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-05)", KindNorm, func(a Args) (Value, error) {
		x, err := a.Tensor(0)
		if err != nil {
			return nil, err
		}
		ns, err := a.Ints(1)
		if err != nil {
			return nil, err
		}
		w, err := a.OptTensor(2)
		if err != nil {
			return nil, err
		}
		b, err := a.OptTensor(3)
		if err != nil {
			return nil, err
		}
		eps, err := a.Float(4)
		if err != nil {
			return nil, err
		}
		return tensor.LayerNorm(x, ns, w, b, eps)
	})
	Register("batch_norm(input, running_mean, running_var, weight=None, bias=None, training=False, momentum=0.1, eps=1e-05)", KindNorm, func(a Args) (Value, error) {
		x, err := a.Tensor(0)
		if err != nil {
			return nil, err
		}
		var ts [4]*tensor.Tensor
		for i := range ts {
			if ts[i], err = a.OptTensor(i + 1); err != nil {
				return nil, err
			}
		}
		if tr, _ := a.Bool(5); tr {
			return nil, a.errf(5, "batch_norm in training mode updates running statistics; gcdbg runs it in eval mode only (call model.eval() before exporting)")
		}
		if ts[0] == nil || ts[1] == nil {
			return nil, a.errf(1, "batch_norm in eval mode needs running_mean and running_var")
		}
		eps, err := a.Float(7)
		if err != nil {
			return nil, err
		}
		return tensor.BatchNormEval(x, ts[0], ts[1], ts[2], ts[3], eps)
	})
	Register("linear(input, weight, bias=None)", KindMatmul, func(a Args) (Value, error) {
		x, err := a.Tensor(0)
		if err != nil {
			return nil, err
		}
		w, err := a.Tensor(1)
		if err != nil {
			return nil, err
		}
		b, err := a.OptTensor(2)
		if err != nil {
			return nil, err
		}
		return tensor.Linear(x, w, b)
	})
	for _, name := range []string{"matmul", "mm", "bmm"} {
		op := name
		Register(op+"(self, other)", KindMatmul, func(a Args) (Value, error) {
			x, err := a.Tensor(0)
			if err != nil {
				return nil, err
			}
			y, err := a.Tensor(1)
			if err != nil {
				return nil, err
			}
			switch op {
			case "mm":
				return tensor.Mm(x, y)
			case "bmm":
				return tensor.Bmm(x, y)
			}
			return tensor.Matmul(x, y)
		})
	}
	for _, name := range []string{"addmm", "baddbmm"} {
		op := name
		Register(op+"(self, mat1, mat2, beta=1, alpha=1)", KindMatmul, func(a Args) (Value, error) {
			var ts [3]*tensor.Tensor
			var err error
			for i := range ts {
				if ts[i], err = a.Tensor(i); err != nil {
					return nil, err
				}
			}
			beta, err := a.Float(3)
			if err != nil {
				return nil, err
			}
			alpha, err := a.Float(4)
			if err != nil {
				return nil, err
			}
			if op == "addmm" {
				return tensor.Addmm(ts[0], ts[1], ts[2], beta, alpha)
			}
			return tensor.Baddbmm(ts[0], ts[1], ts[2], beta, alpha)
		})
	}
	Register("conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1)", KindConv, func(a Args) (Value, error) {
		x, err := a.Tensor(0)
		if err != nil {
			return nil, err
		}
		w, err := a.Tensor(1)
		if err != nil {
			return nil, err
		}
		b, err := a.OptTensor(2)
		if err != nil {
			return nil, err
		}
		stride, err := pair(a, 3)
		if err != nil {
			return nil, err
		}
		dil, err := pair(a, 5)
		if err != nil {
			return nil, err
		}
		groups, err := a.Int(6)
		if err != nil {
			return nil, err
		}
		if mode, ok := a.V[4].(string); ok {
			return tensor.Conv2dPadMode(x, w, b, stride, mode, dil, groups)
		}
		pad, err := pair(a, 4)
		if err != nil {
			return nil, err
		}
		return tensor.Conv2d(x, w, b, stride, pad, dil, groups)
	})
	Register("max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False)", KindPool, func(a Args) (Value, error) {
		x, err := a.Tensor(0)
		if err != nil {
			return nil, err
		}
		k, err := pair(a, 1)
		if err != nil {
			return nil, err
		}
		stride := k
		if a.V[2] != nil {
			if l, ok := a.V[2].(Tuple); !ok || len(l) > 0 { // stride=[] means kernel_size
				if stride, err = pair(a, 2); err != nil {
					return nil, err
				}
			}
		}
		pad, err := pair(a, 3)
		if err != nil {
			return nil, err
		}
		dil, err := pair(a, 4)
		if err != nil {
			return nil, err
		}
		ceil, err := a.Bool(5)
		if err != nil {
			return nil, err
		}
		if ri, _ := a.Bool(6); ri {
			return nil, a.errf(6, "return_indices=True is not supported")
		}
		return tensor.MaxPool2d(x, k, stride, pad, dil, ceil)
	})
	Register("avg_pool2d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True, divisor_override=None)", KindPool, func(a Args) (Value, error) {
		x, err := a.Tensor(0)
		if err != nil {
			return nil, err
		}
		k, err := pair(a, 1)
		if err != nil {
			return nil, err
		}
		stride := k
		if a.V[2] != nil {
			if l, ok := a.V[2].(Tuple); !ok || len(l) > 0 {
				if stride, err = pair(a, 2); err != nil {
					return nil, err
				}
			}
		}
		pad, err := pair(a, 3)
		if err != nil {
			return nil, err
		}
		ceil, err := a.Bool(4)
		if err != nil {
			return nil, err
		}
		cip, err := a.Bool(5)
		if err != nil {
			return nil, err
		}
		div := 0
		if a.V[6] != nil {
			if div, err = a.Int(6); err != nil {
				return nil, err
			}
		}
		return tensor.AvgPool2d(x, k, stride, pad, ceil, cip, div)
	})
	Register("adaptive_avg_pool2d(input, output_size)", KindPool, func(a Args) (Value, error) {
		x, err := a.Tensor(0)
		if err != nil {
			return nil, err
		}
		out, err := pair(a, 1)
		if err != nil {
			return nil, err
		}
		return tensor.AdaptiveAvgPool2d(x, out)
	})
	Register("embedding(input, weight, padding_idx=None, max_norm=None, norm_type=2.0)", KindIndex, func(a Args) (Value, error) {
		idx, err := a.Tensor(0)
		if err != nil {
			return nil, err
		}
		w, err := a.Tensor(1)
		if err != nil {
			return nil, err
		}
		pad := -1
		if a.V[2] != nil {
			if pad, err = a.Int(2); err != nil {
				return nil, err
			}
		}
		if a.V[3] != nil { // max_norm: the looked-up rows as embedding_renorm_ leaves them
			mn, err := a.Float(3)
			if err != nil {
				return nil, err
			}
			p, err := a.Float(4)
			if err != nil {
				return nil, err
			}
			if w, err = tensor.EmbeddingRenorm(w, idx, mn, p); err != nil {
				return nil, err
			}
		}
		return tensor.Embedding(w, idx, pad)
	})
	Register("dropout(input, p=0.5, training=True, inplace=False)", KindPointwise, func(a Args) (Value, error) {
		x, err := a.Tensor(0)
		if err != nil {
			return nil, err
		}
		p, err := a.Float(1)
		if err != nil {
			return nil, err
		}
		tr, err := a.Bool(2)
		if err != nil {
			return nil, err
		}
		return tensor.Dropout(x, p, tr)
	})
	Register("nll_loss(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None, reduction='mean')", KindLoss, func(a Args) (Value, error) {
		return loss(a, false)
	})
	Register("cross_entropy(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None, reduction='mean', label_smoothing=0.0)", KindLoss, func(a Args) (Value, error) {
		return loss(a, true)
	})
}

func loss(a Args, ce bool) (Value, error) {
	x, err := a.Tensor(0)
	if err != nil {
		return nil, err
	}
	t, err := a.Tensor(1)
	if err != nil {
		return nil, err
	}
	w, err := a.OptTensor(2)
	if err != nil {
		return nil, err
	}
	if a.V[3] != nil || a.V[5] != nil {
		return nil, a.errf(3, "size_average and reduce are deprecated; use reduction")
	}
	ign, err := a.Int(4)
	if err != nil {
		return nil, err
	}
	red, err := a.Str(6)
	if err != nil {
		return nil, err
	}
	if ce {
		ls, err := a.Float(7)
		if err != nil {
			return nil, err
		}
		return tensor.CrossEntropy(x, t, w, red, ign, ls)
	}
	return tensor.NLLLoss(x, t, w, red, ign)
}

// pair reads an int-or-pair argument (kernel_size=3 or (3, 2)).
func pair(a Args, i int) ([2]int, error) {
	v, err := a.IntsN(i, 2)
	if err != nil {
		return [2]int{}, err
	}
	switch len(v) {
	case 1:
		return [2]int{v[0], v[0]}, nil
	case 2:
		return [2]int{v[0], v[1]}, nil
	}
	return [2]int{}, a.errf(i, "expected one or two ints, got %d", len(v))
}
