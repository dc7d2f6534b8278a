package render

import (
	"fmt"

	"gcdbg/ir"
	"gcdbg/loopir"
	"gcdbg/tensor"
)

// Convolution backward and 2-D pooling on the GPU (CUDA, OpenCL): the
// externs conv.go and maxpool2d.go write as C loops, here laid out over
// threads, with the kernel's epilogue members run by the thread that
// wrote the point, as convSIMT does. No atomics: every output element is
// computed by one thread (or one block) that gathers what reaches it, so
// the results do not depend on the schedule.
//
//   - conv2d_backward_input: one thread per input element (n, c, ih, iw),
//     or per 4 channels of a group at one point (each dY element loaded
//     once for the 4), summing dY[n, oc, oh, ow] * W[oc, c % CG, kh, kw]
//     over the output channels of c's group and the taps whose output point
//     (ih + pad - kh*dil) / stride is whole and inside dY; float32 in
//     double, as the forward. Padding is never multiplied (the C path
//     drops its columns too).
//   - conv2d_backward_weight: one block per weight element (oc, ci, kh,
//     kw), or per (oc, ci) pair for all its taps where they are few and
//     the pairs many (convBackwardWeightTaps), its threads striding over
//     N*OH*OW, the partial sums (double) combined by the block reduction
//     of simt_reduce.go; only real input
//     elements are multiplied, which is what the C path's NaN/Inf redo
//     gives (conv_nonfinite.go): a NaN dY at a point whose window reaches
//     padding does not reach the taps that read the padding.
//   - max_pool2d: one thread per output point, the window walked in
//     row-major order over the elements inside the image from -inf, an
//     element taking over when greater or NaN (first maximum, last NaN),
//     as maxpool2d.go; max_pool2d_backward: one thread per input element,
//     over the output windows holding it in (oh, ow) order, each window's
//     choice made again as maxpool2d.go makes it (its first element inside
//     the image unless one takes over) and dY added where it is this
//     element: the same sums in the same order as the C loops.
//   - avg_pool2d, adaptive_avg_pool2d: one thread per output point, the
//     window as conv.go's avgWindow / the adaptive cell bounds; their
//     backward one thread per input element adding each covering
//     window's dY / divisor, rounded to the element type, in (oh, ow)
//     order as the C loops do.
//   - max_pool3d_with_indices and its adaptive form (pool_nd.go): one
//     thread per output point; adaptive_max_pool3d_backward (the gradient
//     of both through their indices, which do not say the window) one
//     thread per plane, adding in output order, as the C loop.

// pointLaunch is a grid-stride launch over the points of sizes.
func (g *simtGen) pointLaunch(shape string, sizes []loopir.Expr) {
	g.launch = Launch{Shape: shape, Units: g.r.sizeText(loopir.Mul(append([]loopir.Expr{loopir.C(1)}, sizes...)...)), PerGroup: simtBlock, Block: simtBlock}
}

// gridLoop opens the grid-stride loop over total points (flat index f).
func (g *simtGen) gridLoop(total string) {
	d := g.r.d
	g.line("for (%s f = %s; f < %s; f += %s) {", g.idxType(), d.GlobalIdx, total, d.GlobalSize)
	g.ind++
}

// closeLoop closes the loop with the kernel's epilogue at f.
func (g *simtGen) closeLoop(n *loopir.Node) {
	g.epilogue(n, "f")
	g.ind--
	g.line("}")
}

// convAcc is a convolution's accumulator type: double for float32, as
// convSIMT.
func (g *simtGen) convAcc(dt tensor.DType) string {
	if dt == tensor.Float32 {
		return "double"
	}
	return g.ctype(dt)
}

// convBackwardInputSIMT: dX[n, c, ih, iw] gathered from dY and the weight.
func (g *simtGen) convBackwardInputSIMT(n *loopir.Node, args []ir.Arg, out *storage, ob *loopir.Buffer) {
	gy, w, stride, pad, dil, groups, ok := g.convBackwardOperands(n, args, ob, "weight") // conv.go
	if !ok {
		return
	}
	// cb input channels of a group per thread, where the group's channel
	// count is static and a multiple: each dY element loaded once for all
	// of them.
	cb := int64(1)
	if cg, isC := static(w.Sizes[1:2]); isC && cg%simtInputChannels == 0 {
		cb = simtInputChannels
	}
	d := g.r.d
	t, it, acc, q := g.ctype(ob.DType), g.idxType(), g.convAcc(ob.DType), d.BufferQualifier
	g.launch = Launch{Shape: "conv2d_backward_input", Units: g.r.sizeText(loopir.FloorDiv(loopir.Mul(append([]loopir.Expr{loopir.C(1)}, ob.Sizes...)...), loopir.C(cb))),
		PerGroup: simtBlock, Block: simtBlock}
	g.line("const %s NB = %s, C = %s, H = %s, W = %s, OC = %s, OH = %s, OW = %s;", it, g.e(ob.Sizes[0]), g.e(ob.Sizes[1]),
		g.e(ob.Sizes[2]), g.e(ob.Sizes[3]), g.e(w.Sizes[0]), g.e(gy.Sizes[2]), g.e(gy.Sizes[3]))
	g.line("const %s CG = C / %d, OCG = OC / %d, KH = %s, KW = %s, CB = %d; /* CB channels per thread */", it, groups, groups, g.e(w.Sizes[2]), g.e(w.Sizes[3]), cb)
	g.line("const %s *DY = %s; const %s *Wt = %s;", q+t, g.ptr(gy), q+t, g.ptr(w))
	g.line("for (%s p = %s; p < NB * (C / CB) * H * W; p += %s) {", it, d.GlobalIdx, d.GlobalSize)
	g.ind++
	g.line("const %s iw = p %% W, ih = p / W %% H, c0 = p / (W * H) %% (C / CB) * CB, cn = p / (W * H * (C / CB)), ci = c0 %% CG;", it)
	for j := int64(0); j < cb; j++ {
		g.line("%s acc%d = 0;", acc, j)
	}
	g.line("for (%s oc = c0 / CG * OCG; oc < (c0 / CG + 1) * OCG; oc++)", it)
	g.line("  for (%s kh = 0; kh < KH; kh++) {", it)
	g.line("    const %s th = ih + %d - kh * %d;", it, pad[0], dil[0])
	g.line("    if (th < 0 || th %% %d != 0 || th / %d >= OH) continue;", stride[0], stride[0])
	g.line("    for (%s kw = 0; kw < KW; kw++) {", it)
	g.line("      const %s tw = iw + %d - kw * %d;", it, pad[1], dil[1])
	g.line("      if (tw < 0 || tw %% %d != 0 || tw / %d >= OW) continue;", stride[1], stride[1])
	g.line("      const %s dv = (%s)DY[cn * %s + oc * %s + th / %d * %s + tw / %d * %s];",
		acc, acc, g.e(gy.Strides[0]), g.e(gy.Strides[1]), stride[0], g.e(gy.Strides[2]), stride[1], g.e(gy.Strides[3]))
	g.line("      const %s *wp = Wt + oc * %s + ci * %s + kh * %s + kw * %s;", q+t, g.e(w.Strides[0]), g.e(w.Strides[1]), g.e(w.Strides[2]), g.e(w.Strides[3]))
	for j := int64(0); j < cb; j++ {
		g.line("      acc%d += dv * (%s)wp[%d * %s];", j, acc, j, g.e(w.Strides[1]))
	}
	g.line("    }")
	g.line("  }")
	for j := int64(0); j < cb; j++ {
		g.line("{")
		g.ind++
		g.line("const %s f = ((cn * C + c0 + %d) * H + ih) * W + iw;", it, j)
		g.line("%s[f] = (%s)acc%d;", out.c, t, j)
		g.epilogue(n, "f")
		g.ind--
		g.line("}")
	}
	g.ind--
	g.line("}")
}

// simtInputChannels is how many input channels one thread of
// conv2d_backward_input computes (when its group's count is a multiple).
const simtInputChannels = 4

// convBackwardWeightSIMT: one block per dW element, a block reduction over
// the images' output points.
func (g *simtGen) convBackwardWeightSIMT(n *loopir.Node, args []ir.Arg, out *storage, ob *loopir.Buffer) {
	gy, x, stride, pad, dil, groups, ok := g.convBackwardOperands(n, args, ob, "input") // conv.go
	if !ok {
		return
	}
	if g.convBackwardWeightTaps(n, gy, x, out, ob, stride, pad, dil, groups) {
		return
	}
	d := g.r.d
	t, it, q := g.ctype(ob.DType), g.idxType(), d.BufferQualifier
	g.launch = Launch{Shape: "conv2d_backward_weight", Units: g.r.sizeText(loopir.Mul(append([]loopir.Expr{loopir.C(1)}, ob.Sizes...)...)), PerGroup: 1, Block: simtBlock}
	a := &accum{op: "sum", in: ob.DType, dt: ob.DType, acc: "acc"}
	g.line("const %s lid = %s;", it, d.LocalIdx)
	g.line("const %s NB = %s, C = %s, H = %s, W = %s, OC = %s, OH = %s, OW = %s;", it, g.e(x.Sizes[0]), g.e(x.Sizes[1]),
		g.e(x.Sizes[2]), g.e(x.Sizes[3]), g.e(ob.Sizes[0]), g.e(gy.Sizes[2]), g.e(gy.Sizes[3]))
	g.line("const %s CG = %s, OCG = OC / %d, KH = %s, KW = %s;", it, g.e(ob.Sizes[1]), groups, g.e(ob.Sizes[2]), g.e(ob.Sizes[3]))
	g.line("const %s *DY = %s; const %s *X = %s;", q+t, g.ptr(gy), q+t, g.ptr(x))
	g.line("for (%s f = %s; f < OC * CG * KH * KW; f += %s) {", it, d.GroupIdx, d.NumGroups)
	g.ind++
	g.line("const %s kw = f %% KW, kh = f / KW %% KH, ci = f / (KW * KH) %% CG, oc = f / (KW * KH * CG), c = oc / OCG * CG + ci;", it)
	g.line("%s acc = 0;", g.accType(a))
	g.line("for (%s ri = lid; ri < NB * OH * OW; ri += %s) {", it, d.LocalSize)
	g.line("  const %s ow = ri %% OW, oh = ri / OW %% OH, cn = ri / (OW * OH);", it)
	g.line("  const %s ih = oh * %d - %d + kh * %d, iw = ow * %d - %d + kw * %d;", it, stride[0], pad[0], dil[0], stride[1], pad[1], dil[1])
	g.line("  if (ih < 0 || ih >= H || iw < 0 || iw >= W) continue; /* padding: not multiplied (conv_nonfinite.go) */")
	g.line("  acc += (%s)DY[cn * %s + oc * %s + oh * %s + ow * %s] * (%s)X[cn * %s + c * %s + ih * %s + iw * %s];",
		g.accType(a), g.e(gy.Strides[0]), g.e(gy.Strides[1]), g.e(gy.Strides[2]), g.e(gy.Strides[3]),
		g.accType(a), g.e(x.Strides[0]), g.e(x.Strides[1]), g.e(x.Strides[2]), g.e(x.Strides[3]))
	g.line("}")
	g.blockReduce(a) // simt_reduce.go: the sum in every thread
	g.line("if (lid == 0) {")
	g.ind++
	g.line("%s[f] = (%s)acc;", out.c, t)
	g.closeLoop(n) // the epilogue in thread 0, closing the if
	g.ind--
	g.line("}")
}

// The weight gradient by (oc, ci) pairs: one block per pair computes all
// KH*KW taps, each thread reading a dY element once for every tap (the
// per-element blocks above read it once per tap), when the taps are static
// and few (a double accumulator and a shared array each) and the pairs
// alone are enough blocks to fill a GPU.
const (
	simtTapsMax      = 16
	simtTapsMinPairs = 512
)

// convBackwardWeightTaps writes dW by (oc, ci) pairs; false when the
// shape does not qualify (the per-element blocks then).
func (g *simtGen) convBackwardWeightTaps(n *loopir.Node, gy, x *loopir.View, out *storage, ob *loopir.Buffer, stride, pad, dil [2]int64, groups int64) bool {
	kh, ok1 := static(ob.Sizes[2:3])
	kw, ok2 := static(ob.Sizes[3:4])
	pairs, ok3 := static(ob.Sizes[:2])
	if !ok1 || !ok2 || !ok3 || kh*kw > simtTapsMax || pairs < simtTapsMinPairs {
		return false
	}
	d := g.r.d
	t, it, q := g.ctype(ob.DType), g.idxType(), d.BufferQualifier
	g.launch = Launch{Shape: "conv2d_backward_weight", Units: g.r.sizeText(loopir.Mul(loopir.C(1), ob.Sizes[0], ob.Sizes[1])), PerGroup: 1, Block: simtBlock}
	accs := make([]*accum, kh*kw)
	for i := range accs {
		accs[i] = &accum{op: "sum", in: ob.DType, dt: ob.DType, acc: fmt.Sprintf("acc%d", i)}
	}
	at := g.accType(accs[0])
	g.line("const %s lid = %s;", it, d.LocalIdx)
	g.line("const %s NB = %s, H = %s, W = %s, OC = %s, OH = %s, OW = %s;", it, g.e(x.Sizes[0]),
		g.e(x.Sizes[2]), g.e(x.Sizes[3]), g.e(ob.Sizes[0]), g.e(gy.Sizes[2]), g.e(gy.Sizes[3]))
	g.line("const %s CG = %s, OCG = OC / %d;", it, g.e(ob.Sizes[1]), groups)
	g.line("for (%s pc = %s; pc < OC * CG; pc += %s) {", it, d.GroupIdx, d.NumGroups)
	g.ind++
	g.line("const %s ci = pc %% CG, oc = pc / CG, c = oc / OCG * CG + ci;", it)
	g.line("const %s *DY = %s + oc * %s; const %s *X = %s + c * %s;", q+t, g.ptr(gy), g.e(gy.Strides[1]), q+t, g.ptr(x), g.e(x.Strides[1]))
	for _, a := range accs {
		g.line("%s %s = 0;", at, a.acc)
	}
	g.line("for (%s ri = lid; ri < NB * OH * OW; ri += %s) {", it, d.LocalSize)
	g.ind++
	g.line("const %s ow = ri %% OW, oh = ri / OW %% OH, cn = ri / (OW * OH);", it)
	g.line("const %s dv = (%s)DY[cn * %s + oh * %s + ow * %s];", at, at, g.e(gy.Strides[0]), g.e(gy.Strides[2]), g.e(gy.Strides[3]))
	g.line("const %s *Xn = X + cn * %s;", q+t, g.e(x.Strides[0]))
	for i := int64(0); i < kh; i++ {
		g.line("{ const %s ih = oh * %d - %d + %d; if (ih >= 0 && ih < H) { /* padding: not multiplied (conv_nonfinite.go) */", it, stride[0], pad[0], i*dil[0])
		for j := int64(0); j < kw; j++ {
			g.line("  { const %s iw = ow * %d - %d + %d; if (iw >= 0 && iw < W) %s += dv * (%s)Xn[ih * %s + iw * %s]; }",
				it, stride[1], pad[1], j*dil[1], accs[i*kw+j].acc, at, g.e(x.Strides[2]), g.e(x.Strides[3]))
		}
		g.line("} }")
	}
	g.ind--
	g.line("}")
	for _, a := range accs {
		g.blockReduce(a) // simt_reduce.go: each tap's sum in every thread
	}
	g.line("if (lid == 0) {")
	g.ind++
	for i, a := range accs {
		g.line("%s[pc * %d + %d] = (%s)%s;", out.c, kh*kw, i, t, a.acc)
	}
	if len(g.k.Nodes) > 1 {
		g.line("for (%s f = pc * %d; f < (pc + 1) * %d; f++) {", it, kh*kw, kh*kw)
		g.ind++
		g.closeLoop(n) // the epilogue at the pair's taps
	}
	g.ind--
	g.line("}")
	g.ind--
	g.line("}")
	return true
}

// poolWindowRows opens the loops over window element (kh, kw) of output
// point (oh, ow) inside the image (ih, iw), as a block the caller closes
// with two "}".
func (g *simtGen) poolWindowRows(p poolGeom, ohv, owv string) {
	it := g.idxType()
	g.line("for (%s kh = 0; kh < %d; kh++) {", it, p.kernel[0])
	g.line("  const %s ih = %s * %d - %d + kh * %d;", it, ohv, p.stride[0], p.pad[0], p.dil[0])
	g.line("  if (ih < 0 || ih >= H) continue;")
	g.line("  for (%s kw = 0; kw < %d; kw++) {", it, p.kernel[1])
	g.line("    const %s iw = %s * %d - %d + kw * %d;", it, owv, p.stride[1], p.pad[1], p.dil[1])
	g.line("    if (iw < 0 || iw >= W) continue;")
}

func (g *simtGen) maxPoolSIMT(n *loopir.Node, args []ir.Arg, out *storage, ob *loopir.Buffer) {
	x, _, p := g.poolOperands(n, args, false, true) // conv.go
	if x == nil {
		return
	}
	t, it := g.ctype(ob.DType), g.idxType()
	g.pointLaunch("max_pool2d", ob.Sizes)
	g.pool4(x, ob.Sizes[2], ob.Sizes[3])
	g.gridLoop("NC * OH * OW")
	g.line("const %s ow = f %% OW, oh = f / OW %% OH, nc = f / (OW * OH);", it)
	g.line("%s m = -(%s)%s; /* padding: -inf, which never takes over */", t, t, g.r.d.Inf)
	g.poolWindowRows(p, "oh", "ow")
	g.line("    const %s v = %s;", t, g.xAt(x, "nc", "ih", "iw"))
	g.line("    if (v > m || v != v) m = v; /* the first maximum, or the last NaN */")
	g.line("  }")
	g.line("}")
	g.line("%s[f] = m;", out.c)
	g.closeLoop(n)
}

func (g *simtGen) maxPoolBackwardSIMT(n *loopir.Node, args []ir.Arg, out *storage, ob *loopir.Buffer) {
	x, gy, p := g.poolOperands(n, args, true, true) // conv.go
	if x == nil {
		return
	}
	t, it := g.ctype(ob.DType), g.idxType()
	g.pointLaunch("max_pool2d_backward", ob.Sizes)
	g.pool4(x, gy.Sizes[2], gy.Sizes[3])
	g.gridLoop("NC * H * W")
	g.line("const %s xw = f %% W, xh = f / W %% H, nc = f / (W * H);", it)
	g.line("%s acc = 0;", t)
	g.line("/* the windows holding (xh, xw) in (oh, ow) order: tap kh descending is oh ascending */")
	g.line("for (%s jh = %d; jh >= 0; jh--) {", it, p.kernel[0]-1)
	g.line("  const %s th = xh + %d - jh * %d;", it, p.pad[0], p.dil[0])
	g.line("  if (th < 0 || th %% %d != 0 || th / %d >= OH) continue;", p.stride[0], p.stride[0])
	g.line("  const %s oh = th / %d;", it, p.stride[0])
	g.line("  for (%s jw = %d; jw >= 0; jw--) {", it, p.kernel[1]-1)
	g.line("    const %s tw = xw + %d - jw * %d;", it, p.pad[1], p.dil[1])
	g.line("    if (tw < 0 || tw %% %d != 0 || tw / %d >= OW) continue;", p.stride[1], p.stride[1])
	g.line("    const %s ow = tw / %d;", it, p.stride[1])
	g.ind += 2
	g.line("/* the window's choice as maxpool2d.go makes it: its first element inside the image, then the first maximum or last NaN */")
	g.line("const %s ihs = oh * %d - %d, iws = ow * %d - %d;", it, p.stride[0], p.pad[0], p.stride[1], p.pad[1])
	g.line("const %s kh0 = ihs < 0 ? (-ihs + %d) / %d : 0, kw0 = iws < 0 ? (-iws + %d) / %d : 0;", it, p.dil[0]-1, p.dil[0], p.dil[1]-1, p.dil[1])
	g.line("%s best = (ihs + kh0 * %d) * W + iws + kw0 * %d;", it, p.dil[0], p.dil[1])
	g.line("%s m = -(%s)%s;", t, t, g.r.d.Inf)
	g.poolWindowRows(p, "oh", "ow")
	g.line("    const %s v = %s;", t, g.xAt(x, "nc", "ih", "iw"))
	g.line("    if (v > m || v != v) { m = v; best = ih * W + iw; }")
	g.line("  }")
	g.line("}")
	g.line("if (best == xh * W + xw) acc += %s;", g.xAt(gy, "nc", "oh", "ow"))
	g.ind -= 2
	g.line("  }")
	g.line("}")
	g.line("%s[f] = acc;", out.c)
	g.closeLoop(n)
}

func (g *simtGen) avgPoolSIMT(n *loopir.Node, args []ir.Arg, out *storage, ob *loopir.Buffer) {
	x, _, p := g.poolOperands(n, args, false, false) // conv.go
	if x == nil {
		return
	}
	cip, div := g.avgArgs(args, 5)
	t, it := g.ctype(ob.DType), g.idxType()
	// int64 as conv.go's avgPool: the sum in int64, truncating division.
	acc, res := "double", fmt.Sprintf("(%s)(s / div)", t)
	if ob.DType == tensor.Int64 {
		acc, res = it, fmt.Sprintf("s / (%s)div", it)
	}
	g.pointLaunch("avg_pool2d", ob.Sizes)
	g.pool4(x, ob.Sizes[2], ob.Sizes[3])
	g.gridLoop("NC * OH * OW")
	g.line("const %s ow = f %% OW, oh = f / OW %% OH, nc = f / (OW * OH);", it)
	g.avgWindow(p, cip, div) // conv.go
	g.line("%s s = 0;", acc)
	g.line("for (%s ih = hs; ih < he; ih++) for (%s iw = ws; iw < we; iw++) s += %s;", it, it, g.xAt(x, "nc", "ih", "iw"))
	g.line("%s[f] = (hs >= he || ws >= we) ? 0 : %s;", out.c, res)
	g.closeLoop(n)
}

func (g *simtGen) avgPoolBackwardSIMT(n *loopir.Node, args []ir.Arg, out *storage, ob *loopir.Buffer) {
	x, gy, p := g.poolOperands(n, args, true, false) // conv.go
	if x == nil {
		return
	}
	cip, div := g.avgArgs(args, 6)
	t, it := g.ctype(ob.DType), g.idxType()
	g.pointLaunch("avg_pool2d_backward", ob.Sizes)
	g.pool4(x, gy.Sizes[2], gy.Sizes[3])
	g.gridLoop("NC * H * W")
	g.line("const %s xw = f %% W, xh = f / W %% H, nc = f / (W * H);", it)
	g.line("%s acc = 0;", t)
	g.line("/* the windows that may hold (xh, xw): oh*s - p <= xh < oh*s - p + k */")
	g.line("const %s lh = xh + %d - %d, lw = xw + %d - %d;", it, p.pad[0], p.kernel[0]-1, p.pad[1], p.kernel[1]-1)
	g.line("const %s oh0 = lh > 0 ? (lh + %d) / %d : 0, ow0 = lw > 0 ? (lw + %d) / %d : 0;", it, p.stride[0]-1, p.stride[0], p.stride[1]-1, p.stride[1])
	g.line("for (%s oh = oh0; oh < OH && oh * %d - %d <= xh; oh++)", it, p.stride[0], p.pad[0])
	g.line("  for (%s ow = ow0; ow < OW && ow * %d - %d <= xw; ow++) {", it, p.stride[1], p.pad[1])
	g.ind += 2
	g.avgWindow(p, cip, div) // conv.go
	g.line("if (hs >= he || ws >= we || xh < hs || xh >= he || xw < ws || xw >= we) continue;")
	g.line("acc += (%s)(%s / div);", t, g.xAt(gy, "nc", "oh", "ow"))
	g.ind -= 2
	g.line("  }")
	g.line("%s[f] = acc;", out.c)
	g.closeLoop(n)
}

func (g *simtGen) adaptiveAvgPoolSIMT(n *loopir.Node, args []ir.Arg, out *storage, ob *loopir.Buffer, backward bool) {
	x, gy, oh, ow := g.adaptiveOperands(n, args, ob, backward) // conv.go
	if x == nil {
		return
	}
	t, it := g.ctype(ob.DType), g.idxType()
	g.pointLaunch(n.Op, ob.Sizes)
	g.pool4(x, oh, ow)
	if !backward {
		g.line("/* cell (oh, ow) covers rows floor(oh*H/OH) .. ceil((oh+1)*H/OH)-1, as conv.go */")
		g.gridLoop("NC * OH * OW")
		g.line("const %s ow = f %% OW, oh = f / OW %% OH, nc = f / (OW * OH);", it)
		g.line("const %s hs = oh * H / OH, he = ((oh + 1) * H + OH - 1) / OH, ws = ow * W / OW, we = ((ow + 1) * W + OW - 1) / OW;", it)
		g.line("double s = 0;")
		g.line("for (%s ih = hs; ih < he; ih++) for (%s iw = ws; iw < we; iw++) s += %s;", it, it, g.xAt(x, "nc", "ih", "iw"))
		g.line("%s[f] = (%s)(s / (double)((he - hs) * (we - ws)));", out.c, t)
		g.closeLoop(n)
		return
	}
	g.gridLoop("NC * H * W")
	g.line("const %s xw = f %% W, xh = f / W %% H, nc = f / (W * H);", it)
	g.line("/* the cells holding (xh, xw), in (oh, ow) order: from the cell floor(xh*OH/H) back while the one before still ends after xh */")
	g.line("%s oh0 = xh * OH / H, ow0 = xw * OW / W;", it)
	g.line("while (oh0 > 0 && (oh0 * H + OH - 1) / OH > xh) oh0--;")
	g.line("while (ow0 > 0 && (ow0 * W + OW - 1) / OW > xw) ow0--;")
	g.line("%s acc = 0;", t)
	g.line("for (%s oh = oh0; oh < OH && oh * H / OH <= xh; oh++) {", it)
	g.line("  const %s hs = oh * H / OH, he = ((oh + 1) * H + OH - 1) / OH;", it)
	g.line("  for (%s ow = ow0; ow < OW && ow * W / OW <= xw; ow++) {", it)
	g.line("    const %s ws = ow * W / OW, we = ((ow + 1) * W + OW - 1) / OW;", it)
	g.line("    acc += (%s)(%s / (double)((he - hs) * (we - ws)));", t, g.xAt(gy, "nc", "oh", "ow"))
	g.line("  }")
	g.line("}")
	g.line("%s[f] = acc;", out.c)
	g.closeLoop(n)
}

// maxPoolNDSIMT: max_pool3d_with_indices and its adaptive form, one thread
// per output point walking the window as pool_nd.go's maxPoolND.
func (g *simtGen) maxPoolNDSIMT(n *loopir.Node, args []ir.Arg, out *storage, ob *loopir.Buffer) {
	x, ib, ist, adaptive, k, s, p, d := g.maxPoolNDArgs(n, args, ob) // pool_nd.go
	if x == nil {
		return
	}
	rank := len(x.Sizes)
	t, it, q := g.ctype(ob.DType), g.idxType(), g.r.d.BufferQualifier
	xs, os, is := g.strides(x.Strides), g.strides(ob.Strides), g.strides(ib.Strides)
	sz := func(v []loopir.Expr, i int) string { return g.e(v[rank-3+i]) }
	g.pointLaunch(n.Op, ob.Sizes)
	g.line("const %s C = %s, P = %s, D = %s, H = %s, W = %s, OD = %s, OH = %s, OW = %s;", it, g.e(x.Sizes[rank-4]),
		planesOf(g.kernelGen, x.Sizes), sz(x.Sizes, 0), sz(x.Sizes, 1), sz(x.Sizes, 2), sz(ob.Sizes, 0), sz(ob.Sizes, 1), sz(ob.Sizes, 2))
	g.line("const %s *X = %s;", q+t, g.ptr(x))
	g.gridLoop("P * OD * OH * OW")
	g.line("const %s ow = f %% OW, oh = f / OW %% OH, od = f / (OW * OH) %% OD, pl = f / (OW * OH * OD);", it)
	g.line("(void)C;")
	g.line("const %s *xp = X + %s;", q+t, planeBase(xs, rank, "C"))
	g.maxPoolNDWindow(t, xs, rank, adaptive, k, s, p, d) // pool_nd.go
	g.line("%s[%s + od * (%s) + oh * (%s) + ow * (%s)] = m;", out.c, planeBase(os, rank, "C"), os[rank-3], os[rank-2], os[rank-1])
	g.line("%s[%s + od * (%s) + oh * (%s) + ow * (%s)] = best;", ist.c, planeBase(is, rank, "C"), is[rank-3], is[rank-2], is[rank-1])
	g.closeLoop(n)
}

// maxPoolIndicesBackwardSIMT: adaptive_max_pool3d_backward, one thread per
// plane: zeros, then each output gradient added at its index in output
// order, as pool_nd.go's planeScatter (the same sums in the same order),
// then the kernel's epilogue over the plane's points. The indices are the
// forward pool's; one outside the plane (which the C program stops on) is
// skipped here.
func (g *simtGen) maxPoolIndicesBackwardSIMT(n *loopir.Node, args []ir.Arg, out *storage, ob *loopir.Buffer) {
	gy, x, ix := g.operand(args[0], "grad_output"), g.operand(args[1], "self"), g.operand(args[2], "indices")
	if gy == nil || x == nil || ix == nil || (len(x.Sizes) != 4 && len(x.Sizes) != 5) || len(gy.Sizes) != len(x.Sizes) ||
		len(ix.Sizes) != len(x.Sizes) || len(ob.Sizes) != len(x.Sizes) {
		g.fail("%s %s: 4-D or 5-D grad_output, self and indices are needed", n.Op, n.Name)
		return
	}
	rank := len(x.Sizes)
	t, it, q := g.ctype(ob.DType), g.idxType(), g.r.d.BufferQualifier
	ss, is, os := g.strides(gy.Strides), g.strides(ix.Strides), g.strides(ob.Strides)
	sz := func(v []loopir.Expr, i int) string { return g.e(v[rank-3+i]) }
	g.launch = Launch{Shape: n.Op, Units: g.r.sizeText(loopir.Mul(append([]loopir.Expr{loopir.C(1)}, x.Sizes[:rank-3]...)...)), PerGroup: simtBlock, Block: simtBlock}
	g.line("const %s C = %s, P = %s, D = %s, H = %s, W = %s, OD = %s, OH = %s, OW = %s;", it, g.e(x.Sizes[rank-4]),
		planesOf(g.kernelGen, x.Sizes), sz(gy.Sizes, 0), sz(gy.Sizes, 1), sz(gy.Sizes, 2), sz(ob.Sizes, 0), sz(ob.Sizes, 1), sz(ob.Sizes, 2))
	g.line("const %s *S = %s; const %s *I = %s;", q+t, g.ptr(gy), q+it, g.ptr(ix))
	g.line("for (%s pl = %s; pl < P; pl += %s) {", it, g.r.d.GlobalIdx, g.r.d.GlobalSize)
	g.ind++
	g.line("(void)C;")
	g.line("const %s *sp = S + %s; const %s *ipl = I + %s;", q+t, planeBase(ss, rank, "C"), q+it, planeBase(is, rank, "C"))
	g.line("%s *op = %s + %s;", q+t, out.c, planeBase(os, rank, "C"))
	g.planeScatterLoops(ss, is, os, rank, "+=", "if (j < 0 || j >= OD * OH * OW) continue;") // pool_nd.go
	if len(g.k.Nodes) > 1 {
		// The epilogue over the plane's points, which this thread wrote.
		g.line("for (%s f = pl * OD * OH * OW; f < (pl + 1) * OD * OH * OW; f++) {", it)
		g.ind++
		g.closeLoop(n)
	}
	g.ind--
	g.line("}")
}
