package stages

import (
	"math"

	"gcdbg/ir"
	"gcdbg/tensor"
)

// Decompositions of ir/ops_loss.go (losses and misc nn.functional ops),
// following torch/nn/functional.py and torch/_decomp/decompositions.py.

func init() {
	decompositions = append(decompositions, lossDecompositions...)
	sortDecompositions()
}

// pair2 reads an int-or-pair argument as two ints.
func (b *builder) pair2(a ir.Arg) [2]int {
	v := b.ints(a)
	switch len(v) {
	case 1:
		return [2]int{v[0], v[0]}
	case 2:
		return [2]int{v[0], v[1]}
	}
	b.failf("expected one or two ints, got %s", argText(a))
	return [2]int{1, 1}
}

var lossDecompositions = []decomposition{
	{"aten.gaussian_nll_loss", "gaussian_nll_loss(x, t, v, full, eps) = reduce(0.5 * (log(vc) + (x - t)^2 / vc) (+ 0.5*log(2*pi) when full)), vc = max(v, eps) clamped without gradient (PyTorch's no_grad clamp_), v unsqueezed at -1 when it lacks x's last dim",
		func(b *builder, a []ir.Arg) ir.Arg {
			x, t, v := a[0], a[1], a[2]
			un, err := ir.GaussianNLLVar(b.shape(x), b.shape(v))
			if err != nil {
				b.failf("%v", err)
				return nil
			}
			if un {
				v = b.o("unsqueeze", v, int64(-1))
			}
			eps := a[4]
			// value max(v, eps), gradient the identity: where v < eps the
			// value is eps + (v - detach(v)), exactly eps.
			vc := b.o("where", b.o("lt", v, eps), b.o("add", b.o("sub", v, b.o("detach", v)), eps), v)
			d := b.o("sub", x, t)
			l := b.o("mul", b.o("add", b.o("log", vc), b.o("div", b.o("mul", d, d), vc)), 0.5)
			if b.bool(a[3]) {
				l = b.o("add", l, 0.5*math.Log(2*math.Pi))
			}
			return b.reduceC(l, a[5], x)
		}},
	{"aten.im2col", "im2col(x, k, d, p, s) = reshape(stack([slice(slice(pad(x, p), H, i*dh, .., sh), W, j*dw, .., sw) for i, j < k], 2), [N, C*kh*kw, L])",
		func(b *builder, a []ir.Arg) ir.Arg {
			x := a[0]
			xs := b.shape(x)
			if len(xs) != 3 && len(xs) != 4 {
				b.failf("Expected 3D or 4D (batch mode) tensor for input with possibly 0 batch size and non-zero dimensions for input, but got: %v", xs)
				return nil
			}
			k, d, p, s := b.pair2(a[1]), b.pair2(a[2]), b.pair2(a[3]), b.pair2(a[4])
			if b.err != nil {
				return nil
			}
			r := len(xs)
			oh, ow, err := ir.Im2colShape(xs[r-2], xs[r-1], k, d, p, s)
			if err != nil {
				b.failf("%v", err)
				return nil
			}
			xp := b.padDim(b.padDim(x, r-1, p[1], p[1], "constant", nil), r-2, p[0], p[0], "constant", nil)
			var blocks ir.List
			for i := 0; i < k[0]; i++ {
				for j := 0; j < k[1]; j++ {
					bl := b.o("slice", xp, int64(r-2), int64(i*d[0]), int64(i*d[0]+(oh-1)*s[0]+1), int64(s[0]))
					bl = b.o("slice", bl, int64(r-1), int64(j*d[1]), int64(j*d[1]+(ow-1)*s[1]+1), int64(s[1]))
					blocks = append(blocks, b.o("unsqueeze", bl, int64(r-2)))
				}
			}
			st := b.o("cat", blocks, int64(r-2)) // [.., C, kh*kw, oh, ow]
			out := append([]int{}, xs[:r-3]...)
			return b.reshape(st, append(out, xs[r-3]*k[0]*k[1], oh*ow))
		}},
	{"aten.bilinear", "bilinear(x1, x2, w, b) = sum(view(mm(view(x1, [B, I]), view(permute(w, [1, 0, 2]), [I, O*J])), [B, O, J]) * view(x2, [B, 1, J]), 2) (an integer sum cast back to x1's dtype) + b, viewed to x1's batch dims + [O]",
		func(b *builder, a []ir.Arg) ir.Arg {
			x1, x2, w := a[0], a[1], a[2]
			var bs []int
			if a[3] != nil {
				bs = b.shape(a[3])
			}
			ws := b.shape(w)
			batch, err := ir.BilinearBatch(b.shape(x1), b.shape(x2), ws, bs, a[3] != nil)
			if err != nil {
				b.failf("%v", err)
				return nil
			}
			o, i, j, n := ws[0], ws[1], ws[2], numelOf(batch)
			wp := b.reshape(b.permute(w, []int{1, 0, 2}), []int{i, o * j})
			t := b.reshape(b.o("mm", b.reshape(x1, []int{n, i}), wp), []int{n, o, j})
			y := b.o("sum", b.o("mul", t, b.reshape(x2, []int{n, 1, j})), ir.Tuple{int64(2)})
			if dt := b.dtype(x1); !dt.IsFloat() {
				y = b.o("to_dtype", y, dt) // PyTorch's _trilinear sums integers in their own dtype: int32 in, int32 out
			}
			if a[3] != nil {
				y = b.o("add", y, a[3])
			}
			return b.reshape(y, append(append([]int{}, batch...), o))
		}},
	{"aten.cosine_embedding_loss", "cosine_embedding_loss(x1, x2, t, m) = reduce(where(t == 1, 1 - cos, 0) + where(t == -1, max(cos - m, 0), 0)), cos = sum(x1 * x2) / sqrt((sum(x1^2) + 1e-12) * (sum(x2^2) + 1e-12)) over the last dim",
		func(b *builder, a []ir.Arg) ir.Arg {
			x1, x2, t := a[0], a[1], a[2]
			d, err := ir.CosineEmbeddingDim(b.shape(x1), b.shape(x2), b.shape(t))
			if err != nil {
				b.failf("%v", err)
				return nil
			}
			dims := ir.Tuple{int64(d)}
			ps := b.o("sum", b.o("mul", x1, x2), dims)
			m1 := b.o("add", b.o("sum", b.o("mul", x1, x1), dims), ir.CosineEmbeddingEps)
			m2 := b.o("add", b.o("sum", b.o("mul", x2, x2), dims), ir.CosineEmbeddingEps)
			cos := b.o("div", ps, b.o("sqrt", b.o("mul", m1, m2)))
			pos := b.o("add", b.o("neg", cos), int64(1))
			neg := b.clampC(b.o("sub", cos, a[3]), int64(0), nil)
			l := b.o("add", b.o("where", b.o("eq", t, int64(1)), pos, b.zeroLike(pos)), b.o("where", b.o("eq", t, int64(-1)), neg, b.zeroLike(neg)))
			return b.reduceC(l, a[4], x1)
		}},
	{"aten.pdist", "pdist(x, p) = vector_norm(cat([slice(x, 0, i, i+1) - slice(x, 0, i+1, N) for i < N-1]), p, -1): the pairs i < j in row order",
		func(b *builder, a []ir.Arg) ir.Arg {
			x := a[0]
			xs := b.shape(x)
			p := b.float(a[1])
			if len(xs) != 2 || p < 0 {
				b.failf("pdist only supports 2D tensors and non-negative p values, got %dD and p=%v", len(xs), p)
				return nil
			}
			n := xs[0]
			var parts ir.List
			for i := 0; i+1 < n; i++ {
				parts = append(parts, b.o("sub", b.o("slice", x, int64(0), int64(i), int64(i+1)), b.o("slice", x, int64(0), int64(i+1), int64(n))))
			}
			var d ir.Arg
			switch len(parts) {
			case 0:
				d = b.o("slice", x, int64(0), int64(0), int64(0))
			case 1:
				d = parts[0]
			default:
				d = b.o("cat", parts, int64(0))
			}
			return b.vectorNorm(d, p, ir.Tuple{int64(-1)}, false, nil)
		}},
	{"aten.native_layer_norm", "native_layer_norm(x, ns, w, b, eps) = (layer_norm(x, ns, w, b, eps), detach(mean), detach(rsqrt(var + eps))), mean/var (biased) over the last len(ns) dims, kept",
		func(b *builder, a []ir.Arg) ir.Arg {
			if _, err := ir.NormDims(b.shape(a[0]), b.ints(a[1])); err != nil {
				b.failf("%v", err)
				return nil
			}
			y, mean, rstd := b.layerNorm(a[0], b.ints(a[1]), a[2], a[3], a[4])
			// PyTorch differentiates only the output (native_layer_norm_backward
			// takes no gradient of mean or rstd)
			return ir.Tuple{y, b.o("detach", mean), b.o("detach", rstd)}
		}},
	{"aten.group_norm", "group_norm(x, G, w, b, eps) = reshape(layer_norm(reshape(x, [N, G, C/G * HW]), [C/G * HW], eps), x.shape) * w + b, w and b [C] viewed [C, 1, ...]",
		func(b *builder, a []ir.Arg) ir.Arg {
			x := a[0]
			xs := b.shape(x)
			g := b.int(a[1])
			if err := ir.GroupNormCheck(xs, g); err != nil {
				b.failf("%v", err)
				return nil
			}
			k := numelOf(xs[1:]) / g
			y := b.normRows(b.reshape(x, []int{xs[0], g, k}), []int{k}, a[4])
			y = b.reshape(y, xs)
			ps := make([]int, len(xs)-1)
			for i := range ps {
				ps[i] = 1
			}
			ps[0] = xs[1]
			if a[2] != nil {
				y = b.o("mul", y, b.reshape(a[2], ps))
			}
			if a[3] != nil {
				y = b.o("add", y, b.reshape(a[3], ps))
			}
			return y
		}},
	{"aten.multilabel_soft_margin_loss", "multilabel_soft_margin_loss(x, t, w) = reduce(sum(-(t * log_sigmoid(x) + (1 - t) * log_sigmoid(-x)) * w, -1) / C)",
		func(b *builder, a []ir.Arg) ir.Arg {
			x, t := a[0], a[1]
			xs := b.shape(x)
			if len(xs) == 0 {
				b.failf("multilabel_soft_margin_loss: expected an input of at least 1 dim")
				return nil
			}
			ls := func(v ir.Arg) ir.Arg {
				return b.o("sub", b.o("minimum", v, b.zeroLike(v)), b.o("log1p", b.o("exp", b.o("neg", b.o("abs", v)))))
			}
			l := b.o("neg", b.o("add", b.o("mul", t, ls(x)), b.o("mul", b.o("add", b.o("neg", t), int64(1)), ls(b.o("neg", x)))))
			if a[2] != nil {
				l = b.o("mul", l, a[2])
			}
			cd := len(xs) - 1
			l = b.o("div", b.o("sum", l, ir.Tuple{int64(cd)}), int64(xs[cd]))
			return b.reduceC(l, a[3], x)
		}},
	{"aten.multi_margin_loss", "multi_margin_loss(x, y, p, m, w) = reduce(sum(where(i == y, 0, max(m - x[y] + x[i], 0)^p * w[y]), i) / C), x[y] = gather(x, 1, y)",
		func(b *builder, a []ir.Arg) ir.Arg {
			x, t := a[0], a[1]
			frames, classes, err := ir.MultiMarginShape(b.shape(x), b.shape(t))
			if err != nil {
				b.failf("%v", err)
				return nil
			}
			p := b.int(a[2])
			if p != 1 && p != 2 {
				b.failf("only p == 1 and p == 2 supported")
				return nil
			}
			x2 := b.reshape(x, []int{frames, classes})
			t2 := b.reshape(t, []int{frames, 1})
			z := b.clampC(b.o("add", b.o("sub", x2, b.o("gather", x2, int64(1), t2)), a[3]), int64(0), nil)
			if p == 2 {
				z = b.o("mul", z, z)
			}
			if a[4] != nil {
				wy := b.o("index_select", a[4], int64(0), b.reshape(t, []int{frames}))
				z = b.o("mul", z, b.reshape(wy, []int{frames, 1}))
			}
			own := b.o("eq", b.reshape(b.indexRange(0, classes), []int{1, classes}), t2)
			z = b.o("where", own, b.zeroLike(z), z)
			l := b.o("div", b.o("sum", z, ir.Tuple{int64(1)}), int64(classes))
			if len(b.shape(t)) == 0 {
				l = b.reshape(l, []int{})
			}
			return b.reduceC(l, a[5], x)
		}},
	{"aten.multilabel_margin_loss", "multilabel_margin_loss(x, y) = reduce(sum over valid k, non-target i of max(1 - x[y_k] + x[i], 0) / C), valid k = cumprod(y >= 0) (the targets before the first -1), non-target i = no valid k with y_k == i",
		func(b *builder, a []ir.Arg) ir.Arg {
			x, t := a[0], a[1]
			frames, classes, err := ir.MultilabelMarginShape(b.shape(x), b.shape(t))
			if err != nil {
				b.failf("%v", err)
				return nil
			}
			x2, t2 := b.reshape(x, []int{frames, classes}), b.reshape(t, []int{frames, classes})
			valid := b.o("ne", b.o("cumprod", b.o("to_dtype", b.o("ge", t2, int64(0)), tensor.Int64), int64(1)), int64(0))
			tc := b.o("where", valid, t2, b.zeroLike(t2))
			xt := b.o("gather", x2, int64(1), tc) // [F, K]
			cls := b.reshape(b.indexRange(0, classes), []int{1, 1, classes})
			hit := b.o("logical_and", b.o("eq", b.o("unsqueeze", tc, int64(2)), cls), b.o("unsqueeze", valid, int64(2))) // [F, K, C]
			isTarget := b.o("gt", b.o("sum", b.o("to_dtype", hit, tensor.Int64), ir.Tuple{int64(1)}), int64(0))          // [F, C]
			z := b.clampC(b.o("add", b.o("sub", b.o("unsqueeze", x2, int64(1)), b.o("unsqueeze", xt, int64(2))), int64(1)), int64(0), nil)
			mask := b.o("logical_and", b.o("unsqueeze", valid, int64(2)), b.o("logical_not", b.o("unsqueeze", isTarget, int64(1))))
			l := b.o("div", b.o("sum", b.o("where", mask, z, b.zeroLike(z)), ir.Tuple{int64(1), int64(2)}), int64(classes))
			if len(b.shape(t)) <= 1 {
				l = b.reshape(l, []int{})
			}
			return b.reduceC(l, a[2], x)
		}},
}
