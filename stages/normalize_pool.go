package stages

import (
	"strings"

	"gcdbg/ir"
)

// adaptiveNone writes an adaptive pool's None output sizes (PyTorch keeps
// the input's size along that dim) as the input's size, so every later
// stage reads plain ints: adaptive_avg_pool2d(x, [None, 7]) on a
// [2, 8, 8, 8] input becomes adaptive_avg_pool2d(x, [8, 7]).
func adaptiveNone(op string, bound []ir.Arg) {
	name := strings.TrimPrefix(op, "aten.")
	if !strings.HasPrefix(name, "adaptive_") || len(bound) < 2 {
		return
	}
	var items []ir.Arg
	switch v := bound[1].(type) {
	case ir.Tuple:
		items = v
	case ir.List:
		items = v
	default:
		return
	}
	x, ok := bound[0].(*ir.Node)
	if !ok || x.Meta.Tensor == nil {
		return
	}
	shape := x.Meta.Tensor.Shape.Sizes()
	if len(items) > len(shape) {
		return
	}
	out := make(ir.List, len(items))
	changed := false
	for i, it := range items {
		out[i] = it
		if it == nil {
			out[i] = int64(shape[len(shape)-len(items)+i])
			changed = true
		}
	}
	if changed {
		bound[1] = out
	}
}

// aten's max_unpool2d(self, indices, output_size) and max_unpool3d(self,
// indices, output_size, stride, padding) take the size as given: the
// canonical op (torch.nn.functional's order, kernel_size third) without
// kernel_size.
func init() {
	for _, src := range []string{"aten:", "torch._C._nn."} {
		aliases[src+"max_unpool2d"] = alias{Op: "max_unpool2d", Schema: "max_unpool2d(self, indices, output_size)", Rename: map[string]string{"self": "input"}}
		aliases[src+"max_unpool3d"] = alias{Op: "max_unpool3d", Schema: "max_unpool3d(self, indices, output_size, stride, padding)", Rename: map[string]string{"self": "input"}}
	}
}
