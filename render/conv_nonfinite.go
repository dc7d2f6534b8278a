package render

import (
	"fmt"

	"gcdbg/loopir"
	"gcdbg/tensor"
)

// NaN and Inf against a convolution's padding (im2col + GEMM, conv.go).
//
// im2col writes the padding as zeros into the column matrix, and the GEMM
// multiplies them like any other element: a NaN or ±Inf weight times a
// padding zero is NaN, so every output whose window reaches padding
// through that tap is NaN. oneDNN's direct JIT kernels (what PyTorch
// 1.13's float32 convolutions run for most shapes: forward, backward data,
// backward weights) and the eager interpreter (tensor/conv.go's column
// ranges) skip padded positions: those outputs are finite. oneDNN's
// GEMM-based kernels, which it takes for a few channels per group and for
// grouped dilated
// weight gradients, multiply the padding as im2col does, so PyTorch's own
// border is NaN there; the checks below also run after oneDNN's primitive
// (conv_dnnl.go) where the operand flattens as it is, so every candidate
// gives the eager interpreter's values (runner
// TestConvNonFiniteGEMMKernels). The same holds
// for the weight gradient Σ dY·col: a NaN or Inf dY element at an output
// whose window reaches padding times the padding zero is NaN in the
// gradient of the taps that reach it. The backward input (Wᵀ·dY, then
// col2im) multiplies no padding: its padded columns are dropped.
//
// The common finite case pays a check only:
//   - forward: the weight (OC·CG·KH·KW elements, a vector sum of w·0,
//     which is 0 unless an element is NaN or Inf) before the GEMMs; a
//     non-finite weight then recomputes only the outputs whose windows
//     reach padding (the border rows and columns), over real input
//     elements, in double, as the direct conv loop (gemm.go) does;
//   - backward weight: the result (OC·CG·KH·KW elements) after the GEMMs:
//     an im2col NaN reaches it through its sums, and without a NaN or Inf
//     in dW no padding zero met one; with one, dW is computed again by
//     direct loops over real input elements (a dY or input that is not
//     finite somewhere: rare, and then slow: scalar loops in double).
//
// Emitted only for float32/float64 convolutions with padding (no padding:
// no window reaches outside the input, nothing to fix). Depthwise
// convolutions have their own paths (conv_depthwise.go). runner
// TestConvNonFiniteMatchesPyTorch checks the values against PyTorch.

// convNonFinite reports whether a conv of this dtype and padding gets the
// non-finite checks.
func convNonFinite(dt tensor.DType, pad [2]int64) bool {
	return (dt == tensor.Float32 || dt == tensor.Float64) && pad != [2]int64{}
}

// convBorderCheck writes conv2d's check of the weight (w: pointer, stride
// along OC, stride along the flattened CG·KH·KW) and the border outputs'
// recomputation, x the input (pointer, image stride, one image's strides),
// after the kernel's paths in a scope where convGeom.decl's names exist.
func (g *kernelGen) convBorderCheck(tn, x, sxn string, xst []loopir.Expr, w, ws0, wsk, bias, sb string, groups int64, stride, pad, dil [2]int64, out string) {
	if bias == "" {
		bias, sb = "NULL", "0"
	}
	g.line("if (!gcdbg_conv_finite_%s(%s, OC, CGK, %s, %s)) /* a NaN/Inf weight: the outputs whose windows reach padding again, without it (conv_nonfinite.go) */", tn, w, ws0, wsk)
	g.line("  gcdbg_conv_border_%s(%s, %s, %s, %s, %s, N, %d, CG, H, W, %s, %s, %s, %s, %s, OC, KH, KW, OH, OW, %d, %d, %d, %d, %d, %d, %s);",
		tn, x, sxn, g.e(xst[0]), g.e(xst[1]), g.e(xst[2]), groups, w, ws0, wsk, bias, sb, stride[0], stride[1], pad[0], pad[1], dil[0], dil[1], out)
}

// convRedoCheck writes conv2d_backward_weight's check of dW (out) and its
// recomputation without the padding, gy dY's pointer and strides (image,
// channel, flattened plane), x the input view.
func (g *kernelGen) convRedoCheck(tn, gy, sy0, sy1, syp string, x *loopir.View, groups int64, stride, pad, dil [2]int64, out string) {
	g.line("if (!gcdbg_conv_finite_%s(%s, OC, CGK, CGK, 1)) /* NaN/Inf in dW, maybe a NaN/Inf dY times a padding zero: again without the padding (conv_nonfinite.go) */", tn, out)
	g.line("  gcdbg_conv_bwdw_redo_%s(%s, %s, %s, %s, %s, %s, %s, %s, %s, N, %d, OC, CG, H, W, KH, KW, OH, OW, %d, %d, %d, %d, %d, %d, %s);",
		tn, gy, sy0, sy1, syp, g.ptr(x), g.e(x.Strides[0]), g.e(x.Strides[1]), g.e(x.Strides[2]), g.e(x.Strides[3]), groups,
		stride[0], stride[1], pad[0], pad[1], dil[0], dil[1], out)
}

// convNonFiniteHelpers are the check and the two padding-skipping paths
// for one element type.
func convNonFiniteHelpers(t string) string {
	return fmt.Sprintf(`
/* 1 when every element of the R x K matrix (strides sr, sk) is finite: the sum of x*0 is 0, NaN otherwise */
static __attribute__((unused)) int gcdbg_conv_finite_%[1]s(const %[2]s *p, int64_t R, int64_t K, int64_t sr, int64_t sk) {
  %[2]s s = 0;
  for (int64_t r = 0; r < R; r++) {
    const %[2]s *q = p + r * sr;
    if (sk == 1) {
      #pragma omp simd reduction(+:s)
      for (int64_t k = 0; k < K; k++) s += q[k] * (%[2]s)0;
    } else
      for (int64_t k = 0; k < K; k++) s += q[k * sk] * (%[2]s)0;
  }
  return s == 0;
}
/* output row oh (column ow) has a window tap in the padding */
static inline int gcdbg_conv_edge(int64_t o, int64_t s, int64_t p, int64_t K, int64_t d, int64_t H) {
  return o * s - p < 0 || o * s - p + (K - 1) * d >= H;
}
/* conv2d's outputs whose windows reach padding, over real input elements only (a non-finite weight: im2col's padding
   zeros times it were NaN); X one image's (C, H, W) strides sxc, sxh, sxw, images sxn apart; weight element
   (oc, k = (c*KH + kh)*KW + kw) at Wt[oc*sw0 + k*swk]; Y contiguous (N, OC, OH, OW) */
static __attribute__((unused)) void gcdbg_conv_border_%[1]s(const %[2]s *X, int64_t sxn, int64_t sxc, int64_t sxh, int64_t sxw,
    int64_t N, int64_t G, int64_t CG, int64_t H, int64_t W, const %[2]s *Wt, int64_t sw0, int64_t swk, const %[2]s *bias, int64_t sb,
    int64_t OC, int64_t KH, int64_t KW, int64_t OH, int64_t OW, int64_t s0, int64_t s1, int64_t p0, int64_t p1, int64_t d0, int64_t d1, %[2]s *Y) {
  const int64_t OCG = OC / G;
  #pragma omp parallel for collapse(2) if(N * OC >= 2 && !omp_in_parallel())
  for (int64_t n = 0; n < N; n++)
    for (int64_t oc = 0; oc < OC; oc++) {
      const %[2]s *x = X + n * sxn + (oc / OCG) * CG * sxc, *w = Wt + oc * sw0;
      for (int64_t oh = 0; oh < OH; oh++) {
        const int re = gcdbg_conv_edge(oh, s0, p0, KH, d0, H);
        for (int64_t ow = 0; ow < OW; ow++) {
          if (!re && !gcdbg_conv_edge(ow, s1, p1, KW, d1, W)) continue;
          double a = 0;
          for (int64_t c = 0; c < CG; c++)
            for (int64_t kh = 0; kh < KH; kh++) {
              const int64_t ih = oh * s0 - p0 + kh * d0;
              if (ih < 0 || ih >= H) continue;
              for (int64_t kw = 0; kw < KW; kw++) {
                const int64_t iw = ow * s1 - p1 + kw * d1;
                if (iw >= 0 && iw < W) a += (double)w[((c * KH + kh) * KW + kw) * swk] * (double)x[c * sxc + ih * sxh + iw * sxw];
              }
            }
          Y[((n * OC + oc) * OH + oh) * OW + ow] = bias ? (%[2]s)a + bias[oc * sb] : (%[2]s)a;
        }
      }
    }
}
/* the weight gradient dW (OC x CG*KH*KW) again over real input elements only, output channels in parallel, each
   channel's images in order: dY (N, OC, plane) strides syn, syc, sp, element (oh, ow) at (oh*OW + ow)*sp; X (N, C, H, W)
   strides sxn, sxc, sxh, sxw */
static __attribute__((unused)) void gcdbg_conv_bwdw_redo_%[1]s(const %[2]s *dY, int64_t syn, int64_t syc, int64_t sp,
    const %[2]s *X, int64_t sxn, int64_t sxc, int64_t sxh, int64_t sxw, int64_t N, int64_t G, int64_t OC, int64_t CG, int64_t H, int64_t W,
    int64_t KH, int64_t KW, int64_t OH, int64_t OW, int64_t s0, int64_t s1, int64_t p0, int64_t p1, int64_t d0, int64_t d1, %[2]s *dW) {
  const int64_t OCG = OC / G, CGK = CG * KH * KW;
  #pragma omp parallel for if(OC >= 2 && !omp_in_parallel())
  for (int64_t oc = 0; oc < OC; oc++) {
    %[2]s *dw = dW + oc * CGK;
    for (int64_t k = 0; k < CGK; k++) dw[k] = 0;
    for (int64_t n = 0; n < N; n++) {
      const %[2]s *y = dY + n * syn + oc * syc, *x = X + n * sxn + (oc / OCG) * CG * sxc;
      for (int64_t c = 0; c < CG; c++)
        for (int64_t kh = 0; kh < KH; kh++)
          for (int64_t kw = 0; kw < KW; kw++) {
            %[2]s a = 0;
            for (int64_t oh = 0; oh < OH; oh++) {
              const int64_t ih = oh * s0 - p0 + kh * d0;
              if (ih < 0 || ih >= H) continue;
              for (int64_t ow = 0; ow < OW; ow++) {
                const int64_t iw = ow * s1 - p1 + kw * d1;
                if (iw >= 0 && iw < W) a += y[(oh * OW + ow) * sp] * x[c * sxc + ih * sxh + iw * sxw];
              }
            }
            dw[(c * KH + kh) * KW + kw] += a;
          }
    }
  }
}
`, sanitizeIdent(t), t)
}
