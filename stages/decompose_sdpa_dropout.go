package stages

import "gcdbg/ir"

// sdpa_dropout_masked (ir/ops_train_sdpa.go): attention with its softmax
// weights dropped by the recorded keep mask.

func init() {
	decompositions = append(decompositions,
		decomposition{"aten.sdpa_dropout_masked", "sdpa_dropout_masked(q, k, v, mask, keep, p, is_causal) = (matmul(w, v), w), w = dropout_masked(sdpa's softmax weights, keep, p)",
			func(b *builder, a []ir.Arg) ir.Arg {
				_, w := b.sdpa(a[0], a[1], a[2], a[3], 0.0, a[6], nil)
				if w == nil {
					return nil
				}
				wd := decompDropoutMasked(b, []ir.Arg{w, a[4], a[5]})
				return ir.Tuple{b.matmul(wd, a[2]), wd}
			}},
	)
}
