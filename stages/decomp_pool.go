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
				fmt.Sprintf("max_unpool%dd(x, i, k, s, p, o) = max_unpool3d of x and i with %d unit spatial dim(s) in front, squeezed", nd, 3-nd),
				func(b *builder, a []ir.Arg) ir.Arg {
					k := b.spatial(a[2], nd, nil)
					s := b.spatial(a[3], nd, k)
					p := b.spatial(a[4], nd, repeatN(0, nd))
					xs := b.shape(a[0])
					var os []int
					if a[5] != nil {
						os = b.ints(a[5])
					}
					if b.err != nil || len(xs) < nd {
						b.failf("max_unpool%dd: expected a tensor with %d spatial dims", nd, nd)
						return nil
					}
					o, err := tensor.MaxUnpoolOutputSize(xs[len(xs)-nd:], k, s, p, os)
					if err != nil {
						b.failf("max_unpool%dd: %v", nd, err)
						return nil
					}
					r := b.o("max_unpool3d", b.liftPool(a[0], nd), b.liftPool(a[1], nd), sizesArg(pad3(k, 1)), sizesArg(pad3(s, 1)),
						sizesArg(pad3(p, 0)), sizesArg(pad3(o, 1)))
					for i := nd; i < 3; i++ {
						r = b.o("squeeze", r, ir.Tuple{int64(-nd - 1)})
					}
					return r
				}})
	}
	out = append(out, decomposition{"aten.adaptive_max_pool3d", "adaptive_max_pool3d(x, o) = adaptive_max_pool3d_with_indices(x, o)[0] (both with return_indices)",
		func(b *builder, a []ir.Arg) ir.Arg {
			r := b.o("adaptive_max_pool3d_with_indices", a[0], sizesArg(b.spatial(a[1], 3, nil)))
			if b.bool(a[2]) {
				return ir.Tuple{b.o("getitem", r, int64(0)), b.o("getitem", r, int64(1))}
			}
			return b.o("getitem", r, int64(0))
		}})
	return out
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
