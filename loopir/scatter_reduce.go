package loopir

import (
	"gcdbg/ir"
	"gcdbg/tensor"
)

// scatterReduceOps are the reductions of scatter_reduce(self, dim, index,
// src, reduce, include_self) that compile, as generated C
// (render/scatter_reduce.go): a graph network's max pooling over the nodes
// of each graph (scatter_reduce(..., "amax", include_self=False)) ran as an
// eager fallback. "mean" (a count per output element) stays a fallback.
var scatterReduceOps = map[string]bool{"sum": true, "prod": true, "amax": true, "amin": true}

// scatterReduce lowers scatter_reduce to an extern when self, src and the
// result share one 32- or 64-bit floating dtype, the reduction is one of
// scatterReduceOps and the index has the result's sizes off dim (the forms
// scatter and scatter_add compile); any other form is an eager fallback.
func (l *lowerer) scatterReduce(n *ir.Node, bound []ir.Arg) error {
	const op = "scatter_reduce"
	self, _, err := l.value(bound[0])
	index, _, err2 := l.value(bound[2])
	src, _, err3 := l.value(bound[3])
	red, _ := bound[4].(string)
	_, incOK := bound[5].(bool)
	m := n.Meta.Tensor
	if err != nil || err2 != nil || err3 != nil || self == nil || index == nil || src == nil || m == nil ||
		!scatterReduceOps[red] || !incOK || index.DType.IsFloat() || (m.DType != tensor.Float32 && m.DType != tensor.Float64) ||
		self.DType != m.DType || src.DType != m.DType || len(m.Shape) == 0 ||
		len(index.Sizes) != len(m.Shape) || len(self.Sizes) != len(m.Shape) || len(src.Sizes) != len(m.Shape) {
		return l.fallback(n, op, ir.KindIndex)
	}
	if _, _, fits, err := l.scatterDim(n, bound, index); err != nil || !fits {
		return l.fallbackUnless(err, n, op)
	}
	return l.extern(n, op, Extern)
}
