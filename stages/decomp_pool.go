package stages

import (
	"fmt"

	"gcdbg/ir"
	"gcdbg/tensor"
)

// Decompositions of ir/ops_pool.go: max pooling with indices, adaptive max
// pooling with indices and max_unpool in 1-D and 2-D are the 3-D core ops
// (compiled, render/pool_nd.go) over unit leading spatial dims, as
// PyTorch runs max_pool1d as max_pool2d: a plane index d*H*W + h*W + w
// with D = 1 is the 2-D index h*W + w.

func init() {
	decompositions = append(decompositions, poolDecompositions()...)
	sortDecompositions()
}

func poolDecompositions() []decomposition {
	var out []decomposition
	for nd := 1; nd <= 2; nd++ {
		nd := nd
		out = append(out,
			decomposition{fmt.Sprintf("aten.max_pool%dd_with_indices", nd),
				fmt.Sprintf("max_pool%dd_with_indices(x, k, s, p, d, c) = max_pool3d_with_indices of x with %d unit spatial dim(s) in front (window 1, stride 1, padding 0 there), both results squeezed", nd, 3-nd),
				func(b *builder, a []ir.Arg) ir.Arg {
					k := b.spatial(a[1], nd, nil)
					s := b.spatial(a[2], nd, k)
					p := b.spatial(a[3], nd, repeatN(0, nd))
					d := b.spatial(a[4], nd, repeatN(1, nd))
					r := b.o("max_pool3d_with_indices", b.liftPool(a[0], nd), sizesArg(pad3(k, 1)), sizesArg(pad3(s, 1)),
						sizesArg(pad3(p, 0)), sizesArg(pad3(d, 1)), a[5])
					return b.dropPool(r, nd)
				}},
			decomposition{fmt.Sprintf("aten.adaptive_max_pool%dd_with_indices", nd),
				fmt.Sprintf("adaptive_max_pool%dd_with_indices(x, o) = adaptive_max_pool3d_with_indices of x with %d unit spatial dim(s) in front (output size 1 there), both results squeezed", nd, 3-nd),
				func(b *builder, a []ir.Arg) ir.Arg {
					o := b.spatial(a[1], nd, nil)
					return b.dropPool(b.o("adaptive_max_pool3d_with_indices", b.liftPool(a[0], nd), sizesArg(pad3(o, 1))), nd)
				}},
			decomposition{fmt.Sprintf("aten.max_unpool%dd", nd),
				fmt.Sprintf("max_unpool%dd(x, i, k, s, p, o) = max_unpool3d(x, i, output_size) of x and i with %d unit spatial dim(s) in front (the size F's _unpool_output_size checks), squeezed", nd, 3-nd),
				func(b *builder, a []ir.Arg) ir.Arg {
					k := b.spatial(a[2], nd, nil)
					s := b.spatial(a[3], nd, k)
					p := b.spatial(a[4], nd, repeatN(0, nd))
					xs := b.shape(a[0])
					var os []int
					if a[5] != nil {
						os = b.ints(a[5])
					}
					if b.err != nil || len(xs) < nd || (k == nil && os == nil) {
						b.failf("max_unpool%dd: expected a tensor with %d spatial dims and kernel_size or output_size", nd, nd)
						return nil
					}
					var o []int
					if k == nil { // aten's form: the output size as given
						o = os[len(os)-nd:]
					} else {
						var err error
						if o, err = tensor.MaxUnpoolOutputSize(xs[len(xs)-nd:], k, s, p, os); err != nil {
							b.failf("max_unpool%dd: %v", nd, err)
							return nil
						}
					}
					// the output size is known now: max_unpool3d takes it as given
					r := b.o("max_unpool3d", b.liftPool(a[0], nd), b.liftPool(a[1], nd), nil, nil, int64(0), sizesArg(pad3(o, 1)))
					for i := nd; i < 3; i++ {
						r = b.o("squeeze", r, ir.Tuple{int64(-nd - 1)})
					}
					return r
				}})
	}
	out = append(out, decomposition{"aten.adaptive_max_pool3d", "adaptive_max_pool3d(x, o) = adaptive_max_pool3d_with_indices(x, o)[0] (both with return_indices)",
		func(b *builder, a []ir.Arg) ir.Arg { return b.adaptiveMaxIndices(a, 3) }})
	return out
}

// adaptiveMaxIndices is adaptive_max_pool{nd}d(x, output_size,
// return_indices) as its _with_indices form, as ATen computes it
// (AdaptiveMaxPoolKernel.cpp): one index per window, the first maximum or
// the last NaN, where the whole gradient goes. The values, or (values,
// indices) with return_indices.
func (b *builder) adaptiveMaxIndices(a []ir.Arg, nd int) ir.Arg {
	var v, i ir.Arg
	if nd == 3 {
		r := b.o("adaptive_max_pool3d_with_indices", a[0], sizesArg(b.spatial(a[1], 3, nil)))
		v, i = b.o("getitem", r, int64(0)), b.o("getitem", r, int64(1))
	} else {
		t, ok := b.d.table[fmt.Sprintf("aten.adaptive_max_pool%dd_with_indices", nd)].fn(b, a[:2]).(ir.Tuple)
		if !ok || len(t) != 2 {
			return nil // the decomposition failed (b.err says why)
		}
		v, i = t[0], t[1]
	}
	if b.bool(a[2]) {
		return ir.Tuple{v, i}
	}
	return v
}

// spatial reads a pooling argument of nd ints (an int or one value
// repeats; nil or empty gives def).
func (b *builder) spatial(v ir.Arg, nd int, def []int) []int {
	if v == nil {
		return def
	}
	xs := b.ints(v)
	switch {
	case len(xs) == 0:
		return def
	case len(xs) == 1 && nd > 1:
		xs = []int{xs[0], xs[0], xs[0]}[:nd]
	case len(xs) != nd:
		b.failf("expected %d values, got %v", nd, xs)
	}
	return xs
}

func repeatN(v, n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = v
	}
	return out
}

// pad3 puts unit values (v) in front of xs up to 3 values.
func pad3(xs []int, v int) []int {
	out := make([]int, 0, 3)
	for len(out)+len(xs) < 3 {
		out = append(out, v)
	}
	return append(out, xs...)
}

// liftPool inserts 3-nd unit spatial dims in front of x's nd spatial dims.
func (b *builder) liftPool(x ir.Arg, nd int) ir.Arg {
	for i := nd; i < 3; i++ {
		x = b.o("unsqueeze", x, int64(-nd-1))
	}
	return x
}

// dropPool squeezes the unit dims liftPool added from both results of a
// 3-D pool with indices.
func (b *builder) dropPool(r ir.Arg, nd int) ir.Arg {
	var res ir.Tuple
	for j := 0; j < 2; j++ {
		v := ir.Arg(b.o("getitem", r, int64(j)))
		for i := nd; i < 3; i++ {
			v = b.o("squeeze", v, ir.Tuple{int64(-nd - 1)})
		}
		res = append(res, v)
	}
	return res
}

// avgPool is avg_pool{nd}d over x's last nd dims as PyTorch computes it:
// window sums (strided slices of the zero-padded x, ceil_mode's extra
// windows included) divided by divisor_override, or per output point by
// the product over dims of the window's length (count_include_pad: up to
// size + padding; else its in-bounds part, at least 1: a window all
// padding sums to 0). Integers divide truncating toward zero (floor_divide
// corrected where the remainder is nonzero and the signs differ).
func (b *builder) avgPool(x ir.Arg, nd int, k, s, p []int, ceil, cip bool, div ir.Arg) ir.Arg {
	xs := b.shape(x)
	n := len(xs)
	if len(k) != nd || len(s) != nd || len(p) != nd || n < nd+1 {
		b.failf("avg_pool%dd: expected %d window values and an input with %d spatial dims", nd, nd, nd)
		return nil
	}
	xf, round := b.opmath(x) // a narrow float sums in float, rounds once (ATen's pooling kernels)
	sum := xf
	for i := nd - 1; i >= 0; i-- {
		sum = b.poolDim(sum, n-nd+i, k[i], s[i], p[i], 1, ceil, "sum")
	}
	if b.err != nil {
		return nil
	}
	os := b.shape(sum)
	var cnt ir.Arg = div
	pad := false
	for _, v := range p {
		pad = pad || v != 0
	}
	if cnt == nil && !ceil && (cip || !pad) {
		prod := 1
		for _, v := range k {
			prod *= v
		}
		cnt = int64(prod)
	}
	if cnt == nil {
		for i := 0; i < nd; i++ {
			L, O := xs[n-nd+i], os[n-nd+i]
			st := b.o("sub", b.o("mul", b.o("arange", int64(O)), int64(s[i])), int64(p[i]))
			e := b.o("minimum", b.o("add", st, int64(k[i])), b.o("scalar_tensor", int64(L+p[i]), tensor.Int64))
			var c ir.Arg
			if cip {
				c = b.o("sub", e, st)
			} else {
				lo := b.o("maximum", st, b.o("scalar_tensor", int64(0), tensor.Int64))
				hi := b.o("minimum", e, b.o("scalar_tensor", int64(L), tensor.Int64))
				c = b.o("maximum", b.o("sub", hi, lo), b.o("scalar_tensor", int64(1), tensor.Int64))
			}
			c = b.bcast(c, i, nd)
			if cnt == nil {
				cnt = c
			} else {
				cnt = b.o("mul", cnt, c)
			}
		}
	}
	if b.dtype(x).IsFloat() {
		return round(b.o("div", sum, cnt))
	}
	q := b.o("floor_divide", sum, cnt)
	var signDiffers ir.Arg
	if v, ok := cnt.(int64); ok {
		if v < 0 {
			signDiffers = b.o("gt", sum, int64(0))
		} else {
			signDiffers = b.o("lt", sum, int64(0))
		}
	} else {
		signDiffers = b.o("ne", b.o("lt", sum, int64(0)), b.o("lt", cnt, int64(0)))
	}
	fix := b.o("logical_and", b.o("ne", b.o("remainder", sum, cnt), int64(0)), signDiffers)
	return b.o("where", fix, b.o("add", q, int64(1)), q)
}
