package stages

import (
	"gcdbg/ir"
	"gcdbg/tensor"
)

// affine_grid and grid_sample (ir/ops_grid_sample.go) from pointwise ops
// and gather: the grid's coordinates unnormalized, clipped or reflected as
// ATen's GridSampler.h (no gradient through a clipped border: borders count
// as out of bounds), then each of the bilinear corners (or the nearest
// pixel) read by gather from the input viewed [N, C, H*W], an out-of-bounds
// corner weighted 0. The gradient of the input is gather's (scatter_add),
// the grid's flows through the bilinear weights.
func init() {
	decompositions = append(decompositions,
		decomposition{"aten.affine_grid", "affine_grid(theta, [N, C, H, W]) = stack([theta[:, k, 0] * x_w + theta[:, k, 1] * y_h + theta[:, k, 2] for k < 2], -1), x_w = -1 + 2w/(W-1), times (W-1)/W without align_corners",
			decompAffineGrid},
		decomposition{"aten.grid_sample", "grid_sample(x, grid) = sum over the bilinear corners (or the nearest pixel, ties to even) of where(in bounds, weight, 0) * gather(x viewed [N, C, H*W], 2, y*W + x), the grid's coordinates unnormalized and clipped (border) or reflected (reflection)",
			decompGridSample},
	)
}

func decompAffineGrid(b *builder, a []ir.Arg) ir.Arg {
	th := a[0]
	size := b.ints(a[1])
	align := a[2] == true
	dt := b.dtype(th)
	if err := ir.AffineGridCheck(b.shape(th), dt, size); err != nil {
		b.failf("%v", err)
		return nil
	}
	N, H, W := size[0], size[2], size[3]
	base := func(n int, shape []int) ir.Arg {
		if n <= 1 {
			return b.o("full", sizesArg(shape), 0.0, dt)
		}
		v := b.o("sub", b.o("mul", b.o("to_dtype", b.indexRange(0, n), dt), 2/float64(n-1)), 1.0)
		if !align {
			v = b.o("mul", v, float64(n-1)/float64(n))
		}
		return b.reshape(v, shape)
	}
	x, y := base(W, []int{1, 1, W}), base(H, []int{1, H, 1})
	var ks []ir.Arg
	for k := 0; k < 2; k++ {
		row := b.o("select", th, int64(1), int64(k))
		t := func(j int) ir.Arg { return b.reshape(b.o("select", row, int64(1), int64(j)), []int{N, 1, 1}) }
		ks = append(ks, b.o("add", b.o("add", b.o("mul", t(0), x), b.o("mul", t(1), y)), t(2)))
	}
	return b.o("cat", ir.List{b.o("unsqueeze", ks[0], int64(-1)), b.o("unsqueeze", ks[1], int64(-1))}, int64(-1))
}

// gridClip is ATen's clip_coordinates: v within [0, n-1], no gradient at
// or beyond the borders.
func (b *builder) gridClip(v ir.Arg, n int) ir.Arg {
	v = b.o("where", b.o("le", v, 0.0), 0.0, v)
	return b.o("where", b.o("ge", v, float64(n-1)), float64(n-1), v)
}

// gridSource is ATen's grid_sampler_compute_source_index.
func (b *builder) gridSource(c ir.Arg, n int, pad string, align bool) ir.Arg {
	var v ir.Arg
	if align {
		v = b.o("mul", b.o("div", b.o("add", c, 1.0), 2.0), float64(n-1))
	} else {
		v = b.o("div", b.o("sub", b.o("mul", b.o("add", c, 1.0), float64(n)), 1.0), 2.0)
	}
	switch pad {
	case "border":
		return b.gridClip(v, n)
	case "reflection":
		lo2, hi2 := -1.0, 2*float64(n)-1
		if align {
			lo2, hi2 = 0, 2*float64(n-1)
		}
		if lo2 == hi2 {
			v = b.o("full", sizesArg(b.shape(v)), 0.0, b.dtype(v))
		} else {
			lo, span := lo2/2, (hi2-lo2)/2
			av := b.o("abs", b.o("sub", v, lo))
			flips := b.o("floor", b.o("div", av, span))
			extra := b.o("sub", av, b.o("mul", flips, span))
			even := b.o("eq", b.o("remainder", flips, 2.0), 0.0)
			v = b.o("where", even, b.o("add", extra, lo), b.o("add", b.o("sub", span, extra), lo))
		}
		return b.gridClip(v, n)
	}
	return v
}

func decompGridSample(b *builder, a []ir.Arg) ir.Arg {
	x, g := a[0], a[1]
	mode, pad := b.str(a[2]), b.str(a[3])
	align := a[4] == true
	xs, gs := b.shape(x), b.shape(g)
	if _, err := ir.GridSampleCheck(xs, gs, b.dtype(x), b.dtype(g), mode, pad); err != nil {
		b.failf("%v", err)
		return nil
	}
	N, C, H, W := xs[0], xs[1], xs[2], xs[3]
	Ho, Wo := gs[1], gs[2]
	ix := b.gridSource(b.o("select", g, int64(3), int64(0)), W, pad, align)
	iy := b.gridSource(b.o("select", g, int64(3), int64(1)), H, pad, align)
	flat := b.reshape(x, []int{N, C, H * W})
	read := func(xc, yc ir.Arg) (ir.Arg, ir.Arg) {
		in := b.o("logical_and", b.o("logical_and", b.o("ge", xc, 0.0), b.o("le", xc, float64(W-1))),
			b.o("logical_and", b.o("ge", yc, 0.0), b.o("le", yc, float64(H-1))))
		pos := b.o("to_dtype", b.o("where", in, b.o("add", b.o("mul", yc, float64(W)), xc), 0.0), tensor.Int64)
		idx := b.o("expand", b.reshape(pos, []int{N, 1, Ho * Wo}), sizesArg([]int{N, C, Ho * Wo}))
		return b.reshape(b.o("gather", flat, int64(2), idx), []int{N, C, Ho, Wo}), in
	}
	if mode == "nearest" {
		v, in := read(b.o("round", ix), b.o("round", iy))
		return b.o("where", b.o("unsqueeze", in, int64(1)), v, 0.0)
	}
	x0, y0 := b.o("floor", ix), b.o("floor", iy)
	x1, y1 := b.o("add", x0, 1.0), b.o("add", y0, 1.0)
	corners := []struct{ xc, yc, w ir.Arg }{
		{x0, y0, b.o("mul", b.o("sub", x1, ix), b.o("sub", y1, iy))},
		{x1, y0, b.o("mul", b.o("sub", ix, x0), b.o("sub", y1, iy))},
		{x0, y1, b.o("mul", b.o("sub", x1, ix), b.o("sub", iy, y0))},
		{x1, y1, b.o("mul", b.o("sub", ix, x0), b.o("sub", iy, y0))},
	}
	var out ir.Arg
	for _, c := range corners {
		v, in := read(c.xc, c.yc)
		t := b.o("mul", v, b.o("unsqueeze", b.o("where", in, c.w, 0.0), int64(1)))
		if out == nil {
			out = t
		} else {
			out = b.o("add", out, t)
		}
	}
	return out
}
