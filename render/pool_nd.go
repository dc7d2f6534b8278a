package render

import (
	"fmt"

	"gcdbg/ir"
	"gcdbg/loopir"
	"gcdbg/tensor"
)

// Max pooling with indices (max_pool3d_with_indices, its adaptive form)
// and max_unpool3d as generated C: 1-D and 2-D pooling reach here as 3-D
// over unit dims (stages/decomp_pool.go). Inputs are [N, C, D, H, W] or
// [C, D, H, W] views; each plane (n, c) is independent and runs in
// parallel when there are many points. The window walk is PyTorch's CPU
// kernel's: row-major from -inf, an element replaces the maximum when it
// is greater or NaN (first maximum, last NaN), the index starting at the
// window's first in-bounds element (tensor/pool_nd.go is the reference).

// planeBase is the C offset of plane pl in a view with strides st of rank
// rank (4: [C, ...], 5: [N, C, ...]; C is the channel count).
func planeBase(st []string, rank int, c string) string {
	if rank == 5 {
		return fmt.Sprintf("(pl / %s) * (%s) + (pl %% %s) * (%s)", c, st[0], c, st[1])
	}
	return fmt.Sprintf("pl * (%s)", st[0])
}

func (g *kernelGen) strides(v []loopir.Expr) []string {
	out := make([]string, len(v))
	for i, e := range v {
		out[i] = g.e(e)
	}
	return out
}

// poolOutputs returns the index buffer (the node's second write) of a
// (values, indices) extern.
func (g *kernelGen) poolIndexOut(n *loopir.Node, rank int) (*loopir.Buffer, *storage) {
	if len(n.Writes) != 2 {
		g.fail("%s %s: expected 2 outputs (values, indices), got %d", n.Op, n.Name, len(n.Writes))
		return nil, nil
	}
	ib := g.r.p.Buffers[n.Writes[1].Buffer]
	ist := g.r.store[n.Writes[1].Buffer]
	if ib == nil || ist == nil || ib.DType != tensor.Int64 || len(ib.Sizes) != rank {
		g.fail("%s %s: the indices output %s is not an int64 buffer of rank %d in memory", n.Op, n.Name, n.Writes[1].Buffer, rank)
		return nil, nil
	}
	g.use(n.Writes[1].Buffer)
	return ib, ist
}

// maxPoolNDArgs reads a (values, indices) pool's input, its index buffer
// and, unless adaptive, its window; x nil after a failure.
func (g *kernelGen) maxPoolNDArgs(n *loopir.Node, args []ir.Arg, ob *loopir.Buffer) (x *loopir.View, ib *loopir.Buffer, ist *storage, adaptive bool, k, s, p, d [3]int64) {
	x = g.operand(args[0], "input")
	if x == nil || (len(x.Sizes) != 4 && len(x.Sizes) != 5) || len(ob.Sizes) != len(x.Sizes) {
		g.fail("%s %s: a 4-D or 5-D input is needed", n.Op, n.Name)
		return nil, nil, nil, false, k, s, p, d
	}
	if ib, ist = g.poolIndexOut(n, len(x.Sizes)); ib == nil {
		return nil, nil, nil, false, k, s, p, d
	}
	adaptive = n.Op == "adaptive_max_pool3d_with_indices"
	if !adaptive {
		var ok bool
		if k, s, p, d, ok = poolTriples(args); !ok {
			g.fail("%s %s: kernel_size, stride, padding or dilation not understood", n.Op, n.Name)
			return nil, nil, nil, false, k, s, p, d
		}
	}
	return x, ib, ist, adaptive, k, s, p, d
}

func (g *kernelGen) maxPoolND(n *loopir.Node, args []ir.Arg, out *storage, ob *loopir.Buffer) {
	x, ib, ist, adaptive, k, s, p, d := g.maxPoolNDArgs(n, args, ob)
	if x == nil {
		return
	}
	rank := len(x.Sizes)
	t := g.ctype(ob.DType)
	xs, os, is := g.strides(x.Strides), g.strides(ob.Strides), g.strides(ib.Strides)
	sz := func(v []loopir.Expr, i int) string { return g.e(v[rank-3+i]) }
	g.line("{ /* %s: row-major window walk, first maximum, last NaN; index d*H*W + h*W + w in the plane */", n.Op)
	g.ind++
	g.line("const int64_t C = %s, P = %s, D = %s, H = %s, W = %s, OD = %s, OH = %s, OW = %s;", g.e(x.Sizes[rank-4]),
		planesOf(g, x.Sizes), sz(x.Sizes, 0), sz(x.Sizes, 1), sz(x.Sizes, 2), sz(ob.Sizes, 0), sz(ob.Sizes, 1), sz(ob.Sizes, 2))
	g.line("const %s *X = %s;", t, g.ptr(x))
	g.line("#pragma omp parallel for if(P * OD * OH * OW > 32768)")
	g.line("for (int64_t pl = 0; pl < P; pl++) {")
	g.ind++
	g.line("(void)C;")
	g.line("const %s *xp = X + %s;", t, planeBase(xs, rank, "C"))
	g.line("%s *vp = %s + %s;", t, out.c, planeBase(os, rank, "C"))
	g.line("int64_t *ip = %s + %s;", ist.c, planeBase(is, rank, "C"))
	names := [3]string{"d", "h", "w"}
	outs := [3]string{"OD", "OH", "OW"}
	for i := 0; i < 3; i++ {
		g.line("for (int64_t o%s = 0; o%s < %s; o%s++) {", names[i], names[i], outs[i], names[i])
		g.ind++
	}
	g.maxPoolNDWindow(t, xs, rank, adaptive, k, s, p, d)
	g.line("vp[od * (%s) + oh * (%s) + ow * (%s)] = m;", os[rank-3], os[rank-2], os[rank-1])
	g.line("ip[od * (%s) + oh * (%s) + ow * (%s)] = best;", is[rank-3], is[rank-2], is[rank-1])
	for i := 0; i < 3; i++ {
		g.ind--
		g.line("}")
	}
	g.ind--
	g.line("}")
	g.ind--
	g.line("}")
}

// maxPoolNDWindow declares output point (od, oh, ow)'s window, d0..d1 by
// dst and likewise h, w (the adaptive cell, or the window clipped to the
// input), and walks it row-major in plane xp into m and best, its index
// d*H*W + h*W + w in the plane: the first maximum, or the last NaN. The C
// loops and the SIMT kernel (simt_convpool.go) share it.
func (g *kernelGen) maxPoolNDWindow(t string, xs []string, rank int, adaptive bool, k, s, p, d [3]int64) {
	it := g.idxType()
	names := [3]string{"d", "h", "w"}
	sizes := [3]string{"D", "H", "W"}
	outs := [3]string{"OD", "OH", "OW"}
	for i := 0; i < 3; i++ {
		if adaptive {
			g.line("const %s %s0 = o%s * %s / %s, %s1 = ((o%s + 1) * %s + %s - 1) / %s, %sst = 1;",
				it, names[i], names[i], sizes[i], outs[i], names[i], names[i], sizes[i], outs[i], outs[i], names[i])
		} else {
			g.line("%s %s0 = o%s * %d - %d; const %s %s1 = %s0 + %d < %s ? %s0 + %d : %s, %sst = %d;",
				it, names[i], names[i], s[i], p[i], it, names[i], names[i], (k[i]-1)*d[i]+1, sizes[i], names[i], (k[i]-1)*d[i]+1, sizes[i], names[i], d[i])
			g.line("while (%s0 < 0) %s0 += %d;", names[i], names[i], d[i])
		}
	}
	g.line("%s best = (d0 * H + h0) * W + w0; %s m = -(%s)%s;", it, t, t, g.r.d.Inf)
	g.line("for (%s z = d0; z < d1; z += dst)", it)
	g.line("  for (%s y = h0; y < h1; y += hst)", it)
	g.line("    for (%s q = w0; q < w1; q += wst) {", it)
	g.line("      const %s v = xp[z * (%s) + y * (%s) + q * (%s)];", t, xs[rank-3], xs[rank-2], xs[rank-1])
	g.line("      if (v > m || v != v) { m = v; best = (z * H + y) * W + q; }")
	g.line("    }")
}

// planesOf is the product of a pooling view's leading (non-spatial) dims.
func planesOf(g *kernelGen, sizes []loopir.Expr) string {
	if len(sizes) == 5 {
		return "(" + g.e(sizes[0]) + ") * (" + g.e(sizes[1]) + ")"
	}
	return g.e(sizes[0])
}

// poolTriples reads max_pool3d_with_indices's kernel_size, stride,
// padding and dilation (args 1-4), each 3 ints after decomposition.
func poolTriples(args []ir.Arg) (k, s, p, d [3]int64, ok bool) {
	read := func(a ir.Arg, def *[3]int64) ([3]int64, bool) {
		var out [3]int64
		var items []ir.Arg
		switch v := a.(type) {
		case nil:
			if def != nil {
				return *def, true
			}
			return out, false
		case int64:
			return [3]int64{v, v, v}, true
		case ir.Tuple:
			items = v
		case ir.List:
			items = v
		default:
			return out, false
		}
		if len(items) == 0 && def != nil {
			return *def, true
		}
		if len(items) == 1 {
			items = []ir.Arg{items[0], items[0], items[0]}
		}
		if len(items) != 3 {
			return out, false
		}
		for i, it := range items {
			v, isInt := it.(int64)
			if !isInt {
				return out, false
			}
			out[i] = v
		}
		return out, true
	}
	if len(args) < 5 {
		return k, s, p, d, false
	}
	var ok1, ok2, ok3, ok4 bool
	k, ok1 = read(args[1], nil)
	s, ok2 = read(args[2], &k)
	zero, one := [3]int64{}, [3]int64{1, 1, 1}
	p, ok3 = read(args[3], &zero)
	d, ok4 = read(args[4], &one)
	return k, s, p, d, ok1 && ok2 && ok3 && ok4
}

// maxUnpool writes max_unpool3d: zeros, then each input element of a
// plane at the position its index names, in order (a repeated index
// keeps the last); an index outside the output plane stops the program
// naming the node, as PyTorch raises.
func (g *kernelGen) maxUnpool(n *loopir.Node, args []ir.Arg, out *storage, ob *loopir.Buffer) {
	x, ix := g.operand(args[0], "input"), g.operand(args[1], "indices")
	if x == nil || ix == nil || (len(x.Sizes) != 4 && len(x.Sizes) != 5) || len(ix.Sizes) != len(x.Sizes) || len(ob.Sizes) != len(x.Sizes) {
		g.fail("%s %s: 4-D or 5-D input and indices are needed", n.Op, n.Name)
		return
	}
	g.planeScatter(n, x, x, ix, out, ob, "=", "max_unpool3d: each element to the plane position its index names, in order; the rest zero", "an output plane of max_unpool")
}

// maxPoolIndicesBackward writes adaptive_max_pool3d_backward(grad_output,
// self, indices), the gradient of both pools with indices: per plane,
// zeros, then each output gradient added at its index, in order.
func (g *kernelGen) maxPoolIndicesBackward(n *loopir.Node, args []ir.Arg, out *storage, ob *loopir.Buffer) {
	gy, x, ix := g.operand(args[0], "grad_output"), g.operand(args[1], "self"), g.operand(args[2], "indices")
	if gy == nil || x == nil || ix == nil || (len(x.Sizes) != 4 && len(x.Sizes) != 5) || len(gy.Sizes) != len(x.Sizes) ||
		len(ix.Sizes) != len(x.Sizes) || len(ob.Sizes) != len(x.Sizes) {
		g.fail("%s %s: 4-D or 5-D grad_output, self and indices are needed", n.Op, n.Name)
		return
	}
	g.planeScatter(n, gy, x, ix, out, ob, "+=", n.Op+": each output gradient added at the input element its index names", "an input plane of the pool")
}

// planeScatter writes, per plane of x's leading dims, zeros into out and
// then each element of src (D×H×W) at the position its index names in
// out's plane (OD×OH×OW), in order, with assign ("=" for max_unpool, "+="
// for the pools' gradient). x gives the channel and plane counts; an index
// outside the plane stops the program naming the node.
func (g *kernelGen) planeScatter(n *loopir.Node, src, x, ix *loopir.View, out *storage, ob *loopir.Buffer, assign, comment, what string) {
	rank := len(x.Sizes)
	t := g.ctype(ob.DType)
	ss, is, os := g.strides(src.Strides), g.strides(ix.Strides), g.strides(ob.Strides)
	sz := func(v []loopir.Expr, i int) string { return g.e(v[rank-3+i]) }
	node := sanitizeIdent(n.Name)
	if len(n.Origins) > 0 {
		node = sanitizeIdent(n.Origins[len(n.Origins)-1]) + " (" + node + ")"
	}
	g.line("{ /* %s */", comment)
	g.ind++
	g.line("const int64_t C = %s, P = %s, D = %s, H = %s, W = %s, OD = %s, OH = %s, OW = %s;", g.e(x.Sizes[rank-4]),
		planesOf(g, x.Sizes), sz(src.Sizes, 0), sz(src.Sizes, 1), sz(src.Sizes, 2), sz(ob.Sizes, 0), sz(ob.Sizes, 1), sz(ob.Sizes, 2))
	g.line("const %s *S = %s; const int64_t *I = %s;", t, g.ptr(src), g.ptr(ix))
	g.line("#pragma omp parallel for if(P * D * H * W > 32768)")
	g.line("for (int64_t pl = 0; pl < P; pl++) {")
	g.ind++
	g.line("(void)C;")
	g.line("const %s *sp = S + %s; const int64_t *ipl = I + %s;", t, planeBase(ss, rank, "C"), planeBase(is, rank, "C"))
	g.line("%s *op = %s + %s;", t, out.c, planeBase(os, rank, "C"))
	g.planeScatterLoops(ss, is, os, rank, assign,
		fmt.Sprintf("if (__builtin_expect(j < 0 || j >= OD * OH * OW, 0)) gcdbg_oob(\"%s\", \"%s\", j, OD * OH * OW);", node, what))
	g.ind--
	g.line("}")
	g.ind--
	g.line("}")
}

// planeScatterLoops zeros plane op (OD×OH×OW) and adds (assign) each
// element of plane sp (D×H×W) at the position index plane ipl names, in
// order; oob is the statement for an index outside the plane. The C
// loops and the SIMT kernel (simt_convpool.go) share it.
func (g *kernelGen) planeScatterLoops(ss, is, os []string, rank int, assign, oob string) {
	it := g.idxType()
	g.line("for (%s a = 0; a < OD; a++) for (%s b = 0; b < OH; b++) for (%s c = 0; c < OW; c++)", it, it, it)
	g.line("  op[a * (%s) + b * (%s) + c * (%s)] = 0;", os[rank-3], os[rank-2], os[rank-1])
	g.line("for (%s a = 0; a < D; a++) for (%s b = 0; b < H; b++) for (%s c = 0; c < W; c++) {", it, it, it)
	g.line("  const %s j = ipl[a * (%s) + b * (%s) + c * (%s)];", it, is[rank-3], is[rank-2], is[rank-1])
	g.line("  %s", oob)
	g.line("  const %s jd = j / (OH * OW), jh = (j / OW) %% OH, jw = j %% OW;", it)
	g.line("  op[jd * (%s) + jh * (%s) + jw * (%s)] %s sp[a * (%s) + b * (%s) + c * (%s)];", os[rank-3], os[rank-2], os[rank-1], assign, ss[rank-3], ss[rank-2], ss[rank-1])
	g.line("}")
}
