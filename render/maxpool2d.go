package render

import (
	"fmt"

	"gcdbg/ir"
	"gcdbg/loopir"
)

// max_pool2d and max_pool2d_backward (CPU dialect): each (image, channel)
// plane is first copied into "phase planes", one row per input row ih and
// column phase r < stride: row (ih, r) holds x[ih][q·stride + r − pad] at
// q, −inf where that column is padding, and one extra row of −inf stands
// for the rows above and below the image. Window element (kh, kw) of
// output column ow is then element ow + kw·dil / stride of phase
// (kw·dil) mod stride of its row: every load of the window search is
// contiguous, without a bound check, and the search over a whole output
// row (rounded up to 16 columns, so gcc needs no scalar tail) is one
// branch-free vector loop.
//
// Before, the search loaded stride-2 elements under a bound check (masked
// loads); gcc peeled the stride-2 loop's last iterations to scalar code
// with a branch per element, where most of the time went. ResNet stem
// pool (3, 2, 1) on 16×32×64×64 (examples/unseen/repro/maxpool_train.py),
// loaded machine (load 11–13 on 2 cores): the same C outside gcdbg on one
// thread, forward 48–53 → 2.2–3.4 ms, backward 47–55 → 6.2–7.4 ms, the
// same output bytes; gcdbg bench, forward + backward, 91.6 → 1.57 ms.
//
// Semantics are ATen's (MaxPoolKernel.cpp) and the eager reference's
// (tensor.MaxPool2d): the first maximum in row-major window order, an
// element takes over when greater or NaN (so a NaN wins, the last NaN).
// Padding is −inf, which never takes over, so the value is exact; the
// backward's index starts at the window's first element inside the image
// (its first element when every element is −inf, as ATen) and is −1 for
// a window of padding only.

// scratchPoolOps use gcdbg_scratch: max pooling's phase planes, average
// pooling's row sums (avgpool2d.go).
var scratchPoolOps = map[string]bool{"max_pool2d": true, "max_pool2d_backward": true, "avg_pool2d": true, "avg_pool2d_backward": true}

// maxPoolPhasesDecl declares OWR (the output row rounded up to 16), WQ (a
// phase row's length: every window of the OWR columns lies in it) and PL
// (a plane's phase rows, the −inf row included).
func (g *kernelGen) maxPoolPhasesDecl(p poolGeom) {
	g.line("const int64_t OWR = (OW + 15) / 16 * 16, WQ = OWR + %d, PL = (H + 1) * %d * WQ;", (p.kernel[1]-1)*p.dil[1]/p.stride[1]+1, p.stride[1])
}

// maxPoolPhases writes plane nc of x into its phase rows at S.
func (g *kernelGen) maxPoolPhases(x *loopir.View, p poolGeom, t string) {
	s, pd := p.stride[1], p.pad[1]
	g.line("for (int64_t ih = 0; ih <= H; ih++)")
	g.line("  for (int64_t r = 0; r < %d; r++) {", s)
	g.line("    %s *Q = S + (ih * %d + r) * WQ;", t, s)
	g.line("    /* the columns q whose input column q * %d + r - %d lies in [0, W); none in the row of padding (ih = H) */", s, pd)
	g.line("    int64_t qlo = ih == H ? 0 : %d - r > 0 ? (%d - r + %d) / %d : 0;", pd, pd, s-1, s)
	g.line("    int64_t qhi = ih == H ? 0 : W + %d - r > 0 ? (W + %d - r + %d) / %d : 0;", pd, pd, s-1, s)
	g.line("    qlo = qlo < WQ ? qlo : WQ; qhi = qhi < WQ ? qhi : WQ; qhi = qhi > qlo ? qhi : qlo;")
	g.line("    for (int64_t q = 0; q < qlo; q++) Q[q] = -(%s)INFINITY;", t)
	g.line("    #pragma omp simd")
	g.line("    for (int64_t q = qlo; q < qhi; q++) Q[q] = %s;", g.xAt(x, "nc", "ih", fmt.Sprintf("q * %d + r - %d", s, pd)))
	g.line("    for (int64_t q = qhi; q < WQ; q++) Q[q] = -(%s)INFINITY;", t)
	g.line("  }")
}

// maxPoolRows declares ro[kh * stride + r], the offset in S of phase r of
// window row kh of output row oh (the −inf row where ih is padding).
func (g *kernelGen) maxPoolRows(p poolGeom) {
	s := p.stride[1]
	g.line("int64_t ro[%d];", p.kernel[0]*s)
	g.line("for (int64_t kh = 0; kh < %d; kh++) {", p.kernel[0])
	g.line("  const int64_t ih = oh * %d - %d + kh * %d, row = ih >= 0 && ih < H ? ih : H;", p.stride[0], p.pad[0], p.dil[0])
	g.line("  for (int64_t r = 0; r < %d; r++) ro[kh * %d + r] = (row * %d + r) * WQ;", s, s, s)
	g.line("}")
}

// maxPoolElem is window element (kh, kw) of output column ow in S.
func maxPoolElem(p poolGeom) string {
	return fmt.Sprintf("S[ro[kh * %d + kw * %d %% %d] + ow + kw * %d / %d]", p.stride[1], p.dil[1], p.stride[1], p.dil[1], p.stride[1])
}

func (g *kernelGen) maxPool(n *loopir.Node, args []ir.Arg, out *storage, ob *loopir.Buffer) {
	x, _, p := g.poolOperands(n, args, false, true) // conv.go
	if x == nil {
		return
	}
	t := g.ctype(ob.DType)
	g.line("{ /* max_pool2d: first maximum of each window, NaN wins; the window search over a row is a vector loop of contiguous loads from the plane's phase rows (gcc: loop vectorized, no scalar tail) */")
	g.ind++
	g.pool4(x, ob.Sizes[2], ob.Sizes[3])
	g.maxPoolPhasesDecl(p)
	g.line("const int par = NC * OH * OW > 32768;")
	g.line("const int64_t nt = par ? omp_get_max_threads() : 1;")
	g.line("%s *scr = (%s *)gcdbg_scratch(0, (size_t)(nt * (PL + OWR)) * sizeof(%s));", t, t, t)
	g.line("#pragma omp parallel for if(par)")
	g.line("for (int64_t nc = 0; nc < NC; nc++) {")
	g.ind++
	g.line("%s *S = scr + omp_get_thread_num() * (PL + OWR), *R = S + PL;", t)
	g.maxPoolPhases(x, p, t)
	g.line("for (int64_t oh = 0; oh < OH; oh++) {")
	g.ind++
	g.maxPoolRows(p)
	g.line("#pragma omp simd")
	g.line("for (int64_t ow = 0; ow < OWR; ow++) {")
	g.line("  %s m = -(%s)INFINITY;", t, t)
	g.line("  for (int64_t kh = 0; kh < %d; kh++)", p.kernel[0])
	g.line("    for (int64_t kw = 0; kw < %d; kw++) {", p.kernel[1])
	g.line("      const %s v = %s;", t, maxPoolElem(p))
	g.line("      m = (v > m) | (v != v) ? v : m; /* the first maximum, or the last NaN */")
	g.line("    }")
	g.line("  R[ow] = m;")
	g.line("}")
	g.line("for (int64_t ow = 0; ow < OW; ow++) %s[(nc * OH + oh) * OW + ow] = R[ow];", out.c)
	g.ind--
	g.line("}")
	g.ind--
	g.line("}")
	g.ind--
	g.line("}")
}

func (g *kernelGen) maxPoolBackward(n *loopir.Node, args []ir.Arg, out *storage, ob *loopir.Buffer) {
	x, gy, p := g.poolOperands(n, args, true, true) // conv.go
	if x == nil {
		return
	}
	t := g.ctype(ob.DType)
	// A plane index in int32 lanes (twice as many as int64's) where the
	// plane certainly fits.
	it := "int64_t"
	if hw, ok := static(x.Sizes[2:]); ok && hw < 1<<31-1 {
		it = "int32_t"
	}
	g.line("{ /* max_pool2d_backward: each gradient to its window's first maximum (or last NaN); the search is a vector loop over the plane's phase rows, then the gradients are added in order */")
	g.ind++
	g.pool4(x, gy.Sizes[2], gy.Sizes[3])
	g.maxPoolPhasesDecl(p)
	g.line("const int par = NC * H * W > 32768;")
	g.line("const int64_t nt = par ? omp_get_max_threads() : 1;")
	g.line("%s *scr = (%s *)gcdbg_scratch(0, (size_t)(nt * PL) * sizeof(%s));", t, t, t)
	g.line("%s *wh = (%s *)gcdbg_scratch(1, (size_t)(nt * OWR) * sizeof(%s));", it, it, it)
	g.line("#pragma omp parallel for if(par)")
	g.line("for (int64_t nc = 0; nc < NC; nc++) {")
	g.ind++
	g.line("%s *S = scr + omp_get_thread_num() * PL, *dx = %s + nc * H * W;", t, out.c)
	g.line("%s *where = wh + omp_get_thread_num() * OWR;", it)
	g.maxPoolPhases(x, p, t)
	g.line("for (int64_t i = 0; i < H * W; i++) dx[i] = 0;")
	g.line("for (int64_t oh = 0; oh < OH; oh++) {")
	g.ind++
	g.maxPoolRows(p)
	g.line("/* the window's first element inside the image: kh0, and kw0 per column */")
	g.line("const int64_t ihs = oh * %d - %d, kh0 = ihs < 0 ? (-ihs + %d) / %d : 0;", p.stride[0], p.pad[0], p.dil[0]-1, p.dil[0])
	g.line("const int okh = kh0 < %d && ihs + kh0 * %d < H;", p.kernel[0], p.dil[0])
	g.line("#pragma omp simd")
	g.line("for (int64_t ow = 0; ow < OWR; ow++) {")
	g.line("  const %s iws = (%s)ow * %d - %d, kw0 = iws < 0 ? (-iws + %d) / %d : 0;", it, it, p.stride[1], p.pad[1], p.dil[1]-1, p.dil[1])
	g.line("  %s best = okh & (kw0 < %d) & (iws + kw0 * %d < (%s)W) ? (%s)(ihs + kh0 * %d) * (%s)W + iws + kw0 * %d : -1;",
		it, p.kernel[1], p.dil[1], it, it, p.dil[0], it, p.dil[1])
	g.line("  %s m = -(%s)INFINITY;", t, t)
	g.line("  for (int64_t kh = 0; kh < %d; kh++)", p.kernel[0])
	g.line("    for (int64_t kw = 0; kw < %d; kw++) {", p.kernel[1])
	g.line("      const %s v = %s;", t, maxPoolElem(p))
	g.line("      const int take = (v > m) | (v != v); /* the first maximum, or the last NaN; padding (-inf) never */")
	g.line("      best = take ? (%s)(ihs + kh * %d) * (%s)W + iws + (%s)(kw * %d) : best; m = take ? v : m;", it, p.dil[0], it, it, p.dil[1])
	g.line("    }")
	g.line("  where[ow] = best;")
	g.line("}")
	g.line("for (int64_t ow = 0; ow < OW; ow++)")
	g.line("  if (where[ow] >= 0) dx[where[ow]] += %s;", g.xAt(gy, "nc", "oh", "ow"))
	g.ind--
	g.line("}")
	g.ind--
	g.line("}")
	g.ind--
	g.line("}")
}
