package tensor

import "math"

// Floating 2-D convolutions of the eager interpreter as GEMMs through
// dgemm (blas.go): per image and group, the input's windows are unrolled
// into a column matrix (im2col, zeros where a window crosses the padding)
// and multiplied by the group's weight rows; the input gradient is the
// weight's transpose times the output gradient, folded back onto the image
// (col2im); the weight gradient sums output gradient times columns over
// the images. Every product of the loops (conv.go, grad.go convWalk) is
// made once; the sums run in dgemm's order. A padded window's zeros are
// multiplied by the weights (forward) or the output gradient (weight
// gradient) where the loops skip them, so with padding those operands must
// be finite (0·Inf would be NaN where the loops give a number): otherwise,
// or without OpenBLAS, or for a small product (a depthwise group), the
// loops run.

// convShape is one 2-D convolution's geometry.
type convShape struct {
	N, C, H, W, Cout, Cg, KH, KW, OH, OW, groups int
	stride, padLo, dil                           [2]int
	padded                                       bool // some window crosses the padding
}

func newConvShape(in, w []int, OH, OW int, stride, padLo, padHi, dil [2]int, groups int) convShape {
	s := convShape{N: in[0], C: in[1], H: in[2], W: in[3], Cout: w[0], Cg: w[1], KH: w[2], KW: w[3],
		OH: OH, OW: OW, groups: groups, stride: stride, padLo: padLo, dil: dil}
	s.padded = padLo != [2]int{} || padHi != [2]int{}
	return s
}

// gemmDims are the per-(image, group) product's sizes: coutG rows, ckk
// inner terms, ohw columns.
func (s convShape) gemmDims() (coutG, ckk, ohw int) {
	return s.Cout / s.groups, s.Cg * s.KH * s.KW, s.OH * s.OW
}

// useBLAS reports whether the GEMM path runs: dgemm is there, the sizes
// fit it, each group's product is large enough, and (with padding) the
// operand the padding's zeros multiply is finite.
func (s convShape) useBLAS(zerosTimes []float64) bool {
	coutG, ckk, ohw := s.gemmDims()
	if blasDgemm() == nil || !fitsBLAS(coutG, ckk, ohw) || coutG*ckk*ohw < blasMinWork {
		return false
	}
	if s.padded {
		for _, v := range zerosTimes {
			if math.IsInf(v, 0) || math.IsNaN(v) {
				return false
			}
		}
	}
	return true
}

// im2col fills col[ckk × ohw] with image n's group g windows.
func (s convShape) im2col(xd, col []float64, n, g int) {
	_, _, ohw := s.gemmDims()
	for icg := 0; icg < s.Cg; icg++ {
		xin := xd[(n*s.C+g*s.Cg+icg)*s.H*s.W:]
		for kh := 0; kh < s.KH; kh++ {
			for kw := 0; kw < s.KW; kw++ {
				row := col[((icg*s.KH+kh)*s.KW+kw)*ohw:][:ohw]
				for oh := 0; oh < s.OH; oh++ {
					ih := oh*s.stride[0] - s.padLo[0] + kh*s.dil[0]
					dst := row[oh*s.OW:][:s.OW]
					if ih < 0 || ih >= s.H {
						clear(dst)
						continue
					}
					xrow := xin[ih*s.W:][:s.W]
					for ow := range dst {
						iw := ow*s.stride[1] - s.padLo[1] + kw*s.dil[1]
						if iw < 0 || iw >= s.W {
							dst[ow] = 0
						} else {
							dst[ow] = xrow[iw]
						}
					}
				}
			}
		}
	}
}

// col2imAdd adds col[ckk × ohw] into image n's group g of gx, dropping the
// padding's positions.
func (s convShape) col2imAdd(col, gx []float64, n, g int) {
	_, _, ohw := s.gemmDims()
	for icg := 0; icg < s.Cg; icg++ {
		gin := gx[(n*s.C+g*s.Cg+icg)*s.H*s.W:]
		for kh := 0; kh < s.KH; kh++ {
			for kw := 0; kw < s.KW; kw++ {
				row := col[((icg*s.KH+kh)*s.KW+kw)*ohw:][:ohw]
				for oh := 0; oh < s.OH; oh++ {
					ih := oh*s.stride[0] - s.padLo[0] + kh*s.dil[0]
					if ih < 0 || ih >= s.H {
						continue
					}
					grow := gin[ih*s.W:][:s.W]
					src := row[oh*s.OW:][:s.OW]
					for ow, v := range src {
						if iw := ow*s.stride[1] - s.padLo[1] + kw*s.dil[1]; iw >= 0 && iw < s.W {
							grow[iw] += v
						}
					}
				}
			}
		}
	}
}

// eachGroup calls f for every (image, group), in order, with one column
// buffer of ckk × ohw shared by the calls.
func (s convShape) eachGroup(f func(col []float64, n, g int)) {
	_, ckk, ohw := s.gemmDims()
	col := make([]float64, ckk*ohw)
	for n := 0; n < s.N; n++ {
		for g := 0; g < s.groups; g++ {
			f(col, n, g)
		}
	}
}

// forwardBLAS sets out (zeros) to the bias bd (nil: none) plus the
// convolution of xd by wd; false (out untouched) when the loops must run.
func (s convShape) forwardBLAS(xd, wd, bd, out []float64) bool {
	if !s.useBLAS(wd) {
		return false
	}
	coutG, ckk, ohw := s.gemmDims()
	if bd != nil {
		for nc := 0; nc < s.N*s.Cout; nc++ {
			plane := out[nc*ohw : (nc+1)*ohw]
			for i := range plane {
				plane[i] = bd[nc%s.Cout]
			}
		}
	}
	s.eachGroup(func(col []float64, n, g int) {
		s.im2col(xd, col, n, g)
		gemmBLAS(wd[g*coutG*ckk:][:coutG*ckk], col, out[(n*s.Cout+g*coutG)*ohw:][:coutG*ohw], coutG, ckk, ohw, false, false, 1)
	})
	return true
}

// backwardInputBLAS adds the input gradient of gd into gx; false (gx
// untouched) when the loops must run.
func (s convShape) backwardInputBLAS(gd, wd, gx []float64) bool {
	if !s.useBLAS(nil) {
		return false
	}
	coutG, ckk, ohw := s.gemmDims()
	s.eachGroup(func(col []float64, n, g int) {
		// col[ckk × ohw] = w_g[coutG × ckk]ᵀ · gd_ng[coutG × ohw]
		gemmBLAS(wd[g*coutG*ckk:][:coutG*ckk], gd[(n*s.Cout+g*coutG)*ohw:][:coutG*ohw], col, ckk, coutG, ohw, true, false, 0)
		s.col2imAdd(col, gx, n, g)
	})
	return true
}

// backwardWeightBLAS adds the weight gradient of gd and xd into gw; false
// (gw untouched) when the loops must run.
func (s convShape) backwardWeightBLAS(gd, xd, gw []float64) bool {
	if !s.useBLAS(gd) {
		return false
	}
	coutG, ckk, ohw := s.gemmDims()
	s.eachGroup(func(col []float64, n, g int) {
		s.im2col(xd, col, n, g)
		// gw_g[coutG × ckk] += gd_ng[coutG × ohw] · col[ckk × ohw]ᵀ
		gemmBLAS(gd[(n*s.Cout+g*coutG)*ohw:][:coutG*ohw], col, gw[g*coutG*ckk:][:coutG*ckk], coutG, ohw, ckk, false, true, 1)
	})
	return true
}
