package render

import (
	"fmt"

	"gcdbg/ir"
	"gcdbg/loopir"
	"gcdbg/tensor"
)

// Extern kernels on the GPU: mm and bmm as a tiled shared-memory GEMM
// (16x16 tiles of C per block, A and B staged through shared memory one
// 16-wide slice of K at a time), conv2d as direct loops with one thread
// per output point. In both, the thread that writes an output point runs
// the kernel's epilogue members there (it reads its own store back).

const simtTile = 16

func (g *simtGen) extern(n *loopir.Node) {
	args := g.externArgs(n)
	out := g.r.store[n.Name]
	if args == nil || out == nil {
		g.fail("extern %s has no output buffer", n.Name)
		return
	}
	g.use(n.Name)
	ob := g.r.p.Buffers[n.Name]
	switch n.Op {
	case "mm", "bmm":
		g.gemm(n, args, out, ob)
	case "conv2d":
		g.convSIMT(n, args, out, ob)
	case "conv2d_backward_input":
		g.convBackwardInputSIMT(n, args, out, ob) // simt_convpool.go
	case "conv2d_backward_weight":
		g.convBackwardWeightSIMT(n, args, out, ob)
	case "max_pool2d":
		g.maxPoolSIMT(n, args, out, ob)
	case "max_pool2d_backward":
		g.maxPoolBackwardSIMT(n, args, out, ob)
	case "avg_pool2d":
		g.avgPoolSIMT(n, args, out, ob)
	case "avg_pool2d_backward":
		g.avgPoolBackwardSIMT(n, args, out, ob)
	case "adaptive_avg_pool2d", "adaptive_avg_pool2d_backward":
		g.adaptiveAvgPoolSIMT(n, args, out, ob, n.Op == "adaptive_avg_pool2d_backward")
	case "max_pool3d_with_indices", "adaptive_max_pool3d_with_indices":
		g.maxPoolNDSIMT(n, args, out, ob)
	case "adaptive_max_pool3d_backward":
		g.maxPoolIndicesBackwardSIMT(n, args, out, ob)
	case "sort", "topk":
		g.sortSIMT(n, args, out, ob)
	case "cumsum", "cumprod", "logcumsumexp", "cummax", "cummin":
		g.scanSIMT(n, args, out, ob) // scan.go, cummax.go
	default:
		g.fail("extern %s: no generated GPU code for %s", n.Name, n.Op)
	}
}

// epilogue runs the kernel's other members at flat output point f.
func (g *simtGen) epilogue(ext *loopir.Node, f string) {
	var rest []*loopir.Node
	for _, m := range g.k.Nodes {
		if m != ext {
			rest = append(rest, m)
		}
	}
	if len(rest) == 0 {
		return
	}
	g.unravel(f, loopNames("x", len(g.sp.outer)), g.sp.outer)
	g.push()
	g.emitMembers(rest, false)
	g.pop()
}

func (g *simtGen) gemm(n *loopir.Node, args []ir.Arg, out *storage, ob *loopir.Buffer) {
	bmm := n.Op == "bmm"
	rank := 2
	if bmm {
		rank = 3
	}
	a, b := g.operand(args[0], n.Op+" self"), g.operand(args[1], n.Op+" mat2")
	if a == nil || b == nil || len(a.Sizes) != rank || len(b.Sizes) != rank {
		g.fail("%s %s: operands must have %d dims", n.Op, n.Name, rank)
		return
	}
	o := rank - 2 // the first matrix dim
	t := g.ctype(ob.DType)
	it := g.idxType()
	T := int64(simtTile)
	g.shared = append(g.shared, fmt.Sprintf("%s As[%d][%d];", t, T, T+1), fmt.Sprintf("%s Bs[%d][%d];", t, T, T+1))
	g.launch = Launch{Shape: "gemm", PerGroup: 1, Block: int(T * T)}
	nb, sab, sbb := "1", "0", "0"
	units := loopir.Mul(loopir.FloorDiv(loopir.Add(a.Sizes[o], loopir.C(T-1)), loopir.C(T)),
		loopir.FloorDiv(loopir.Add(b.Sizes[o+1], loopir.C(T-1)), loopir.C(T)))
	if bmm {
		nb, sab, sbb = g.e(a.Sizes[0]), g.e(a.Strides[0]), g.e(b.Strides[0])
		units = loopir.Mul(a.Sizes[0], units)
	}
	g.launch.Units = g.r.sizeText(units)
	d := g.r.d
	g.line("const %s lid = %s;", it, d.LocalIdx)
	g.line("const %s M = %s, N = %s, K = %s, NB = %s;", it, g.e(a.Sizes[o]), g.e(b.Sizes[o+1]), g.e(a.Sizes[o+1]), nb)
	g.line("const %s TM = (M + %d) / %d, TN = (N + %d) / %d;", it, T-1, T, T-1, T)
	g.line("const %s ty = lid / %d, tx = lid %% %d;", it, T, T)
	g.line("for (%s tile = %s; tile < NB * TM * TN; tile += %s) {", it, d.GroupIdx, d.NumGroups)
	g.ind++
	g.line("const %s bi = tile / (TM * TN), i = (tile / TN) %% TM * %d + ty, j = tile %% TN * %d + tx;", it, T, T)
	g.line("const %s *A = %s + bi * %s; const %s *B = %s + bi * %s;", d.BufferQualifier+t, g.ptr(a), sab, d.BufferQualifier+t, g.ptr(b), sbb)
	g.line("%s acc = 0;", t)
	g.line("for (%s k0 = 0; k0 < K; k0 += %d) {", it, T)
	g.ind++
	g.line("As[ty][tx] = (i < M && k0 + tx < K) ? A[i * %s + (k0 + tx) * %s] : (%s)0;", g.e(a.Strides[o]), g.e(a.Strides[o+1]), t)
	g.line("Bs[ty][tx] = (k0 + ty < K && j < N) ? B[(k0 + ty) * %s + j * %s] : (%s)0;", g.e(b.Strides[o]), g.e(b.Strides[o+1]), t)
	g.line("%s", d.Barrier)
	g.line("for (int kk = 0; kk < %d; kk++) acc += As[ty][kk] * Bs[kk][tx];", T)
	g.line("%s", d.Barrier)
	g.ind--
	g.line("}")
	g.line("if (i < M && j < N) {")
	g.ind++
	g.line("const %s f = (bi * M + i) * N + j;", it)
	g.line("%s[f] = acc;", out.c)
	g.epilogue(n, "f")
	g.ind--
	g.line("}")
	g.ind--
	g.line("}")
}

// convSIMT is direct convolution, one thread per output point.
func (g *simtGen) convSIMT(n *loopir.Node, args []ir.Arg, out *storage, ob *loopir.Buffer) {
	x, w := g.operand(args[0], "conv2d input"), g.operand(args[1], "conv2d weight")
	if x == nil || w == nil || len(w.Sizes) != 4 || (len(x.Sizes) != 4 && len(x.Sizes) != 3) {
		g.fail("conv2d %s: input must be 3-D or 4-D and weight 4-D", n.Name)
		return
	}
	var bias *loopir.View
	if args[2] != nil {
		if bias = g.operand(args[2], "conv2d bias"); bias == nil {
			return
		}
	}
	stride, ok1 := pairArg(args[3])
	dil, ok3 := pairArg(args[5])
	groups, ok4 := args[6].(int64)
	pad, ok2 := convPadding(args[4], w, dil)
	if !ok1 || !ok2 || !ok3 || !ok4 || groups < 1 {
		g.fail("conv2d %s: stride, padding, dilation or groups not understood", n.Name)
		return
	}
	xs, xst, os, nb, sxn := g.convImages(x, ob)
	t, it, d := g.ctype(ob.DType), g.idxType(), g.r.d
	acc := t
	if ob.DType == tensor.Float32 {
		acc = "double"
	}
	g.launch = Launch{Shape: "conv2d", Units: g.r.sizeText(loopir.Mul(append([]loopir.Expr{loopir.C(1)}, ob.Sizes...)...)), PerGroup: simtBlock, Block: simtBlock}
	g.line("const %s NB = %s, OC = %s, OH = %s, OW = %s, H = %s, W = %s;", it, nb, g.e(os[0]), g.e(os[1]), g.e(os[2]), g.e(xs[1]), g.e(xs[2]))
	g.line("const %s CG = %s, OCG = OC / %d, KH = %s, KW = %s;", it, g.e(w.Sizes[1]), groups, g.e(w.Sizes[2]), g.e(w.Sizes[3]))
	g.line("const %s *X = %s; const %s *Wt = %s;", d.BufferQualifier+t, g.ptr(x), d.BufferQualifier+t, g.ptr(w))
	g.line("for (%s f = %s; f < NB * OC * OH * OW; f += %s) {", it, d.GlobalIdx, d.GlobalSize)
	g.ind++
	g.line("const %s ow = f %% OW, oh = f / OW %% OH, co = f / (OW * OH) %% OC, cn = f / (OW * OH * OC), cg = co / OCG;", it)
	if bias != nil {
		g.line("%s acc = %s[co * %s];", acc, g.ptr(bias), g.e(bias.Strides[0]))
	} else {
		g.line("%s acc = 0;", acc)
	}
	g.line("for (%s ci = 0; ci < CG; ci++)", it)
	g.line("  for (%s kh = 0; kh < KH; kh++) {", it)
	g.line("    const %s ih = oh * %d - %d + kh * %d;", it, stride[0], pad[0], dil[0])
	g.line("    if (ih < 0 || ih >= H) continue;")
	g.line("    for (%s kw = 0; kw < KW; kw++) {", it)
	g.line("      const %s iw = ow * %d - %d + kw * %d;", it, stride[1], pad[1], dil[1])
	g.line("      if (iw < 0 || iw >= W) continue;")
	g.line("      acc += (%s)X[cn * %s + (cg * CG + ci) * %s + ih * %s + iw * %s] * (%s)Wt[co * %s + ci * %s + kh * %s + kw * %s];",
		acc, sxn, g.e(xst[0]), g.e(xst[1]), g.e(xst[2]), acc, g.e(w.Strides[0]), g.e(w.Strides[1]), g.e(w.Strides[2]), g.e(w.Strides[3]))
	g.line("    }")
	g.line("  }")
	g.line("%s[f] = (%s)acc;", out.c, t)
	g.epilogue(n, "f")
	g.ind--
	g.line("}")
}

// convPadding reads conv2d's padding: ints, "valid", or "same" with a
// symmetric split (as the C path: asymmetric "same" is not generated).
func convPadding(p ir.Arg, w *loopir.View, dil [2]int64) ([2]int64, bool) {
	var pad [2]int64
	s, isStr := p.(string)
	if !isStr {
		return pairArg(p)
	}
	switch s {
	case "valid":
		return pad, true
	case "same":
		for i := 0; i < 2; i++ {
			k, isC := w.Sizes[2+i].(loopir.Const)
			if !isC || dil[i]*(k.V-1)%2 != 0 {
				return pad, false
			}
			pad[i] = dil[i] * (k.V - 1) / 2
		}
		return pad, true
	}
	return pad, false
}
