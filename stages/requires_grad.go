package stages

import "gcdbg/ir"

// inputRequiresGrad reports whether the graph input n (a placeholder or
// get_attr) is a floating tensor that requires grad: the joint graph
// differentiates with respect to it (a primal with a gradient). Its node
// meta or the trace's tensor may say so.
func inputRequiresGrad(g *ir.Graph, n *ir.Node) bool {
	td := g.Tensors[n.Target]
	if m := n.Meta.Tensor; m != nil {
		return m.DType.IsFloat() && (m.RequiresGrad || td != nil && td.RequiresGrad)
	}
	return td != nil && td.T != nil && td.T.DType.IsFloat() && td.RequiresGrad // meta filled in from the tensor later
}

// anyInputRequiresGrad reports whether the joint graph of g will have a
// backward: some input requires grad.
func anyInputRequiresGrad(g *ir.Graph) bool {
	for _, n := range g.Nodes {
		if (n.Op == ir.Placeholder || n.Op == ir.GetAttr) && inputRequiresGrad(g, n) {
			return true
		}
	}
	return false
}
