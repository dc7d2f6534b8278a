package stages

import "gcdbg/ir"

// flattenOutputs makes the normalized graph return one value per tensor, as
// the trace's expected.outputs lists them (the exporter flattens results):
// a returned node whose value is a tuple of tensors (max/min with dim,
// sort, topk, split, ...) becomes one aten.getitem per item.
func (nz *normalizer) flattenOutputs(a ir.Arg) (ir.Arg, error) {
	var items []ir.Arg
	switch v := a.(type) {
	case ir.Tuple:
		items = v
	case ir.List:
		items = v
	default:
		items = []ir.Arg{a}
	}
	changed := false
	var out ir.Tuple
	for _, it := range items {
		n, ok := it.(*ir.Node)
		if !ok || n.Meta.Tensor != nil || len(n.Meta.Items) == 0 {
			out = append(out, it)
			continue
		}
		changed = true
		for i := range n.Meta.Items {
			g, err := nz.callFor(n, "aten.getitem", n, int64(i))
			if err != nil {
				return nil, err
			}
			out = append(out, g)
		}
	}
	if !changed {
		return a, nil
	}
	return out, nil
}
