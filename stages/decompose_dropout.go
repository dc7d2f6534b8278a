package stages

import (
	"gcdbg/ir"
)

// Alpha dropout (ir/ops_train_alpha.go): identity unless drawing; with the
// draw, ATen's formula on the keep mask. Appended to the table at init.

func init() {
	decompositions = append(decompositions,
		decomposition{"aten.feature_alpha_dropout", "feature_alpha_dropout(x, p, training=False) = x (identity); in training the normalized stage replaced it by alpha_dropout_masked with a [N, C, 1, ...] mask",
			func(b *builder, a []ir.Arg) ir.Arg {
				if b.bool(a[2]) && b.float(a[1]) != 0 && numelOf(b.shape(a[0])) != 0 {
					b.failf("internal error: alpha dropout in training mode should have been replaced by its draw in the normalized stage")
					return nil
				}
				return a[0]
			}},
		decomposition{"aten.alpha_dropout", "alpha_dropout(x, p, training=False) = x (identity); in training the normalized stage replaced it by alpha_dropout_masked with an elementwise mask",
			func(b *builder, a []ir.Arg) ir.Arg {
				if b.bool(a[2]) && b.float(a[1]) != 0 && numelOf(b.shape(a[0])) != 0 {
					b.failf("internal error: alpha dropout in training mode should have been replaced by its draw in the normalized stage")
					return nil
				}
				return a[0]
			}},
		decomposition{"aten.alpha_dropout_masked", "alpha_dropout_masked(x, mask, p) = x * (m * a) + ((m - 1) * alpha*a + alpha*a*p), m = to_dtype(mask), a = 1 / sqrt((alpha^2 p + 1)(1 - p)), each constant rounded to x's dtype (ATen's in-place scalar ops); p = 1: x * 0",
			func(b *builder, a []ir.Arg) ir.Arg {
				x, mask := a[0], a[1]
				p := b.float(a[2])
				if !(p >= 0 && p <= 1) {
					b.failf("dropout probability has to be between 0 and 1, but got %g", p)
					return nil
				}
				if p == 1 {
					return b.call("aten.mul", x, 0.0)
				}
				dt := b.dtype(x)
				s, c1, c2 := ir.AlphaDropoutConsts(dt, p)
				m := b.call("aten.to_dtype", mask, dt)
				bias := b.call("aten.add", b.call("aten.mul", b.call("aten.sub", m, int64(1)), c1), c2)
				return b.call("aten.add", b.call("aten.mul", x, b.call("aten.mul", m, s)), bias)
			}},
	)
}
