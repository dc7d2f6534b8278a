package render

import (
	"fmt"

	"gcdbg/loopir"
)

// avg_pool2d and avg_pool2d_backward of float and double (CPU dialect) as
// vector loops, with the values, bit for bit, of the per-element loops
// before them (kept for int64: conv.go). Checked against those loops on
// audio_pool_train's shapes (memcmp of both outputs) and against PyTorch by
// runner TestAvgPoolEdgesMatch and the OpInfo samples (conformance).
//
// Forward: per output row, the columns whose windows lie inside the input
// row (ow·sw − pw >= 0 and ow·sw − pw + kw <= W) are summed by vector loops
// over ow, one input row of the window at a time, into double sums in a
// scratch row: the same double sum, started at +0 and taken over the
// window's in-image elements in row-major order, as before, with the
// interior's one divisor. The columns at the ends keep the per-element
// loop.
//
// Backward (windows that overlap: kernel > stride in a dim; apart, each
// input has one window at most and conv.go's per-element loop is faster on
// small planes): the gradient of input (ih, iw) is the sum, in (oh, ow) order,
// of g(oh, ow) / divisor over the windows that hold it, which the per-element
// loop scattered. Here it is gathered: with iw + pw = q·sw + r, the windows
// of column iw are ow = q − m for the m with m·sw + r < kw, so for each
// phase r a vector loop over q adds G[q − m] for m descending (ow
// ascending) into the row's accumulators D[r][q], one output row oh at a
// time in ascending order, and D is then written to the input row (an
// interleaved group of stores). G holds each output row's g / divisor
// rounded to the type, as before, and +0 where there is no window (outside
// the output, or a window of padding only), which leaves a sum started at
// +0 unchanged (x + +0 = x for every x but -0, and a sum started at +0 is
// never -0).
//
// audio_pool_train's AvgPool1d(4, 2, 1) on 16×64×16000, the kernels alone
// in one C program, best of 10, the other core busy (load 2.5–3): backward
// (with its fused where) 25.0–28.9 → 15.0–17.8 ms; forward 10.0–13.5 →
// 10.0–11.3 ms (bound by reading the input).

// avgPoolVec writes avg_pool2d of float or double x into out.
func (g *kernelGen) avgPoolVec(x *loopir.View, p poolGeom, cip bool, div int64, out *storage, ob *loopir.Buffer) {
	t := g.ctype(ob.DType)
	kw, sw, pw := p.kernel[1], p.stride[1], p.pad[1]
	g.line("{ /* avg_pool2d: the columns whose windows lie in the row summed by vector loops, row by row into double sums; the others one by one (render/avgpool2d.go) */")
	g.ind++
	g.pool4(x, ob.Sizes[2], ob.Sizes[3])
	g.line("/* interior columns [owa, owb): ow * %d - %d >= 0 and ow * %d - %d + %d <= W */", sw, pw, sw, pw, kw)
	g.line("const int64_t owa = %d < OW ? %d : OW, owb0 = W + %d - %d >= 0 ? (W + %d - %d) / %d + 1 : 0, owb = owb0 < owa ? owa : owb0 < OW ? owb0 : OW;",
		(pw+sw-1)/sw, (pw+sw-1)/sw, pw, kw, pw, kw, sw)
	g.line("const int par = NC * OH * OW > 32768;")
	g.line("const int64_t nt = par ? omp_get_max_threads() : 1;")
	g.line("double *scr = (double *)gcdbg_scratch(0, (size_t)(nt * OW) * sizeof(double));")
	g.line("#pragma omp parallel for collapse(2) if(par)")
	g.line("for (int64_t nc = 0; nc < NC; nc++)")
	g.line("  for (int64_t oh = 0; oh < OH; oh++) {")
	g.ind += 2
	g.line("double *A = scr + omp_get_thread_num() * OW;")
	g.line("%s *o = %s + (nc * OH + oh) * OW;", t, out.c)
	g.avgRowExtent(p)
	g.line("const int64_t ih0 = hs > 0 ? hs : 0, ih1 = hs + hp < H ? hs + hp : H;")
	g.line("for (int64_t ow = 0; ow < OW; ow++) {")
	g.line("  if (ow == owa) ow = owb;")
	g.line("  if (ow >= OW) break;")
	g.ind++
	g.avgColExtent(p)
	g.line("const int64_t iw0 = ws > 0 ? ws : 0, iw1 = ws + wp < W ? ws + wp : W;")
	g.line("double s = 0;")
	g.line("for (int64_t ih = ih0; ih < ih1; ih++) for (int64_t iw = iw0; iw < iw1; iw++) s += %s;", g.xAt(x, "nc", "ih", "iw"))
	g.line("o[ow] = hn <= 0 || wn <= 0 ? 0 : (%s)(s / %s);", t, avgDivisor(cip, div))
	g.ind--
	g.line("}")
	g.line("if (owa >= owb) continue;")
	g.line("#pragma omp simd")
	g.line("for (int64_t ow = owa; ow < owb; ow++) A[ow] = 0;")
	g.line("for (int64_t ih = ih0; ih < ih1; ih++) {")
	g.line("  #pragma omp simd")
	g.line("  for (int64_t ow = owa; ow < owb; ow++) {")
	g.line("    double s = A[ow];")
	for k := int64(0); k < kw; k++ {
		g.line("    s += %s;", g.xAt(x, "nc", "ih", fmt.Sprintf("ow * %d %s", sw, signed(k-pw))))
	}
	g.line("    A[ow] = s;")
	g.line("  }")
	g.line("}")
	g.line("const int64_t wp = %d, wn = %d;  /* every interior window's */", kw, kw)
	g.line("const double d = %s;", avgDivisor(cip, div))
	g.line("#pragma omp simd")
	g.line("for (int64_t ow = owa; ow < owb; ow++) o[ow] = hn <= 0 ? 0 : (%s)(A[ow] / d);", t)
	g.line("(void)wp; (void)wn;")
	g.ind -= 2
	g.line("  }")
	g.ind--
	g.line("}")
}

// signed is "+ k" or "- |k|".
func signed(k int64) string {
	if k < 0 {
		return fmt.Sprintf("- %d", -k)
	}
	return fmt.Sprintf("+ %d", k)
}

// avgPoolBackwardGather writes avg_pool2d_backward of float or double
// grad_output gy (the input x only gives the sizes) into out.
func (g *kernelGen) avgPoolBackwardGather(x, gy *loopir.View, p poolGeom, cip bool, div int64, out *storage, ob *loopir.Buffer) {
	t := g.ctype(ob.DType)
	kh, kw, sh, sw, ph, pw := p.kernel[0], p.kernel[1], p.stride[0], p.stride[1], p.pad[0], p.pad[1]
	pg := (kw + sw - 1) / sw
	g.line("{ /* avg_pool2d_backward: each input's gradient gathered from its windows in (oh, ow) order, a vector loop per column phase (render/avgpool2d.go) */")
	g.ind++
	g.pool4(x, gy.Sizes[2], gy.Sizes[3])
	g.line("/* G: per output row, g / divisor at PG + ow, +0 around; D: an input row's sums, phase r of column q·%d + r - %d at r·QW + q */", sw, pw)
	g.line("const int64_t PG = %d, QW = (W - 1 + %d) / %d + 1, GW = (OW > QW ? OW : QW) + 2 * PG;", pg, pw, sw)
	g.line("const int par = NC * H * W > 32768;")
	g.line("const int64_t nt = par ? omp_get_max_threads() : 1;")
	g.line("%s *scr = (%s *)gcdbg_scratch(0, (size_t)(nt * (OH * GW + %d * QW)) * sizeof(%s));", t, t, sw, t)
	g.line("#pragma omp parallel for if(par)")
	g.line("for (int64_t nc = 0; nc < NC; nc++) {")
	g.ind++
	g.line("%s *G = scr + omp_get_thread_num() * (OH * GW + %d * QW), *D = G + OH * GW, *dx = %s + nc * H * W;", t, sw, out.c)
	g.line("for (int64_t oh = 0; oh < OH; oh++) {")
	g.ind++
	g.line("%s *Gr = G + oh * GW;", t)
	g.avgRowExtent(p)
	g.line("for (int64_t i = 0; i < GW; i++) Gr[i] = 0;")
	g.line("#pragma omp simd")
	g.line("for (int64_t ow = 0; ow < OW; ow++) {")
	g.ind++
	g.avgColExtent(p)
	g.line("Gr[PG + ow] = hn <= 0 || wn <= 0 ? 0 : (%s)(%s / %s);", t, g.xAt(gy, "nc", "oh", "ow"), avgDivisor(cip, div))
	g.ind--
	g.line("}")
	g.ind--
	g.line("}")
	g.line("for (int64_t ih = 0; ih < H; ih++) {")
	g.ind++
	g.line("for (int64_t i = 0; i < %d * QW; i++) D[i] = 0;", sw)
	g.line("/* the output rows whose windows hold row ih, ascending */")
	g.line("const int64_t a = ih + %d - %d + 1, ohlo = a > 0 ? (a + %d) / %d : 0, ohhi0 = (ih + %d) / %d, ohhi = ohhi0 < OH - 1 ? ohhi0 : OH - 1;",
		ph, kh, sh-1, sh, ph, sh)
	g.line("for (int64_t oh = ohlo; oh <= ohhi; oh++) {")
	g.ind++
	g.line("const %s *Gr = G + oh * GW + PG;", t)
	for r := int64(0); r < sw; r++ {
		cnt := int64(0)
		if r < kw {
			cnt = (kw - r + sw - 1) / sw
		}
		if cnt == 0 {
			continue
		}
		g.line("#pragma omp simd")
		g.line("for (int64_t q = 0; q < QW; q++) {")
		g.ind++
		g.line("%s v = D[%d * QW + q];", t, r)
		for m := cnt - 1; m >= 0; m-- {
			g.line("v += Gr[q - %d];  /* ow = q - %d: kernel column %d */", m, m, r+m*sw)
		}
		g.line("D[%d * QW + q] = v;", r)
		g.ind--
		g.line("}")
	}
	g.ind--
	g.line("}")
	if sw == 1 {
		g.line("#pragma omp simd")
		g.line("for (int64_t iw = 0; iw < W; iw++) dx[ih * W + iw] = D[iw + %d];", pw)
	} else {
		// columns q whose sw input columns all lie in the row: one
		// interleaved group of vector stores; the ends one by one
		g.line("const int64_t qa = %d, qb = (W + %d) / %d, ea = qa * %d - %d < W ? qa * %d - %d : W, eb = qb * %d - %d > ea ? qb * %d - %d : ea;",
			(pw+sw-1)/sw, pw, sw, sw, pw, sw, pw, sw, pw, sw, pw)
		g.line("for (int64_t iw = 0; iw < ea; iw++) dx[ih * W + iw] = D[((iw + %d) %% %d) * QW + (iw + %d) / %d];", pw, sw, pw, sw)
		g.line("#pragma omp simd")
		g.line("for (int64_t q = qa; q < qb; q++) {")
		for r := int64(0); r < sw; r++ {
			g.line("  dx[ih * W + q * %d %s] = D[%d * QW + q];", sw, signed(r-pw), r)
		}
		g.line("}")
		g.line("for (int64_t iw = eb; iw < W; iw++) dx[ih * W + iw] = D[((iw + %d) %% %d) * QW + (iw + %d) / %d];", pw, sw, pw, sw)
	}
	g.ind--
	g.line("}")
	g.ind--
	g.line("}")
	g.ind--
	g.line("}")
}

// avgRowExtent declares, for output row oh, hp (the window's rows within
// the padded image: the count_include_pad divisor's factor) and hn (its
// rows within the image).
func (g *kernelGen) avgRowExtent(p poolGeom) {
	g.line("const int64_t hs = oh * %d - %d, hp = (hs + %d < H + %d ? hs + %d : H + %d) - hs;", p.stride[0], p.pad[0], p.kernel[0], p.pad[0], p.kernel[0], p.pad[0])
	g.line("const int64_t hn = (hs + hp < H ? hs + hp : H) - (hs > 0 ? hs : 0);")
}

// avgColExtent declares wp and wn, avgRowExtent's for column ow.
func (g *kernelGen) avgColExtent(p poolGeom) {
	g.line("const int64_t ws = ow * %d - %d, wp = (ws + %d < W + %d ? ws + %d : W + %d) - ws;", p.stride[1], p.pad[1], p.kernel[1], p.pad[1], p.kernel[1], p.pad[1])
	g.line("const int64_t wn = (ws + wp < W ? ws + wp : W) - (ws > 0 ? ws : 0);")
}

// avgDivisor is the divisor of a window in double: divisor_override, the
// padded area (count_include_pad) or the area within the image.
func avgDivisor(cip bool, div int64) string {
	switch {
	case div != 0:
		return fmt.Sprintf("(double)%d", div)
	case cip:
		return "(double)(hp * wp)"
	}
	return "(double)(hn * wn)"
}
