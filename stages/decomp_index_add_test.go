package stages

import (
	"gcdbg/ir"
	"gcdbg/tensor"
)

// Decomposition cases for index_add, index_copy and index_fill
// (decomp_index_add.go) and randperm (decompose_train_factory.go): along
// dim 0 and 1, repeated and negative indices, an alpha, a float value, an
// int64 self; randperm with and without a dtype.
func init() {
	decompCases = append(decompCases,
		opCase{"aten.index_add", []*tensor.Tensor{dseq(tf32, 4, 3), dints([]int{2}, 2, 0), dseq(tf32, 2, 3)}, []ir.Arg{inp(0), int64(0), inp(1), inp(2)}},
		opCase{"aten.index_add", []*tensor.Tensor{dseq(tf64, 2, 5), dints([]int{3}, 4, 1, 4), dseq(tf64, 2, 3)}, []ir.Arg{inp(0), int64(1), inp(1), inp(2), 0.5}},
		opCase{"aten.index_add", []*tensor.Tensor{dints([]int{3, 2}, 1, 2, 3, 4, 5, 6), dints([]int{1}, 1), dints([]int{1, 2}, 7, 8)}, []ir.Arg{inp(0), int64(0), inp(1), inp(2), int64(3)}},
		opCase{"aten.index_copy", []*tensor.Tensor{dseq(tf32, 4, 3), dints([]int{2}, 3, 1), dseq(tf32, 2, 3)}, []ir.Arg{inp(0), int64(0), inp(1), inp(2)}},
		opCase{"aten.index_copy", []*tensor.Tensor{dseq(tf32, 2, 4), dints([]int{2}, 0, 2), dseq(tf32, 2, 2)}, []ir.Arg{inp(0), int64(-1), inp(1), inp(2)}},
		opCase{"aten.index_fill", []*tensor.Tensor{dseq(tf32, 3, 4), dints([]int{2}, 0, -1)}, []ir.Arg{inp(0), int64(1), inp(1), 2.5}},
		opCase{"aten.index_fill", []*tensor.Tensor{dseq(tf64, 3, 2), dints([]int{2}, 1, 1)}, []ir.Arg{inp(0), int64(0), inp(1), int64(-4)}},
		opCase{"aten.randperm", nil, []ir.Arg{int64(7)}},
		opCase{"aten.randperm", nil, []ir.Arg{int64(5), nil, tensor.Int32}},
	)
}
