package ir

import "gcdbg/tensor"

// Core indexing ops the decomposition stage lowers to: index_select
// (embedding), gather (losses) and index (advanced indexing, aten.index.Tensor:
// one optional index per leading dim: an index tensor or bool mask, a
// constant list of ints, or None meaning "all of it").

func init() {
	Register("index_select(self, dim, index)", KindIndex, func(a Args) (Value, error) {
		x, err := a.Tensor(0)
		if err != nil {
			return nil, err
		}
		d, err := a.Int(1)
		if err != nil {
			return nil, err
		}
		idx, err := a.Tensor(2)
		if err != nil {
			return nil, err
		}
		return tensor.IndexSelect(x, d, idx)
	})
	Register("gather(self, dim, index)", KindIndex, func(a Args) (Value, error) {
		x, err := a.Tensor(0)
		if err != nil {
			return nil, err
		}
		d, err := a.Int(1)
		if err != nil {
			return nil, err
		}
		idx, err := a.Tensor(2)
		if err != nil {
			return nil, err
		}
		return tensor.Gather(x, d, idx)
	})
	Register("index(self, indices)", KindIndex, func(a Args) (Value, error) {
		x, err := a.Tensor(0)
		if err != nil {
			return nil, err
		}
		var parts []Value
		switch v := a.V[1].(type) {
		case List:
			parts = v
		case Tuple:
			parts = v
		default:
			return nil, a.errf(1, "expected a list of optional index tensors, got %s", typeName(a.V[1]))
		}
		items := make([]tensor.IndexItem, len(parts))
		for i, p := range parts {
			switch t := p.(type) {
			case nil:
				items[i] = tensor.IndexItem{Kind: tensor.IdxSlice}
			case *tensor.Tensor:
				items[i] = tensor.IndexItem{Kind: tensor.IdxTensor, Tensor: t}
			case List: // a constant index such as x[[0, 2]]
				li, err := indexItems(a, Tuple{t})
				if err != nil {
					return nil, err
				}
				items[i] = li[0]
			default:
				return nil, a.errf(1, "item %d: expected a tensor or None, got %s", i, typeName(p))
			}
		}
		return tensor.Index(x, items)
	})
	for _, n := range []string{"aten.index_select", "aten.gather", "aten.index"} {
		MarkCore(n)
	}
}
