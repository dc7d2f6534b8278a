package stages

import (
	"gcdbg/ir"
	"gcdbg/tensor"
)

// Decomposition cases for ctc_loss (decomp_ctc.go) against the op's own
// recursion (ir/ops_ctc.go, -inf for unreachable states): padded targets
// with a repeated label, an empty target, a sequence too short for its
// target (inf; 0 with zero_infinity), shorter input lengths, the three
// reductions, a blank other than 0, int32 lengths, lengths as Python
// lists, float64 log-probs.
func init() {
	lp := dseq(tensor.Float32, 7, 4, 5)
	tg := tensor.FromInts(tensor.Int64, []int{4, 3}, []int64{1, 2, 3, 2, 2, -1, 4, 0, 0, 3, 1, 3})
	il := tensor.FromInts(tensor.Int64, []int{4}, []int64{7, 5, 2, 7})
	tl := tensor.FromInts(tensor.Int64, []int{4}, []int64{3, 2, 0, 3})
	short := tensor.FromInts(tensor.Int64, []int{4}, []int64{7, 2, 2, 7})
	il32 := tensor.FromInts(tensor.Int32, []int{4}, []int64{7, 5, 2, 6})
	tg0 := tensor.FromInts(tensor.Int64, []int{4, 3}, []int64{1, 2, 3, 2, 2, -1, 0, 0, 0, 3, 1, 3})
	decompCases = append(decompCases,
		opCase{"aten.ctc_loss", []*tensor.Tensor{lp, tg, il, tl}, []ir.Arg{inp(0), inp(1), inp(2), inp(3)}},
		opCase{"aten.ctc_loss", []*tensor.Tensor{lp, tg, short, tl}, []ir.Arg{inp(0), inp(1), inp(2), inp(3), int64(0), "none"}},
		opCase{"aten.ctc_loss", []*tensor.Tensor{lp, tg, short, tl}, []ir.Arg{inp(0), inp(1), inp(2), inp(3), int64(0), "mean", true}},
		opCase{"aten.ctc_loss", []*tensor.Tensor{lp, tg0, il32, tl}, []ir.Arg{inp(0), inp(1), inp(2), inp(3), int64(4), "sum"}},
		opCase{"aten.ctc_loss", []*tensor.Tensor{dseq(tensor.Float64, 7, 4, 5), tg, il, tl}, []ir.Arg{inp(0), inp(1), inp(2), inp(3), int64(0), "none"}},
		// lengths as Python lists (PyTorch takes IntArrayRef too)
		opCase{"aten.ctc_loss", []*tensor.Tensor{lp, tg}, []ir.Arg{inp(0), inp(1), ir.List{int64(7), int64(2), int64(2), int64(7)}, ir.Tuple{int64(3), int64(2), int64(0), int64(3)}, int64(0), "mean", true}},
	)
}
