package stages

import (
	"gcdbg/ir"
	"gcdbg/tensor"
)

// Decomposition cases for eye (decomp_linspace.go): square, rectangular both
// ways, empty, and the dtypes float32 (default), int64, bool and float16.
func init() {
	decompCases = append(decompCases,
		opCase{"aten.eye", nil, []ir.Arg{int64(5)}},
		opCase{"aten.eye", nil, []ir.Arg{int64(3), int64(7), tensor.Int64}},
		opCase{"aten.eye", nil, []ir.Arg{int64(7), int64(3), tensor.Bool}},
		opCase{"aten.eye", nil, []ir.Arg{int64(4), int64(0), tensor.Float16}},
	)
}
