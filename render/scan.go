package render

import (
	"fmt"
	"strings"

	"gcdbg/ir"
	"gcdbg/loopir"
	"gcdbg/tensor"
)

// cumsum, cumprod and logcumsumexp as generated C: a linear scan per row (the slices
// along the scan dimension; rows run in parallel when there are many
// points), where their decomposition was a masked [n, n] reduction. The
// running sum (product) is kept as PyTorch's CPU kernel keeps it: in double
// for floating outputs (its accumulate type), in int64 for integers, and
// every prefix is rounded to the output dtype when stored.

type scanPlan struct {
	dim                      int
	R, NO, sx, so, si, accTy string   // si: the indices' stride along dim (cummax/cummin)
	ist                      *storage // cummax/cummin's int64 indices (cummax.go); nil for the value scans
	i64                      string   // the dialect's int64 type
	init, step               string   // "0", "+=" for cumsum; "1", "*=" for cumprod; "-INFINITY", "" for logcumsumexp
	unravel                  []string
}

// update is the statement that folds the element v (an expression of the
// accumulator's type) into acc. logcumsumexp is ATen's _log_add_exp_helper
// on the double accumulator: min/max as std::min/std::max pick them (NaN in
// acc propagates), log1p(exp(min - max)) + max unless both are the same
// infinity, where the element itself.
func (sp scanPlan) update(v string) string {
	if sp.step != "" {
		return fmt.Sprintf("acc %s %s;", sp.step, v)
	}
	return fmt.Sprintf("{ const %[1]s v_ = %[2]s; const %[1]s mn_ = isnan(acc) ? acc : (acc < v_ ? acc : v_); "+
		"const %[1]s mx_ = isnan(acc) ? acc : (v_ < acc ? acc : v_); "+
		"acc = (mn_ != mx_ || isfinite(mn_)) ? log1p(exp(mn_ - mx_)) + mx_ : v_; }", sp.accTy, v)
}

// cummax and cummin (cummax.go) have a second output, the indices: the
// unravel lines then step its offset io too.
func (g *kernelGen) scanPlan(n *loopir.Node, args []ir.Arg, x *loopir.View, ob *loopir.Buffer) (scanPlan, bool) {
	sp := scanPlan{init: "0", step: "+=", i64: g.ctype(tensor.Int64)}
	var ib *loopir.Buffer
	switch n.Op {
	case "cumprod":
		sp.init, sp.step = "1", "*="
	case "logcumsumexp":
		sp.init, sp.step = "-INFINITY", ""
	case "cummax", "cummin":
		var ok bool
		if ib, sp.ist, ok = g.cumExtremeIndices(n, x, ob); !ok {
			return sp, false
		}
	}
	dim, ok := args[1].(int64)
	if !ok {
		g.fail("%s %s: dim must be a constant (got %v)", n.Op, n.Name, args[1])
		return sp, false
	}
	rank := len(x.Sizes)
	if len(ob.Sizes) != rank || ib != nil && len(ib.Sizes) != rank {
		g.fail("%s %s: output has rank %d, input %d", n.Op, n.Name, len(ob.Sizes), rank)
		return sp, false
	}
	sp.R, sp.sx, sp.so, sp.si = "1", "0", "0", "0"
	if rank > 0 {
		d, err := tensor.NormDim(int(dim), rank)
		if err != nil {
			g.fail("%s %s: dim %d: %v", n.Op, n.Name, dim, err)
			return sp, false
		}
		sp.dim = d
		sp.R, sp.sx, sp.so = g.e(x.Sizes[d]), g.e(x.Strides[d]), g.e(ob.Strides[d])
		if ib != nil {
			sp.si = g.e(ib.Strides[d])
		}
	}
	sp.accTy = g.ctype(tensor.Int64)
	if ob.DType.IsFloat() {
		sp.accTy = g.ctype(tensor.Float64)
	}
	no := []string{"1"}
	for i := rank - 1; i >= 0; i-- {
		if i == sp.dim {
			continue
		}
		no = append(no, "("+g.e(x.Sizes[i])+")")
		io := ""
		if ib != nil {
			io = fmt.Sprintf(" io += c * (%s);", g.e(ib.Strides[i]))
		}
		sp.unravel = append(sp.unravel, fmt.Sprintf("{ const %s c = rem %% (%s); rem /= (%s); xo += c * (%s); vo += c * (%s);%s }",
			g.idxType(), g.e(x.Sizes[i]), g.e(x.Sizes[i]), g.e(x.Strides[i]), g.e(ob.Strides[i]), io))
	}
	sp.NO = strings.Join(no, " * ")
	return sp, true
}

// row is a scan's per-row C: the offsets' declaration (it their type), the
// running state's, and the step at position j that stores the prefix.
func (sp scanPlan) row(op, t, it string, out *storage) (offsets, state, step string) {
	if sp.ist != nil { // cummax, cummin
		return it + " rem = o, xo = 0, vo = 0, io = 0;", fmt.Sprintf("%s v_ = 0; %s a_ = 0;", t, it),
			cumExtremeStep(op, t, sp, out.c)
	}
	return it + " rem = o, xo = 0, vo = 0;", fmt.Sprintf("%s acc = %s;", sp.accTy, sp.init),
		fmt.Sprintf("%s %s[vo + j * (%s)] = (%s)acc;", sp.update(fmt.Sprintf("(%s)X[xo + j * (%s)]", sp.accTy, sp.sx)), out.c, sp.so, t)
}

// what names the running state in the kernel's comment.
func (sp scanPlan) what() string {
	if sp.ist != nil {
		return "the extremum and its index (NaN sticks, ties take the latest index)"
	}
	return "the running value in " + sp.accTy
}

// scanExtern writes the cumsum, cumprod, logcumsumexp, cummax or cummin of
// n into out (and cummax's indices into its second output).
func (g *kernelGen) scanExtern(n *loopir.Node, args []ir.Arg, out *storage, ob *loopir.Buffer) {
	x := g.operand(args[0], n.Op+" self")
	if x == nil {
		return
	}
	sp, ok := g.scanPlan(n, args, x, ob)
	if !ok {
		return
	}
	t, xt := g.ctype(ob.DType), g.ctype(x.DType)
	offsets, state, step := sp.row(n.Op, t, "int64_t", out)
	g.line("/* %s %s along dim %d: one linear scan per row, %s */", n.Op, n.Name, sp.dim, sp.what())
	g.line("{")
	g.ind++
	g.line("const int64_t R = %s, NO = %s;", sp.R, sp.NO)
	g.line("const %s *X = %s;", xt, g.ptr(x))
	g.line("#pragma omp parallel for if(NO > 1 && NO * R > 16384)")
	g.line("for (int64_t o = 0; o < NO; o++) {")
	g.ind++
	g.line("%s", offsets)
	for _, l := range sp.unravel {
		g.line("%s", l)
	}
	g.line("%s", state)
	g.line("for (int64_t j = 0; j < R; j++) { %s }", step)
	g.ind--
	g.line("}")
	g.ind--
	g.line("}")
}

// scanSIMT is a scan on the GPU: one thread per row, each scanning its row
// in order (the same sums, in the same order, as the C scan); the kernel's
// other members run at every point the thread stores.
func (g *simtGen) scanSIMT(n *loopir.Node, args []ir.Arg, out *storage, ob *loopir.Buffer) {
	x := g.operand(args[0], n.Op+" self")
	if x == nil {
		return
	}
	sp, ok := g.scanPlan(n, args, x, ob)
	if !ok {
		return
	}
	var other []loopir.Expr
	for i, s := range x.Sizes {
		if i != sp.dim {
			other = append(other, s)
		}
	}
	t, xt, it, d := g.ctype(ob.DType), g.ctype(x.DType), g.idxType(), g.r.d
	g.launch = Launch{Shape: "pointwise", Units: g.r.sizeText(loopir.Mul(append([]loopir.Expr{loopir.C(1)}, other...)...)), PerGroup: simtBlock, Block: simtBlock}
	offsets, state, step := sp.row(n.Op, t, it, out)
	g.line("/* %s %s along dim %d: one thread scans each row, %s */", n.Op, n.Name, sp.dim, sp.what())
	g.line("const %s R = %s, NO = %s;", it, sp.R, sp.NO)
	g.line("const %s *X = %s;", d.BufferQualifier+xt, g.ptr(x))
	g.line("for (%s o = %s; o < NO; o += %s) {", it, d.GlobalIdx, d.GlobalSize)
	g.ind++
	g.line("%s", offsets)
	for _, l := range sp.unravel {
		g.line("%s", l)
	}
	g.line("%s", state)
	g.line("for (%s j = 0; j < R; j++) {", it)
	g.ind++
	g.line("%s", step)
	g.epilogue(n, "(vo + j * ("+sp.so+"))")
	g.ind--
	g.line("}")
	g.ind--
	g.line("}")
}
