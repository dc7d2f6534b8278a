package render

import (
	"fmt"
	"strings"

	"gcdbg/ir"
	"gcdbg/loopir"
	"gcdbg/tensor"
)

// Convolution and pooling, forward and backward (CPU dialect).
//
//   - conv2d: per image and group, im2col of the input window into a
//     [CG·KH·KW, OH·OW] matrix, then one GEMM with the weight as a
//     [OCG, CG·KH·KW] matrix (cblas_sgemm when OpenBLAS is there, the
//     generated tiled GEMM otherwise), bias added after. Other tiny
//     windows (CG·KH·KW < 8) keep the direct loops.
//   - depthwise (groups == C, CG = 1; float and double), forward and both
//     backwards: direct kernels per (image, channel) plane over a
//     zero-padded plane, conv_depthwise.go (the hooks below), not im2col
//     and a 1xKK GEMM per plane.
//   - conv2d_backward_input: per image and group, W_gᵀ · dY_g into a column
//     matrix, then col2im sums it into dX (parallel over channels, so no
//     two threads add into one plane; it writes every element of dX, so
//     no memset before).
//   - conv2d_backward_weight: per group, Σ over images of dY_g · colᵀ.
//   - max/avg/adaptive-avg pooling and their backward: direct loops,
//     parallel over the (image, channel) planes, as the eager reference
//     (tensor/conv.go, tensor/grad.go) computes them: max takes the first
//     maximum of its window, a NaN wins (the last NaN, as ATen's index), and
//     its backward routes the gradient to that element (max_pool2d and its
//     backward: maxpool2d.go).
//
// The images of a batch run in parallel (OpenMP over images and groups),
// each image's im2col and GEMM on one thread with OpenBLAS switched to one
// thread meanwhile: per-image GEMMs are small (convnet_train's conv2: M =
// 64, N = 256, K = 288), and OpenBLAS splitting each of them over the
// cores, one after the other, ran them at a third of sgemm's rate; one
// GEMM over all images' columns (tried) made the column matrix outgrow the
// cache and cost more CPU time than per-image GEMMs (2.8 vs 2.5 ms for
// that conv on one thread). conv2d_backward_weight sums per thread, then
// the threads' sums in thread order.
//
// The im2col scratch is a static buffer that grows once (gcdbg_scratch),
// one column matrix per thread: no allocation per run after the first. A
// column matrix over 1 MB is built and multiplied in chunks of output rows
// (gcdbg_conv_chunk, conv_plane.go) so that it stays in the L2 cache.

// convOps use the GEMM and the im2col helpers.
var convOps = map[string]bool{"conv2d": true, "conv2d_backward_input": true, "conv2d_backward_weight": true}

const convPreludeScratch = `
#include <omp.h>
#include <dlfcn.h>
#include <pthread.h>
/* A growing static buffer per slot for im2col columns and packed operands:
   kernels run one at a time, so slots are not shared between two calls. */
static __attribute__((unused)) void *gcdbg_scratch(int slot, size_t bytes) {
  static void *buf[4];
  static size_t cap[4];
  if (bytes > cap[slot]) {
    free(buf[slot]);
    buf[slot] = malloc(bytes);
    cap[slot] = buf[slot] ? bytes : 0;
    if (!buf[slot]) abort();
  }
  return buf[slot];
}
`

// convHelpers are im2col and col2im for one element type.
//
// Each (channel, kh, kw) row of the column matrix is, per output row, a
// strided copy of one input row: the output columns whose input column
// falls in the image ([lo, hi), gcdbg_conv_span, once per kw) copy, the
// others are zero (im2col) or skipped (col2im). For stride 1 the row loop
// runs over every output column with the span as a mask, which gcc turns
// into AVX-512 masked loads/stores ("loop vectorized",
// TestConvHelpersVectorize): with the bound check of the input column
// itself in the loop, im2col stayed scalar (convnet_train's conv2 im2col
// x16, one thread: 0.71 -> 0.34 ms); a [lo, hi) loop with zeroed edges
// was vectorized but slower on rows of 16 (a 15-element body: im2col 0.40,
// col2im 0.62 against 0.38 masked). A plane that fits the stack (64 KB)
// takes conv_plane.go's padded-plane loops instead, unmasked.
func convHelpers(t string) string {
	n := sanitizeIdent(t)
	return convPlaneHelpers(t) + fmt.Sprintf(`
/* the output columns [*lo, *hi) whose input column ow*s - p + k*d is in [0, W); im2col's and
   col2im's stride-1 row loops below are vector loops masked by that span (gcc -fopt-info-vec:
   "loop vectorized", checked by TestConvHelpersVectorize) */
static inline void gcdbg_conv_span(int64_t OW, int64_t W, int64_t s, int64_t p, int64_t kd, int64_t *lo, int64_t *hi) {
  const int64_t off = kd - p; /* iw = ow*s + off */
  int64_t a = off >= 0 ? 0 : (-off + s - 1) / s;
  int64_t b = W - off <= 0 ? 0 : (W - off + s - 1) / s;
  if (b > OW) b = OW;
  if (a > b) a = b;
  *lo = a; *hi = b;
}
static __attribute__((unused)) void gcdbg_im2col_%[1]s(const %[2]s *X, int64_t sc, int64_t sh, int64_t sw, int64_t CG, int64_t H, int64_t W,
    int64_t KH, int64_t KW, int64_t OH, int64_t OW, int64_t s0, int64_t s1, int64_t p0, int64_t p1, int64_t d0, int64_t d1,
    int64_t oh0, int64_t oh1, %[2]s *col) {
  /* output rows [oh0, oh1) only (gcdbg_conv_chunk): col is [CG*KH*KW, (oh1-oh0)*OW] */
  int64_t Hp, Wp; /* a padded plane on the stack: unmasked row copies (conv_plane.go) */
  if (gcdbg_conv_plane(OH, OW, KH, KW, s0, s1, d0, d1, sizeof(%[2]s), &Hp, &Wp)) {
    gcdbg_im2col_plane_%[1]s(X, sc, sh, sw, CG, H, W, KH, KW, OH, OW, s0, s1, p0, p1, d0, d1, Hp, Wp, oh0, oh1, col);
    return;
  }
  const int64_t NR = oh1 - oh0;
  #pragma omp parallel for collapse(3) if(CG * KH * KW * NR * OW > 32768 && !omp_in_parallel())
  for (int64_t c = 0; c < CG; c++)
    for (int64_t kh = 0; kh < KH; kh++)
      for (int64_t kw = 0; kw < KW; kw++) {
        %[2]s *dst = col + ((c * KH + kh) * KW + kw) * NR * OW;
        int64_t lo, hi;
        gcdbg_conv_span(OW, W, s1, p1, kw * d1, &lo, &hi);
        const int64_t off = kw * d1 - p1;
        for (int64_t oh = oh0; oh < oh1; oh++) {
          const int64_t ih = oh * s0 - p0 + kh * d0;
          %[2]s *d = dst + (oh - oh0) * OW;
          if (ih < 0 || ih >= H) { for (int64_t ow = 0; ow < OW; ow++) d[ow] = 0; continue; }
          const %[2]s *x = X + c * sc + ih * sh;
          if (s1 == 1 && sw == 1) {
            for (int64_t ow = 0; ow < OW; ow++) d[ow] = ow >= lo && ow < hi ? x[ow + off] : 0;
          } else {
            for (int64_t ow = 0; ow < lo; ow++) d[ow] = 0;
            for (int64_t ow = lo; ow < hi; ow++) d[ow] = x[(ow * s1 + off) * sw];
            for (int64_t ow = hi; ow < OW; ow++) d[ow] = 0;
          }
        }
      }
}
static __attribute__((unused)) void gcdbg_col2im_%[1]s(const %[2]s *col, int64_t CG, int64_t H, int64_t W, int64_t KH, int64_t KW, int64_t OH, int64_t OW,
    int64_t s0, int64_t s1, int64_t p0, int64_t p1, int64_t d0, int64_t d1, %[2]s *dX) {
  int64_t Hp, Wp; /* a padded plane on the stack: unmasked row adds (conv_plane.go) */
  if (gcdbg_conv_plane(OH, OW, KH, KW, s0, s1, d0, d1, sizeof(%[2]s), &Hp, &Wp)) {
    gcdbg_col2im_plane_%[1]s(col, CG, H, W, KH, KW, OH, OW, s0, s1, p0, p1, d0, d1, Hp, Wp, dX);
    return;
  }
  #pragma omp parallel for if(CG * KH * KW * OH * OW > 32768 && !omp_in_parallel())
  for (int64_t c = 0; c < CG; c++) {
    for (int64_t i = 0; i < H * W; i++) dX[c * H * W + i] = 0; /* col2im writes dX: no memset before */
    for (int64_t kh = 0; kh < KH; kh++)
      for (int64_t kw = 0; kw < KW; kw++) {
        const %[2]s *src = col + ((c * KH + kh) * KW + kw) * OH * OW;
        int64_t lo, hi;
        gcdbg_conv_span(OW, W, s1, p1, kw * d1, &lo, &hi);
        const int64_t off = kw * d1 - p1;
        for (int64_t oh = 0; oh < OH; oh++) {
          const int64_t ih = oh * s0 - p0 + kh * d0;
          if (ih < 0 || ih >= H) continue;
          %[2]s *x = dX + (c * H + ih) * W;
          const %[2]s *sr = src + oh * OW;
          if (s1 == 1) {
            for (int64_t ow = 0; ow < OW; ow++) if (ow >= lo && ow < hi) x[ow + off] += sr[ow];
          } else {
            for (int64_t ow = lo; ow < hi; ow++) x[ow * s1 + off] += sr[ow];
          }
        }
      }
  }
}
`, n, t)
}

// convPrelude writes the scratch allocator and the helpers per type.
func convPrelude(r *renderer) string {
	seen := map[tensor.DType]bool{}
	var b strings.Builder
	pool := false
	for _, k := range r.kernels {
		for _, n := range k.Nodes {
			pool = pool || n.Kind == loopir.Extern && scratchPoolOps[n.Op]
			if n.Kind != loopir.Extern || !convOps[n.Op] {
				continue
			}
			if buf := r.p.Buffers[n.Name]; buf != nil && !seen[buf.DType] {
				if len(seen) == 0 {
					b.WriteString(convPreludeScratch)
					b.WriteString(convPlanePrelude)
				}
				seen[buf.DType] = true
				b.WriteString(convHelpers(r.d.Types[buf.DType]))
				b.WriteString(convAccHelper(r.d.Types[buf.DType], blasGemm(buf.DType)))
				if buf.DType == tensor.Float32 || buf.DType == tensor.Float64 {
					b.WriteString(convNonFiniteHelpers(r.d.Types[buf.DType])) // conv_nonfinite.go
					b.WriteString(convDepthwiseHelpers(r.d.Types[buf.DType])) // conv_depthwise.go
				}
				if buf.DType == tensor.Float32 && r.gemms[buf.DType] {
					b.WriteString(dnnlAccFunc(r.d.Types[buf.DType])) // gemm_dnnl.go
					b.WriteString(convDNNLPrelude)                   // conv_dnnl.go
					if r.wino {
						b.WriteString(convDNNLWinoPrelude)
					}
				}
			}
		}
	}
	if pool && len(seen) == 0 {
		return convPreludeScratch // max pooling's phase planes (maxpool2d.go)
	}
	return b.String()
}

// pairOr reads an int pair, def when the argument is None or empty.
func pairOr(a ir.Arg, def [2]int64) ([2]int64, bool) {
	if a == nil || emptyArg(a) {
		return def, true
	}
	return pairArg(a)
}

func emptyArg(a ir.Arg) bool {
	switch x := a.(type) {
	case ir.Tuple:
		return len(x) == 0
	case ir.List:
		return len(x) == 0
	}
	return false
}

// convImages splits a conv input x (3-D: one image, 4-D: a batch) and its
// output ob into one image's sizes and strides (C, H, W), the output's
// (OC, OH, OW), the number of images nb and the input's image stride sxn
// (C expressions; "1" and "0" for one image).
func (g *kernelGen) convImages(x *loopir.View, ob *loopir.Buffer) (xs, xst, os []loopir.Expr, nb, sxn string) {
	xs, xst, os, nb, sxn = x.Sizes, x.Strides, ob.Sizes, "1", "0"
	if len(xs) == 4 {
		nb, sxn = g.e(xs[0]), g.e(xst[0])
		xs, xst, os = xs[1:], xst[1:], os[1:]
	}
	return xs, xst, os, nb, sxn
}

// convGeom is one convolution's shape, as C expressions.
type convGeom struct {
	N, C, H, W, OC, CG, OCG, KH, KW, OH, OW string
	groups                                  int64
	stride, pad, dil                        [2]int64
}

func (c convGeom) decl(g *kernelGen) {
	g.line("const int64_t N = %s, C = %s, H = %s, W = %s, OC = %s, KH = %s, KW = %s, OH = %s, OW = %s;",
		c.N, c.C, c.H, c.W, c.OC, c.KH, c.KW, c.OH, c.OW)
	g.line("const int64_t CG = C / %d, OCG = OC / %d, CGK = CG * KH * KW, OHW = OH * OW;", c.groups, c.groups)
}

// par declares par (the images and groups run in parallel: at least two
// of them and a GEMM worth a thread each), nt (threads that may take
// scratch, 1 when not parallel) and blas (OpenBLAS's thread count to
// restore, set to 1 while par).
func (c convGeom) par(g *kernelGen) {
	g.line("const int par = N * %d >= 2 && omp_get_max_threads() > 1 && N * OC * OHW * CGK >= 262144;", c.groups)
	g.line("const int64_t nt = par ? omp_get_max_threads() : 1;")
	g.line("const int blas = par ? gcdbg_blas_threads(1) : -1;")
}

// parEnd restores OpenBLAS's thread count.
func (c convGeom) parEnd(g *kernelGen) {
	g.line("if (blas > 1) gcdbg_blas_threads(blas);")
}

// flatStride is the stride of a flattened run of dimensions (e.g. the
// weight's (CG, KH, KW) as one axis): the innermost stride when the outer
// ones are whole multiples of it, "" when the dimensions do not flatten.
// A dimension of size 1 is never stepped, so its stride does not matter:
// an unsqueezed view (Conv1d's weight [OC, CG, 1, KW] has stride 1 at the
// new axis, not KW) still flattens, and takes the GEMM path.
func flatStride(sizes, strides []loopir.Expr) string {
	var keep []int
	for i, s := range sizes {
		if c, ok := s.(loopir.Const); !ok || c.V != 1 {
			keep = append(keep, i)
		}
	}
	if len(keep) == 0 {
		return "1" // a single element: any stride reads it
	}
	for j := 0; j+1 < len(keep); j++ {
		inner, ok1 := strides[keep[j+1]].(loopir.Const)
		outer, ok2 := strides[keep[j]].(loopir.Const)
		sz, ok3 := sizes[keep[j+1]].(loopir.Const)
		if !ok1 || !ok2 || !ok3 || outer.V != inner.V*sz.V {
			return ""
		}
	}
	return strides[keep[len(keep)-1]].String()
}

// convArgs reads stride, padding, dilation and groups at args[i..i+3].
func (g *kernelGen) convArgs(n *loopir.Node, args []ir.Arg, i int) (st, pad, dil [2]int64, groups int64, ok bool) {
	st, ok1 := pairArg(args[i])
	pad, ok2 := pairArg(args[i+1])
	dil, ok3 := pairArg(args[i+2])
	groups, ok4 := args[i+3].(int64)
	if !ok1 || !ok2 || !ok3 || !ok4 || groups < 1 {
		g.fail("%s %s: stride, padding, dilation or groups not understood", n.Op, n.Name)
		return st, pad, dil, groups, false
	}
	return st, pad, dil, groups, true
}

// convGEMM writes conv2d as im2col + GEMM, batched or unbatched input (a
// 3-D input is one image); a weight whose (CG, KH, KW) does not flatten is
// packed first. False when the window is too small to gain or its size is
// not static (direct loops).
func (g *kernelGen) convGEMM(x, w, bias *loopir.View, out *storage, ob *loopir.Buffer, stride, pad, dil [2]int64, groups int64) bool {
	if g.depthwiseConv(x, w, bias, out, ob, stride, pad, dil, groups) {
		return true // conv_depthwise.go
	}
	if len(x.Sizes) != 4 && len(x.Sizes) != 3 {
		return false
	}
	if k, ok := static(w.Sizes[1:]); !ok || k < 8 {
		return false
	}
	xs, xst, os, nb, sxn := g.convImages(x, ob)
	t := g.ctype(ob.DType)
	tn := sanitizeIdent(t)
	geo := convGeom{N: nb, C: g.e(xs[0]), H: g.e(xs[1]), W: g.e(xs[2]), OC: g.e(w.Sizes[0]),
		KH: g.e(w.Sizes[2]), KW: g.e(w.Sizes[3]), OH: g.e(os[1]), OW: g.e(os[2]), groups: groups}
	g.line("{ /* conv2d: im2col + GEMM per image and group, images in parallel */")
	g.ind++
	bp, bs := "", ""
	if bias != nil {
		bp, bs = g.ptr(bias), g.e(bias.Strides[0])
	}
	dn := len(x.Sizes) == 4 && g.dnnlConvFloat(t) && g.dnnlConvOpen(dconvForward, g.viewOperand(x), g.viewOperand(w),
		g.bufferOperand(out.c, ob.Sizes), stride, pad, dil, groups, bp, bs, false) // conv_dnnl.go; no Winograd (dnnlWinograd)
	geo.decl(g)
	wp, wst := g.packed(w, t, 2)
	geo.par(g)
	g.line("const %s *X = %s; const %s *Wt = %s;", t, g.ptr(x), t, wp)
	g.line("const int64_t ch = gcdbg_conv_chunk(CGK, OH, OW, sizeof(%s)); /* output rows per im2col + GEMM (conv_plane.go) */", t)
	g.line("%s *cols = (%s *)gcdbg_scratch(0, (size_t)(CGK * ch * OW > 0 ? nt * CGK * ch * OW : 1) * sizeof(%s));", t, t, t)
	g.line("const int d11 = %s; /* 1x1, stride 1, no padding, rows contiguous: the GEMM reads X, no im2col */",
		conv1x1(w.Sizes, stride, pad, g.e(xst[1]), g.e(xst[2]), "W"))
	g.line("#pragma omp parallel for collapse(2) if(par)")
	g.line("for (int64_t n = 0; n < N; n++)")
	g.line("  for (int64_t gi = 0; gi < %d; gi++) {", groups)
	g.line("    %s *col = cols + omp_get_thread_num() * CGK * ch * OW;", t)
	g.line("    %s *Y = %s + (n * OC + gi * OCG) * OHW;", t, out.c)
	g.line("    if (d11) %s(OCG, OHW, CGK, Wt + gi * OCG * %s, %s, %s, X + n * %s + gi * CG * %s, %s, 1, Y, OHW);",
		g.convGemmFn(t), wst[0], wst[0], wst[3], sxn, g.e(xst[0]), g.e(xst[0]))
	g.line("    else for (int64_t oh0 = 0; oh0 < OH; oh0 += ch) {")
	g.line("      const int64_t oh1 = oh0 + ch < OH ? oh0 + ch : OH, NC = (oh1 - oh0) * OW;")
	g.line("      gcdbg_im2col_%s(X + n * %s + gi * CG * %s, %s, %s, %s, CG, H, W, KH, KW, OH, OW, %d, %d, %d, %d, %d, %d, oh0, oh1, col);",
		tn, sxn, g.e(xst[0]), g.e(xst[0]), g.e(xst[1]), g.e(xst[2]),
		stride[0], stride[1], pad[0], pad[1], dil[0], dil[1])
	g.line("      %s(OCG, NC, CGK, Wt + gi * OCG * %s, %s, %s, col, NC, 1, Y + oh0 * OW, OHW);", g.convGemmFn(t), wst[0], wst[0], wst[3])
	g.line("    }")
	if bias != nil {
		g.line("    for (int64_t co = 0; co < OCG; co++) {")
		g.line("      const %s b = %s[(gi * OCG + co) * %s];", t, g.ptr(bias), g.e(bias.Strides[0]))
		g.line("      %s simd", "#pragma omp")
		g.line("      for (int64_t p = 0; p < OHW; p++) Y[co * OHW + p] += b;")
		g.line("    }")
	}
	g.line("  }")
	geo.parEnd(g)
	// conv_nonfinite.go: after both paths when the weight flattens as it is (oneDNN's GEMM-based kernels multiply
	// padding too), else after the im2col path on the packed weight
	wflat := flatStride(w.Sizes[1:], w.Strides[1:])
	if convNonFinite(ob.DType, pad) && (!dn || wflat == "") {
		g.convBorderCheck(tn, "X", sxn, xst, "Wt", wst[0], wst[3], bp, bs, groups, stride, pad, dil, out.c)
	}
	if dn {
		g.dnnlConvClose()
		if convNonFinite(ob.DType, pad) && wflat != "" {
			g.line("{")
			g.ind++
			geo.decl(g)
			g.convBorderCheck(tn, g.ptr(x), sxn, xst, g.ptr(w), g.e(w.Strides[0]), wflat, bp, bs, groups, stride, pad, dil, out.c)
			g.ind--
			g.line("}")
		}
	}
	g.ind--
	g.line("}")
	return true
}

// convBackwardInput writes dX = col2im(W_gᵀ · dY_g) per image and group.
func (g *kernelGen) convBackwardInput(n *loopir.Node, args []ir.Arg, out *storage, ob *loopir.Buffer) {
	gy, w, stride, pad, dil, groups, ok := g.convBackwardOperands(n, args, ob, "weight")
	if !ok || g.depthwiseBackwardInput(gy, w, out, ob, stride, pad, dil, groups) { // conv_depthwise.go
		return
	}
	t := g.ctype(ob.DType)
	geo := convGeom{N: g.e(ob.Sizes[0]), C: g.e(ob.Sizes[1]), H: g.e(ob.Sizes[2]), W: g.e(ob.Sizes[3]), OC: g.e(w.Sizes[0]),
		KH: g.e(w.Sizes[2]), KW: g.e(w.Sizes[3]), OH: g.e(gy.Sizes[2]), OW: g.e(gy.Sizes[3]), groups: groups}
	g.line("{ /* conv2d_backward_input: col = W_g^T dY_g, col2im into dX, per image and group, images in parallel */")
	g.ind++
	dn := g.dnnlConvFloat(t) && g.dnnlConvOpen(dconvBackwardData, g.viewOperand(gy), g.viewOperand(w),
		g.bufferOperand(out.c, ob.Sizes), stride, pad, dil, groups, "", "", false) // conv_dnnl.go; no Winograd (dnnlWinograd)
	geo.decl(g)
	gyp, gys := g.packed(gy, t, 1)
	wp, wst := g.packed(w, t, 2)
	geo.par(g)
	g.convBwdInputScratch(t, stride, dil) // conv_bwd_input.go: a column matrix over 1 MB in chunks of output rows
	g.line("const int d11 = %s; /* 1x1, stride 1, no padding: the GEMM writes dX, no col2im */", conv1x1(w.Sizes, stride, pad, "W", "1", "W"))
	g.line("#pragma omp parallel for collapse(2) if(par)")
	g.line("for (int64_t n = 0; n < N; n++)")
	g.line("  for (int64_t gi = 0; gi < %d; gi++) {", groups)
	g.line("    %s *col = cols + omp_get_thread_num() * CGK * ch * OW;", t)
	g.convBwdInputRows(t, g.convGemmFn(t), fmt.Sprintf("%s + gi * OCG * %s", wp, wst[0]), wst[3], wst[0],
		fmt.Sprintf("%s + n * %s + gi * OCG * %s", gyp, gys[0], gys[1]), gys[1], gys[3], out.c+" + (n * C + gi * CG) * H * W", stride, pad, dil)
	g.line("  }")
	geo.parEnd(g)
	if dn {
		g.dnnlConvClose()
	}
	g.ind--
	g.line("}")
}

// convBackwardWeight writes dW_g = Σ_n dY_g[n] · col[n]ᵀ.
func (g *kernelGen) convBackwardWeight(n *loopir.Node, args []ir.Arg, out *storage, ob *loopir.Buffer) {
	gy, x, stride, pad, dil, groups, ok := g.convBackwardOperands(n, args, ob, "input")
	if !ok || g.depthwiseBackwardWeight(gy, x, out, ob, stride, pad, dil, groups) { // conv_depthwise.go
		return
	}
	t := g.ctype(ob.DType)
	tn := sanitizeIdent(t)
	geo := convGeom{N: g.e(x.Sizes[0]), C: g.e(x.Sizes[1]), H: g.e(x.Sizes[2]), W: g.e(x.Sizes[3]), OC: g.e(ob.Sizes[0]),
		KH: g.e(ob.Sizes[2]), KW: g.e(ob.Sizes[3]), OH: g.e(gy.Sizes[2]), OW: g.e(gy.Sizes[3]), groups: groups}
	g.line("{ /* conv2d_backward_weight: dW_g = sum over images of dY_g col^T, images in parallel, each thread's sum, then the threads' in order */")
	g.ind++
	dn := g.dnnlConvFloat(t) && g.dnnlConvOpen(dconvBackwardWeights, g.viewOperand(gy), g.viewOperand(x),
		g.bufferOperand(out.c, ob.Sizes), stride, pad, dil, groups, "", "", dnnlWinograd(ob.Sizes, stride, dil, groups)) // conv_dnnl.go
	geo.decl(g)
	gyp, gys := g.packed(gy, t, 1)
	geo.par(g)
	g.line("const int64_t ch = gcdbg_conv_chunk(CGK, OH, OW, sizeof(%s)); /* output rows per im2col + GEMM (conv_plane.go) */", t)
	g.line("%s *cols = (%s *)gcdbg_scratch(0, (size_t)(CGK * ch * OW > 0 ? nt * CGK * ch * OW : 1) * sizeof(%s));", t, t, t)
	g.line("/* per thread: its sum of every group's dW (OC * CGK), then one image's product (OCG * CGK) */")
	g.line("const int64_t per = OC * CGK + OCG * CGK;")
	g.line("%s *parts = (%s *)gcdbg_scratch(3, (size_t)(per > 0 ? nt * per : 1) * sizeof(%s));", t, t, t)
	g.line("memset(parts, 0, (size_t)(nt * per) * sizeof(%s));", t)
	g.line("const int d11 = %s; /* 1x1, stride 1, no padding, rows contiguous: X is the column matrix, no im2col */",
		conv1x1(ob.Sizes, stride, pad, g.e(x.Strides[2]), g.e(x.Strides[3]), "W"))
	g.line("#pragma omp parallel for collapse(2) if(par)")
	g.line("for (int64_t gi = 0; gi < %d; gi++)", groups)
	g.line("  for (int64_t n = 0; n < N; n++) {")
	g.line("    const int64_t tid = omp_get_thread_num();")
	g.line("    %s *col = cols + tid * CGK * ch * OW, *acc = parts + tid * per + gi * OCG * CGK, *part = parts + tid * per + OC * CGK;", t)
	g.line("    for (int64_t oh0 = 0; oh0 < OH; oh0 += d11 ? OH : ch) {")
	g.line("      const int64_t oh1 = d11 ? OH : oh0 + ch < OH ? oh0 + ch : OH, NC = (oh1 - oh0) * OW;")
	g.line("      const %s *B = col; int64_t sbk = NC; /* the column matrix [CGK, NC]: its rows NC apart */", t)
	g.line("      if (d11) { B = %s + n * %s + gi * CG * %s; sbk = %s; }", g.ptr(x), g.e(x.Strides[0]), g.e(x.Strides[1]), g.e(x.Strides[1]))
	g.line("      else gcdbg_im2col_%s(%s + n * %s + gi * CG * %s, %s, %s, %s, CG, H, W, KH, KW, OH, OW, %d, %d, %d, %d, %d, %d, oh0, oh1, col);",
		tn, g.ptr(x), g.e(x.Strides[0]), g.e(x.Strides[1]), g.e(x.Strides[1]), g.e(x.Strides[2]), g.e(x.Strides[3]),
		stride[0], stride[1], pad[0], pad[1], dil[0], dil[1])
	g.line("      const %s *A = %s + n * %s + gi * OCG * %s + oh0 * OW * %s;", t, gyp, gys[0], gys[1], gys[3])
	g.line("      /* accumulated by BLAS (beta 1, conv_acc.go), else a product added after */")
	g.line("      if (!%s(OCG, CGK, NC, A, %s, %s, B, 1, sbk, acc, CGK)) {", g.convAccFn(t), gys[1], gys[3])
	g.line("        %s(OCG, CGK, NC, A, %s, %s, B, 1, sbk, part, CGK);", g.convGemmFn(t), gys[1], gys[3])
	g.line("        %s simd", "#pragma omp")
	g.line("        for (int64_t i = 0; i < OCG * CGK; i++) acc[i] += part[i];")
	g.line("      }")
	g.line("    }")
	g.line("  }")
	geo.parEnd(g)
	g.line("#pragma omp parallel for if(OC * CGK * nt > 32768)")
	g.line("for (int64_t i = 0; i < OC * CGK; i++) {")
	g.line("  %s s = parts[i];", t)
	g.line("  for (int64_t k = 1; k < nt; k++) s += parts[k * per + i];")
	g.line("  %s[i] = s;", out.c)
	g.line("}")
	// conv_nonfinite.go: after both paths when dY's planes flatten as they are, else after the im2col path on the packed dY
	yflat := flatStride(gy.Sizes[2:], gy.Strides[2:])
	if convNonFinite(ob.DType, pad) && (!dn || yflat == "") {
		g.convRedoCheck(tn, gyp, gys[0], gys[1], gys[3], x, groups, stride, pad, dil, out.c)
	}
	if dn {
		g.dnnlConvClose()
		if convNonFinite(ob.DType, pad) && yflat != "" {
			g.line("{")
			g.ind++
			geo.decl(g)
			g.convRedoCheck(tn, g.ptr(gy), g.e(gy.Strides[0]), g.e(gy.Strides[1]), yflat, x, groups, stride, pad, dil, out.c)
			g.ind--
			g.line("}")
		}
	}
	g.ind--
	g.line("}")
}

// conv1x1 is the C condition under which a convolution's column matrix is
// its input itself (forward, backward weight) or its input gradient
// (backward input): a 1x1 window (w's sizes, a weight view or the weight
// gradient's buffer), stride 1, no padding, and an input whose rows are
// contiguous and W apart (rowStride, colStride: the input's H and W
// strides, width its W), so that each channel's H*W elements are one run. Dilation
// does not matter for a 1x1 window. "0" when the shape rules it out
// statically.
func conv1x1(ks []loopir.Expr, stride, pad [2]int64, rowStride, colStride, width string) string {
	if len(ks) != 4 || stride != [2]int64{1, 1} || pad != [2]int64{0, 0} {
		return "0"
	}
	for _, k := range ks[2:] {
		if c, ok := k.(loopir.Const); !ok || c.V != 1 {
			return "0"
		}
	}
	return fmt.Sprintf("(%s) == 1 && (%s) == %s", colStride, rowStride, width)
}

// packed returns a pointer and four strides for a 4-D operand whose last
// two dimensions flatten (stride of dim 2 = size of dim 3 × stride of dim
// 3), as the GEMMs read them; otherwise it writes a copy into a
// contiguous scratch slot and returns that.
func (g *kernelGen) packed(v *loopir.View, t string, slot int) (string, [4]string) {
	var st [4]string
	for i := range st {
		st[i] = g.e(v.Strides[i])
	}
	// The GEMMs read strides 0, 1 and 3, stride 3 as that of the flattened
	// (H, W) (of (C, H, W) for the weight, slot 2): the flat stride, which
	// is not stride 3 when W has size 1.
	flat := flatStride(v.Sizes[2:], v.Strides[2:])
	if slot == 2 {
		flat = flatStride(v.Sizes[1:], v.Strides[1:])
	}
	if flat != "" {
		st[3] = flat
		return g.ptr(v), st
	}
	s := [4]string{g.e(v.Sizes[0]), g.e(v.Sizes[1]), g.e(v.Sizes[2]), g.e(v.Sizes[3])}
	p := fmt.Sprintf("pk%d", slot)
	g.line("%s *%s = (%s *)gcdbg_scratch(%d, (size_t)(%s * %s * %s * %s) * sizeof(%s) + 1);", t, p, t, slot, s[0], s[1], s[2], s[3], t)
	g.line("{ const %s *src = %s;", t, g.ptr(v))
	g.line("  #pragma omp parallel for collapse(2) if(%s * %s * %s * %s > 32768)", s[0], s[1], s[2], s[3])
	g.line("  for (int64_t a = 0; a < %s; a++) for (int64_t b = 0; b < %s; b++) for (int64_t c = 0; c < %s; c++) for (int64_t d = 0; d < %s; d++)", s[0], s[1], s[2], s[3])
	g.line("    %s[((a * %s + b) * %s + c) * %s + d] = src[a * %s + b * %s + c * %s + d * %s]; }", p, s[1], s[2], s[3], st[0], st[1], st[2], st[3])
	return p, [4]string{"(" + s[1] + " * " + s[2] + " * " + s[3] + ")", "(" + s[2] + " * " + s[3] + ")", s[3], "1"}
}

// poolGeom reads a pooling node's window parameters.
type poolGeom struct {
	kernel, stride, pad, dil [2]int64
}

func (g *kernelGen) poolArgs(n *loopir.Node, args []ir.Arg, k int, hasDil bool) (poolGeom, bool) {
	var p poolGeom
	var ok1, ok2, ok3 bool
	p.kernel, ok1 = pairArg(args[k])
	p.stride, ok2 = pairOr(args[k+1], p.kernel)
	p.pad, ok3 = pairArg(args[k+2])
	p.dil = [2]int64{1, 1}
	ok4 := true
	if hasDil {
		p.dil, ok4 = pairArg(args[k+3])
	}
	if !ok1 || !ok2 || !ok3 || !ok4 {
		g.fail("%s %s: kernel_size, stride, padding or dilation not understood", n.Op, n.Name)
		return p, false
	}
	return p, true
}

// poolOperands reads a 2-D pool's input (backward: its grad_output and
// self) and window; x nil after a failure.
func (g *kernelGen) poolOperands(n *loopir.Node, args []ir.Arg, backward, hasDil bool) (x, gy *loopir.View, p poolGeom) {
	k := 1
	if backward {
		gy, x, k = g.operand(args[0], "grad_output"), g.operand(args[1], "self"), 2
	} else {
		x = g.operand(args[0], "input")
	}
	p, ok := g.poolArgs(n, args, k, hasDil)
	switch {
	case backward && (gy == nil || x == nil || !ok || len(x.Sizes) != 4 || len(gy.Sizes) != 4):
		g.fail("%s %s: 4-D tensors and int windows are needed", n.Op, n.Name)
		return nil, nil, p
	case x == nil || !ok || len(x.Sizes) != 4:
		g.fail("%s %s: a 4-D input and int windows are needed", n.Op, n.Name)
		return nil, nil, p
	}
	return x, gy, p
}

// convBackwardOperands reads conv2d_backward_input's (grad_output,
// weight) or conv2d_backward_weight's (grad_output, input), 4-D like its
// output, and stride, padding, dilation and groups; ok false after a
// failure.
func (g *kernelGen) convBackwardOperands(n *loopir.Node, args []ir.Arg, ob *loopir.Buffer, second string) (gy, v *loopir.View, stride, pad, dil [2]int64, groups int64, ok bool) {
	gy, v = g.operand(args[0], "grad_output"), g.operand(args[1], second)
	if gy == nil || v == nil || len(gy.Sizes) != 4 || len(v.Sizes) != 4 || len(ob.Sizes) != 4 {
		g.fail("%s %s: grad_output and %s must be 4-D", n.Op, n.Name, second)
		return gy, v, stride, pad, dil, groups, false
	}
	stride, pad, dil, groups, ok = g.convArgs(n, args, 3)
	return gy, v, stride, pad, dil, groups, ok
}

// pool4 declares N, C, H, W (the input's) and OH, OW.
func (g *kernelGen) pool4(x *loopir.View, oh, ow loopir.Expr) {
	g.line("const %s NC = %s * %s, C = %s, H = %s, W = %s, OH = %s, OW = %s;", g.idxType(), g.e(x.Sizes[0]), g.e(x.Sizes[1]), g.e(x.Sizes[1]),
		g.e(x.Sizes[2]), g.e(x.Sizes[3]), g.e(oh), g.e(ow))
}

// xAt is the C address of input element (plane nc, ih, iw) of view x.
func (g *kernelGen) xAt(x *loopir.View, nc, ih, iw string) string {
	return fmt.Sprintf("%s[(%s / C) * %s + (%s %% C) * %s + (%s) * %s + (%s) * %s]", g.ptr(x), nc, g.e(x.Strides[0]), nc, g.e(x.Strides[1]),
		ih, g.e(x.Strides[2]), iw, g.e(x.Strides[3]))
}

// avgArgs reads ceil_mode's neighbours: count_include_pad, divisor_override.
func (g *kernelGen) avgArgs(args []ir.Arg, i int) (cip bool, div int64) {
	cip = true
	if b, ok := args[i].(bool); ok {
		cip = b
	}
	if d, ok := args[i+1].(int64); ok {
		div = d
	}
	return cip, div
}

// avgWindow declares hs, he, ws, we (clipped) and div for window (oh, ow).
func (g *kernelGen) avgWindow(p poolGeom, cip bool, div int64) {
	it := g.idxType() // int64_t, OpenCL's long (simt_convpool.go)
	g.line("%s hs = oh * %d - %d, ws = ow * %d - %d;", it, p.stride[0], p.pad[0], p.stride[1], p.pad[1])
	g.line("%s he = hs + %d < H + %d ? hs + %d : H + %d, we = ws + %d < W + %d ? ws + %d : W + %d;",
		it, p.kernel[0], p.pad[0], p.kernel[0], p.pad[0], p.kernel[1], p.pad[1], p.kernel[1], p.pad[1])
	if div == 0 && cip {
		g.line("const %s pool = (he - hs) * (we - ws);", it)
	}
	g.line("hs = hs > 0 ? hs : 0; ws = ws > 0 ? ws : 0; he = he < H ? he : H; we = we < W ? we : W;")
	switch {
	case div != 0:
		g.line("const double div = %d;", div)
	case cip:
		g.line("const double div = (double)pool;")
	default:
		g.line("const double div = (double)((he - hs) * (we - ws));")
	}
}

func (g *kernelGen) avgPool(n *loopir.Node, args []ir.Arg, out *storage, ob *loopir.Buffer) {
	x, _, p := g.poolOperands(n, args, false, false)
	if x == nil {
		return
	}
	cip, div := g.avgArgs(args, 5)
	if ob.DType == tensor.Float32 || ob.DType == tensor.Float64 {
		g.avgPoolVec(x, p, cip, div, out, ob) // avgpool2d.go
		return
	}
	t := g.ctype(ob.DType)
	// int64 as PyTorch's CPU kernel: the window's sum in int64 divided by
	// the divisor with C's truncating division.
	acc, res, note := "double", fmt.Sprintf("(%s)(s / div)", t), ""
	if ob.DType == tensor.Int64 {
		acc, res, note = "int64_t", "s / (int64_t)div", " (int64: sums in int64, truncating division)"
	}
	g.line("{ /* avg_pool2d%s */", note)
	g.ind++
	g.pool4(x, ob.Sizes[2], ob.Sizes[3])
	g.line("#pragma omp parallel for if(NC * OH * OW > 32768)")
	g.line("for (int64_t nc = 0; nc < NC; nc++)")
	g.line("  for (int64_t oh = 0; oh < OH; oh++)")
	g.line("    for (int64_t ow = 0; ow < OW; ow++) {")
	g.ind += 3
	g.avgWindow(p, cip, div)
	g.line("%s s = 0;", acc)
	g.line("for (int64_t ih = hs; ih < he; ih++) for (int64_t iw = ws; iw < we; iw++) s += %s;", g.xAt(x, "nc", "ih", "iw"))
	g.line("%s[(nc * OH + oh) * OW + ow] = (hs >= he || ws >= we) ? 0 : %s;", out.c, res)
	g.ind -= 3
	g.line("    }")
	g.ind--
	g.line("}")
}

func (g *kernelGen) avgPoolBackward(n *loopir.Node, args []ir.Arg, out *storage, ob *loopir.Buffer) {
	x, gy, p := g.poolOperands(n, args, true, false)
	if x == nil {
		return
	}
	cip, div := g.avgArgs(args, 6)
	if (ob.DType == tensor.Float32 || ob.DType == tensor.Float64) && (p.kernel[0] > p.stride[0] || p.kernel[1] > p.stride[1]) {
		// overlapping windows: gathered (avgpool2d.go); apart, each input has
		// one window at most and the loop below is the faster (a DenseNet
		// transition's 2x2/2 backward on 32x32 planes: 0.22-0.26 ms here,
		// 0.73-0.78 ms gathered, whose per-row overhead is for rows of 16)
		g.avgPoolBackwardGather(x, gy, p, cip, div, out, ob)
		return
	}
	t := g.ctype(ob.DType)
	g.line("{ /* avg_pool2d_backward: each gradient spread over its window by the forward's divisor */")
	g.ind++
	g.pool4(x, gy.Sizes[2], gy.Sizes[3])
	g.line("#pragma omp parallel for if(NC * H * W > 32768)")
	g.line("for (int64_t nc = 0; nc < NC; nc++) {")
	g.line("  %s *dx = %s + nc * H * W;", t, out.c)
	g.line("  for (int64_t i = 0; i < H * W; i++) dx[i] = 0;")
	g.line("  for (int64_t oh = 0; oh < OH; oh++)")
	g.line("    for (int64_t ow = 0; ow < OW; ow++) {")
	g.ind += 3
	g.avgWindow(p, cip, div)
	g.line("if (hs >= he || ws >= we) continue;")
	g.line("const %s gv = (%s)(%s / div);", t, t, g.xAt(gy, "nc", "oh", "ow"))
	g.line("for (int64_t ih = hs; ih < he; ih++) for (int64_t iw = ws; iw < we; iw++) dx[ih * W + iw] += gv;")
	g.ind -= 3
	g.line("    }")
	g.line("}")
	g.ind--
	g.line("}")
}

// adaptiveOperands reads adaptive_avg_pool2d's (backward: its input and
// grad_output) and the output cells OH, OW; x nil after a failure.
func (g *kernelGen) adaptiveOperands(n *loopir.Node, args []ir.Arg, ob *loopir.Buffer, backward bool) (x, gy *loopir.View, oh, ow loopir.Expr) {
	if backward {
		gy, x = g.operand(args[0], "grad_output"), g.operand(args[1], "self")
		if gy == nil || len(gy.Sizes) != 4 {
			g.fail("%s %s: grad_output must be 4-D", n.Op, n.Name)
			return nil, nil, nil, nil
		}
		oh, ow = gy.Sizes[2], gy.Sizes[3]
	} else {
		x = g.operand(args[0], "input")
		oh, ow = ob.Sizes[2], ob.Sizes[3]
	}
	if x == nil || len(x.Sizes) != 4 {
		g.fail("%s %s: the input must be 4-D", n.Op, n.Name)
		return nil, nil, nil, nil
	}
	return x, gy, oh, ow
}

func (g *kernelGen) adaptiveAvgPool(n *loopir.Node, args []ir.Arg, out *storage, ob *loopir.Buffer, backward bool) {
	x, gy, oh, ow := g.adaptiveOperands(n, args, ob, backward)
	if x == nil {
		return
	}
	t := g.ctype(ob.DType)
	g.line("{ /* %s: cell i covers rows floor(i*H/OH) .. ceil((i+1)*H/OH)-1 */", n.Op)
	g.ind++
	g.pool4(x, oh, ow)
	g.line("#pragma omp parallel for if(NC * H * W > 32768)")
	g.line("for (int64_t nc = 0; nc < NC; nc++) {")
	if backward {
		g.line("  %s *dx = %s + nc * H * W;", t, out.c)
		g.line("  for (int64_t i = 0; i < H * W; i++) dx[i] = 0;")
	}
	g.line("  for (int64_t oh = 0; oh < OH; oh++) {")
	g.line("    const int64_t hs = oh * H / OH, he = ((oh + 1) * H + OH - 1) / OH;")
	g.line("    for (int64_t ow = 0; ow < OW; ow++) {")
	g.line("      const int64_t ws = ow * W / OW, we = ((ow + 1) * W + OW - 1) / OW;")
	g.line("      const double div = (double)((he - hs) * (we - ws));")
	if backward {
		g.line("      const %s gv = (%s)(%s / div);", t, t, g.xAt(gy, "nc", "oh", "ow"))
		g.line("      for (int64_t ih = hs; ih < he; ih++) for (int64_t iw = ws; iw < we; iw++) dx[ih * W + iw] += gv;")
	} else {
		g.line("      double s = 0;")
		if rowsFlat(x) {
			// A cell of whole rows (a global average pool: OW = 1) is one
			// contiguous run: a vector loop (omp simd reduction, double
			// lanes; gcc "loop vectorized") instead of a scalar nest whose
			// inner loop is one row (convnet_train's gap: 0.17 ms on one
			// thread).
			g.line("      if (ws == 0 && we == W) {")
			g.line("        const %s *px = &%s;", t, g.xAt(x, "nc", "hs", "0"))
			g.line("        #pragma omp simd reduction(+:s) /* a vector loop, double lanes (gcc: loop vectorized) */")
			g.line("        for (int64_t i = 0; i < (he - hs) * W; i++) s += px[i];")
			g.line("      } else")
		}
		g.line("      for (int64_t ih = hs; ih < he; ih++) for (int64_t iw = ws; iw < we; iw++) s += %s;", g.xAt(x, "nc", "ih", "iw"))
		g.line("      %s[(nc * OH + oh) * OW + ow] = (%s)(s / div);", out.c, t)
	}
	g.line("    }")
	g.line("  }")
	g.line("}")
	g.ind--
	g.line("}")
}

// rowsFlat reports whether a 4-D view's rows are one contiguous run per
// plane (stride of W 1, stride of H = W).
func rowsFlat(x *loopir.View) bool {
	return len(x.Sizes) == 4 && x.Strides[3].String() == "1" && x.Strides[2].String() == x.Sizes[3].String()
}
