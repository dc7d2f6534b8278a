package ir

import (
	"fmt"
	"math"

	"gcdbg/tensor"
)

// Alpha dropout (F.alpha_dropout, nn.AlphaDropout; F.feature_alpha_dropout,
// nn.FeatureAlphaDropout): ATen's _dropout_impl with alpha_dropout, one draw
// per element, or per (sample, channel) as feature dropout. In eval, with
// p = 0 or on an empty input it is the identity, the same evaluation and
// shape inference as dropout and feature_dropout (ops_nn.go, ops_train.go);
// in training the normalized stage replaces it by alpha_dropout_masked with
// the draw.

// AlphaDropoutAlpha is ATen's alpha (SELU's alpha times its scale).
const AlphaDropoutAlpha = 1.7580993408473766

func init() {
	fd := Lookup("aten.feature_dropout")
	if fd == nil {
		panic("ir: ops_train_alpha.go needs aten.feature_dropout registered first (ops_train.go)")
	}
	Register("feature_alpha_dropout(input, p=0.5, training=False, inplace=False)", KindPointwise, fd.Eval).Infer = fd.Infer
	dr := Lookup("aten.dropout")
	Register("alpha_dropout(input, p=0.5, training=False, inplace=False)", KindPointwise, dr.Eval).Infer = dr.Infer
	Register("alpha_dropout_masked(input, mask, p)", KindPointwise, maskedEval(AlphaDropoutMasked)).Infer = inferDropoutMasked
}

// AlphaDropoutConsts are the scalars of ATen's alpha dropout with
// probability p < 1, each rounded to dt as ATen's in-place scalar ops on a
// dt tensor round them: a (the kept values' scale), alpha*a and alpha*a*p.
func AlphaDropoutConsts(dt tensor.DType, p float64) (a, alphaA, alphaAP float64) {
	av := 1 / math.Sqrt((AlphaDropoutAlpha*AlphaDropoutAlpha*p+1)*(1-p))
	return tensor.Round(dt, av), tensor.Round(dt, AlphaDropoutAlpha*av), tensor.Round(dt, AlphaDropoutAlpha*av*p)
}

// AlphaDropoutMasked is ATen's alpha dropout given the keep mask (1 keeps):
// noise = mask in x's dtype; b = (noise - 1) * alpha*a + alpha*a*p;
// out = x * (noise * a) + b, every step rounded to x's dtype; p = 1 is x * 0.
func AlphaDropoutMasked(x, mask *tensor.Tensor, p float64) (*tensor.Tensor, error) {
	if !(p >= 0 && p <= 1) {
		return nil, fmt.Errorf("dropout probability has to be between 0 and 1, but got %g", p)
	}
	if !x.DType.IsFloat() {
		return nil, fmt.Errorf("alpha dropout: input must be floating, got %s", x.DType)
	}
	mb, err := mask.BroadcastTo(x.Shape)
	if err != nil {
		return nil, fmt.Errorf("alpha dropout: mask of shape %v does not fit the input's %v", mask.Shape, x.Shape)
	}
	dt := x.DType
	out := tensor.New(dt, x.Shape...)
	if p == 1 {
		for i := 0; i < out.Numel(); i++ {
			out.SetFlat(i, tensor.Round(dt, x.Flat(i)*0))
		}
		return out, nil
	}
	a, c1, c2 := AlphaDropoutConsts(dt, p)
	for i := 0; i < out.Numel(); i++ {
		n := 0.0
		if mb.Flat(i) != 0 {
			n = 1
		}
		b := tensor.Round(dt, tensor.Round(dt, (n-1)*c1)+c2)
		y := tensor.Round(dt, x.Flat(i)*tensor.Round(dt, n*a))
		out.SetFlat(i, tensor.Round(dt, y+b))
	}
	return out, nil
}
