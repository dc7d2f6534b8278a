package stages

import (
	"fmt"

	"gcdbg/ir"
)

// emptyBatchNorm is batch_norm of a zero-element input, as PyTorch 1.13's
// _batch_norm_impl_index computes it before any statistics: the input
// cloned (not a view, so the gradient chain holds), times weight[0] and plus
// bias[0] when they are given, and the running statistics left as they are
// (no update, in training mode too). An input of any rank takes this path,
// a 1-D one included (F.batch_norm of a [0] tensor). handled is false for a
// non-empty input or one whose size is not known here.
func (nz *normalizer) emptyBatchNorm(n *ir.Node, args []ir.Arg) (handled bool, err error) {
	x, ok := nz.mapArg(args[0]).(*ir.Node)
	if !ok || x.Meta.Tensor == nil {
		return false, nil
	}
	sizes := x.Meta.Tensor.Shape.Sizes()
	empty := false
	for _, s := range sizes {
		if s == 0 {
			empty = true
		}
	}
	if !empty {
		return false, nil
	}
	// PyTorch checks the running statistics against the channels
	// (input.size(1)) before it takes the empty path.
	if len(sizes) >= 2 {
		for i, name := range []string{"running_mean", "running_var"} {
			st, ok := nz.mapArg(args[1+i]).(*ir.Node)
			if !ok || st.Meta.Tensor == nil {
				continue
			}
			if k := numelOf(st.Meta.Tensor.Shape.Sizes()); k != sizes[1] {
				return true, fmt.Errorf("args[%d]: %s should contain %d elements not %d", 1+i, name, sizes[1], k)
			}
		}
	}
	y, err := nz.callFor(n, "aten.clone", x)
	if err != nil {
		return true, err
	}
	for i, op := range []string{"aten.mul", "aten.add"} { // weight[0], bias[0]
		p := nz.mapArg(args[3+i])
		if p == nil {
			continue
		}
		first, err := nz.callFor(n, "aten.select", p, int64(0), int64(0))
		if err != nil {
			return true, err
		}
		if y, err = nz.callFor(n, op, y, first); err != nil {
			return true, err
		}
	}
	nz.mapped[n] = y
	if n.Meta.Tensor != nil && y.Meta.Tensor != nil {
		return true, checkMeta(n, y.Meta.Tensor)
	}
	return true, nil
}
