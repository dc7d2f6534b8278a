package ir

import (
	"fmt"
	"math"

	"gcdbg/tensor"
)

// F.affine_grid and F.grid_sample (spatial transformers, on-the-fly affine
// augmentation, flow warping), 2-D: affine_grid(theta [N, 2, 3], size
// [N, C, H, W]) is the sampling grid [N, H, W, 2] of the base grid's (x, y,
// 1) times theta transposed; grid_sample(input [N, C, H, W], grid
// [N, Ho, Wo, 2]) reads input at the grid's normalized coordinates, by
// bilinear weights or the nearest pixel (ties to even, as nearbyint), with
// PyTorch 1.13's unnormalization and zeros, border or reflection padding
// (ATen's GridSampler.h). The eager values are computed here in float64
// and rounded to the input's dtype; the decomposed stage builds them from
// gather and pointwise ops (stages/decomp_grid_sample.go), whose gradient
// is ATen's: no gradient through a clipped or reflected border coordinate.

func init() {
	gs := Register("grid_sample(input, grid, mode='bilinear', padding_mode='zeros', align_corners=None)", KindOther, func(a Args) (Value, error) {
		r := &ar{a: a}
		x, g, mode, pad := r.t(0), r.t(1), r.s(2), r.s(3)
		align := a.V[4] == true
		if r.err != nil {
			return nil, r.err
		}
		if _, err := GridSampleCheck(x.Shape, g.Shape, x.DType, g.DType, mode, pad); err != nil {
			return nil, err
		}
		return GridSample(x, g, mode, pad, align), nil
	})
	gs.Infer = func(a Args) (Value, error) {
		x, err := a.meta(0)
		if err != nil {
			return nil, err
		}
		g, err := a.meta(1)
		if err != nil {
			return nil, err
		}
		mode, err := a.Str(2)
		if err != nil {
			return nil, err
		}
		pad, err := a.Str(3)
		if err != nil {
			return nil, err
		}
		out, err := GridSampleCheck(x.Shape.Sizes(), g.Shape.Sizes(), x.DType, g.DType, mode, pad)
		if err != nil {
			return nil, err
		}
		return contig(x.DType, out), nil
	}
	ag := Register("affine_grid(theta, size, align_corners=None)", KindOther, func(a Args) (Value, error) {
		r := &ar{a: a}
		th, size := r.t(0), r.ints(1)
		align := a.V[2] == true
		if r.err != nil {
			return nil, r.err
		}
		if err := AffineGridCheck(th.Shape, th.DType, size); err != nil {
			return nil, err
		}
		return AffineGrid(th, size, align), nil
	})
	ag.Infer = func(a Args) (Value, error) {
		th, err := a.meta(0)
		if err != nil {
			return nil, err
		}
		size, err := a.OptInts(1)
		if err != nil {
			return nil, err
		}
		if err := AffineGridCheck(th.Shape.Sizes(), th.DType, size); err != nil {
			return nil, err
		}
		return contig(th.DType, []int{size[0], size[2], size[3], 2}), nil
	}
}

// GridSampleCheck is grid_sample's argument check (PyTorch 1.13's
// messages; gcdbg takes 4-D inputs and the bilinear and nearest modes):
// the output's sizes [N, C, Ho, Wo] or the error.
func GridSampleCheck(x, g []int, xdt, gdt tensor.DType, mode, pad string) ([]int, error) {
	switch mode {
	case "bilinear", "nearest":
	case "bicubic":
		return nil, fmt.Errorf("grid_sample: mode 'bicubic' is not supported by gcdbg (bilinear, nearest)")
	default:
		return nil, fmt.Errorf("nn.functional.grid_sample(): expected mode to be 'bilinear', 'nearest' or 'bicubic', but got: '%s'", mode)
	}
	switch pad {
	case "zeros", "border", "reflection":
	default:
		return nil, fmt.Errorf("nn.functional.grid_sample(): expected padding_mode to be 'zeros', 'border', or 'reflection', but got: '%s'", pad)
	}
	if xdt != gdt {
		return nil, fmt.Errorf("grid_sampler(): expected input and grid to have same dtype, but input has %s and grid has %s", xdt, gdt)
	}
	if !xdt.IsFloat() {
		return nil, fmt.Errorf("grid_sampler_2d not implemented for '%s'", xdt)
	}
	if len(x) == 5 && len(g) == 5 {
		return nil, fmt.Errorf("grid_sample: 5-D (volumetric) inputs are not supported by gcdbg, only 4-D [N, C, H, W]")
	}
	if len(x) != 4 || len(g) != 4 {
		return nil, fmt.Errorf("grid_sampler(): expected 4D or 5D input and grid with same number of dimensions, but got input with sizes %v and grid with sizes %v", x, g)
	}
	if x[0] != g[0] {
		return nil, fmt.Errorf("grid_sampler(): expected grid and input to have same batch size, but got input with sizes %v and grid with sizes %v", x, g)
	}
	if g[3] != 2 {
		return nil, fmt.Errorf("grid_sampler(): expected grid to have size 2 in last dimension, but got grid with sizes %v", g)
	}
	for i := 2; i < 4; i++ {
		if x[i] <= 0 {
			return nil, fmt.Errorf("grid_sampler(): expected input to have non-empty spatial dimensions, but input has sizes %v with dimension %d being empty", x, i)
		}
	}
	return []int{x[0], x[1], g[1], g[2]}, nil
}

// AffineGridCheck is affine_grid's argument check for a 4-D size.
func AffineGridCheck(theta []int, dt tensor.DType, size []int) error {
	if !dt.IsFloat() {
		return fmt.Errorf("affine_grid(): expected theta to have floating point type, but got %s", dt)
	}
	if len(size) == 5 {
		return fmt.Errorf("affine_grid: 5-D sizes (volumetric grids) are not supported by gcdbg, only [N, C, H, W]")
	}
	if len(size) != 4 {
		return fmt.Errorf("affine_grid only supports 4D and 5D sizes, for 2D and 3D affine transforms, respectively. Got size %v.", size)
	}
	if len(theta) != 3 || theta[1] != 2 || theta[2] != 3 {
		return fmt.Errorf("Expected a batch of 2D affine matrices of shape Nx2x3 for size %v. Got %v.", size, theta)
	}
	if size[0] != theta[0] {
		return fmt.Errorf("Expected a batch of 2D affine matrices of shape Nx2x3 for size %v. Got %v.", size, theta)
	}
	for _, s := range size {
		if s <= 0 {
			return fmt.Errorf("Expected non-zero, positive output size. Got %v", size)
		}
	}
	return nil
}

// GridBase is the base grid's coordinate i of n (ATen's
// linspace_from_neg_one): -1 + 2i/(n-1) with align_corners, scaled by
// (n-1)/n without; 0 when n is 1.
func GridBase(i, n int, align bool) float64 {
	if n <= 1 {
		return 0
	}
	v := -1 + 2*float64(i)/float64(n-1)
	if !align {
		v = v * float64(n-1) / float64(n)
	}
	return v
}

// AffineGrid is F.affine_grid(theta, size, align_corners) for a checked
// 4-D size: grid[n, h, w] = theta[n] @ (x_w, y_h, 1).
func AffineGrid(theta *tensor.Tensor, size []int, align bool) *tensor.Tensor {
	N, H, W := size[0], size[2], size[3]
	dt := theta.DType
	out := tensor.New(dt, N, H, W, 2)
	for n := 0; n < N; n++ {
		for h := 0; h < H; h++ {
			y := tensor.Round(dt, GridBase(h, H, align))
			for w := 0; w < W; w++ {
				x := tensor.Round(dt, GridBase(w, W, align))
				for k := 0; k < 2; k++ {
					v := theta.At(n, k, 0)*x + theta.At(n, k, 1)*y + theta.At(n, k, 2)
					out.SetFlat(((n*H+h)*W+w)*2+k, tensor.Round(dt, v))
				}
			}
		}
	}
	return out
}

// GridSource is ATen's compute_coordinates: the grid coordinate c of a
// dim of size n unnormalized, then clipped (border) or reflected and
// clipped (reflection).
func GridSource(c float64, n int, pad string, align bool) float64 {
	var v float64
	if align {
		v = (c + 1) / 2 * float64(n-1)
	} else {
		v = ((c+1)*float64(n) - 1) / 2
	}
	clip := func(v float64) float64 { return math.Min(float64(n-1), math.Max(v, 0)) }
	switch pad {
	case "border":
		return clip(v)
	case "reflection":
		if align {
			v = reflectCoord(v, 0, 2*float64(n-1))
		} else {
			v = reflectCoord(v, -1, 2*float64(n)-1)
		}
		return clip(v)
	}
	return v
}

func reflectCoord(v, twiceLow, twiceHigh float64) float64 {
	if twiceLow == twiceHigh {
		return 0
	}
	lo := twiceLow / 2
	span := (twiceHigh - twiceLow) / 2
	v = math.Abs(v - lo)
	flips := math.Floor(v / span)
	extra := v - flips*span
	if math.Mod(flips, 2) == 0 {
		return extra + lo
	}
	return span - extra + lo
}

// GridSample is F.grid_sample for checked 4-D arguments.
func GridSample(x, g *tensor.Tensor, mode, pad string, align bool) *tensor.Tensor {
	N, C, H, W := x.Shape[0], x.Shape[1], x.Shape[2], x.Shape[3]
	Ho, Wo := g.Shape[1], g.Shape[2]
	dt := x.DType
	out := tensor.New(dt, N, C, Ho, Wo)
	at := func(n, c, yy, xx int) float64 {
		if yy < 0 || yy >= H || xx < 0 || xx >= W {
			return 0
		}
		return x.At(n, c, yy, xx)
	}
	for n := 0; n < N; n++ {
		for h := 0; h < Ho; h++ {
			for w := 0; w < Wo; w++ {
				ix := GridSource(g.At(n, h, w, 0), W, pad, align)
				iy := GridSource(g.At(n, h, w, 1), H, pad, align)
				for c := 0; c < C; c++ {
					var v float64
					if mode == "nearest" {
						v = at(n, c, int(math.RoundToEven(iy)), int(math.RoundToEven(ix)))
						if math.IsNaN(ix) || math.IsNaN(iy) {
							v = 0
						}
					} else {
						x0, y0 := math.Floor(ix), math.Floor(iy)
						dx, dy := ix-x0, iy-y0
						xi, yi := int(x0), int(y0)
						v = at(n, c, yi, xi)*(1-dx)*(1-dy) + at(n, c, yi, xi+1)*dx*(1-dy) +
							at(n, c, yi+1, xi)*(1-dx)*dy + at(n, c, yi+1, xi+1)*dx*dy
						if math.IsNaN(ix) || math.IsNaN(iy) {
							v = 0
						}
					}
					out.SetFlat(((n*C+c)*Ho+h)*Wo+w, tensor.Round(dt, v))
				}
			}
		}
	}
	return out
}
