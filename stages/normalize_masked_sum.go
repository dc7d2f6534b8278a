package stages

import (
	"slices"

	"gcdbg/ir"
	"gcdbg/tensor"
)

// maskedSum takes `x[mask].sum()` — a boolean-mask selection read only by
// full sums (detection and masked losses: focal[valid].sum()) — with a
// static shape: the selection becomes where(mask, x, 0) over x's shape, so
// each sum adds the same selected elements (and zeros) instead of a
// data-dependent [count, ...] tensor. Exact: unselected NaN/Inf are dropped
// by where as by the selection; the gradient is where's, the grad at the
// selected positions and 0 elsewhere, as index's (index_put into zeros).
// The mask covers x's leading dims with x's sizes. A pointwise loss that is
// 0 at (0, 0) with reduction="sum" of two selections by the same mask
// (F.smooth_l1_loss(box[pos], deltas[pos], reduction="sum")) reads them
// the same way: the zeros add nothing and pass no gradient. Any other
// reader (mean, another reduction, len, a second index) keeps the refusal.
func (nz *normalizer) maskedSum(n *ir.Node) (bool, error) {
	if boolMaskIndex(n) == "" || n.Op != ir.CallFunction || len(n.Args) != 2 || len(n.Kwargs) != 0 {
		return false, nil
	}
	x, ok1 := n.Args[0].(*ir.Node)
	m, ok2 := n.Args[1].(*ir.Node)
	if !ok1 || !ok2 || x.Meta.Tensor == nil || m.Meta.Tensor == nil || m.Meta.Tensor.DType != tensor.Bool {
		return false, nil
	}
	xs, ms := x.Meta.Tensor.Shape.Sizes(), m.Meta.Tensor.Shape.Sizes()
	if len(ms) == 0 || len(ms) > len(xs) || !slices.Equal(ms, xs[:len(ms)]) {
		return false, nil
	}
	users := 0
	for _, u := range nz.src.Nodes {
		reads := false
		u.EachInput(func(in *ir.Node) { reads = reads || in == n })
		if !reads {
			continue
		}
		users++
		isSum := (u.Op == ir.CallMethod && u.Target == "sum") || (u.Op == ir.CallFunction && u.Target == "torch.sum")
		if !(isSum && len(u.Args) == 1 && len(u.Kwargs) == 0) && !zeroLossSum(u, m) {
			return false, nil
		}
	}
	if users == 0 {
		return false, nil
	}
	var mask ir.Arg = nz.mapArg(m)
	for i := len(ms); i < len(xs); i++ {
		u := &ir.Node{Name: nz.fresh(n.Name + "_mask"), Op: ir.CallFunction, Target: "aten.unsqueeze", Args: []ir.Arg{mask, int64(-1)}}
		if err := nz.add(u, n); err != nil {
			return true, err
		}
		mask = u
	}
	c := &ir.Node{Name: n.Name, Op: ir.CallFunction, Target: "aten.where", Args: []ir.Arg{mask, nz.mapArg(x), castNumber(0.0, x.Meta.Tensor.DType)}}
	if err := nz.add(c, n); err != nil {
		return true, err
	}
	nz.mapped[n] = c
	return true, nil
}

// zeroLossSums are the losses whose elementwise term is 0 at (0, 0).
var zeroLossSums = map[string]bool{
	"torch.nn.functional.l1_loss": true, "torch.nn.functional.mse_loss": true,
	"torch.nn.functional.smooth_l1_loss": true, "torch.nn.functional.huber_loss": true,
}

// zeroLossSum reports whether u is such a loss with reduction="sum" whose
// input and target are both selections by mask m.
func zeroLossSum(u *ir.Node, m *ir.Node) bool {
	if u.Op != ir.CallFunction || !zeroLossSums[u.Target] || len(u.Args) != 2 {
		return false
	}
	sum := false
	for _, kw := range u.Kwargs {
		switch kw.Name {
		case "reduction":
			sum = kw.Value == "sum"
		case "beta", "delta":
		case "size_average", "reduce": // fx records the deprecated ones as None
			if kw.Value != nil {
				return false
			}
		default:
			return false
		}
	}
	if !sum {
		return false
	}
	for _, a := range u.Args {
		g, ok := a.(*ir.Node)
		if !ok || boolMaskIndex(g) == "" || len(g.Args) != 2 || g.Args[1] != ir.Arg(m) {
			return false
		}
	}
	return true
}
