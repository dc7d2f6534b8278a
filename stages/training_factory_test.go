package stages

import (
	"gcdbg/ir"
	"gcdbg/tensor"
)

// Decomposition cases for the factory draws (decompose_train_factory.go):
// the size as ints, as one nested tuple (torch.rand((2, 3))) or list, with
// a dtype.
func init() {
	decompCases = append(decompCases,
		opCase{"aten.rand", nil, []ir.Arg{ir.Tuple{int64(3), int64(5)}}},
		opCase{"aten.rand", nil, []ir.Arg{ir.Tuple{ir.List{int64(2), int64(3)}}, nil, tensor.Float64}},
		opCase{"aten.randn", nil, []ir.Arg{ir.Tuple{ir.Tuple{int64(7)}}}},
		opCase{"aten.randn", nil, []ir.Arg{ir.Tuple{int64(2), int64(2)}, nil, tensor.Float64}},
	)
}
