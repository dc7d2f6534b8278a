package render

import (
	"fmt"

	"gcdbg/loopir"
	"gcdbg/tensor"
)

// cummax and cummin as generated C and SIMT code: cumsum's linear scan per
// row (scan.go: scanExtern, scanSIMT), carrying the running extremum and
// its index. The step is ATen's cummax_cummin_helper: element j takes over
// when it is NaN, or when the running value is not NaN and x[j] >= it
// (cummin: <=), so ties report the latest index and a NaN sticks, each
// later NaN taking its index (tensor.CumMaxMin is the eager form). c != c
// is the NaN test, false for integers and bool; no -ffast-math, so it
// holds for floats.

// cumExtremeIndices is the int64 indices output (the node's second write),
// of the values' shape; the values are in self's dtype.
func (g *kernelGen) cumExtremeIndices(n *loopir.Node, x *loopir.View, ob *loopir.Buffer) (*loopir.Buffer, *storage, bool) {
	if len(n.Writes) != 2 {
		g.fail("%s %s: expected 2 outputs (values, indices), got %d", n.Op, n.Name, len(n.Writes))
		return nil, nil, false
	}
	ib, ist := g.r.p.Buffers[n.Writes[1].Buffer], g.r.store[n.Writes[1].Buffer]
	if ib == nil || ist == nil || ib.DType != tensor.Int64 || len(ib.Sizes) != len(ob.Sizes) || x.DType != ob.DType {
		g.fail("%s %s: the indices output %s is not an int64 buffer in memory of the values' shape, or the values are not self's dtype", n.Op, n.Name, n.Writes[1].Buffer)
		return nil, nil, false
	}
	g.use(n.Writes[1].Buffer)
	return ib, ist, true
}

// cumExtremeStep is the loop body at position j of a row: it reads the
// element, moves the running value v_ and index a_, stores both.
func cumExtremeStep(op, t string, sp scanPlan, vals string) string {
	cmp := ">="
	if op == "cummin" {
		cmp = "<="
	}
	return fmt.Sprintf("const %[1]s c_ = X[xo + j * (%[2]s)]; if (j == 0 || c_ != c_ || (v_ == v_ && c_ %[3]s v_)) { v_ = c_; a_ = j; } "+
		"%[4]s[vo + j * (%[5]s)] = v_; %[6]s[io + j * (%[7]s)] = (%[8]s)a_;", t, sp.sx, cmp, vals, sp.so, sp.ist.c, sp.si, sp.i64)
}
