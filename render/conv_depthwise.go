package render

import (
	"fmt"

	"gcdbg/loopir"
	"gcdbg/tensor"
)

// Depthwise convolution (groups == C, one input channel per group: CG =
// 1; OCG = OC / C output channels per input channel, the depth
// multiplier), forward and both backwards, as direct loops per (image,
// channel) plane instead of conv.go's im2col + a 1xKK GEMM per plane
// (MobileNetV2's 3x3 depthwise backward input ran at 2-3 GB/s that way).
//
// Every kernel works on the zero-padded input plane the windows reach
// (conv_plane.go's geometry: (OH-1)·s0 + (KH-1)·d0 + 1 rows,
// (OW-1)·s1 + (KW-1)·d1 + 1 columns), split into s0 × s1 phase planes
// (plane row r, column j go to phase (r % s0, j % s1) at (r / s0, j / s1)).
// Window tap (kh, kw) of output (oh, ow) then reads phase ((kh·d0) % s0,
// (kw·d1) % s1) at (oh + kh·d0 / s0, ow + kw·d1 / s1): contiguous in ow for
// stride 2 as for stride 1, so every inner loop is a unit-stride vector
// loop (gcc -fopt-info-vec "loop vectorized": compiler's
// TestConvDepthwiseVectorize). The plane and the scratch live in a
// per-thread gcdbg_scratch slot, so any plane size takes the same code.
//
//   - forward: over the flattened (oh, ow) grid of phase-row width Wq ≥ OW
//     (the columns past OW are computed and thrown away), in blocks of 512
//     points (L1), each tap one unit-stride pass over the block, taps in
//     (kh, kw) order from 0 (float), the bias added after (as the GEMM path
//     adds it); one plane serves all OCG output channels.
//   - backward input: the OCG dY planes spread tap by tap into a zeroed
//     plane, then the plane's interior is dX; every dX element is written
//     (rows and columns no window reaches get 0), so no memset before, as
//     col2im. With finite weights dY is laid on the Wq-wide grid (0 past
//     OW) and each tap is one flat pass (MobileNet's rows of 8 were scalar
//     loops row by row); a NaN or Inf weight takes the rows of real dY
//     elements only (Inf·0 past a row would be NaN where PyTorch has none).
//   - backward weight: per channel and image, one dot product per tap and
//     output channel of dY with the tap's window of the plane, products and
//     sums in double (8 lanes carried over the rows, a row's last OW % 8
//     columns apart; the image's sum added to the channel's); channels in
//     parallel, each channel's images in order on one thread, so the result
//     does not depend on the thread count.
//
// A NaN or Inf in the input or dY reaches exactly the outputs whose
// windows hold it. A NaN or ±Inf weight multiplies no padding zero: the
// forward then runs direct loops over the taps that reach real input
// elements (PyTorch 1.13's float32 depthwise, oneDNN, and the eager
// interpreter give a finite border there; its im2col path, float64 or a
// depth multiplier of 2, gives Inf·0 = NaN), the backward input its row
// path (runner TestConvDepthwiseNonFiniteWeights). Small kernels run
// without an OpenMP region (par).
//
// Measured on MobileNetV2 width 0.5 (examples/unseen3/mobilenetv2.py,
// batch 16 of 3x64x64; gcdbg run's kernel table, the binaries with and
// without the hooks one after the other, load 8.5-10.4): its 30 depthwise
// kernels 97.5 -> 51.5 ms, e.g. a backward input 5.0 -> 1.5 ms (docs/
// performance.md). One thread, CPU time of a C harness on its shapes
// (load 14): the weight gradient dotting rows in place, 8 double lanes
// carried over the rows, against im2col rows first: 288@8x8 1.6 -> 1.1
// ms, 16@64x64 2.7 -> 2.2 ms; 16 or 32 lanes were slower. The backward
// input's stride-2 dX rows as two phase rows interleaved (a vector loop)
// instead of a strided store per phase: 48@64x64 3.0 -> 2.3 ms.

// depthwise reports whether the convolution has one input channel per
// group (channels, a static size, == groups; weight dim 1 == 1) in a type
// the helpers are written for. One channel (groups 1) keeps the GEMM: its
// OC x KK weight is a real GEMM operand, and the weight gradient, parallel
// over channels here, would run on one thread.
func depthwise(channels, wcg loopir.Expr, groups int64, dt tensor.DType) bool {
	c, ok1 := channels.(loopir.Const)
	k, ok2 := wcg.(loopir.Const)
	return ok1 && ok2 && groups >= 2 && c.V == groups && k.V == 1 && (dt == tensor.Float32 || dt == tensor.Float64)
}

// depthwiseConv writes conv2d through gcdbg_dw_forward; false when the
// convolution is not depthwise (convGEMM goes on).
func (g *kernelGen) depthwiseConv(x, w, bias *loopir.View, out *storage, ob *loopir.Buffer, stride, pad, dil [2]int64, groups int64) bool {
	if len(w.Sizes) != 4 || (len(x.Sizes) != 4 && len(x.Sizes) != 3) {
		return false
	}
	xs, xst, os, nb, sxn := g.convImages(x, ob)
	if !depthwise(xs[0], w.Sizes[1], groups, ob.DType) {
		return false
	}
	t := g.ctype(ob.DType)
	b, bs := "NULL", "0"
	if bias != nil {
		b, bs = g.ptr(bias), g.e(bias.Strides[0])
	}
	g.line("/* conv2d, depthwise: direct window sums per (image, channel) plane (conv_depthwise.go) */")
	g.line("gcdbg_dw_forward_%s(%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %d, %d, %d, %d, %d, %d, %s);",
		sanitizeIdent(t), g.ptr(x), sxn, g.e(xst[0]), g.e(xst[1]), g.e(xst[2]), nb, g.e(xs[0]), g.e(xs[1]), g.e(xs[2]),
		g.ptr(w), g.e(w.Strides[0]), g.e(w.Strides[2]), g.e(w.Strides[3]), b, bs,
		g.e(os[0]), g.e(w.Sizes[2]), g.e(w.Sizes[3]), g.e(os[1]), g.e(os[2]),
		stride[0], stride[1], pad[0], pad[1], dil[0], dil[1], out.c)
	return true
}

// depthwiseBackwardInput writes conv2d_backward_input through
// gcdbg_dw_backward_input; false when not depthwise.
func (g *kernelGen) depthwiseBackwardInput(gy, w *loopir.View, out *storage, ob *loopir.Buffer, stride, pad, dil [2]int64, groups int64) bool {
	if !depthwise(ob.Sizes[1], w.Sizes[1], groups, ob.DType) {
		return false
	}
	t := g.ctype(ob.DType)
	g.line("/* conv2d_backward_input, depthwise: the dY planes spread over a zero-padded plane per (image, channel), its interior is dX (conv_depthwise.go) */")
	g.line("gcdbg_dw_backward_input_%s(%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %d, %d, %d, %d, %d, %d, %s);",
		sanitizeIdent(t), g.ptr(gy), g.e(gy.Strides[0]), g.e(gy.Strides[1]), g.e(gy.Strides[2]), g.e(gy.Strides[3]), g.ptr(w), g.e(w.Strides[0]), g.e(w.Strides[2]), g.e(w.Strides[3]),
		g.e(ob.Sizes[0]), g.e(ob.Sizes[1]), g.e(ob.Sizes[2]), g.e(ob.Sizes[3]), g.e(w.Sizes[0]), g.e(w.Sizes[2]), g.e(w.Sizes[3]),
		g.e(gy.Sizes[2])+", "+g.e(gy.Sizes[3]), stride[0], stride[1], pad[0], pad[1], dil[0], dil[1], out.c)
	return true
}

// depthwiseBackwardWeight writes conv2d_backward_weight through
// gcdbg_dw_backward_weight; false when not depthwise.
func (g *kernelGen) depthwiseBackwardWeight(gy, x *loopir.View, out *storage, ob *loopir.Buffer, stride, pad, dil [2]int64, groups int64) bool {
	if !depthwise(x.Sizes[1], ob.Sizes[1], groups, ob.DType) {
		return false
	}
	t := g.ctype(ob.DType)
	g.line("/* conv2d_backward_weight, depthwise: per channel, tap windows of the zero-padded plane dotted with dY in double, images in order (conv_depthwise.go) */")
	g.line("gcdbg_dw_backward_weight_%s(%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %d, %d, %d, %d, %d, %d, %s);",
		sanitizeIdent(t), g.ptr(x), g.e(x.Strides[0]), g.e(x.Strides[1]), g.e(x.Strides[2]), g.e(x.Strides[3]),
		g.ptr(gy), g.e(gy.Strides[0]), g.e(gy.Strides[1]), g.e(gy.Strides[2]), g.e(gy.Strides[3]),
		g.e(x.Sizes[0]), g.e(x.Sizes[1]), g.e(x.Sizes[2]), g.e(x.Sizes[3]), g.e(ob.Sizes[0]), g.e(ob.Sizes[2]), g.e(ob.Sizes[3]),
		g.e(gy.Sizes[2])+", "+g.e(gy.Sizes[3]), stride[0], stride[1], pad[0], pad[1], dil[0], dil[1], out.c)
	return true
}

// convDepthwiseHelpers are the depthwise kernels for one element type
// (float or double; written after the scratch allocator).
func convDepthwiseHelpers(t string) string {
	return fmt.Sprintf(`
/* depthwise convolution (conv_depthwise.go). The zero-padded plane the windows reach, split into s0 x s1 phases:
   plane row r (input row r - p0), column j (input column j - p1) is phase (r %% s0, j %% s1) at (r / s0, j / s1),
   each phase Hq x Wq; 16 zeros after the last phase (a 16-wide chunk reads past a tap's last element). */
static inline void gcdbg_dw_geom_%[1]s(int64_t OH, int64_t OW, int64_t KH, int64_t KW, int64_t s0, int64_t s1, int64_t d0, int64_t d1,
    int64_t *Hq, int64_t *Wq, int64_t *off) {
  const int64_t Hp = (OH - 1) * s0 + (KH - 1) * d0 + 1, Wp = (OW - 1) * s1 + (KW - 1) * d1 + 1;
  *Hq = (Hp + s0 - 1) / s0; *Wq = (Wp + s1 - 1) / s1;
  /* tap (kh, kw) of output (oh, ow) is P[off[kh*KW+kw] + oh*Wq + ow] */
  for (int64_t kh = 0; kh < KH; kh++)
    for (int64_t kw = 0; kw < KW; kw++)
      off[kh * KW + kw] = (((kh * d0) %% s0) * s1 + (kw * d1) %% s1) * *Hq * *Wq + (kh * d0 / s0) * *Wq + kw * d1 / s1;
}
static void gcdbg_dw_plane_%[1]s(const %[2]s *x, int64_t sh, int64_t sw, int64_t H, int64_t W, int64_t p0, int64_t p1,
    int64_t s0, int64_t s1, int64_t Hq, int64_t Wq, %[2]s *restrict P) {
  for (int64_t a = 0; a < s0; a++)
    for (int64_t b = 0; b < s1; b++) {
      %[2]s *restrict ph = P + (a * s1 + b) * Hq * Wq;
      /* the phase columns v whose input column v*s1 + b - p1 is in [0, W) */
      int64_t lo = p1 - b <= 0 ? 0 : (p1 - b + s1 - 1) / s1, hi = W + p1 - b <= 0 ? 0 : (W + p1 - b + s1 - 1) / s1;
      if (hi > Wq) hi = Wq;
      if (lo > hi) lo = hi;
      for (int64_t u = 0; u < Hq; u++) {
        %[2]s *restrict pr = ph + u * Wq;
        const int64_t ih = u * s0 + a - p0;
        if (ih < 0 || ih >= H) { for (int64_t v = 0; v < Wq; v++) pr[v] = 0; continue; }
        const %[2]s *xr = x + ih * sh;
        for (int64_t v = 0; v < lo; v++) pr[v] = 0;
        if (s1 == 1 && sw == 1) for (int64_t v = lo; v < hi; v++) pr[v] = xr[v + b - p1];
        else for (int64_t v = lo; v < hi; v++) pr[v] = xr[(v * s1 + b - p1) * sw];
        for (int64_t v = hi; v < Wq; v++) pr[v] = 0;
      }
    }
  for (int i = 0; i < 16; i++) P[s0 * s1 * Hq * Wq + i] = 0;
}
/* the dY plane g (rows sh apart, elements sw apart) as a dense OH x OW plane: g itself, or its copy in tmp
   (an expanded gradient, e.g. of a sum, has strides 0) */
static inline const %[2]s *gcdbg_dw_dense_%[1]s(const %[2]s *g, int64_t sh, int64_t sw, int64_t OH, int64_t OW, %[2]s *restrict tmp) {
  if (sw == 1 && (sh == OW || OH == 1)) return g;
  for (int64_t oh = 0; oh < OH; oh++)
    for (int64_t ow = 0; ow < OW; ow++) tmp[oh * OW + ow] = g[oh * sh + ow * sw];
  return tmp;
}
/* work (multiply-adds) under which a kernel runs without an OpenMP region */
#define GCDBG_DW_PAR_WORK 131072
static __attribute__((unused)) void gcdbg_dw_forward_%[1]s(const %[2]s *X, int64_t sxn, int64_t sxc, int64_t sxh, int64_t sxw,
    int64_t N, int64_t C, int64_t H, int64_t W, const %[2]s *Wt, int64_t ws0, int64_t ws2, int64_t ws3, const %[2]s *bias, int64_t bs,
    int64_t OC, int64_t KH, int64_t KW, int64_t OH, int64_t OW, int64_t s0, int64_t s1, int64_t p0, int64_t p1, int64_t d0, int64_t d1,
    %[2]s *Y) {
  if (N <= 0 || C <= 0 || OH <= 0 || OW <= 0) return;
  const int64_t OCG = OC / C, OHW = OH * OW, KK = KH * KW;
  int64_t Hq, Wq, off[KK > 0 ? KK : 1];
  gcdbg_dw_geom_%[1]s(OH, OW, KH, KW, s0, s1, d0, d1, &Hq, &Wq, off);
  const int64_t L = (OH - 1) * Wq + OW; /* the flattened (oh, ow) grid of row width Wq */
  const int64_t PS = s0 * s1 * Hq * Wq + 16, per = PS + L;
  const int par = N * C >= 2 && omp_get_max_threads() > 1 && N * OC * OHW * KK >= GCDBG_DW_PAR_WORK;
  const int64_t nt = par ? omp_get_max_threads() : 1;
  %[2]s *scr = (%[2]s *)gcdbg_scratch(0, (size_t)(nt * per) * sizeof(%[2]s));
  #pragma omp parallel for collapse(2) if(par)
  for (int64_t n = 0; n < N; n++)
    for (int64_t c = 0; c < C; c++) {
      %[2]s *restrict P = scr + omp_get_thread_num() * per, *restrict acc = P + PS;
      gcdbg_dw_plane_%[1]s(X + n * sxn + c * sxc, sxh, sxw, H, W, p0, p1, s0, s1, Hq, Wq, P);
      for (int64_t m = 0; m < OCG; m++) {
        const int64_t oc = c * OCG + m;
        %[2]s wk[KK > 0 ? KK : 1];
        for (int64_t kh = 0; kh < KH; kh++)
          for (int64_t kw = 0; kw < KW; kw++) wk[kh * KW + kw] = Wt[oc * ws0 + kh * ws2 + kw * ws3];
        int fin = 1;
        for (int64_t k = 0; k < KK; k++) fin &= isfinite(wk[k]) != 0;
        if (!fin) {
          /* a NaN or Inf weight: the taps that reach real input elements only, in the same order (an Inf times a
             padding 0 would be NaN where PyTorch's float32 depthwise (oneDNN) and the eager interpreter have none) */
          const %[2]s *xp = X + n * sxn + c * sxc;
          %[2]s *restrict y = Y + (n * OC + oc) * OHW;
          for (int64_t oh = 0; oh < OH; oh++)
            for (int64_t ow = 0; ow < OW; ow++) {
              %[2]s a = 0;
              for (int64_t kh = 0; kh < KH; kh++) {
                const int64_t ih = oh * s0 - p0 + kh * d0;
                if (ih < 0 || ih >= H) continue;
                for (int64_t kw = 0; kw < KW; kw++) {
                  const int64_t iw = ow * s1 - p1 + kw * d1;
                  if (iw >= 0 && iw < W) a += wk[kh * KW + kw] * xp[ih * sxh + iw * sxw];
                }
              }
              y[oh * OW + ow] = bias ? a + bias[oc * bs] : a;
            }
          continue;
        }
        /* blocks of 512 grid points (in L1), each tap a unit-stride vector pass over the block, taps in (kh, kw) order */
        for (int64_t i0 = 0; i0 < L; i0 += 512) {
          const int64_t nb = L - i0 < 512 ? L - i0 : 512;
          %[2]s *restrict ab = acc + i0;
          for (int64_t j = 0; j < nb; j++) ab[j] = 0;
          for (int64_t k = 0; k < KK; k++) {
            const %[2]s wv = wk[k];
            const %[2]s *restrict sb = P + off[k] + i0;
            for (int64_t j = 0; j < nb; j++) ab[j] += wv * sb[j]; /* dw forward taps */
          }
        }
        %[2]s *restrict y = Y + (n * OC + oc) * OHW;
        if (bias) {
          const %[2]s bv = bias[oc * bs];
          for (int64_t oh = 0; oh < OH; oh++)
            for (int64_t ow = 0; ow < OW; ow++) y[oh * OW + ow] = acc[oh * Wq + ow] + bv;
        } else {
          for (int64_t oh = 0; oh < OH; oh++)
            for (int64_t ow = 0; ow < OW; ow++) y[oh * OW + ow] = acc[oh * Wq + ow];
        }
      }
    }
}
static __attribute__((unused)) void gcdbg_dw_backward_input_%[1]s(const %[2]s *dY, int64_t syn, int64_t syc, int64_t syh, int64_t syw, const %[2]s *Wt, int64_t ws0,
    int64_t ws2, int64_t ws3, int64_t N, int64_t C, int64_t H, int64_t W, int64_t OC, int64_t KH, int64_t KW, int64_t OH, int64_t OW,
    int64_t s0, int64_t s1, int64_t p0, int64_t p1, int64_t d0, int64_t d1, %[2]s *dX) {
  if (N <= 0 || C <= 0 || H <= 0 || W <= 0) return;
  const int64_t OCG = OC / C, KK = KH * KW;
  int64_t Hq = 0, Wq = 0, off[KK > 0 ? KK : 1];
  if (OH > 0 && OW > 0) gcdbg_dw_geom_%[1]s(OH, OW, KH, KW, s0, s1, d0, d1, &Hq, &Wq, off);
  const int64_t HWq = Hq * Wq, PS = s0 * s1 * HWq + 16, L = OH > 0 && OW > 0 ? (OH - 1) * Wq + OW : 0;
  const int64_t per = PS + (OH > 0 && OW > 0 ? OH * OW + OH * Wq : 0);
  const int par = N * C >= 2 && omp_get_max_threads() > 1 && N * OC * OH * OW * KK >= GCDBG_DW_PAR_WORK;
  const int64_t nt = par ? omp_get_max_threads() : 1;
  %[2]s *scr = (%[2]s *)gcdbg_scratch(0, (size_t)(nt * per) * sizeof(%[2]s));
  #pragma omp parallel for collapse(2) if(par)
  for (int64_t n = 0; n < N; n++)
    for (int64_t c = 0; c < C; c++) {
      %[2]s *restrict P = scr + omp_get_thread_num() * per, *restrict tmp = P + PS, *restrict G = tmp + OH * OW;
      for (int64_t i = 0; i < s0 * s1 * HWq; i++) P[i] = 0;
      for (int64_t m = 0; m < OCG; m++) {
        const int64_t oc = c * OCG + m;
        %[2]s wk[KK > 0 ? KK : 1];
        for (int64_t kh = 0; kh < KH; kh++)
          for (int64_t kw = 0; kw < KW; kw++) wk[kh * KW + kw] = Wt[oc * ws0 + kh * ws2 + kw * ws3];
        const %[2]s *g = gcdbg_dw_dense_%[1]s(dY + n * syn + oc * syc, syh, syw, OH, OW, tmp);
        int fin = 1;
        for (int64_t k = 0; k < KK; k++) fin &= isfinite(wk[k]) != 0;
        if (fin) {
          /* finite weights: dY on the grid of row width Wq, the columns past OW 0 (w*0 adds nothing there),
             then each tap one flat unit-stride pass (rows of 8 would be scalar loops) */
          for (int64_t oh = 0; oh < OH; oh++) {
            %[2]s *restrict gq = G + oh * Wq;
            for (int64_t ow = 0; ow < OW; ow++) gq[ow] = g[oh * OW + ow];
            for (int64_t ow = OW; ow < Wq; ow++) gq[ow] = 0;
          }
          for (int64_t k = 0; k < KK; k++) {
            %[2]s *restrict pk = P + off[k];
            const %[2]s wv = wk[k];
            for (int64_t i = 0; i < L; i++) pk[i] += wv * G[i]; /* dw backward input taps */
          }
        } else {
          /* a NaN or Inf weight: only real dY elements, row by row (an Inf times a 0 past the row would be NaN) */
          for (int64_t oh = 0; oh < OH; oh++) {
            const %[2]s *restrict gr = g + oh * OW;
            for (int64_t k = 0; k < KK; k++) {
              %[2]s *restrict pr = P + off[k] + oh * Wq;
              const %[2]s wv = wk[k];
              for (int64_t ow = 0; ow < OW; ow++) pr[ow] += wv * gr[ow]; /* dw backward input rows */
            }
          }
        }
      }
      /* dX row ih is plane row ih + p0, column iw plane column iw + p1; past the phases: 0 (no window reaches it) */
      %[2]s *restrict dx = dX + (n * C + c) * H * W;
      for (int64_t ih = 0; ih < H; ih++) {
        const int64_t r = ih + p0, u = r / s0;
        %[2]s *restrict xr = dx + ih * W;
        if (u >= Hq) { for (int64_t iw = 0; iw < W; iw++) xr[iw] = 0; continue; }
        if (s1 == 1) {
          const %[2]s *pr = P + (r %% s0) * HWq + u * Wq + p1;
          const int64_t w1 = Wq - p1 < W ? (Wq - p1 > 0 ? Wq - p1 : 0) : W;
          for (int64_t iw = 0; iw < w1; iw++) xr[iw] = pr[iw];
          for (int64_t iw = w1; iw < W; iw++) xr[iw] = 0;
        } else if (s1 == 2) {
          /* plane column j = iw + p1 is phase j %% 2, column j / 2: the two phase rows interleaved, a pair of columns
             per step (gcc vectorizes the interleaving stores); iw in [0, w1) is in the phases, the rest 0 */
          const int64_t w1 = Wq * 2 - p1 < W ? (Wq * 2 - p1 > 0 ? Wq * 2 - p1 : 0) : W;
          const %[2]s *restrict q0 = P + (r %% s0) * 2 * HWq + u * Wq, *restrict q1 = q0 + HWq;
          int64_t iw = 0;
          if (w1 > 0 && (p1 & 1)) { xr[0] = q1[p1 >> 1]; iw = 1; } /* an odd first column */
          const int64_t v0 = (iw + p1) >> 1, np = (w1 - iw) >> 1;
          %[2]s *restrict xp = xr + iw;
          for (int64_t t = 0; t < np; t++) { xp[2 * t] = q0[v0 + t]; xp[2 * t + 1] = q1[v0 + t]; } /* dw backward input interleave */
          for (iw += 2 * np; iw < w1; iw++) xr[iw] = ((iw + p1) & 1 ? q1 : q0)[(iw + p1) >> 1];
          for (; iw < W; iw++) xr[iw] = 0;
        } else {
          /* column iw + p1 = v*s1 + b is phase b, column v: iw in [0, w1) is in the phases, the rest 0 */
          const int64_t w1 = Wq * s1 - p1 < W ? (Wq * s1 - p1 > 0 ? Wq * s1 - p1 : 0) : W;
          for (int64_t b = 0; b < s1; b++) {
            const %[2]s *pr = P + ((r %% s0) * s1 + b) * HWq + u * Wq;
            const int64_t v0 = b - p1 >= 0 ? 0 : (p1 - b + s1 - 1) / s1; /* the first v with iw >= 0 */
            for (int64_t v = v0; v * s1 + b - p1 < w1; v++) xr[v * s1 + b - p1] = pr[v];
          }
          for (int64_t iw = w1; iw < W; iw++) xr[iw] = 0;
        }
      }
    }
}
static __attribute__((unused)) void gcdbg_dw_backward_weight_%[1]s(const %[2]s *X, int64_t sxn, int64_t sxc, int64_t sxh, int64_t sxw,
    const %[2]s *dY, int64_t syn, int64_t syc, int64_t syh, int64_t syw, int64_t N, int64_t C, int64_t H, int64_t W, int64_t OC, int64_t KH, int64_t KW,
    int64_t OH, int64_t OW, int64_t s0, int64_t s1, int64_t p0, int64_t p1, int64_t d0, int64_t d1, %[2]s *dW) {
  const int64_t OCG = C > 0 ? OC / C : 0, KK = KH * KW, OHW = OH * OW;
  if (N <= 0 || OHW <= 0) { for (int64_t i = 0; i < OC * KK; i++) dW[i] = 0; return; }
  int64_t Hq, Wq, off[KK > 0 ? KK : 1];
  gcdbg_dw_geom_%[1]s(OH, OW, KH, KW, s0, s1, d0, d1, &Hq, &Wq, off);
  const int64_t PS = s0 * s1 * Hq * Wq + 16, per = PS + OHW;
  const int par = C >= 2 && omp_get_max_threads() > 1 && N * OC * OHW * KK >= GCDBG_DW_PAR_WORK;
  const int64_t nt = par ? omp_get_max_threads() : 1;
  %[2]s *scr = (%[2]s *)gcdbg_scratch(0, (size_t)(nt * per) * sizeof(%[2]s));
  double *sums = (double *)gcdbg_scratch(3, (size_t)(nt * OCG * KK + 1) * sizeof(double)); /* per thread: its channel's sums */
  /* one channel per iteration, its images in order on one thread: the sums do not depend on the thread count */
  #pragma omp parallel for if(par)
  for (int64_t c = 0; c < C; c++) {
    %[2]s *restrict P = scr + omp_get_thread_num() * per, *restrict tmp = P + PS;
    double *restrict acc = sums + omp_get_thread_num() * OCG * KK;
    for (int64_t i = 0; i < OCG * KK; i++) acc[i] = 0;
    for (int64_t n = 0; n < N; n++) {
      gcdbg_dw_plane_%[1]s(X + n * sxn + c * sxc, sxh, sxw, H, W, p0, p1, s0, s1, Hq, Wq, P);
      for (int64_t m = 0; m < OCG; m++) {
        const %[2]s *restrict g = gcdbg_dw_dense_%[1]s(dY + n * syn + (c * OCG + m) * syc, syh, syw, OH, OW, tmp);
        for (int64_t k = 0; k < KK; k++) {
          /* 8 double lanes carried over the rows (one lane combine per plane and tap; an omp simd reduction here
             ran gcc's scalar copy of the loop, 3.5x slower; 32 lanes in 4 chains measured no faster), a row's last
             OW %% 8 columns in st */
          double l[8] = {0, 0, 0, 0, 0, 0, 0, 0}, st = 0;
          for (int64_t oh = 0; oh < OH; oh++) {
            const %[2]s *restrict pr = P + off[k] + oh * Wq, *restrict gr = g + oh * OW;
            int64_t ow = 0;
            for (; ow + 8 <= OW; ow += 8) /* dw backward weight dot: gcc unrolls j and vectorizes this loop, l[] one vector */
              for (int j = 0; j < 8; j++) l[j] += (double)gr[ow + j] * (double)pr[ow + j];
            for (; ow < OW; ow++) st += (double)gr[ow] * (double)pr[ow];
          }
          acc[m * KK + k] += (((l[0] + l[1]) + (l[2] + l[3])) + ((l[4] + l[5]) + (l[6] + l[7]))) + st;
        }
      }
    }
    for (int64_t i = 0; i < OCG * KK; i++) dW[c * OCG * KK + i] = (%[2]s)acc[i];
  }
}
`, sanitizeIdent(t), t)
}
