package stages

import (
	"gcdbg/ir"
)

// rrelu (ir/ops_train_rrelu.go): leaky_relu in eval; in training the
// normalized stage replaced it by rrelu_noised with the draw.

func init() {
	decompositions = append(decompositions,
		decomposition{"aten.rrelu", "rrelu(x, lower, upper, training=False) = leaky_relu(x, (lower + upper) / 2); in training the normalized stage replaced it by rrelu_noised with the drawn slopes",
			func(b *builder, a []ir.Arg) ir.Arg {
				if b.bool(a[3]) {
					b.failf("internal error: rrelu in training mode should have been replaced by its draw in the normalized stage")
					return nil
				}
				s := (b.float(a[1]) + b.float(a[2])) / 2 // leaky_relu's row (decomp_ext.go), with the mean slope
				return b.o("where", b.o("gt", a[0], int64(0)), a[0], b.o("mul", a[0], s))
			}},
		decomposition{"aten.rrelu_noised", "rrelu_noised(x, noise) = x * noise: the drawn slopes where x <= 0, 1 elsewhere",
			func(b *builder, a []ir.Arg) ir.Arg { return b.call("aten.mul", a[0], a[1]) }},
	)
	aliases["torch.nn.functional.rrelu"] = alias{Op: "rrelu"}
}
