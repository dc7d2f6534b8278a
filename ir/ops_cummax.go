package ir

import (
	"fmt"

	"gcdbg/tensor"
)

// cummax and cummin return (values, indices) as sort does: the running
// extremum along dim and the int64 index where it was attained
// (tensor.CumMaxMin holds ATen's tie and NaN rule). Shape inference is
// sort's: two tensors of self's shape (values in self's dtype, int64).
func init() {
	for _, name := range []string{"cummax", "cummin"} {
		isMax := name == "cummax"
		d := Register(name+"(self, dim)", KindSort, func(a Args) (Value, error) {
			r := &ar{a: a}
			x, dim := r.t(0), r.i(1)
			if r.err != nil {
				return nil, r.err
			}
			v, i, err := tensor.CumMaxMin(x, dim, isMax)
			if err != nil {
				return r.done(nil, err)
			}
			return Tuple{v, i}, nil
		})
		d.Infer = scalarArgs(func(a Args) (Value, error) {
			x, err := a.meta(0)
			if err != nil {
				return nil, err
			}
			if x.DType == tensor.Float16 {
				_, _, err := tensor.CumMaxMin(tensor.New(tensor.Float16), 0, isMax) // the refusal's one home
				return nil, fmt.Errorf("%s: %w", name, err)
			}
			if len(x.Shape) == 0 {
				return Tuple{contig(x.DType, nil), contig(tensor.Int64, nil)}, nil // any dim (tensor.CumMaxMin)
			}
			if _, ok := a.V[1].(*TensorMeta); ok {
				return inferByExample(a.Op, a.V) // dim given as a one-element tensor: its value
			}
			return inferSort(a)
		}, map[int]byte{1: 'i'})
	}
}
