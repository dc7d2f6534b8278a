package ir

import "gcdbg/tensor"

// kthvalue and median: order statistics along a dim (values and indices),
// decomposed into sort + gather by stages/decomp_kth.go.
func init() {
	Register("kthvalue(self, k, dim=-1, keepdim=False)", KindSort, func(a Args) (Value, error) {
		r := &ar{a: a}
		x, k, d, keep := r.t(0), r.i(1), r.i(2), r.b(3)
		if r.err != nil {
			return nil, r.err
		}
		v, i, err := tensor.Kthvalue(x, k, d, keep)
		if err != nil {
			return r.done(nil, err)
		}
		return Tuple{v, i}, nil
	})
	Register("median(self, dim=None, keepdim=False)", KindSort, func(a Args) (Value, error) {
		r := &ar{a: a}
		x := r.t(0)
		if r.err != nil {
			return nil, r.err
		}
		if a.V[1] == nil {
			return r.done(tensor.MedianAll(x))
		}
		d, keep := r.i(1), r.b(2)
		if r.err != nil {
			return nil, r.err
		}
		v, i, err := tensor.MedianDim(x, d, keep)
		if err != nil {
			return r.done(nil, err)
		}
		return Tuple{v, i}, nil
	})
}
