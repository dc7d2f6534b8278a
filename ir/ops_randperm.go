package ir

import "gcdbg/tensor"

// randperm(n, ...): torch.randperm, as mixup and shuffles draw it
// (x[torch.randperm(x.size(0))]). The exporter records it as a graph node
// and its draw in expected.random; as for rand and randn
// (ops_train_factory.go) the normalized stage replaces each by PyTorch's
// recorded draw or by gcdbg's own at the node's offset
// (tensor.PhiloxRandperm: a stable argsort of uniforms); this evaluation
// (offset 0) serves the op table.
func init() {
	d := Register("randperm(n, generator=None, dtype=None, layout=None, device=None, pin_memory=None, requires_grad=False)", KindCreation, func(a Args) (Value, error) {
		n, dt, err := randpermArgs(a)
		if err != nil {
			return nil, err
		}
		return tensor.PhiloxRandperm(n, 0, 0, dt)
	})
	d.Infer = func(a Args) (Value, error) {
		n, dt, err := randpermArgs(a)
		if err != nil {
			return nil, err
		}
		return contig(dt, []int{n}), nil
	}
}

// randpermArgs is randperm's n and dtype (int64 by default); bool is
// PyTorch's "not implemented", an explicit generator is not supported.
func randpermArgs(a Args) (int, tensor.DType, error) {
	n, err := a.Int(0)
	if err != nil {
		return 0, 0, err
	}
	if n < 0 {
		return 0, 0, a.errf(0, "n must be non-negative, got %d", n)
	}
	if a.V[1] != nil {
		return 0, 0, a.errf(1, "an explicit generator is not supported")
	}
	dt, err := a.DType(2, tensor.Int64)
	if err != nil {
		return 0, 0, err
	}
	if dt == tensor.Bool {
		return 0, 0, a.errf(2, "\"randperm\" not implemented for 'Bool'")
	}
	return n, dt, nil
}
