package stages

import (
	"gcdbg/ir"
)

// embeddingRenorm is Embedding(max_norm=...)'s lookup: embedding_renorm_
// scales each named weight row whose norm exceeds max_norm by
// max_norm / (norm + 1e-7) in place, under no_grad, before the lookup, so
// the result has the renormalized rows' values but its gradient reaches
// the weight unscaled. Written as detach(renormed) + (rows - detach(rows)):
// the value of the first term exactly (the second is 0), the gradient of
// rows. The parameter's in-place update itself is not written back.
func (b *builder) embeddingRenorm(rows ir.Arg, maxNorm, p float64) ir.Arg {
	dt := b.dtype(rows)
	norm := b.vectorNorm(rows, p, ir.Tuple{int64(-1)}, true, nil)
	scale := b.o("div", b.o("full", ir.Tuple{}, maxNorm, dt), b.o("add", norm, 1e-7))
	renormed := b.o("where", b.o("gt", norm, maxNorm), b.o("mul", rows, scale), rows)
	return b.o("add", b.o("detach", renormed), b.o("sub", rows, b.o("detach", rows)))
}
