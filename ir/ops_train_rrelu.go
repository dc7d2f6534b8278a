package ir

import (
	"fmt"

	"gcdbg/tensor"
)

// rrelu (F.rrelu): in eval leaky_relu with slope (lower + upper) / 2; in
// training ATen (1.13's CPU kernel) draws, for every element <= 0, a slope
// uniform in [lower, upper), rounded to x's dtype, and computes x * slope;
// elsewhere the slope is 1. The normalized stage replaces a training call by
// rrelu_noised with that draw (ATen's noise tensor).

func init() {
	lr := Lookup("aten.leaky_relu")
	if lr == nil {
		panic("ir: ops_train_rrelu.go needs aten.leaky_relu registered first (ops_ext.go)")
	}
	Register("rrelu(input, lower=0.125, upper=0.3333333333333333, training=False, inplace=False)", KindPointwise, func(a Args) (Value, error) {
		x, err := a.Tensor(0)
		if err != nil {
			return nil, err
		}
		lo, err := a.Float(1)
		if err != nil {
			return nil, err
		}
		hi, err := a.Float(2)
		if err != nil {
			return nil, err
		}
		tr, err := a.Bool(3)
		if err != nil {
			return nil, err
		}
		if tr {
			return nil, a.errf(3, "rrelu in training mode is random: the normalized stage replaces it by its draw")
		}
		return lr.Eval(Args{Op: lr, V: []Value{x, (lo + hi) / 2}})
	}).Infer = func(a Args) (Value, error) {
		x, err := a.meta(0)
		if err != nil {
			return nil, err
		}
		if !x.DType.IsFloat() {
			return nil, a.errf(0, "rrelu: expected a floating input, got %s", x.DType)
		}
		return contig(x.DType, x.Shape.Sizes()), nil
	}
	Register("rrelu_noised(input, noise)", KindPointwise, func(a Args) (Value, error) {
		x, err := a.Tensor(0)
		if err != nil {
			return nil, err
		}
		noise, err := a.Tensor(1)
		if err != nil {
			return nil, err
		}
		if !x.DType.IsFloat() || noise.DType != x.DType {
			return nil, fmt.Errorf("rrelu: a %s input takes %s noise, got %s", x.DType, x.DType, noise.DType)
		}
		nb, err := noise.BroadcastTo(x.Shape)
		if err != nil {
			return nil, fmt.Errorf("rrelu: noise of shape %v does not fit the input's %v", noise.Shape, x.Shape)
		}
		out := tensor.New(x.DType, x.Shape...)
		for i := 0; i < out.Numel(); i++ {
			out.SetFlat(i, tensor.Round(x.DType, x.Flat(i)*nb.Flat(i)))
		}
		return out, nil
	}).Infer = func(a Args) (Value, error) {
		x, err := a.meta(0)
		if err != nil {
			return nil, err
		}
		n, err := a.meta(1)
		if err != nil {
			return nil, err
		}
		if !x.DType.IsFloat() || n.DType != x.DType {
			return nil, fmt.Errorf("rrelu: a %s input takes %s noise, got %s", x.DType, x.DType, n.DType)
		}
		if _, err := tensor.BroadcastShapes(n.Shape.Sizes(), x.Shape.Sizes()); err != nil {
			return nil, fmt.Errorf("rrelu: noise of shape %v does not fit the input's %v", n.Shape.Sizes(), x.Shape.Sizes())
		}
		return contig(x.DType, x.Shape.Sizes()), nil
	}
}
