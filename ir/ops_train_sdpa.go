package ir

import "gcdbg/tensor"

// PyTorch 1.13's _scaled_dot_product_attention with dropout_p > 0 draws a
// dropout of the softmax weights inside the op (at::dropout(attn, p, true)).
// The normalized stage replaces such a call by sdpa_dropout_masked with the
// draw (the keep mask of the weights): the weights dropped as dropout_masked
// does, then their product with value; both are the op's results, as
// ATen's (output, dropped weights).

func init() {
	// the op's results have the same metas whatever it draws
	sd := Lookup("aten._scaled_dot_product_attention")
	if sd == nil {
		panic("ir: ops_train_sdpa.go needs aten._scaled_dot_product_attention registered first (ops_ext_nn.go)")
	}
	orig := sd.Infer
	sd.Infer = func(a Args) (Value, error) {
		v := append([]Value{}, a.V...)
		if p, err := a.Float(4); err == nil && p != 0 {
			if !(p >= 0 && p <= 1) {
				return nil, a.errf(4, "dropout probability has to be between 0 and 1, but got %g", p)
			}
			v[4] = 0.0
		}
		if orig != nil {
			return orig(Args{Op: a.Op, V: v})
		}
		return InferByExample(a.Op, v)
	}
	Register("sdpa_dropout_masked(query, key, value, attn_mask, drop_mask, p, is_causal)", KindOther, func(a Args) (Value, error) {
		r := &ar{a: a}
		q, k, v, m, dm := r.t(0), r.t(1), r.t(2), r.ot(3), r.t(4)
		p, causal := r.f(5), r.b(6)
		if r.err != nil {
			return nil, r.err
		}
		_, w, err := SDPA(q, k, v, m, causal, nil)
		if err != nil {
			return nil, err
		}
		wd, err := DropoutMasked(w, dm, p)
		if err != nil {
			return nil, err
		}
		out, err := tensor.Matmul(wd, v)
		if err != nil {
			return nil, err
		}
		return Tuple{out, wd}, nil
	})
}
