package render

import (
	"fmt"
	"strings"

	"gcdbg/loopir"
	"gcdbg/tensor"
)

// Reductions follow PyTorch's numerics: max/min propagate NaN;
// argmax/argmin return the first index of the extreme value, and the
// first NaN wins. Float sums accumulate in double (a float32 accumulator
// loses digits over long rows), in a CPU vector pass (vector.go) one
// double partial per vector lane.

func (g *kernelGen) accType(a *accum) string {
	switch a.op {
	case "sum", "prod":
		if a.in.IsFloat() {
			return "double"
		}
		return g.idxType()
	}
	return g.ctype(a.in)
}

// extreme is the identity of max (lowest) or min (highest) for dt.
func (g *kernelGen) extreme(dt tensor.DType, lowest bool) string {
	if dt.IsFloat() {
		if lowest {
			return "(-(" + g.ctype(dt) + ")" + g.r.d.Inf + ")"
		}
		return "((" + g.ctype(dt) + ")" + g.r.d.Inf + ")"
	}
	lims := map[tensor.DType][2]string{
		tensor.Bool: {"0", "1"}, tensor.Uint8: {"0", "255"}, tensor.Int8: {"(-128)", "127"},
		tensor.Int32: {"(-2147483647 - 1)", "2147483647"},
		tensor.Int64: {"(-9223372036854775807LL - 1)", "9223372036854775807LL"},
	}
	if lowest {
		return lims[dt][0]
	}
	return lims[dt][1]
}

func (g *kernelGen) initAccum(a *accum) {
	arg := a.n.Body[a.at].Args
	if len(arg) != 1 {
		g.fail("reduction %s takes one value", a.n.Name)
		return
	}
	// The input dtype is the argument's, known from the statement that set it.
	a.in = a.dt
	for _, s := range a.n.Body[:a.at] {
		if s.Dst == arg[0] {
			a.in = s.DType
		}
	}
	a.acc = g.tmp()
	var init string
	switch a.op {
	case "sum":
		init = "0"
	case "prod":
		init = "1"
	case "amax", "argmax":
		init = g.extreme(a.in, true)
	case "amin", "argmin":
		init = g.extreme(a.in, false)
	default:
		g.fail("unknown reduction %q in %s", a.op, a.n.Name)
		return
	}
	g.line("%s %s = %s;", g.accType(a), a.acc, init)
	if a.op == "argmax" || a.op == "argmin" {
		a.idx = g.tmp()
		g.line("%s %s = 0;", g.idxType(), a.idx)
	}
}

// combine folds the current value into the accumulator.
func (g *kernelGen) combine(a *accum, rs []string) {
	v, ok := a.tmps[a.n.Body[a.at].Args[0]]
	if !ok {
		g.fail("reduction %s: its value is not computed", a.n.Name)
		return
	}
	x := v.c
	if a.part != "" || a.nan != "" {
		g.combineVector(a, x)
		return
	}
	switch a.op {
	case "sum":
		g.line("%s += (%s)%s;", a.acc, g.accType(a), x)
	case "prod":
		g.line("%s *= (%s)%s;", a.acc, g.accType(a), x)
	case "amax":
		g.line("%s = (%s > %s || %s != %s) ? %s : %s;", a.acc, x, a.acc, x, x, x, a.acc)
	case "amin":
		g.line("%s = (%s < %s || %s != %s) ? %s : %s;", a.acc, x, a.acc, x, x, x, a.acc)
	case "argmax", "argmin":
		cmp := ">"
		if a.op == "argmin" {
			cmp = "<"
		}
		// Strictly better, or the first NaN while the best is not NaN.
		g.line("if (%s %s %s || (%s != %s && %s == %s)) { %s = %s; %s = %s; }", x, cmp, a.acc, x, x, a.acc, a.acc,
			a.acc, x, a.idx, g.reduceFlat(a))
	}
}

// reduceFlat is the row-major index of the reduction point over the
// node's own reduce ranges (what argmax returns).
func (g *kernelGen) reduceFlat(a *accum) string {
	rr := a.n.ReduceRanges
	var parts []string
	for i, r := range rr {
		if r.String() == "1" {
			continue
		}
		v := a.vars[fmt.Sprintf("r%d", i)]
		if rest := rr[i+1:]; numel(rest) != "1" {
			v += "*" + g.expr(loopir.Mul(rest...), nil, nil)
		}
		parts = append(parts, v)
	}
	if len(parts) == 0 {
		return "0"
	}
	return "(" + strings.Join(parts, " + ") + ")"
}

// finish yields the reduction's value in its result dtype.
func (g *kernelGen) finish(a *accum) value {
	if a.op == "argmax" || a.op == "argmin" {
		return g.cast(value{a.idx, tensor.Int64}, a.dt)
	}
	return g.decl(a.dt, "(("+g.ctype(a.dt)+")"+a.acc+")")
}
