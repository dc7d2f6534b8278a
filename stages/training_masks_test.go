package stages

import (
	"gcdbg/ir"
	"gcdbg/tensor"
)

// Decomposition cases for the masked-draw rows of decompose_dropout.go,
// decompose_rrelu.go and decompose_sdpa_dropout.go (alpha dropout, rrelu,
// attention dropout): each decomposed one-op graph must compute what the
// op's own eager implementation computes (TestEachDecompositionMatchesTheOp).
func init() {
	keep := tensor.FromInts(tensor.Bool, []int{2, 3, 1}, []int64{1, 0, 1, 1, 0, 1})
	elemKeep := tensor.FromInts(tensor.Bool, []int{2, 3, 2}, []int64{1, 0, 1, 1, 0, 1, 0, 0, 1, 1, 1, 0})
	noise := tensor.FromFloats(tf32, []int{2, 3, 2}, []float64{0.2, 1, 0.15, 1, 0.3, 0.25, 1, 0.13, 0.2, 1, 1, 0.31})
	dropKeep := tensor.FromInts(tensor.Bool, []int{1, 2, 3, 4}, []int64{1, 0, 1, 1, 0, 0, 1, 1, 1, 1, 0, 1, 0, 1, 1, 1, 1, 1, 0, 1, 1, 0, 1, 1})
	decompCases = append(decompCases,
		opCase{"aten.feature_alpha_dropout", []*tensor.Tensor{dseq(tf32, 2, 3, 2)}, []ir.Arg{inp(0), 0.3, false}},
		opCase{"aten.alpha_dropout_masked", []*tensor.Tensor{dseq(tf32, 2, 3, 2), keep}, []ir.Arg{inp(0), inp(1), 0.5}},
		opCase{"aten.alpha_dropout_masked", []*tensor.Tensor{dseq(tf64, 2, 3, 2), keep}, []ir.Arg{inp(0), inp(1), 1.0}},
		opCase{"aten.alpha_dropout", []*tensor.Tensor{dseq(tf32, 2, 3, 2)}, []ir.Arg{inp(0), 0.3, false}},
		opCase{"aten.alpha_dropout_masked", []*tensor.Tensor{dseq(tf32, 2, 3, 2), elemKeep}, []ir.Arg{inp(0), inp(1), 0.2}},
		opCase{"aten.rrelu", []*tensor.Tensor{dseq(tf32, 2, 3, 2)}, []ir.Arg{inp(0), 0.1, 0.3, false}},
		opCase{"aten.rrelu_noised", []*tensor.Tensor{dseq(tf32, 2, 3, 2), noise}, []ir.Arg{inp(0), inp(1)}},
		opCase{"aten.sdpa_dropout_masked", []*tensor.Tensor{dseq(tf32, 1, 2, 3, 5), dseq(tf32, 1, 2, 4, 5), dseq(tf32, 1, 2, 4, 3), dropKeep},
			[]ir.Arg{inp(0), inp(1), inp(2), nil, inp(3), 0.2, false}},
		opCase{"aten.sdpa_dropout_masked", []*tensor.Tensor{dseq(tf32, 1, 2, 3, 5), dseq(tf32, 1, 2, 4, 5), dseq(tf32, 1, 2, 4, 3), dropKeep},
			[]ir.Arg{inp(0), inp(1), inp(2), nil, inp(3), 0.2, true}},
	)
}
