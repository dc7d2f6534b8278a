package ir

import (
	"fmt"
	"strings"

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

// The scatters' in-place forms (Tensor.scatter_, scatter_reduce_,
// index_put_, masked_scatter_), registered here, after the ops themselves
// (ops_ext_nn.go, ops_functional.go; files initialise in name order).
func init() {
	registerInplace("scatter", "scatter_reduce", "index_put", "masked_scatter")
	for _, n := range []string{"scatter_", "scatter_reduce_", "index_put_", "masked_scatter_"} {
		Lookup("aten." + n).Infer = func(a Args) (Value, error) { // self, after the op's own checks
			self, err := a.meta(0)
			if err != nil {
				return nil, err
			}
			base := Lookup(strings.TrimSuffix(a.Op.Name, "_"))
			r, err := base.Infer(Args{Op: base, V: a.V})
			if err != nil {
				return nil, err
			}
			if m, ok := r.(*TensorMeta); !ok || !m.Shape.Equal(ShapeOf(self.Shape.Sizes())) {
				return nil, fmt.Errorf("%s: the result does not have self's shape %v", a.Op.Name, self.Shape.Sizes())
			}
			return alias(self), nil
		}
	}
}
