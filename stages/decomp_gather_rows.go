package stages

import (
	"gcdbg/ir"
)

// nll_loss picks one log-probability per row: gather(lp, 1, t) where lp =
// log_softmax(x) = (x - max) - log(sum(exp(x - max))), a [N, C] tensor
// (gpt2_block: 1016 x 8192, 32 MB) that the forward then writes whole for
// the gather to read N elements of it, and whose gradient the backward
// sums over C again to find the log-sum's (a one-hot row's sum). A gather
// along dim of a - c, where c is constant along dim (a row statistic,
// broadcast), is gather(a) - c at the same points with the same rounding
// (one subtraction of the same two floats), so the pick is taken from x
// before the row statistics are subtracted: the forward writes no [N, C]
// log-probabilities, and the log-sum's gradient is the picked gradient
// itself (no sum over C). PyTorch's fused log_softmax + nll_loss compute
// the same values (x[t] - max - log(sum)).

// gatherRows is gather(lp, dim, idx) taken through the subtractions of
// row statistics that made lp (nodes this builder made), idx being lp's
// shape with 1 along dim.
func (b *builder) gatherRows(lp ir.Arg, dim int, idx ir.Arg) ir.Arg {
	if n, ok := lp.(*ir.Node); ok && b.made[n] && n.Target == "aten.sub" && len(n.Kwargs) == 0 && (len(n.Args) == 2 || len(n.Args) == 3 && isOne(n.Args[2])) { // isOne: simplify_bwd.go
		a, okA := n.Args[0].(*ir.Node)
		c, okC := n.Args[1].(*ir.Node)
		if okA && okC && rowConstant(n, a, c, dim) {
			return b.call("aten.sub", b.gatherRows(a, dim, idx), c)
		}
	}
	return b.call("aten.gather", lp, int64(dim), idx)
}

// rowConstant reports whether s = a - c has a's shape and dtype and c is
// of the same rank, of size 1 along dim and broadcast only where it is 1.
func rowConstant(s, a, c *ir.Node, dim int) bool {
	sm, am, cm := s.Meta.Tensor, a.Meta.Tensor, c.Meta.Tensor
	if sm == nil || am == nil || cm == nil || !am.Shape.Equal(sm.Shape) || am.DType != sm.DType || cm.DType != sm.DType ||
		len(cm.Shape) != len(sm.Shape) || dim >= len(sm.Shape) || cm.Shape[dim].Size != 1 {
		return false
	}
	for i := range sm.Shape {
		if i != dim && cm.Shape[i].Size != 1 && cm.Shape[i] != sm.Shape[i] {
			return false
		}
	}
	return true
}
