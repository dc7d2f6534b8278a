package stages

import (
	"math"

	"gcdbg/ir"
	"gcdbg/tensor"
)

// Decompositions of ir/ops_ext_nn.go: padding and interpolation as index
// arithmetic + index_select, 1-D and transposed convolutions as conv2d,
// 3-D convolution as a sum of conv2d over the kernel's depth.

func init() {
	decompositions = append(decompositions, extNNDecompositions...)
	sortDecompositions()
}

var extNNDecompositions = []decomposition{
	{"aten.pad", "pad(x, p, mode) = per padded dim: index_select(x, d, src(arange(-lo, n + hi))), src = clamp (constant, masked by where), reflect n-1-|n-1-|i||, replicate clamp, circular i mod n",
		func(b *builder, a []ir.Arg) ir.Arg {
			x := a[0]
			pads := b.ints(a[1])
			xs := b.shape(x)
			if len(pads)%2 != 0 || len(pads)/2 > len(xs) {
				b.failf("Padding length must be divisible by 2 and at most twice the number of dims, got %d for %d dims", len(pads), len(xs))
				return nil
			}
			mode := b.str(a[2])
			for i := 0; i < len(pads)/2; i++ {
				x = b.padDim(x, len(xs)-1-i, pads[2*i], pads[2*i+1], mode, a[3])
			}
			if x == a[0] {
				return b.o("clone", x)
			}
			return x
		}},
	{"aten.interpolate", "interpolate(x, size | scale) = per spatial dim, last first: nearest: index_select(x, d, min(floor(i * s), n - 1)); (bi/tri)linear: x[i0] * (1 - l) + x[i1] * l; bicubic: four clamped taps weighted by the cubic kernel (A = -0.75); area: adaptive average pooling",
		decompInterpolate},
	{"aten.conv1d", "conv1d(x, w) = squeeze(conv2d(unsqueeze(x, 2), unsqueeze(w, 2), stride (1, s), padding (0, p), dilation (1, d)), 2)",
		func(b *builder, a []ir.Arg) ir.Arg {
			return b.batched(a[0], 1, func(x ir.Arg) ir.Arg {
				if mode, ok := a[4].(string); ok { // padding="same"/"valid": conv2d's, made explicit
					args := []ir.Arg{b.o("unsqueeze", x, int64(2)), b.o("unsqueeze", a[1], int64(2)), a[2],
						sizesArg([]int{1, b.ints(a[3])[0]}), mode, sizesArg([]int{1, b.ints(a[5])[0]}), a[6]}
					b.explicitConvPadding(args)
					return b.o("squeeze", b.o("conv2d", args...), ir.Tuple{int64(2)})
				}
				return b.conv1d(x, a[1], a[2], b.ints(a[3])[0], b.ints(a[4])[0], b.ints(a[5])[0], a[6], false, 0)
			})
		}},
	{"aten.conv_transpose1d", "conv_transpose1d(x, w) = conv_transpose2d over a height-1 view",
		func(b *builder, a []ir.Arg) ir.Arg {
			return b.batched(a[0], 1, func(x ir.Arg) ir.Arg {
				return b.conv1d(x, a[1], a[2], b.ints(a[3])[0], b.ints(a[4])[0], b.ints(a[7])[0], a[6], true, b.ints(a[5])[0])
			})
		}},
	{"aten.conv_transpose2d", "conv_transpose2d(x, w) = conv2d_backward_input(x, w, [N, Cout, Hout, Wout], stride, padding, dilation, groups) + bias: the input gradient of the convolution whose weight w is (Cout -> Cin), Hout = (H-1)*s - 2p + d*(k-1) + output_padding + 1; with output_padding >= stride (< dilation) conv2d(pad(dilate(x, stride), d*(k-1)-p, + output_padding), flip(w) regrouped to [out, in/g, kh, kw], dilation d, groups g)",
		func(b *builder, a []ir.Arg) ir.Arg {
			two := func(v ir.Arg) []int {
				s := b.ints(v)
				if len(s) == 1 {
					s = []int{s[0], s[0]}
				}
				return s
			}
			return b.batched(a[0], 2, func(x ir.Arg) ir.Arg {
				return b.convTranspose2d(x, a[1], a[2], two(a[3]), two(a[4]), two(a[5]), b.int(a[6]), two(a[7]))
			})
		}},
	{"aten.conv_transpose3d", "conv_transpose3d(x, w) = conv3d(pad(dilate(x, stride), d*(k-1)-p, + output_padding), flip(w) regrouped to [out, in/g, kd, kh, kw], dilation d, groups g), as conv_transpose2d",
		func(b *builder, a []ir.Arg) ir.Arg {
			three := func(v ir.Arg) []int { return b.spatial(v, 3, nil) } // decomp_pool.go
			return b.batched(a[0], 3, func(x ir.Arg) ir.Arg {
				return b.convTranspose(x, a[1], a[2], three(a[3]), three(a[4]), three(a[5]), b.int(a[6]), three(a[7]), 3)
			})
		}},
	{"aten.conv3d", "conv3d(x, w) = sum over kd of conv2d(depth slice kd*dil::stride of the depth-padded x, folded into the batch; w[:, :, kd]), then unfolded",
		func(b *builder, a []ir.Arg) ir.Arg {
			three := func(v ir.Arg) []int {
				s := b.ints(v)
				if len(s) == 1 {
					s = []int{s[0], s[0], s[0]}
				}
				return s
			}
			if _, ok := a[4].(string); ok {
				b.failf("conv3d: string padding is not supported by gcdbg (give the sizes)")
				return nil
			}
			return b.batched(a[0], 3, func(x ir.Arg) ir.Arg {
				return b.conv3d(x, a[1], a[2], three(a[3]), three(a[4]), three(a[5]), b.int(a[6]))
			})
		}},
	{"aten.convolution", "convolution(x, w, ..., transposed) = conv1d / conv2d / conv3d / conv_transpose1d / conv_transpose2d by the weight's rank",
		decompConvolution},
	{"aten.pixel_shuffle", "pixel_shuffle(x, r) = reshape(permute(view(x, [.., C, r, r, H, W]), [.., C, H, r, W, r]), [.., C, H*r, W*r])",
		func(b *builder, a []ir.Arg) ir.Arg { return b.pixelShuffle(a[0], b.int(a[1]), false) }},
	{"aten.pixel_unshuffle", "pixel_unshuffle(x, r) = reshape(permute(view(x, [.., C, H/r, r, W/r, r]), [.., C, r, r, H/r, W/r]), [.., C*r*r, H/r, W/r])",
		func(b *builder, a []ir.Arg) ir.Arg { return b.pixelShuffle(a[0], b.int(a[1]), true) }},
	{"aten.diagonal", "diagonal(x, o, d1, d2) = slice(reshape(permute(x, d1 and d2 last), [.., n*m]), -1, start, step m+1)",
		decompDiagonal},
	{"aten.repeat", "repeat(x, r) = reshape(expand(view(x, [1, s0, 1, s1, ..]), [r0, s0, r1, s1, ..]), [r0*s0, r1*s1, ..])",
		func(b *builder, a []ir.Arg) ir.Arg {
			x := a[0]
			reps := b.ints(a[1])
			xs := b.shape(x)
			if len(reps) < len(xs) {
				b.failf("Number of dimensions of repeat dims can not be smaller than number of dimensions of tensor")
				return nil
			}
			full := make([]int, len(reps))
			for i := range full {
				full[i] = 1
			}
			copy(full[len(reps)-len(xs):], xs)
			var view, exp, out []int
			for i, r := range reps {
				view = append(view, 1, full[i])
				exp = append(exp, r, full[i])
				out = append(out, r*full[i])
			}
			v := b.reshape(x, view)
			return b.reshape(b.o("clone", b.o("expand", v, sizesArg(exp))), out)
		}},
	{"aten.fill", "fill(x, v) = full(x.shape, v, x.dtype)",
		func(b *builder, a []ir.Arg) ir.Arg { return b.o("full", sizesArg(b.shape(a[0])), a[1], b.dtype(a[0])) }},
	{"aten.empty", "empty(size) = full(size, 0): its contents are unspecified in PyTorch, zeros is one valid content",
		func(b *builder, a []ir.Arg) ir.Arg { return b.full(a[0], int64(0), a[1]) }},
	{"aten.empty_like", "empty_like(x) = full(x.shape, 0, dtype or x.dtype): contents unspecified in PyTorch, as for empty",
		func(b *builder, a []ir.Arg) ir.Arg { return b.fullLike(a[0], int64(0), a[1]) }},
	{"aten.empty_strided", "empty_strided(size, stride) = full(size, 0) (contiguous; contents unspecified in PyTorch)",
		func(b *builder, a []ir.Arg) ir.Arg { return b.full(a[0], int64(0), a[2]) }},
	{"aten.cdist", "cdist(x1, x2, p) = vector_norm(unsqueeze(x1, -2) - unsqueeze(x2, -3), p, -1)",
		func(b *builder, a []ir.Arg) ir.Arg {
			p := b.float(a[2])
			if p < 0 {
				b.failf("cdist only supports non-negative p values")
				return nil
			}
			d := b.o("sub", b.o("unsqueeze", a[0], int64(-2)), b.o("unsqueeze", a[1], int64(-3)))
			return b.vectorNorm(d, p, ir.Tuple{int64(-1)}, false, nil)
		}},
	{"aten.cosine_similarity", "cosine_similarity(x1, x2, d, eps) = sum(x1 * x2, d) / sqrt(max(sum(x1^2, d) * sum(x2^2, d), eps^2))",
		func(b *builder, a []ir.Arg) ir.Arg {
			x1, x2 := a[0], a[1]
			shape, err := tensor.BroadcastShapes(b.shape(x1), b.shape(x2))
			if err != nil {
				b.failf("%v", err)
				return nil
			}
			d := ir.Tuple{int64(b.dim(a[2], len(shape)))}
			if !sameInts(b.shape(x1), shape) {
				x1 = b.o("expand", x1, sizesArg(shape))
			}
			if !sameInts(b.shape(x2), shape) {
				x2 = b.o("expand", x2, sizesArg(shape))
			}
			w12 := b.o("sum", b.o("mul", x1, x2), d)
			n1 := b.o("sum", b.o("mul", x1, x1), d)
			n2 := b.o("sum", b.o("mul", x2, x2), d)
			eps := b.float(a[3])
			return b.o("div", w12, b.o("sqrt", b.clampC(b.o("mul", n1, n2), eps*eps, nil)))
		}},
	{"aten.normalize", "normalize(x, p, d, eps) = x / max(vector_norm(x, p, d, keepdim), eps)",
		func(b *builder, a []ir.Arg) ir.Arg {
			n := b.vectorNorm(a[0], b.float(a[1]), ir.Tuple{a[2]}, true, nil)
			return b.o("div", a[0], b.clampC(n, a[3], nil))
		}},
	{"aten.take_along_dim", "take_along_dim(x, idx, d) = gather(expand(x), d, expand(idx)) broadcast apart from d; no d: gather of the flattened tensors",
		func(b *builder, a []ir.Arg) ir.Arg {
			x, idx := a[0], a[1]
			if a[2] == nil {
				return b.o("gather", b.reshape(x, []int{numelOf(b.shape(x))}), int64(0), b.reshape(idx, []int{numelOf(b.shape(idx))}))
			}
			xs, is := b.shape(x), b.shape(idx)
			if len(xs) != len(is) {
				b.failf("torch.take_along_dim(): input and indices should have the same number of dimensions, but got %d and %d", len(xs), len(is))
				return nil
			}
			d := b.dim(a[2], len(xs))
			x1, i1 := append([]int{}, xs...), append([]int{}, is...)
			x1[d], i1[d] = 1, 1
			bs, err := tensor.BroadcastShapes(x1, i1)
			if err != nil {
				b.failf("%v", err)
				return nil
			}
			xt, it := append([]int{}, bs...), append([]int{}, bs...)
			xt[d], it[d] = xs[d], is[d]
			if !sameInts(xt, xs) {
				x = b.o("expand", x, sizesArg(xt))
			}
			if !sameInts(it, is) {
				idx = b.o("expand", idx, sizesArg(it))
			}
			return b.o("gather", x, int64(d), idx)
		}},
	{"aten.scaled_dot_product_attention", "sdpa(q, k, v, mask) = softmax(q @ k^T * scale + mask, -1) @ v, a boolean mask (or is_causal) adds -inf where False; no dropout",
		func(b *builder, a []ir.Arg) ir.Arg {
			var scale ir.Arg
			if a[6] != nil {
				scale = a[6]
			}
			out, _ := b.sdpa(a[0], a[1], a[2], a[3], a[4], a[5], scale)
			return out
		}},
	{"aten._scaled_dot_product_attention", "_scaled_dot_product_attention(q, k, v, mask, p, need_attn_weights, is_causal) (PyTorch 1.13) = (sdpa(q, k, v, mask), its softmax weights), both always",
		func(b *builder, a []ir.Arg) ir.Arg {
			out, w := b.sdpa(a[0], a[1], a[2], a[3], a[4], a[6], nil)
			if out == nil {
				return nil
			}
			return ir.Tuple{out, w}
		}},
}

// sortDecompositions keeps the table alphabetical after rows are added.
func sortDecompositions() {
	for i := 1; i < len(decompositions); i++ {
		for j := i; j > 0 && decompositions[j].op < decompositions[j-1].op; j-- {
			decompositions[j], decompositions[j-1] = decompositions[j-1], decompositions[j]
		}
	}
}

func (b *builder) transposeLast(x ir.Arg) ir.Arg {
	n := len(b.shape(x))
	perm := make([]int, n)
	for i := range perm {
		perm[i] = i
	}
	perm[n-1], perm[n-2] = perm[n-2], perm[n-1]
	return b.permute(x, perm)
}

// matmul decomposes a matmul through the table's own row.
func (b *builder) matmul(x, y ir.Arg) ir.Arg { return decompMatmul(b, []ir.Arg{x, y}) }

// batched runs f on x with a batch dim of one when x is unbatched (rank
// k+1 for a k-D convolution, which PyTorch accepts), squeezing it off after.
func (b *builder) batched(x ir.Arg, k int, f func(x ir.Arg) ir.Arg) ir.Arg {
	if len(b.shape(x)) != k+1 {
		return f(x)
	}
	y := f(b.o("unsqueeze", x, int64(0)))
	if y == nil {
		return nil
	}
	return b.o("squeeze", y, ir.Tuple{int64(0)})
}

func (b *builder) conv1d(x, w, bias ir.Arg, s, p, d int, g ir.Arg, transposed bool, op int) ir.Arg {
	if len(b.shape(x)) != 3 || len(b.shape(w)) != 3 {
		b.failf("conv1d: expected 3-D input and weight, got %v and %v", b.shape(x), b.shape(w))
		return nil
	}
	x2, w2 := b.o("unsqueeze", x, int64(2)), b.o("unsqueeze", w, int64(2))
	var y ir.Arg
	if transposed {
		y = b.convTranspose2d(x2, w2, bias, []int{1, s}, []int{0, p}, []int{0, op}, b.int(g), []int{1, d})
	} else {
		y = b.o("conv2d", x2, w2, bias, sizesArg([]int{1, s}), sizesArg([]int{0, p}), sizesArg([]int{1, d}), g)
	}
	return b.o("squeeze", y, ir.Tuple{int64(2)})
}

func (b *builder) convTranspose2d(x, w, bias ir.Arg, stride, pad, outPad []int, groups int, dil []int) ir.Arg {
	return b.convTranspose(x, w, bias, stride, pad, outPad, groups, dil, 2)
}

// convTranspose is the 2-D or 3-D (nd) transposed convolution as a
// convolution of the input with stride-1 zeros inserted, padded by
// d*(k-1)-p (+ output_padding at the end), with the weight flipped and
// regrouped to [out, in/g, k...].
func (b *builder) convTranspose(x, w, bias ir.Arg, stride, pad, outPad []int, groups int, dil []int, nd int) ir.Arg {
	xs, ws := b.shape(x), b.shape(w)
	if len(xs) != nd+2 || len(ws) != nd+2 || groups <= 0 || ws[0] != xs[1] || ws[0]%groups != 0 {
		b.failf("conv_transpose%dd: weight %v does not fit input %v with groups=%d", nd, ws, xs, groups)
		return nil
	}
	for i := 0; i < nd; i++ {
		if outPad[i] >= stride[i] && outPad[i] >= dil[i] {
			b.failf("output padding must be smaller than either stride or dilation, but got output_padding=%v, stride=%v, dilation=%v", outPad, stride, dil)
			return nil
		}
	}
	if nd == 2 && outPad[0] < stride[0] && outPad[1] < stride[1] {
		return b.convTransposeAsInputGrad(x, w, bias, stride, pad, outPad, groups, dil)
	}
	// Insert stride-1 zeros between the input's elements along each dim.
	for i := 0; i < nd; i++ {
		d, s, n := 2+i, stride[i], xs[2+i]
		if s == 1 || n == 0 {
			continue
		}
		m := (n-1)*s + 1
		j := b.indexRange(0, m)
		src := b.o("floor_divide", j, int64(s))
		keep := b.o("eq", b.o("remainder", j, int64(s)), int64(0))
		g := b.o("index_select", x, int64(d), src)
		x = b.o("where", b.bcast(keep, d, nd+2), g, b.o("full", ir.Tuple{}, int64(0), b.dtype(x)))
	}
	for i := 0; i < nd; i++ {
		k := ws[2+i]
		lo := dil[i]*(k-1) - pad[i]
		x = b.padDim(x, 2+i, lo, lo+outPad[i], "constant", nil)
	}
	// w [Cin, Cout/g, k...] -> [Cout, Cin/g, k...], flipped spatially.
	cin, coutg := ws[0], ws[1]
	wr := b.reshape(w, append([]int{groups, cin / groups, coutg}, ws[2:]...))
	perm := []int{0, 2, 1}
	for i := 0; i < nd; i++ {
		perm = append(perm, 3+i)
	}
	wr = b.reshape(b.permute(wr, perm), append([]int{groups * coutg, cin / groups}, ws[2:]...))
	for d := 2; d < nd+2; d++ {
		if ws[d] > 1 {
			wr = b.o("index_select", wr, int64(d), b.o("arange", int64(ws[d]-1), int64(-1), int64(-1), tensor.Int64))
		}
	}
	if nd == 3 {
		return b.conv3d(x, wr, bias, []int{1, 1, 1}, []int{0, 0, 0}, dil, groups)
	}
	return b.o("conv2d", x, wr, bias, sizesArg([]int{1, 1}), sizesArg([]int{0, 0}), sizesArg(dil), int64(groups))
}

// convTransposeAsInputGrad is the 2-D transposed convolution as what it
// is, the gradient of a convolution with respect to its input:
// conv2d_backward_input(x, w, [N, Cout, Hout, Wout], stride, padding,
// dilation, groups), w [Cin, Cout/g, kh, kw] being that convolution's
// weight (Cout -> Cin), Hout = (H-1)*s - 2p + d*(k-1) + output_padding + 1,
// then the bias. Only where output_padding < stride (PyTorch also allows
// output_padding < dilation): that convolution of Hout rows then has H
// outputs, as conv2d_backward_input requires; the rest keep the general form. The zero-inserted, padded input and flipped weight of the
// general form (above) would multiply stride² times as many terms, most of
// them zeros (unet_gn's ConvTranspose2d(128, 64, 2, stride 2): 4x).
func (b *builder) convTransposeAsInputGrad(x, w, bias ir.Arg, stride, pad, outPad []int, groups int, dil []int) ir.Arg {
	xs, ws := b.shape(x), b.shape(w)
	out := []int{xs[0], ws[1] * groups}
	for i := 0; i < 2; i++ {
		o := (xs[2+i]-1)*stride[i] - 2*pad[i] + dil[i]*(ws[2+i]-1) + outPad[i] + 1
		if o <= 0 {
			b.failf("conv_transpose2d: output size %d along dim %d is not positive (input %v, weight %v, stride %v, padding %v, dilation %v)", o, 2+i, xs, ws, stride, pad, dil)
			return nil
		}
		out = append(out, o)
	}
	y := b.o("conv2d_backward_input", x, w, sizesArg(out), sizesArg(stride), sizesArg(pad), sizesArg(dil), int64(groups))
	if bias != nil {
		y = b.o("add", y, b.reshape(bias, []int{out[1], 1, 1}))
	}
	return y
}

func (b *builder) conv3d(x, w, bias ir.Arg, stride, pad, dil []int, groups int) ir.Arg {
	xs, ws := b.shape(x), b.shape(w)
	if len(xs) != 5 || len(ws) != 5 {
		b.failf("conv3d: expected 5-D input and weight, got %v and %v", xs, ws)
		return nil
	}
	N, D := xs[0], xs[2]
	O, KD := ws[0], ws[2]
	xp := b.padDim(x, 2, pad[0], pad[0], "constant", nil)
	Do := (D+2*pad[0]-dil[0]*(KD-1)-1)/stride[0] + 1
	if Do <= 0 {
		b.failf("conv3d: output size is too small")
		return nil
	}
	var sum ir.Arg
	for kd := 0; kd < KD; kd++ {
		start := kd * dil[0]
		xsl := b.o("slice", xp, int64(2), int64(start), int64(start+(Do-1)*stride[0]+1), int64(stride[0]))
		xb := b.reshape(b.permute(xsl, []int{0, 2, 1, 3, 4}), []int{N * Do, xs[1], xs[3], xs[4]})
		wk := b.o("select", w, int64(2), int64(kd))
		y := b.o("conv2d", xb, wk, nil, sizesArg(stride[1:]), sizesArg(pad[1:]), sizesArg(dil[1:]), int64(groups))
		if sum == nil {
			sum = y
		} else {
			sum = b.o("add", sum, y)
		}
	}
	ys := b.shape(sum)
	out := b.permute(b.reshape(sum, []int{N, Do, O, ys[2], ys[3]}), []int{0, 2, 1, 3, 4})
	if bias != nil {
		out = b.o("add", out, b.reshape(bias, []int{O, 1, 1, 1}))
	} else {
		out = b.o("clone", out)
	}
	return out
}

func (b *builder) pixelShuffle(x ir.Arg, r int, unshuffle bool) ir.Arg {
	xs := b.shape(x)
	n := len(xs)
	if n < 3 || r <= 0 {
		b.failf("pixel_shuffle expects input to have at least 3 dimensions and a positive factor, got %v and %d", xs, r)
		return nil
	}
	lead := xs[:n-3]
	c, h, w := xs[n-3], xs[n-2], xs[n-1]
	var view, perm, out []int
	if !unshuffle {
		if c%(r*r) != 0 {
			b.failf("pixel_shuffle expects its input's 'channel' dimension to be divisible by the square of upscale_factor, but input.size(-3)=%d is not divisible by %d", c, r*r)
			return nil
		}
		view = append(append([]int{}, lead...), c/(r*r), r, r, h, w)
		perm = []int{0, 3, 1, 4, 2}
		out = append(append([]int{}, lead...), c/(r*r), h*r, w*r)
	} else {
		if h%r != 0 || w%r != 0 {
			b.failf("pixel_unshuffle expects height and width to be divisible by downscale_factor, got %d and %d for %d", h, w, r)
			return nil
		}
		view = append(append([]int{}, lead...), c, h/r, r, w/r, r)
		perm = []int{0, 2, 4, 1, 3}
		out = append(append([]int{}, lead...), c*r*r, h/r, w/r)
	}
	full := make([]int, 0, n+2)
	for i := range lead {
		full = append(full, i)
	}
	for _, p := range perm {
		full = append(full, len(lead)+p)
	}
	return b.reshape(b.o("clone", b.permute(b.reshape(x, view), full)), out)
}

func decompDiagonal(b *builder, a []ir.Arg) ir.Arg {
	x := a[0]
	xs := b.shape(x)
	if len(xs) < 2 {
		b.failf("diagonal dimensions requested, but tensor has only %d dimension(s)", len(xs))
		return nil
	}
	d1, d2 := b.dim(a[2], len(xs)), b.dim(a[3], len(xs))
	if d1 == d2 {
		b.failf("diagonal dimensions cannot be identical %d, %d", d1, d2)
		return nil
	}
	off := b.int(a[1])
	var perm, lead []int
	for i := range xs {
		if i != d1 && i != d2 {
			perm = append(perm, i)
			lead = append(lead, xs[i])
		}
	}
	perm = append(perm, d1, d2)
	n, m := xs[d1], xs[d2]
	var k, start int
	if off >= 0 {
		k, start = max(min(n, m-off), 0), off
	} else {
		k, start = max(min(n+off, m), 0), -off*m
	}
	flat := b.reshape(b.permute(x, perm), append(append([]int{}, lead...), n*m))
	if k == 0 {
		return b.o("slice", flat, int64(-1), int64(0), int64(0))
	}
	return b.o("clone", b.o("slice", flat, int64(-1), int64(start), int64(start+(k-1)*(m+1)+1), int64(m+1)))
}

// cubicDim interpolates dim d of x (size in) at the output positions jf
// (arange in the op math type om) with ATen's bicubic taps: the source
// coordinate real = jf*f (align_corners) or (jf+0.5)*f-0.5, unclamped;
// four inputs floor(real)-1 .. floor(real)+2 clamped into the input,
// weighted by the cubic convolution kernel (A = -0.75) at t = real-floor(real).
func (b *builder) cubicDim(x ir.Arg, d, in int, jf ir.Arg, f float64, align bool, om tensor.DType) ir.Arg {
	var real ir.Arg
	if align {
		real = b.o("mul", jf, f)
	} else {
		real = b.o("sub", b.o("mul", b.o("add", jf, 0.5), f), 0.5)
	}
	fl := b.o("floor", real)
	t := b.o("sub", real, fl)
	i0 := b.o("to_dtype", fl, tensor.Int64)
	const A = -0.75
	c1 := func(v ir.Arg) ir.Arg { // ((A+2)*v - (A+3))*v*v + 1
		return b.o("add", b.o("mul", b.o("mul", b.o("sub", b.o("mul", v, A+2), A+3), v), v), 1.0)
	}
	c2 := func(v ir.Arg) ir.Arg { // ((A*v - 5A)*v + 8A)*v - 4A
		return b.o("sub", b.o("mul", b.o("add", b.o("mul", b.o("sub", b.o("mul", v, A), 5*A), v), 8*A), v), 4*A)
	}
	u := b.o("sub", 1.0, t)
	w := []ir.Arg{c2(b.o("add", t, 1.0)), c1(t), c1(u), c2(b.o("add", u, 1.0))}
	r := len(b.shape(x))
	var res ir.Arg
	for k, wk := range w {
		idx := b.clampC(b.o("add", i0, int64(k-1)), int64(0), int64(in-1))
		v := b.o("mul", b.o("index_select", x, int64(d), idx), b.bcast(b.o("to_dtype", wk, b.dtype(x)), d, r))
		if res == nil {
			res = v
		} else {
			res = b.o("add", res, v)
		}
	}
	return res
}

func decompInterpolate(b *builder, a []ir.Arg) ir.Arg {
	x := a[0]
	xs := b.shape(x)
	if len(xs) < 3 {
		b.failf("interpolate: expected at least a 3-D input, got %v", xs)
		return nil
	}
	var size []int
	if a[1] != nil {
		size = b.ints(a[1])
	}
	var scale []float64
	switch s := a[2].(type) {
	case nil:
	case ir.List, ir.Tuple:
		for _, v := range b.tensors(s) {
			scale = append(scale, b.float(v))
		}
	default:
		scale = []float64{b.float(s)}
	}
	mode := b.str(a[3])
	align := a[4] == true
	if a[6] == true {
		b.failf("interpolate: antialias=True is not supported by gcdbg")
		return nil
	}
	out, sc, err := ir.InterpolateSizes(xs[2:], size, scale, a[5] == true)
	if err != nil {
		b.failf("%v", err)
		return nil
	}
	switch mode {
	case "area": // F.interpolate's area mode is adaptive average pooling
		return b.adaptive(x, out)
	case "nearest", "linear", "bilinear", "trilinear", "bicubic":
	default:
		b.failf("interpolate: mode %q is not supported by gcdbg (nearest, area, linear, bilinear, bicubic, trilinear)", mode)
		return nil
	}
	r := len(xs)
	for k := len(out) - 1; k >= 0; k-- {
		d, in, o := 2+k, xs[2+k], out[k]
		s := 0.0
		if k < len(sc) {
			s = sc[k]
		}
		j := b.indexRange(0, o)
		if mode == "nearest" {
			var src ir.Arg
			switch {
			case o == in:
				continue
			case o == 2*in:
				src = b.o("floor_divide", j, int64(2))
			default:
				f := float64(float32(float64(in) / float64(o)))
				if s > 0 {
					f = float64(float32(1 / s))
				}
				real := b.o("mul", b.o("to_dtype", j, tensor.Float32), f)
				src = b.clampC(b.o("to_dtype", b.o("floor", real), tensor.Int64), nil, int64(in-1))
			}
			x = b.o("index_select", x, int64(d), src)
			continue
		}
		// The op math type: float for float32 (and half types), double for float64.
		om := tensor.Float32
		rd := func(v float64) float64 { return float64(float32(v)) }
		if b.dtype(x) == tensor.Float64 {
			om = tensor.Float64
			rd = func(v float64) float64 { return v }
		}
		var f float64
		switch {
		case align && o > 1:
			f = rd(rd(float64(in-1)) / rd(float64(o-1)))
		case align:
			f = 0
		case s > 0:
			f = rd(1 / s)
		default:
			f = rd(float64(in) / float64(o))
		}
		jf := b.o("to_dtype", j, om)
		if mode == "bicubic" {
			x = b.cubicDim(x, d, in, jf, f, align, om)
			continue
		}
		var real ir.Arg
		if align {
			real = b.o("mul", jf, f)
		} else {
			real = b.clampC(b.o("sub", b.o("mul", b.o("add", jf, 0.5), f), 0.5), 0.0, nil)
		}
		i0 := b.o("to_dtype", real, tensor.Int64)
		l1 := b.clampC(b.o("sub", real, b.o("to_dtype", i0, om)), 0.0, 1.0)
		i1 := b.o("where", b.o("lt", i0, int64(in-1)), b.o("add", i0, int64(1)), i0)
		l1 = b.o("to_dtype", l1, b.dtype(x))
		lb := b.bcast(l1, d, r)
		l0 := b.o("sub", int64(1), lb)
		x0 := b.o("index_select", x, int64(d), i0)
		x1 := b.o("index_select", x, int64(d), i1)
		x = b.o("add", b.o("mul", x0, l0), b.o("mul", x1, lb))
	}
	if x == a[0] {
		return b.o("clone", x)
	}
	return x
}

func decompConvolution(b *builder, a []ir.Arg) ir.Arg {
	k := len(b.shape(a[1])) - 2
	if len(b.shape(a[0])) == k+1 {
		return b.batched(a[0], k, func(x ir.Arg) ir.Arg {
			return decompConvolution(b, append([]ir.Arg{x}, a[1:]...))
		})
	}
	s, p, d, op := b.ints(a[3]), b.ints(a[4]), b.ints(a[5]), b.ints(a[7])
	tr := b.bool(a[6])
	g := a[8]
	switch {
	case k == 1:
		return b.conv1d(a[0], a[1], a[2], s[0], p[0], d[0], g, tr, op[0])
	case k == 2 && tr:
		return b.convTranspose2d(a[0], a[1], a[2], s, p, op, b.int(g), d)
	case k == 2:
		return b.o("conv2d", a[0], a[1], a[2], sizesArg(s), sizesArg(p), sizesArg(d), g)
	case k == 3 && tr:
		return b.convTranspose(a[0], a[1], a[2], s, p, op, b.int(g), d, 3)
	case k == 3 && !tr:
		return b.conv3d(a[0], a[1], a[2], s, p, d, b.int(g))
	}
	b.failf("convolution: %d-D (transposed=%v) convolution is not supported by gcdbg", k, tr)
	return nil
}

// sdpa is scaled dot-product attention without dropout: the output and the
// softmax weights (scale nil: 1/sqrt(E)).
func (b *builder) sdpa(q, k, v, mask, p, causal, scale ir.Arg) (ir.Arg, ir.Arg) {
	if b.float(p) != 0 {
		b.failf("scaled_dot_product_attention with dropout_p > 0 draws random numbers inside the op (not recorded): not supported by gcdbg, which runs it without dropout only")
		return nil, nil
	}
	qs, ks := b.shape(q), b.shape(k)
	if len(qs) < 2 || len(ks) < 2 {
		b.failf("scaled_dot_product_attention: expected at least 2-D query, key and value")
		return nil, nil
	}
	sc := 1 / math.Sqrt(float64(qs[len(qs)-1]))
	if scale != nil {
		sc = b.float(scale)
	}
	kt := b.transposeLast(k)
	att := b.matmul(q, kt)
	att = b.o("mul", att, sc)
	L, S := qs[len(qs)-2], ks[len(ks)-2]
	if b.bool(causal) {
		if mask != nil {
			b.failf("scaled_dot_product_attention: explicit attn_mask should not be set when is_causal=True")
			return nil, nil
		}
		i := b.indexRange(0, L)
		j := b.indexRange(0, S)
		mask = b.o("ge", b.o("unsqueeze", i, int64(1)), j)
	}
	if mask != nil {
		if b.dtype(mask) == tensor.Bool {
			att = b.o("where", mask, att, b.o("full", ir.Tuple{}, math.Inf(-1), b.dtype(att)))
		} else {
			att = b.o("add", att, mask)
		}
	}
	w := b.softmax([]ir.Arg{att, int64(-1), nil}, false)
	return b.matmul(w, v), w
}
