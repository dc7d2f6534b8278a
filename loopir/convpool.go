package loopir

import (
	"gcdbg/ir"
	"gcdbg/tensor"
)

// Convolution and pooling, forward and backward, are extern calls with
// generated C (render/conv.go: im2col/col2im around the GEMM, direct
// loops for pooling) when their parameters are plain ints and their
// tensors 4-D float: what the renderer can write. Anything else (an
// unbatched input, max_pool2d returning indices, an output_size with
// None) stays an eager fallback.

var convPoolOps = map[string]struct {
	tensor int   // the argument whose shape is (N, C, H, W)
	pairs  []int // arguments that must be an int or a pair of ints
	opt    []int // pairs that may also be None or empty (stride = kernel)
}{
	"conv2d_backward_input":        {tensor: 0, pairs: []int{3, 4, 5}},
	"conv2d_backward_weight":       {tensor: 1, pairs: []int{3, 4, 5}},
	"max_pool2d":                   {tensor: 0, pairs: []int{1, 3, 4}, opt: []int{2}},
	"max_pool2d_backward":          {tensor: 1, pairs: []int{2, 4, 5}, opt: []int{3}},
	"avg_pool2d":                   {tensor: 0, pairs: []int{1, 3}, opt: []int{2}},
	"avg_pool2d_backward":          {tensor: 1, pairs: []int{2, 4}, opt: []int{3}},
	"adaptive_avg_pool2d":          {tensor: 0, pairs: []int{1}},
	"adaptive_avg_pool2d_backward": {tensor: 1},
}

// convPoolExtern reports whether the renderer writes op with these args.
func convPoolExtern(op string, bound []ir.Arg) bool {
	if poolNDOps[op] {
		return poolNDExtern(op, bound)
	}
	spec, ok := convPoolOps[op]
	if !ok || spec.tensor >= len(bound) {
		return false
	}
	t, ok := bound[spec.tensor].(*ir.Node)
	if !ok || t.Meta.Tensor == nil || len(t.Meta.Tensor.Shape) != 4 {
		return false
	}
	if dt := t.Meta.Tensor.DType; !dt.IsFloat() && !(op == "avg_pool2d" && dt == tensor.Int64) { // render/pool_nd.go: int64 avg_pool2d
		return false
	}
	if t.Meta.Tensor.DType.Size() < 4 { // half types: no C type here
		return false
	}
	for _, i := range spec.pairs {
		if i >= len(bound) || !intPair(bound[i]) {
			return false
		}
	}
	for _, i := range spec.opt {
		if i < len(bound) && bound[i] != nil && !intPair(bound[i]) && !emptySeq(bound[i]) {
			return false
		}
	}
	switch op {
	case "max_pool2d":
		if ri, _ := bound[6].(bool); ri {
			return false
		}
	case "avg_pool2d", "avg_pool2d_backward":
		d := 6
		if op == "avg_pool2d_backward" {
			d = 7
		}
		if d < len(bound) && bound[d] != nil {
			if _, ok := bound[d].(int64); !ok {
				return false
			}
		}
	case "conv2d_backward_input", "conv2d_backward_weight":
		if g, ok := bound[6].(int64); !ok || g < 1 {
			return false
		}
	}
	return true
}

func intPair(a ir.Arg) bool {
	switch x := a.(type) {
	case int64:
		return true
	case ir.Tuple:
		if len(x) < 1 || len(x) > 2 {
			return false
		}
		for _, e := range x {
			if _, ok := e.(int64); !ok {
				return false
			}
		}
		return true
	case ir.List:
		return intPair(ir.Tuple(x))
	}
	return false
}

func emptySeq(a ir.Arg) bool {
	switch x := a.(type) {
	case ir.Tuple:
		return len(x) == 0
	case ir.List:
		return len(x) == 0
	}
	return false
}
