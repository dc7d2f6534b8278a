package stages

import (
	"gcdbg/ir"
	"gcdbg/tensor"
)

// Decomposition cases for affine_grid and grid_sample (decomp_grid_sample.go):
// grid values in [-2.5, 2.5], so corners fall outside the input and the
// reflection folds more than once; every mode, padding and align_corners.
func init() {
	theta := dseq(tf32, 2, 2, 3)
	for _, align := range []any{true, false, nil} {
		decompCases = append(decompCases,
			opCase{"aten.affine_grid", []*tensor.Tensor{theta}, []ir.Arg{inp(0), ir.List{int64(2), int64(3), int64(4), int64(5)}, align}},
			opCase{"aten.affine_grid", []*tensor.Tensor{theta}, []ir.Arg{inp(0), ir.List{int64(2), int64(1), int64(1), int64(3)}, align}})
		for _, mode := range []string{"bilinear", "nearest"} {
			for _, pad := range []string{"zeros", "border", "reflection"} {
				decompCases = append(decompCases,
					opCase{"aten.grid_sample", []*tensor.Tensor{dseq(tf32, 2, 3, 4, 5), dseq(tf32, 2, 3, 6, 2)}, []ir.Arg{inp(0), inp(1), mode, pad, align}},
					opCase{"aten.grid_sample", []*tensor.Tensor{dseq(tf64, 1, 2, 1, 3), dseq(tf64, 1, 2, 2, 2)}, []ir.Arg{inp(0), inp(1), mode, pad, align}})
			}
		}
	}
}
