package render

import (
	"fmt"

	"gcdbg/ir"
	"gcdbg/loopir"
	"gcdbg/tensor"
)

// cummax and cummin as generated C: cumsum's linear scan per row (scan.go's
// plan), carrying the running extremum and its index. The step is ATen's
// cummax_cummin_helper: element j takes over when it is NaN, or when the
// running value is not NaN and x[j] >= it (cummin: <=), so ties report the
// latest index and a NaN sticks, each later NaN taking its index
// (tensor.CumMaxMin is the eager form). c != c is the NaN test, false for
// integers and bool; no -ffast-math, so it holds for floats.

// cumExtremeIndices is the int64 indices output (the node's second write).
func (g *kernelGen) cumExtremeIndices(n *loopir.Node) (*loopir.Buffer, *storage, bool) {
	if len(n.Writes) != 2 {
		g.fail("%s %s: expected 2 outputs (values, indices), got %d", n.Op, n.Name, len(n.Writes))
		return nil, nil, false
	}
	ib, ist := g.r.p.Buffers[n.Writes[1].Buffer], g.r.store[n.Writes[1].Buffer]
	if ib == nil || ist == nil || ib.DType != tensor.Int64 {
		g.fail("%s %s: the indices output %s is not an int64 buffer in memory", n.Op, n.Name, n.Writes[1].Buffer)
		return nil, nil, false
	}
	g.use(n.Writes[1].Buffer)
	return ib, ist, true
}

// cumExtremeStep is the loop body at position j of a row: it reads the
// element, moves the running value v_ and index a_, and stores both.
func cumExtremeStep(op, t, x, sx, vals, so, idx, si, it string) string {
	cmp := ">="
	if op == "cummin" {
		cmp = "<="
	}
	return fmt.Sprintf("const %[1]s c_ = %[2]s[xo + j * (%[3]s)]; if (j == 0 || c_ != c_ || (v_ == v_ && c_ %[4]s v_)) { v_ = c_; a_ = j; } "+
		"%[5]s[vo + j * (%[6]s)] = v_; %[7]s[io + j * (%[8]s)] = (%[9]s)a_;", t, x, sx, cmp, vals, so, idx, si, it)
}

// cumExtremeExtern writes the cummax/cummin of n: values into out, int64
// indices into the node's second write.
func (g *kernelGen) cumExtremeExtern(n *loopir.Node, args []ir.Arg, out *storage, ob *loopir.Buffer) {
	x := g.operand(args[0], n.Op+" self")
	if x == nil {
		return
	}
	ib, ist, ok := g.cumExtremeIndices(n)
	if !ok {
		return
	}
	sp, ok := g.scanPlan(n, args, x, ob, ib)
	if !ok {
		return
	}
	if x.DType != ob.DType {
		g.fail("%s %s: values are %s, self %s", n.Op, n.Name, ob.DType, x.DType)
		return
	}
	t := g.ctype(ob.DType)
	g.line("/* %s %s along dim %d: one linear scan per row; NaN sticks, ties take the latest index */", n.Op, n.Name, sp.dim)
	g.line("{")
	g.ind++
	g.line("const int64_t R = %s, NO = %s;", sp.R, sp.NO)
	g.line("const %s *X = %s;", t, g.ptr(x))
	g.line("#pragma omp parallel for if(NO > 1 && NO * R > 16384)")
	g.line("for (int64_t o = 0; o < NO; o++) {")
	g.ind++
	g.line("int64_t rem = o, xo = 0, vo = 0, io = 0;")
	for _, l := range sp.unravel {
		g.line("%s", l)
	}
	g.line("%s v_ = 0; int64_t a_ = 0;", t)
	g.line("for (int64_t j = 0; j < R; j++) { %s }", cumExtremeStep(n.Op, t, "X", sp.sx, out.c, sp.so, ist.c, sp.si, g.ctype(tensor.Int64)))
	g.ind--
	g.line("}")
	g.ind--
	g.line("}")
}

// cumExtremeSIMT is cummax/cummin on the GPU: one thread scans each row, in
// the C scan's order; the kernel's other members run at every point the
// thread stores.
func (g *simtGen) cumExtremeSIMT(n *loopir.Node, args []ir.Arg, out *storage, ob *loopir.Buffer) {
	x := g.operand(args[0], n.Op+" self")
	if x == nil {
		return
	}
	ib, ist, ok := g.cumExtremeIndices(n)
	if !ok {
		return
	}
	sp, ok := g.scanPlan(n, args, x, ob, ib)
	if !ok {
		return
	}
	if x.DType != ob.DType {
		g.fail("%s %s: values are %s, self %s", n.Op, n.Name, ob.DType, x.DType)
		return
	}
	var other []loopir.Expr
	for i, s := range x.Sizes {
		if i != sp.dim {
			other = append(other, s)
		}
	}
	t, it, d := g.ctype(ob.DType), g.idxType(), g.r.d
	g.launch = Launch{Shape: "pointwise", Units: g.r.sizeText(loopir.Mul(append([]loopir.Expr{loopir.C(1)}, other...)...)), PerGroup: simtBlock, Block: simtBlock}
	g.line("/* %s %s along dim %d: one thread scans each row; NaN sticks, ties take the latest index */", n.Op, n.Name, sp.dim)
	g.line("const %s R = %s, NO = %s;", it, sp.R, sp.NO)
	g.line("const %s *X = %s;", d.BufferQualifier+t, g.ptr(x))
	g.line("for (%s o = %s; o < NO; o += %s) {", it, d.GlobalIdx, d.GlobalSize)
	g.ind++
	g.line("%s rem = o, xo = 0, vo = 0, io = 0;", it)
	for _, l := range sp.unravel {
		g.line("%s", l)
	}
	g.line("%s v_ = 0; %s a_ = 0;", t, it)
	g.line("for (%s j = 0; j < R; j++) {", it)
	g.ind++
	g.line("%s", cumExtremeStep(n.Op, t, "X", sp.sx, out.c, sp.so, ist.c, sp.si, g.ctype(tensor.Int64)))
	g.epilogue(n, "(vo + j * ("+sp.so+"))")
	g.ind--
	g.line("}")
	g.ind--
	g.line("}")
}
