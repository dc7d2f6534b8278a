package ir

import (
	"fmt"

	"gcdbg/tensor"
)

// The functional counterparts of mutation, which functionalization emits
// in place of in-place ops and writes through views (AOTAutograd's
// slice_scatter, select_scatter, index_put). All are core ops: the joint
// graph and the loop IR see them as ordinary out-of-place ops.

func init() {
	Register("slice_scatter(self, src, dim=0, start=None, end=None, step=1)", KindIndex, func(a Args) (Value, error) {
		x, src, err := twoTensors(a)
		if err != nil {
			return nil, err
		}
		d, err := a.Int(2)
		if err != nil {
			return nil, err
		}
		s, err := a.OptInt(3)
		if err != nil {
			return nil, err
		}
		e, err := a.OptInt(4)
		if err != nil {
			return nil, err
		}
		st, err := a.OptInt(5)
		if err != nil {
			return nil, err
		}
		return tensor.SliceScatter(x, src, d, s, e, st)
	})
	Register("select_scatter(self, src, dim, index)", KindIndex, func(a Args) (Value, error) {
		x, src, err := twoTensors(a)
		if err != nil {
			return nil, err
		}
		d, err := a.Int(2)
		if err != nil {
			return nil, err
		}
		i, err := a.Int(3)
		if err != nil {
			return nil, err
		}
		return tensor.SelectScatter(x, src, d, i)
	})
	// index_put is setitem without the mutation. Its indices are a Python
	// subscript exactly as setitem takes it (ints, slices, None, Ellipsis,
	// index tensors, a tuple of those), not aten's list of optional
	// tensors: it must express every `x[...] = v` the trace can hold.
	// accumulate=True adds the values (repeated indices add up). aten's
	// spelling (a list of optional index tensors) is rewritten into a
	// subscript by the normalized stage (stages/normalize_index.go).
	ip := Register("index_put(self, indices, values, accumulate=False)", KindIndex, func(a Args) (Value, error) {
		x, err := a.Tensor(0)
		if err != nil {
			return nil, err
		}
		items, err := indexItems(a, a.V[1])
		if err != nil {
			return nil, err
		}
		v, err := a.Tensor(2)
		if err != nil {
			return nil, err
		}
		if len(a.V) > 3 && a.V[3] != nil && a.V[3] != false { // accumulate=True
			if _, err := a.Bool(3); err != nil {
				return nil, err
			}
			return tensor.IndexPutAccumulate(x, items, v)
		}
		return tensor.IndexPutCopy(x, items, v)
	})
	ip.Infer = inferIndexPut
	for _, n := range []string{"slice_scatter", "select_scatter", "index_put"} {
		MarkCore("aten." + n)
	}
}

func twoTensors(a Args) (*tensor.Tensor, *tensor.Tensor, error) {
	x, err := a.Tensor(0)
	if err != nil {
		return nil, nil, err
	}
	src, err := a.Tensor(1)
	return x, src, err
}

// inferIndexPut: a fresh row-major copy of self. (Not by example: an
// example bool mask filled with ones selects every element, and an example
// index of ones is out of bounds where the dim has size 1.) The values'
// shape is checked against the selected elements when the op runs.
func inferIndexPut(a Args) (Value, error) {
	x, err := a.meta(0)
	if err != nil {
		return nil, err
	}
	if v, ok := a.V[2].(*TensorMeta); ok && len(a.V) > 3 && a.V[3] == true && v.DType != x.DType {
		return nil, fmt.Errorf("Index put requires the source and destination dtypes match, got %s for the destination and %s for the source.", x.DType, v.DType)
	}
	return contig(x.DType, x.Shape.Sizes()), nil
}
