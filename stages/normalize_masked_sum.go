package stages

import (
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
// The mask covers x's leading dims with x's sizes. Any other reader (mean,
// a loss, len, a second index) keeps the refusal.
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
	if len(ms) == 0 || len(ms) > len(xs) {
		return false, nil
	}
	for i := range ms {
		if ms[i] != xs[i] {
			return false, nil
		}
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
		if !isSum || len(u.Args) != 1 || len(u.Kwargs) != 0 {
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
