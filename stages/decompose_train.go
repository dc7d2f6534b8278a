package stages

import (
	"math"

	"gcdbg/ir"
	"gcdbg/tensor"
)

// Decompositions of the training-mode ops (ops_train.go in package ir):
// batch statistics, the running-stat update, dropout from a keep mask and
// gcdbg's own normal draws. Appended to the table at init.

func init() {
	decompositions = append(decompositions,
		decomposition{"aten.batch_norm_functional", "batch_norm_functional(x, rm, rv, w, b, m, eps) = (y, rm * (1 - m) + mean * m, rv * (1 - m) + var * n/(n-1) * m), y = (x - mean) * rsqrt(var + eps) * w + b, mean/var (biased) over every dim but 1",
			func(b *builder, a []ir.Arg) ir.Arg {
				return b.batchNormTrain(a[0], a[1], a[2], a[3], a[4], a[5], a[6], true)
			}},
		decomposition{"aten.feature_dropout", "feature_dropout(x, p, training=False) = x (identity); in training the normalized stage replaced it by dropout_masked with a [N, C, 1, ...] mask",
			func(b *builder, a []ir.Arg) ir.Arg {
				if b.bool(a[2]) && b.float(a[1]) != 0 {
					b.failf("internal error: feature dropout in training mode should have been replaced by its draw in the normalized stage")
					return nil
				}
				return a[0]
			}},
		decomposition{"aten.dropout_masked", "dropout_masked(x, mask, p) = x * (to_dtype(mask) * s), s = 1 / (1 - p) rounded to x's dtype (ATen's noise.div_(1 - p)); p = 1: x * 0",
			decompDropoutMasked},
		decomposition{"aten.philox_rand", "philox_rand(size, seed, off, dtype) = to_dtype(philox_uniform(seed, view(arange(numel), size) + off), dtype): one counter per element, computed in the kernel",
			decompPhiloxRand},
		decomposition{"aten.philox_randn", "philox_randn(size, seed, off) = sqrt(-2 * log(1 - u1)) * cos(2 * pi * u2), u1 = philox_rand(size, seed, off), u2 = philox_rand(size, seed, off + numel) (Box-Muller)",
			decompPhiloxRandn},
		// The normalized stage replaces each random op by PyTorch's recorded
		// draw or by a draw at the node's own offset; these rows decompose
		// the op itself (its draw at offset 0).
		decomposition{"aten.rand_like", "rand_like(x, dtype) = philox_rand(x.shape, 0, 0, dtype or x.dtype) (the normalized stage gives each node its own offset or PyTorch's recorded draw)",
			func(b *builder, a []ir.Arg) ir.Arg {
				return decompPhiloxRand(b, []ir.Arg{sizesArg(b.shape(a[0])), int64(0), int64(0), b.likeDType(a[0], a[1])})
			}},
		decomposition{"aten.randn_like", "randn_like(x, dtype) = philox_randn(x.shape, 0, 0, dtype or x.dtype), decomposed (the normalized stage gives each node its own offset or PyTorch's recorded draw)",
			func(b *builder, a []ir.Arg) ir.Arg {
				return decompPhiloxRandn(b, []ir.Arg{sizesArg(b.shape(a[0])), int64(0), int64(0), b.likeDType(a[0], a[1])})
			}},
		decomposition{"aten.bernoulli", "bernoulli(x, p) = to_dtype(lt(philox_rand(x.shape, 0, 0, float64), p or x), x.dtype) (the normalized stage gives each node its own offset or PyTorch's recorded draw)",
			func(b *builder, a []ir.Arg) ir.Arg {
				u := decompPhiloxRand(b, []ir.Arg{sizesArg(b.shape(a[0])), int64(0), int64(0), tensor.Float64})
				p := a[1]
				if p == nil {
					p = a[0]
				}
				return b.call("aten.to_dtype", b.call("aten.lt", u, p), b.dtype(a[0]))
			}},
	)
}

func (b *builder) likeDType(x, dt ir.Arg) ir.Arg {
	if dt != nil {
		return dt
	}
	return b.dtype(x)
}

// decompBatchNormTraining is batch_norm(training=True) without running
// stats (the training pass turned every one with running stats into
// batch_norm_functional).
func decompBatchNormTraining(b *builder, a []ir.Arg) ir.Arg {
	if a[1] != nil || a[2] != nil {
		b.failf("internal error: batch_norm in training mode with running stats should have become batch_norm_functional")
		return nil
	}
	return b.batchNormTrain(a[0], nil, nil, a[3], a[4], nil, a[7], false)
}

// batchNormTrain normalizes x with its batch statistics; with stats it
// returns (y, new running mean, new running var).
func (b *builder) batchNormTrain(x, rm, rv, w, bias, momentum, eps ir.Arg, stats bool) ir.Arg {
	xs := b.shape(x)
	if len(xs) < 2 {
		b.failf("batch_norm: expected input with at least 2 dims [N, C, ...], got shape %v", xs)
		return nil
	}
	C := xs[1]
	dims := []int{0}
	for d := 2; d < len(xs); d++ {
		dims = append(dims, d)
	}
	n := numelOf(xs) / max(C, 1)
	if n <= 1 && b.err == nil {
		b.failf("Expected more than 1 value per channel when training, got input size %v", xs)
		return nil
	}
	pshape := make([]int, len(xs))
	for i := range pshape {
		pshape[i] = 1
	}
	pshape[1] = C
	p := func(t ir.Arg) ir.Arg { return b.reshape(t, pshape) }
	mean, v := b.rowMoments(x, dims, int64(n))
	xc := b.call("aten.sub", x, mean)
	y := ir.Arg(b.call("aten.mul", xc, b.call("aten.rsqrt", b.call("aten.add", v, eps))))
	if w != nil {
		y = b.call("aten.mul", y, p(w))
	}
	if bias != nil {
		y = b.call("aten.add", y, p(bias))
	}
	if !stats {
		return y
	}
	// ATen's batch_norm_cpu_update_stats: momentum * stat + (1 - momentum) * running
	keep := ir.Arg(nil)
	if mt := b.meta(momentum); mt != nil {
		keep = b.call("aten.add", b.call("aten.neg", momentum), int64(1))
	} else {
		keep = 1 - b.float(momentum)
	}
	update := func(running, stat ir.Arg) ir.Arg {
		st := b.reshape(stat, []int{C})
		if rs := b.shape(running); !sameInts(rs, []int{C}) {
			st = b.reshape(stat, rs)
		}
		rf, rround := b.opmath(running)
		if dt := b.dtype(rf); dt != b.dtype(st) {
			st = b.call("aten.to_dtype", st, dt)
		}
		return rround(b.call("aten.add", b.call("aten.mul", rf, keep), b.call("aten.mul", st, momentum)))
	}
	// ATen updates the running stats of a float16/bfloat16 input from its
	// float statistics, rounding once (rounded per step, a running var was
	// 27.375 for PyTorch's 27.5); the output keeps the rounded steps above.
	if xf, _ := b.opmath(x); xf != x {
		mean, v = b.rowMoments(xf, dims, int64(n))
	}
	// The running stats take no part in autograd (PyTorch updates them
	// under no_grad): detach keeps the joint graph from differentiating
	// the write-backs.
	unbiased := b.call("aten.mul", b.call("aten.detach", v), float64(n)/float64(n-1))
	newMean := ir.Arg(nil)
	if nm := b.narrowRunningMean(rm, mean, momentum, C); nm != nil {
		newMean = nm
	} else {
		newMean = update(rm, b.call("aten.detach", mean))
	}
	return ir.Tuple{y, newMean, update(rv, unbiased)}
}

// narrowRunningMean is ATen's running-mean update for a float16/bfloat16
// batch (batch_norm_cpu_update_stats_template with param_t the narrow
// type): the batch mean stored in the narrow type, momentum cast to it,
// and every step of momentum * mean + (1 - momentum) * running in the
// narrow type's arithmetic (c10::BFloat16/Half operators round each
// result). Checked against PyTorch 1.13 on 749 random channels: all equal
// (float statistics rounded once: 398); instance_norm/bfloat16/1's
// running_mean was 2.609375 where PyTorch gives 2.625. nil when the
// running mean is not narrow or momentum is a tensor (the generic update).
func (b *builder) narrowRunningMean(rm, mean, momentum ir.Arg, C int) ir.Arg {
	dt := b.dtype(rm)
	if (dt != tensor.Float16 && dt != tensor.BFloat16) || b.meta(momentum) != nil || !sameInts(b.shape(rm), []int{C}) {
		return nil
	}
	m := tensor.Round(dt, b.float(momentum))
	keep := tensor.Round(dt, 1-m)
	mb := b.call("aten.to_dtype", b.reshape(b.call("aten.detach", mean), []int{C}), dt)
	return b.call("aten.add", b.call("aten.mul", mb, m), b.call("aten.mul", rm, keep))
}

func decompDropoutMasked(b *builder, a []ir.Arg) ir.Arg {
	x, mask := a[0], a[1]
	p := b.float(a[2])
	dt := b.dtype(x)
	if !(p >= 0 && p <= 1) {
		b.failf("dropout probability has to be between 0 and 1, but got %g", p)
		return nil
	}
	noise := b.call("aten.mul", b.call("aten.to_dtype", mask, dt), dropoutScale(dt, p))
	return b.call("aten.mul", x, noise)
}

func decompPhiloxRandn(b *builder, a []ir.Arg) ir.Arg {
	size := b.ints(a[0])
	seed, off := b.int(a[1]), b.int(a[2])
	dt := a[3]
	if dt == nil {
		dt = tensor.Float32
	}
	u1 := decompPhiloxRand(b, []ir.Arg{sizesArg(size), int64(seed), int64(off), dt})
	u2 := decompPhiloxRand(b, []ir.Arg{sizesArg(size), int64(seed), int64(off + numelOf(size)), dt})
	r := b.call("aten.sqrt", b.call("aten.mul", b.call("aten.log", b.call("aten.add", b.call("aten.neg", u1), int64(1))), -2.0))
	return b.call("aten.mul", r, b.call("aten.cos", b.call("aten.mul", u2, 2*math.Pi)))
}

// decompEmbedding gathers rows of w; with a padding_idx the rows read at
// the padding index go through detach, so (as PyTorch's
// embedding_dense_backward) the padding row of the weight gets no gradient
// while the forward still returns its values.
func decompEmbedding(b *builder, a []ir.Arg) ir.Arg {
	idx, w := a[0], a[1]
	is, ws := b.shape(idx), b.shape(w)
	if len(ws) != 2 {
		b.failf("embedding: 'weight' must be 2-D, got shape %v", ws)
		return nil
	}
	n := numelOf(is)
	flat := b.reshape(idx, []int{n})
	rows := ir.Arg(b.call("aten.index_select", w, int64(0), flat))
	if len(a) > 3 && a[3] != nil {
		rows = b.embeddingRenorm(rows, b.float(a[3]), b.float(a[4]))
	}
	if a[2] != nil {
		pad := b.int(a[2])
		if pad < 0 {
			pad += ws[0]
		}
		if pad < 0 || pad >= ws[0] {
			b.failf("Padding_idx must be within num_embeddings (padding_idx %d, num_embeddings %d)", b.int(a[2]), ws[0])
			return nil
		}
		isPad := b.call("aten.unsqueeze", b.call("aten.eq", flat, int64(pad)), int64(1))
		rows = b.call("aten.where", isPad, b.call("aten.detach", rows), rows)
	}
	return b.call("aten.view", rows, sizesArg(append(append([]int{}, is...), ws[1:]...)))
}

// dropoutScale is 1 / (1 - p) as ATen's noise.div_(1 - p) rounds it in
// dtype dt; 0 for p = 1.
func dropoutScale(dt tensor.DType, p float64) float64 {
	if p >= 1 {
		return 0
	}
	return tensor.Round(dt, 1/tensor.Round(dt, 1-p))
}

func decompPhiloxRand(b *builder, a []ir.Arg) ir.Arg {
	size := b.ints(a[0])
	seed, off := b.int(a[1]), b.int(a[2])
	dt := a[3]
	if dt == nil {
		dt = tensor.Float32
	}
	ctr := ir.Arg(b.call("aten.arange", int64(numelOf(size))))
	if len(size) != 1 {
		ctr = b.call("aten.view", ctr, sizesArg(size))
	}
	if off != 0 {
		ctr = b.call("aten.add", ctr, int64(off))
	}
	return b.call("aten.to_dtype", b.call("aten.philox_uniform", int64(seed), ctr), dt)
}
