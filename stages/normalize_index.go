package stages

import "gcdbg/ir"

// atenIndices rewrites the indices of PyTorch's own index_put spellings
// (torch.index_put, Tensor.index_put, aten.index_put.default: a list of
// optional index tensors, one per leading dim, None taking the whole dim)
// into the Python subscript the canonical aten.index_put takes, where None
// would add a dim: [None, idx] becomes (:, idx). The canonical spelling
// (aten.index_put without an overload, what the functional stage emits and
// the Readable printer writes) already holds a subscript.
func atenIndices(n *ir.Node, d *ir.OpDef, args []ir.Arg) {
	if d.Name != "aten.index_put" || n.Target == "aten.index_put" || len(args) < 2 {
		return
	}
	var items []ir.Arg
	switch v := args[1].(type) {
	case ir.List:
		items = v
	case ir.Tuple:
		items = v
	default:
		return
	}
	sub := make(ir.Tuple, len(items))
	for i, it := range items {
		if it == nil {
			it = ir.Slice{}
		}
		sub[i] = it
	}
	args[1] = sub
}
