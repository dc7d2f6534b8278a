package interp

import (
	"slices"

	"gcdbg/ir"
	"gcdbg/tensor"
)

// quiet is p without the perturbation: Float64.
func (p *precision) quiet() *precision {
	return &precision{}
}

// exactNodes is, under Float64Noise, the test for the nodes whose results
// stay unperturbed: floating values computed from no floating graph input
// (positions from torch.arange, a mask's finfo.min) that a float-to-integer
// or float-to-bool op reads, directly or through more of them. Their
// float32 value is the same deterministic function of integers in every
// run, and an op such as T5's relative-position bucket
// (log(|j - i| / 8) / log(16) * 8).to(torch.long) sits on an integer for
// some positions (2.0 at |j - i| = 16), where a perturbation of float32's
// size flips the truncation: the simulated run then picks other
// embedding rows, and its distance from Float64 (the baseline) grew to
// the size of the loss itself (1.38 on a loss of 8.3), a bound that every
// error would pass. The float32 rounding of such values still reaches the
// baseline through PyTorch's result and the eager run in the graph's dtype.
// Nil when nothing is exempt or p does not perturb.
func (p *precision) exactNodes(g *ir.Graph) *exactSet {
	if p == nil || !p.noise {
		return nil
	}
	isFloat := func(n *ir.Node) bool {
		return n.Meta.Tensor != nil && n.Meta.Tensor.DType.IsFloat()
	}
	// feeds: n's floating value reaches a float-to-discrete op.
	feeds := map[*ir.Node]bool{}
	for i := len(g.Nodes) - 1; i >= 0; i-- {
		n := g.Nodes[i]
		if n.Op != ir.CallFunction {
			continue
		}
		discrete := n.Meta.Tensor != nil && !n.Meta.Tensor.DType.IsFloat()
		n.EachInput(func(in *ir.Node) {
			if (discrete || feeds[n]) && isFloat(in) {
				feeds[in] = true
			}
		})
	}
	if len(feeds) == 0 {
		return nil
	}
	return &exactSet{feeds: feeds, data: map[*ir.Node]bool{}}
}

// exactSet decides exactNodes' exemption as the run goes: data marks the
// nodes whose floating values derive from a floating graph input (a
// parameter, a float example input); an integer or bool value (a size, a
// comparison) carries no data on to what is computed from it.
type exactSet struct {
	feeds, data map[*ir.Node]bool
}

// before reports whether n's result stays unperturbed.
func (e *exactSet) before(n *ir.Node) bool {
	if n.Op != ir.CallFunction {
		return false
	}
	d := false
	n.EachInput(func(in *ir.Node) { d = d || e.data[in] })
	e.data[n] = d
	return e.feeds[n] && !d
}

// after records whether n's value v is floating data.
func (e *exactSet) after(n *ir.Node, v ir.Value) {
	if n.Op == ir.Placeholder || n.Op == ir.GetAttr {
		e.data[n] = true
	}
	if !e.data[n] {
		return
	}
	var ts []*tensor.Tensor
	collectTensors(v, &ts)
	e.data[n] = slices.ContainsFunc(ts, func(t *tensor.Tensor) bool { return t.DType.IsFloat() })
}
