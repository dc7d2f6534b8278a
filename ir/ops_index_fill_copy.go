package ir

import "gcdbg/tensor"

// index_fill(self, dim, index, value) and index_copy(self, dim, index,
// source): Tensor.index_fill(_) / index_copy(_) (masking whole rows or
// columns, a cache's row update). The decomposed stage writes them as
// where over a mask along dim and as scatter (stages/decomp_index_add.go);
// the in-place forms are the op and a copy_ into self (inplaceByCopy).
func init() {
	fill := Register("index_fill(self, dim, index, value)", KindIndex, func(a Args) (Value, error) {
		r := &ar{a: a}
		x, d, idx := r.t(0), r.i(1), r.t(2)
		if r.err != nil {
			return nil, r.err
		}
		v, dims := 0.0, -1
		if a.IsTensor(3) {
			t := r.t(3)
			if r.err != nil {
				return nil, r.err
			}
			dims = t.Dim()
			if dims == 0 {
				v = t.Flat(0)
			}
		} else if v = r.f(3); r.err != nil {
			return nil, r.err
		}
		return r.done(tensor.IndexFill(x, d, idx, v, dims))
	})
	fill.Infer = func(a Args) (Value, error) {
		r := &ar{a: a}
		dim := r.i(1)
		if r.err != nil {
			return nil, r.err
		}
		x, err := a.meta(0)
		if err != nil {
			return nil, err
		}
		idx, err := a.meta(2)
		if err != nil {
			return nil, err
		}
		dims := -1
		if v, ok := a.V[3].(*TensorMeta); ok {
			dims = len(v.Shape)
		}
		if _, err := tensor.IndexFillCheck(x.Shape.Sizes(), idx.Shape.Sizes(), idx.DType, dim, dims); err != nil {
			return nil, err
		}
		return contig(x.DType, x.Shape.Sizes()), nil
	}
	cp := Register("index_copy(self, dim, index, source)", KindIndex, func(a Args) (Value, error) {
		r := &ar{a: a}
		x, d, idx, src := r.t(0), r.i(1), r.t(2), r.t(3)
		if r.err != nil {
			return nil, r.err
		}
		return r.done(tensor.IndexCopy(x, d, idx, src))
	})
	cp.Infer = inferIndexed(tensor.IndexCopyCheck) // ops_index_add.go
}
