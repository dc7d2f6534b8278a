package loopir

import (
	"gcdbg/ir"
	"gcdbg/tensor"
)

// narrowFloatNode reports whether n reads or returns a float16 or bfloat16
// tensor. The compiled back end stores those as 16-bit words and computes
// in float (render/narrow.go), but its library calls (GEMM, sort, scans,
// convolutions) take float32/float64 arrays only: such a node runs as an
// eager fallback step, which computes and rounds as the interpreter does.
func narrowFloatNode(n *ir.Node) bool {
	narrow := func(m *ir.TensorMeta) bool {
		return m != nil && (m.DType == tensor.Float16 || m.DType == tensor.BFloat16)
	}
	found := narrow(n.Meta.Tensor)
	for _, m := range n.Meta.Items {
		found = found || narrow(m)
	}
	n.EachInput(func(in *ir.Node) {
		found = found || narrow(in.Meta.Tensor)
	})
	return found
}
