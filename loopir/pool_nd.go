package loopir

import "gcdbg/ir"

// Max pooling with indices (plain and adaptive) and max_unpool, the 3-D
// core ops of ir/ops_pool.go, are extern calls with generated C
// (render/pool_nd.go) when the input is a 4-D or 5-D float tensor of a C
// type: every window parameter the decomposition leaves is an int triple
// the renderer reads (the plain pool's, checked there); the output sizes
// come from the results' metadata.
var poolNDOps = map[string]bool{"max_pool3d_with_indices": true, "adaptive_max_pool3d_with_indices": true, "max_unpool3d": true,
	"adaptive_max_pool3d_backward": true}

// The two (values, indices) ops are externs like sort: a tuple-valued
// extern writes one buffer per result (lower.go); only 4-D and 5-D float
// inputs reach them (the reference refuses the rest).
func init() {
	externOps["max_pool3d_with_indices"] = true
	externOps["adaptive_max_pool3d_with_indices"] = true
}

func poolNDExtern(op string, bound []ir.Arg) bool {
	in := 0
	if op == "adaptive_max_pool3d_backward" {
		in = 1 // (grad_output, self, indices)
	}
	if len(bound) <= in {
		return false
	}
	t, ok := bound[in].(*ir.Node)
	if !ok || t.Meta.Tensor == nil {
		return false
	}
	m := t.Meta.Tensor
	return (len(m.Shape) == 4 || len(m.Shape) == 5) && m.DType.IsFloat() && m.DType.Size() >= 4
}
