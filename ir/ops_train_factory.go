package ir

import "gcdbg/tensor"

// Factory random draws: torch.rand(*size) and torch.randn(*size) (the
// exporter records them as graph nodes, sizes ints or a traced x.shape).
// The canonical ops take the size as one tuple, so that their bound
// arguments (size, generator, dtype, ...) bind again as they are; the
// normalizer's aliases bind torch.rand(2, 3) and torch.rand((2, 3)).
// As for rand_like and randn_like (ops_train.go), the normalized stage
// replaces each by the draw PyTorch recorded or by philox_rand at the
// node's own offset; this evaluation (offset 0) serves the op table.
func init() {
	factory := func(name string, draw func([]int, int64, int64, tensor.DType) (*tensor.Tensor, error)) {
		Register(name+"(size, generator=None, dtype=None, layout=None, device=None, pin_memory=None, requires_grad=False)", KindCreation, func(a Args) (Value, error) {
			size, dt, err := factoryDraw(a)
			if err != nil {
				return nil, err
			}
			return draw(size, 0, 0, dt)
		}).Infer = inferFactoryDraw
	}
	factory("rand", tensor.PhiloxRand)
	factory("randn", tensor.PhiloxRandn)
}

// factoryDraw is the size and dtype of a rand/randn call: PyTorch's default
// dtype float32, floating dtypes only ("not implemented for 'Long'"), no
// explicit generator.
func factoryDraw(a Args) ([]int, tensor.DType, error) {
	size, err := sizesArg(a, 0)
	if err != nil {
		return nil, 0, err
	}
	if err := tensor.CheckSizes(size); err != nil {
		return nil, 0, a.errf(0, "%v", err)
	}
	if a.V[1] != nil {
		return nil, 0, a.errf(1, "an explicit generator is not supported")
	}
	dt, err := a.DType(2, tensor.Float32)
	if err != nil {
		return nil, 0, err
	}
	if !dt.IsFloat() {
		return nil, 0, a.errf(2, "%s draws floating values only, got dtype %s", a.Op.Name, dt)
	}
	return size, dt, nil
}

func inferFactoryDraw(a Args) (Value, error) {
	size, dt, err := factoryDraw(a)
	if err != nil {
		return nil, err
	}
	return contig(dt, size), nil
}
