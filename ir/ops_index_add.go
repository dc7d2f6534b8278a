package ir

import "gcdbg/tensor"

// index_add(self, dim, index, source, alpha=1): torch.index_add and
// Tensor.index_add (a GNN's message sum, torch.zeros_like(x).index_add_(0,
// dst, msg)): source's slices along dim, times alpha, added into self at
// the positions index names; repeated positions accumulate. The decomposed
// stage writes it as scatter_add (stages/decomp_index_add.go), which
// compiles; Tensor.index_add_ is this op and a copy_ into self
// (stages/functionalize_out.go, inplaceByCopy).
func init() {
	d := Register("index_add(self, dim, index, source, alpha=1)", KindIndex, func(a Args) (Value, error) {
		r := &ar{a: a}
		x, d, idx, src, alpha := r.t(0), r.i(1), r.t(2), r.t(3), r.f(4)
		if r.err != nil {
			return nil, r.err
		}
		return r.done(tensor.IndexAdd(x, d, idx, src, alpha))
	})
	d.Infer = inferIndexed(tensor.IndexAddCheck)
}

// inferIndexed is index_add's and index_copy's inference: a fresh tensor of
// self's shape after check (tensor.IndexAddCheck, IndexCopyCheck) of self,
// index and source (arguments 0, 2, 3) and dim (argument 1).
func inferIndexed(check func(self, index, source []int, sdt, idt, srcdt tensor.DType, dim int) (int, error)) func(Args) (Value, error) {
	return func(a Args) (Value, error) {
		r := &ar{a: a}
		dim := r.i(1)
		if r.err != nil {
			return nil, r.err
		}
		var ms [3]*TensorMeta
		for k, i := range []int{0, 2, 3} {
			m, err := a.meta(i)
			if err != nil {
				return nil, err
			}
			ms[k] = m
		}
		x, idx, src := ms[0], ms[1], ms[2]
		if _, err := check(x.Shape.Sizes(), idx.Shape.Sizes(), src.Shape.Sizes(), x.DType, idx.DType, src.DType, dim); err != nil {
			return nil, err
		}
		return contig(x.DType, x.Shape.Sizes()), nil
	}
}
