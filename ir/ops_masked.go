package ir

import (
	"fmt"

	"gcdbg/tensor"
)

// masked_scatter(self, mask, source): the positions where mask (broadcast
// with self) is true take source's elements in row-major order. The
// decomposed stage writes it as core ops with no data-dependent shape
// (stages/decomp_masked.go).
func init() {
	d := Register("masked_scatter(self, mask, source)", KindIndex, func(a Args) (Value, error) {
		r := &ar{a: a}
		x, m, s := r.t(0), r.t(1), r.t(2)
		if r.err != nil {
			return nil, r.err
		}
		return r.done(tensor.MaskedScatter(x, m, s))
	})
	d.Infer = func(a Args) (Value, error) {
		x, err := a.meta(0)
		if err != nil {
			return nil, err
		}
		m, err := a.meta(1)
		if err != nil {
			return nil, err
		}
		s, err := a.meta(2)
		if err != nil {
			return nil, err
		}
		if m.DType != tensor.Bool && m.DType != tensor.Uint8 {
			return nil, fmt.Errorf("masked_scatter_ only supports boolean masks, but got mask with dtype %s", m.DType)
		}
		if s.DType != x.DType {
			return nil, fmt.Errorf("masked_scatter: expected self and source to have same dtypes but got %s and %s", x.DType, s.DType)
		}
		shape, err := tensor.BroadcastShapes(x.Shape.Sizes(), m.Shape.Sizes())
		if err != nil {
			return nil, err
		}
		return contig(x.DType, shape), nil
	}
}
