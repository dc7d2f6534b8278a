package ir

import (
	"fmt"

	"gcdbg/tensor"
)

// Training-mode ops: batch_norm in training (batch statistics, running
// stats updated in place as F.batch_norm does), its functional form
// (PyTorch's _native_batch_norm_legit_functional: the updated running
// stats are results, not mutations), dropout replayed from a keep mask, and
// the random ops, with gcdbg's own counter-based draws (philox_rand).

func init() {
	bn := Lookup("aten.batch_norm")
	if bn == nil {
		panic("ir: ops_train.go needs aten.batch_norm registered first (ops_nn.go)")
	}
	evalMode := bn.Eval
	bn.Eval = func(a Args) (Value, error) {
		tr, err := a.Bool(5)
		if err != nil || !tr {
			return evalMode(a)
		}
		return batchNormTrainInPlace(a)
	}
	bn.Infer = inferBatchNormAnyMode

	// dropout in training mode is random: its value is never evaluated
	// (the normalized stage replaces it by a draw), but its meta is known.
	dr := Lookup("aten.dropout")
	if dr == nil {
		panic("ir: ops_train.go needs aten.dropout registered first (ops_nn.go)")
	}
	dropoutInfer := dr.Infer
	dr.Infer = func(a Args) (Value, error) {
		x, isMeta := a.V[0].(*TensorMeta)
		tr, _ := a.V[2].(bool)
		p, err := a.Float(1)
		if isMeta && tr && err == nil && p != 0 {
			if !(p >= 0 && p <= 1) {
				return nil, a.errf(1, "dropout probability has to be between 0 and 1, but got %g", p)
			}
			return contig(x.DType, x.Shape.Sizes()), nil
		}
		return dropoutInfer(a)
	}

	Register("batch_norm_functional(input, running_mean, running_var, weight=None, bias=None, momentum=0.1, eps=1e-05)", KindNorm, func(a Args) (Value, error) {
		x, ts, m, eps, err := batchNormTrainArgs(a, 5, 6)
		if err != nil {
			return nil, err
		}
		if ts[0] == nil || ts[1] == nil {
			return nil, a.errf(1, "batch_norm_functional updates running_mean and running_var; both must be tensors")
		}
		out, nm, nv, err := tensor.BatchNormTrain(x, ts[0], ts[1], ts[2], ts[3], m, eps)
		if err != nil {
			return nil, err
		}
		return Tuple{out, nm, nv}, nil
	}).Infer = inferBatchNormFunctional

	Register("dropout_masked(input, mask, p)", KindPointwise, maskedEval(DropoutMasked)).Infer = inferDropoutMasked
	// feature_dropout (nn.Dropout1d/2d/3d): whole channels, one draw per
	// (sample, channel). In training the normalized stage replaces it by
	// dropout_masked with a [N, C, 1, ...] mask; in eval it is the identity.
	Register("feature_dropout(input, p=0.5, training=True, inplace=False)", KindPointwise, func(a Args) (Value, error) {
		x, err := a.Tensor(0)
		if err != nil {
			return nil, err
		}
		p, err := a.Float(1)
		if err != nil {
			return nil, err
		}
		tr, err := a.Bool(2)
		if err != nil {
			return nil, err
		}
		if !(p >= 0 && p <= 1) {
			return nil, a.errf(1, "dropout probability has to be between 0 and 1, but got %g", p)
		}
		if tr && p != 0 {
			return nil, a.errf(2, "feature dropout in training mode is random: the normalized stage replaces it by its draw")
		}
		return x, nil
	}).Infer = func(a Args) (Value, error) {
		x, err := a.meta(0)
		if err != nil {
			return nil, err
		}
		p, err := a.Float(1)
		if err != nil {
			return nil, err
		}
		tr, err := a.Bool(2)
		if err != nil {
			return nil, err
		}
		if !(p >= 0 && p <= 1) {
			return nil, a.errf(1, "dropout probability has to be between 0 and 1, but got %g", p)
		}
		if tr && p != 0 {
			return contig(x.DType, x.Shape.Sizes()), nil
		}
		return alias(x), nil
	}
	creation := func(name string, draw func([]int, int64, int64, tensor.DType) (*tensor.Tensor, error)) {
		Register(name+"(size, seed, offset, dtype=None)", KindCreation, func(a Args) (Value, error) {
			size, err := a.Ints(0)
			if err != nil {
				return nil, err
			}
			sd, err := a.IntsAt(1, 2)
			if err != nil {
				return nil, err
			}
			dt, err := a.DType(3, tensor.Float32)
			if err != nil {
				return nil, err
			}
			return draw(size, int64(sd[0]), int64(sd[1]), dt)
		}).Infer = inferPhilox
	}
	creation("philox_rand", tensor.PhiloxRand)
	creation("philox_randn", tensor.PhiloxRandn)
	// philox_uniform(seed, counter): element-wise Philox draw, the core op
	// philox_rand decomposes to (the loop IR computes it in kernels).
	Register("philox_uniform(seed, counter)", KindPointwise, func(a Args) (Value, error) {
		s, err := a.Tensor(0)
		if err != nil {
			return nil, err
		}
		c, err := a.Tensor(1)
		if err != nil {
			return nil, err
		}
		shape, err := tensor.BroadcastShapes(s.Shape, c.Shape)
		if err != nil {
			return nil, err
		}
		sb, _ := s.BroadcastTo(shape)
		cb, _ := c.BroadcastTo(shape)
		out := tensor.New(tensor.Float64, shape...)
		for i := 0; i < out.Numel(); i++ {
			sv, cv := sb.Flat(i), cb.Flat(i)
			if !(sv >= 0 && cv >= 0) {
				return nil, fmt.Errorf("philox_uniform: seed and counter must be >= 0, got %v and %v", sv, cv)
			}
			out.SetFlat(i, tensor.PhiloxUniform(uint64(sv), uint64(cv)))
		}
		return out, nil
	}).Infer = inferPointwise
	MarkCore("aten.philox_uniform")
	// detach stays in the decomposed graph: the joint graph passes no
	// gradient through it (an embedding's padding row, running-stat
	// updates, the user's x.detach()); the loop IR reads it as an alias.
	MarkCore("aten.detach")

	// The random ops themselves. The normalized stage replaces each by the
	// draw PyTorch recorded or by philox_rand at the node's own offset; these
	// evaluations (offset 0) serve shape inference.
	like := func(name string, draw func([]int, int64, int64, tensor.DType) (*tensor.Tensor, error)) {
		Register(name+"(self, dtype=None, layout=None, device=None, pin_memory=None, memory_format=None)", KindCreation, func(a Args) (Value, error) {
			x, err := a.Tensor(0)
			if err != nil {
				return nil, err
			}
			dt, err := a.DType(1, x.DType)
			if err != nil {
				return nil, err
			}
			return draw(x.Shape, 0, 0, dt)
		}) // inferred by example: no stage graph holds one
	}
	like("rand_like", tensor.PhiloxRand)
	like("randn_like", tensor.PhiloxRandn)
	Register("bernoulli(self, p=None, generator=None)", KindPointwise, bernoulliEval).Infer = inferRandLike
}

// maskedEval evaluates an op (input, mask, p) of a dropout replayed from its
// keep mask by f.
func maskedEval(f func(x, mask *tensor.Tensor, p float64) (*tensor.Tensor, error)) func(Args) (Value, error) {
	return func(a Args) (Value, error) {
		x, err := a.Tensor(0)
		if err != nil {
			return nil, err
		}
		mask, err := a.Tensor(1)
		if err != nil {
			return nil, err
		}
		p, err := a.Float(2)
		if err != nil {
			return nil, err
		}
		return f(x, mask, p)
	}
}

func bernoulliEval(a Args) (Value, error) {
	x, err := a.Tensor(0)
	if err != nil {
		return nil, err
	}
	if a.V[2] != nil {
		return nil, a.errf(2, "an explicit generator is not supported")
	}
	if !x.DType.IsFloat() {
		return nil, a.errf(0, "bernoulli needs a floating tensor, got %s", x.DType)
	}
	u, err := tensor.PhiloxRand(x.Shape, 0, 0, tensor.Float64)
	if err != nil {
		return nil, err
	}
	p := x
	if a.V[1] != nil {
		if p, err = a.Tensor(1); err != nil {
			return nil, err
		}
	}
	return Bernoulli(u, p, x.DType)
}

func inferDropoutMasked(a Args) (Value, error) {
	x, err := a.meta(0)
	if err != nil {
		return nil, err
	}
	if _, err := a.meta(1); err != nil {
		return nil, err
	}
	if !x.DType.IsFloat() {
		return nil, a.errf(0, "dropout: input must be floating, got %s", x.DType)
	}
	return contig(x.DType, x.Shape.Sizes()), nil
}

func inferPhilox(a Args) (Value, error) {
	size, err := a.Ints(0)
	if err != nil {
		return nil, err
	}
	if _, err := a.IntsAt(1, 2); err != nil {
		return nil, err
	}
	dt, err := a.DType(3, tensor.Float32)
	if err != nil {
		return nil, err
	}
	for _, s := range size {
		if s < 0 {
			return nil, a.errf(0, "negative dimension %d", s)
		}
	}
	if !dt.IsFloat() {
		return nil, a.errf(3, "dtype must be floating, got %s", dt)
	}
	return contig(dt, size), nil
}

// inferRandLike: self's shape, the dtype argument or self's dtype.
func inferRandLike(a Args) (Value, error) {
	x, err := a.meta(0)
	if err != nil {
		return nil, err
	}
	dt := x.DType
	if a.Op.Name == "aten.bernoulli" {
		if a.V[2] != nil {
			return nil, a.errf(2, "an explicit generator is not supported")
		}
		if !dt.IsFloat() {
			return nil, a.errf(0, "bernoulli needs a floating tensor, got %s", dt)
		}
		if pm, ok := a.V[1].(*TensorMeta); ok {
			b, err := tensor.BroadcastShapes(pm.Shape.Sizes(), x.Shape.Sizes())
			if err != nil || !equalSizes(b, x.Shape.Sizes()) {
				return nil, fmt.Errorf("bernoulli: probabilities of shape %v do not fit %v", pm.Shape.Sizes(), x.Shape.Sizes())
			}
		}
	} else if dt, err = a.DType(1, x.DType); err != nil {
		return nil, err
	}
	if !dt.IsFloat() {
		return nil, a.errf(0, "%s needs a floating dtype, got %s", a.Op.Name, dt)
	}
	return contig(dt, x.Shape.Sizes()), nil
}

// batchNormTrainArgs reads (input, running_mean, running_var, weight,
// bias) and the momentum and eps at positions mi, ei. The momentum may be a
// one-element tensor (momentum=None: 1 / num_batches_tracked).
func batchNormTrainArgs(a Args, mi, ei int) (*tensor.Tensor, [4]*tensor.Tensor, float64, float64, error) {
	var ts [4]*tensor.Tensor
	x, err := a.Tensor(0)
	if err != nil {
		return nil, ts, 0, 0, err
	}
	for i := range ts {
		if ts[i], err = a.OptTensor(i + 1); err != nil {
			return nil, ts, 0, 0, err
		}
	}
	m, err := a.Float(mi)
	if err != nil {
		return nil, ts, 0, 0, err
	}
	eps, err := a.Float(ei)
	if err != nil {
		return nil, ts, 0, 0, err
	}
	return x, ts, m, eps, nil
}

// batchNormTrainInPlace is F.batch_norm(training=True): the output uses the
// batch statistics and the running stats, when given, are updated in place.
func batchNormTrainInPlace(a Args) (Value, error) {
	x, ts, m, eps, err := batchNormTrainArgs(a, 6, 7)
	if err != nil {
		return nil, err
	}
	out, nm, nv, err := tensor.BatchNormTrain(x, ts[0], ts[1], ts[2], ts[3], m, eps)
	if err != nil {
		return nil, err
	}
	if nm != nil {
		if err := ts[0].CopyFrom(nm); err != nil {
			return nil, err
		}
		if err := ts[1].CopyFrom(nv); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// inferBatchNormAnyMode is batch_norm's inference: in training mode the
// probe keeps two values per dim (training needs more than one per channel).
func inferBatchNormAnyMode(a Args) (Value, error) {
	x, err := a.meta(0)
	if err != nil {
		return nil, err
	}
	dts, _, err := probeDTypes(a, func(i int, m *TensorMeta) []int {
		s := m.Shape.Sizes()
		if i == 0 {
			for k := range s {
				if k != 1 { // two values per dim: training needs more than one per channel
					s[k] = min(s[k], 2)
				}
			}
		}
		return s
	})
	if err != nil {
		return nil, err
	}
	return contig(dts[0], x.Shape.Sizes()), nil
}

// inferBatchNormFunctional: the output like the input, the running stats
// like themselves.
func inferBatchNormFunctional(a Args) (Value, error) {
	x, err := a.meta(0)
	if err != nil {
		return nil, err
	}
	rm, err := a.meta(1)
	if err != nil {
		return nil, err
	}
	rv, err := a.meta(2)
	if err != nil {
		return nil, err
	}
	if len(x.Shape) < 2 {
		return nil, a.errf(0, "expected input with at least 2 dims [N, C, ...], got %s", x)
	}
	dts, _, err := probeDTypes(a, func(i int, m *TensorMeta) []int {
		s := m.Shape.Sizes()
		if i == 0 {
			for k := range s {
				if k != 1 { // two values per dim: training needs more than one per channel
					s[k] = min(s[k], 2)
				}
			}
		}
		return s
	})
	if err != nil {
		return nil, err
	}
	return Tuple{contig(dts[0], x.Shape.Sizes()), contig(rm.DType, rm.Shape.Sizes()), contig(rv.DType, rv.Shape.Sizes())}, nil
}

// DropoutMasked is dropout with a given keep mask, as ATen's CPU dropout
// computes it: noise = mask in x's dtype, divided by 1 - p (rounded to the
// dtype), and x * noise; p = 1 gives x * 0.
func DropoutMasked(x, mask *tensor.Tensor, p float64) (*tensor.Tensor, error) {
	if !(p >= 0 && p <= 1) {
		return nil, fmt.Errorf("dropout probability has to be between 0 and 1, but got %g", p)
	}
	if !x.DType.IsFloat() {
		return nil, fmt.Errorf("dropout: input must be floating, got %s", x.DType)
	}
	mb, err := mask.BroadcastTo(x.Shape)
	if err != nil {
		return nil, fmt.Errorf("dropout: mask of shape %v does not fit the input's %v", mask.Shape, x.Shape)
	}
	scale := 0.0
	if p < 1 {
		scale = tensor.Round(x.DType, 1/tensor.Round(x.DType, 1-p))
	}
	out := tensor.New(x.DType, x.Shape...)
	for i := 0; i < out.Numel(); i++ {
		k := 0.0
		if mb.Flat(i) != 0 {
			k = scale
		}
		out.SetFlat(i, tensor.Round(x.DType, x.Flat(i)*k))
	}
	return out, nil
}

// Bernoulli is 1 where the uniform draw u is below the probability p, else
// 0, in dtype dt.
func Bernoulli(u, p *tensor.Tensor, dt tensor.DType) (*tensor.Tensor, error) {
	pb, err := p.BroadcastTo(u.Shape)
	if err != nil {
		return nil, fmt.Errorf("bernoulli: probabilities of shape %v do not fit %v", p.Shape, u.Shape)
	}
	out := tensor.New(dt, u.Shape...)
	for i := 0; i < out.Numel(); i++ {
		v := 0.0
		if u.Flat(i) < pb.Flat(i) {
			v = 1
		}
		out.SetFlat(i, v)
	}
	return out, nil
}

func equalSizes(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
