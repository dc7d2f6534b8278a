package ir

import "gcdbg/tensor"

// Backward ops: what the joint graph's derivative table emits for ops whose
// gradient is not a short composition of other core ops (convolution,
// pooling) and scatter_add (the backward of gather, sort and topk). Their
// schemas follow aten's (convolution_backward split per output, as the
// partitioner wants to save or drop each on its own). All are core ops.

func init() {
	Register("conv2d_backward_input(grad_output, weight, input_size, stride=1, padding=0, dilation=1, groups=1)", KindConv, func(a Args) (Value, error) {
		g, w, err := gradTensors(a)
		if err != nil {
			return nil, err
		}
		size, err := a.Ints(2)
		if err != nil {
			return nil, err
		}
		st, pad, dil, groups, err := convParams(a, 3)
		if err != nil {
			return nil, err
		}
		return tensor.Conv2dBackwardInput(g, w, size, st, pad, dil, groups)
	})
	Register("conv2d_backward_weight(grad_output, input, weight_size, stride=1, padding=0, dilation=1, groups=1)", KindConv, func(a Args) (Value, error) {
		g, x, err := gradTensors(a)
		if err != nil {
			return nil, err
		}
		size, err := a.Ints(2)
		if err != nil {
			return nil, err
		}
		st, pad, dil, groups, err := convParams(a, 3)
		if err != nil {
			return nil, err
		}
		return tensor.Conv2dBackwardWeight(g, x, size, st, pad, dil, groups)
	})
	Register("max_pool2d_backward(grad_output, self, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False)", KindPool, func(a Args) (Value, error) {
		g, x, err := gradTensors(a)
		if err != nil {
			return nil, err
		}
		k, st, pad, err := poolParams(a)
		if err != nil {
			return nil, err
		}
		dil, err := pair(a, 5)
		if err != nil {
			return nil, err
		}
		ceil, err := a.Bool(6)
		if err != nil {
			return nil, err
		}
		return tensor.MaxPool2dBackward(g, x, k, st, pad, dil, ceil)
	})
	Register("avg_pool2d_backward(grad_output, self, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True, divisor_override=None)", KindPool, func(a Args) (Value, error) {
		g, x, err := gradTensors(a)
		if err != nil {
			return nil, err
		}
		k, st, pad, err := poolParams(a)
		if err != nil {
			return nil, err
		}
		ceil, err := a.Bool(5)
		if err != nil {
			return nil, err
		}
		cip, err := a.Bool(6)
		if err != nil {
			return nil, err
		}
		div := 0
		if a.V[7] != nil {
			if div, err = a.Int(7); err != nil {
				return nil, err
			}
		}
		return tensor.AvgPool2dBackward(g, x, k, st, pad, ceil, cip, div)
	})
	Register("adaptive_avg_pool2d_backward(grad_output, self)", KindPool, func(a Args) (Value, error) {
		g, x, err := gradTensors(a)
		if err != nil {
			return nil, err
		}
		return tensor.AdaptiveAvgPool2dBackward(g, x)
	})
	sa := Register("scatter_add(self, dim, index, src)", KindIndex, func(a Args) (Value, error) {
		x, err := a.Tensor(0)
		if err != nil {
			return nil, err
		}
		d, err := a.Int(1)
		if err != nil {
			return nil, err
		}
		idx, err := a.Tensor(2)
		if err != nil {
			return nil, err
		}
		src, err := a.Tensor(3)
		if err != nil {
			return nil, err
		}
		return tensor.ScatterAdd(x, d, idx, src)
	})
	// The result is self's shape whatever the indices hold; inferring by
	// example would evaluate with an index of ones, out of range on a dim of size 1.
	sa.Infer = func(a Args) (Value, error) {
		m, ok := a.V[0].(*TensorMeta)
		if !ok {
			return nil, a.errf(0, "expected a tensor, got %s", typeName(a.V[0]))
		}
		return &TensorMeta{DType: m.DType, Shape: m.Shape, Stride: tensor.ContiguousStrides(m.Shape.Sizes())}, nil
	}
	for _, n := range []string{"conv2d_backward_input", "conv2d_backward_weight", "max_pool2d_backward",
		"avg_pool2d_backward", "adaptive_avg_pool2d_backward", "scatter_add"} {
		MarkCore("aten." + n)
	}
}

func gradTensors(a Args) (*tensor.Tensor, *tensor.Tensor, error) {
	g, err := a.Tensor(0)
	if err != nil {
		return nil, nil, err
	}
	x, err := a.Tensor(1)
	return g, x, err
}

// convParams reads stride, padding, dilation, groups starting at argument i.
// padding must be numbers here: the joint graph resolves 'same'/'valid'.
func convParams(a Args, i int) (st, pad, dil [2]int, groups int, err error) {
	if st, err = pair(a, i); err != nil {
		return
	}
	if _, isStr := a.V[i+1].(string); isStr {
		err = a.errf(i+1, "padding must be ints in a backward op, got a string")
		return
	}
	if pad, err = pair(a, i+1); err != nil {
		return
	}
	if dil, err = pair(a, i+2); err != nil {
		return
	}
	groups, err = a.Int(i + 3)
	return
}

// poolParams reads kernel_size, stride (None or [] = kernel) and padding.
func poolParams(a Args) (k, st, pad [2]int, err error) {
	if k, err = pair(a, 2); err != nil {
		return
	}
	st = k
	if a.V[3] != nil {
		if l, ok := a.V[3].(Tuple); !ok || len(l) > 0 {
			if st, err = pair(a, 3); err != nil {
				return
			}
		}
	}
	pad, err = pair(a, 4)
	return
}
