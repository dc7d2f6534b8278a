package render

import (
	"math"
	"strings"

	"gcdbg/ir"
	"gcdbg/loopir"
)

// scatter_add with a long index (an embedding's gradient: 8,192 ids
// scattered into a 32,000-row table) is an extern call with generated C
// instead of an eager fallback (loopir/scatter.go compiles a short index,
// k ≤ 16, as a reduction over it). out = self, then for every index
// point p, in index order along dim,
//
//	out[p with dim = index[p]] += src[p]
//
// PyTorch's CPU scatter_add adds in the same order. The threads share the
// points off dim (each takes the whole index range along dim for its
// block of 64 positions after dim, and for its positions before dim), so
// every output element is added to by one thread, in index order: no
// atomics, and the result does not depend on the thread count. An index
// outside [0, out.size(dim)) stops the worker naming the node, as
// PyTorch raises.
//
// scatter (no reduce=, loopir/scatter.go) is the same loop with
// out[..] = src[p] (or its value): each output element is written by one
// thread in index order, so with duplicate indices the last write wins, as
// in PyTorch's CPU kernel.
//
// scatter_reduce (sum, prod, amax, amin; loopir/scatter_reduce.go) is the
// same loop with out[..] = reduce(out[..], src[p]), amax and amin taking a
// NaN from either side (ATen's ReduceMaximum: isnan(src) ? src :
// max(self, src)); include_self=False first sets each indexed element, in
// the same thread, to the reduction's identity (-0.0, 1, -inf, +inf), so
// its result is the reduction of the src values alone, as
// tensor.ScatterReduce computes it.
func (g *kernelGen) scatterAddExtern(n *loopir.Node, args []ir.Arg, out *storage, ob *loopir.Buffer) {
	if len(args) < 4 {
		g.fail("%s %s: 4 arguments expected", n.Op, n.Name)
		return
	}
	overwrite := n.Op == "scatter"
	red, init := "sum", ""
	if n.Op == "scatter_reduce" {
		inc, ok := false, len(args) >= 6
		if ok {
			red, _ = args[4].(string)
			inc, ok = args[5].(bool)
		}
		ids := map[string]string{"sum": "-0.0", "prod": "1", "amax": "-INFINITY", "amin": "INFINITY"}
		if _, known := ids[red]; !ok || !known {
			g.fail("%s %s: a constant reduce (sum, prod, amax, amin) and include_self are needed", n.Op, n.Name)
			return
		}
		if !inc {
			init = ids[red]
		}
	}
	// An all-zero self is written, not read (below): it needs no memory
	// (elideZeroFulls drops its kernel when nothing else reads it).
	zero := zeroFull(args[0])
	var self *loopir.View
	if zero {
		self = g.r.p.Values[args[0].(*ir.Node).Name]
	} else {
		self = g.operand(args[0], "self")
	}
	ix := g.operand(args[2], "index")
	// src, or scatter's value (a number in src's place or value=)
	var src *loopir.View
	value := ""
	if _, isNode := args[3].(*ir.Node); isNode || !overwrite {
		src = g.operand(args[3], "src")
	} else if v := args[3]; v != nil || len(args) > 4 && args[4] != nil {
		if v == nil {
			v = args[4]
		}
		switch x := v.(type) {
		case float64:
			value = g.literal(x, ob.DType)
		case int64:
			value = g.literal(float64(x), ob.DType)
		case bool:
			value = g.literal(map[bool]float64{true: 1}[x], ob.DType)
		}
	}
	dim, ok := args[1].(int64)
	if self == nil || ix == nil || src == nil && value == "" || !ok {
		g.fail("%s %s: tensors (or a value) and an int dim are needed", n.Op, n.Name)
		return
	}
	rank := len(ob.Sizes)
	if dim < 0 {
		dim += int64(rank)
	}
	if rank == 0 || dim < 0 || dim >= int64(rank) || len(self.Sizes) != rank || len(ix.Sizes) != rank || src != nil && len(src.Sizes) != rank {
		g.fail("%s %s: self, index, src and the result must have one rank and dim must lie in it", n.Op, n.Name)
		return
	}
	d := int(dim)
	node := sanitizeIdent(n.Name)
	if len(n.Origins) > 0 {
		node = sanitizeIdent(n.Origins[len(n.Origins)-1]) + " (" + node + ")"
	}
	t, it := g.ctype(ob.DType), g.ctype(ix.DType)
	prod := func(v []loopir.Expr) string {
		if len(v) == 0 {
			return "1"
		}
		return "(" + g.e(loopir.Mul(v...)) + ")"
	}
	// at is the offset of a point of view v whose coordinates before dim
	// are the flat o, along dim k, after dim the flat i (over index's sizes).
	at := func(v *loopir.View, k string) string {
		terms := []string{"(" + g.e(v.Offset) + ")"}
		unravel := func(flat string, lo, hi int) {
			for j := lo; j < hi; j++ {
				c := flat
				if rest := ix.Sizes[j+1 : hi]; len(rest) > 0 {
					c = "(" + flat + " / " + prod(rest) + ")"
				}
				if j > lo {
					c = "(" + c + " % (" + g.e(ix.Sizes[j]) + "))"
				}
				terms = append(terms, c+" * ("+g.e(v.Strides[j])+")")
			}
		}
		unravel("o", 0, d)
		terms = append(terms, k+" * ("+g.e(v.Strides[d])+")")
		unravel("i", d+1, rank)
		return strings.Join(terms, " + ")
	}
	switch {
	case overwrite:
		g.line("{ /* scatter along dim %d: out = self, then out[.., index[p], ..] = src[p] in index order (the last write wins); threads own output positions */", d)
	case n.Op == "scatter_reduce":
		g.line("{ /* scatter_reduce %s along dim %d: out = self%s, then out[.., index[p], ..] = %s(out[..], src[p]) in index order; threads own output positions (no atomics) */",
			red, d, map[bool]string{true: ", every indexed element set to " + init + " (include_self=False)"}[init != ""], red)
	default:
		g.line("{ /* scatter_add along dim %d: out = self, then out[.., index[p], ..] += src[p] in index order; threads own output positions (no atomics) */", d)
	}
	g.ind++
	g.line("const int64_t NO = %s, K = %s, NI = %s, NJ = %s, N = NO * NJ * NI;", prod(ix.Sizes[:d]), g.e(ix.Sizes[d]),
		prod(ix.Sizes[d+1:]), g.e(ob.Sizes[d]))
	if !zero {
		g.line("const %s *S = %s;", t, g.r.store[self.Buffer].c)
	}
	if src != nil {
		g.line("const %s *I = %s; const %s *X = %s; %s *Y = %s;", it, g.r.store[ix.Buffer].c, t, g.r.store[src.Buffer].c, t, out.c)
	} else {
		g.line("const %s *I = %s; %s *Y = %s;", it, g.r.store[ix.Buffer].c, t, out.c)
	}
	// out = self (self over the result's sizes, through its own strides)
	g.line("#pragma omp parallel for if(N > 32768)")
	g.line("for (int64_t f = 0; f < N; f++) {")
	g.ind++
	selfAt := []string{"(" + g.e(self.Offset) + ")"}
	contiguous := true
	for j := 0; j < rank; j++ {
		if self.Strides[j].String() != loopir.Mul(ob.Sizes[j+1:]...).String() && ob.Sizes[j].String() != "1" {
			contiguous = false
		}
	}
	for j := 0; j < rank && !contiguous; j++ {
		c := "f"
		if rest := ob.Sizes[j+1:]; len(rest) > 0 {
			c = "(f / " + prod(rest) + ")"
		}
		if j > 0 {
			c = "(" + c + " % (" + g.e(ob.Sizes[j]) + "))"
		}
		selfAt = append(selfAt, c+" * ("+g.e(self.Strides[j])+")")
	}
	if contiguous {
		selfAt = append(selfAt, "f")
	}
	if zero {
		// self is full(size, 0.0) (an embedding's gradient): write the
		// zeros instead of reading them (64 MB less read for a 32,000 x
		// 512 table).
		g.line("Y[f] = (%s)0;", t)
	} else {
		g.line("Y[f] = S[%s];", strings.Join(selfAt, " + "))
	}
	g.ind--
	g.line("}")
	g.line("const int64_t NB = (NI + 63) / 64;")
	g.line("#pragma omp parallel for collapse(2) if(NO * K * NI > 32768)")
	g.line("for (int64_t o = 0; o < NO; o++)")
	if init != "" { // include_self=False: the indexed elements start from the identity
		g.line("  for (int64_t b = 0; b < NB; b++) {")
		g.line("    for (int64_t k = 0; k < K; k++)")
		g.line("      for (int64_t i = b * 64; i < (b * 64 + 64 < NI ? b * 64 + 64 : NI); i++) {")
		g.line("        const int64_t j = (int64_t)I[%s];", at(ix, "k"))
		g.line("        if (__builtin_expect(j < 0 || j >= NJ, 0)) gcdbg_oob(\"%s\", \"an index of the %s result along dim %d\", j, NJ);", node, n.Op, d)
		g.line("        Y[(o * NJ + j) * NI + i] = %s;", init)
		g.line("      }")
		g.line("    for (int64_t k = 0; k < K; k++)")
	} else {
		g.line("  for (int64_t b = 0; b < NB; b++)")
		g.line("    for (int64_t k = 0; k < K; k++)")
	}
	g.line("      for (int64_t i = b * 64; i < (b * 64 + 64 < NI ? b * 64 + 64 : NI); i++) {")
	g.ind += 4
	g.line("const int64_t j = (int64_t)I[%s];", at(ix, "k"))
	g.line("if (__builtin_expect(j < 0 || j >= NJ, 0)) gcdbg_oob(\"%s\", \"an index of the %s result along dim %d\", j, NJ);", node, n.Op, d)
	y := "Y[(o * NJ + j) * NI + i]"
	switch {
	case n.Op == "scatter_reduce" && (red == "amax" || red == "amin"):
		cmp := map[string]string{"amax": "y < v", "amin": "v < y"}[red]
		g.line("const %s v = X[%s], y = %s;", t, at(src, "k"), y)
		g.line("%s = (v != v || %s) ? v : y;", y, cmp)
	case n.Op == "scatter_reduce" && red == "prod":
		g.line("%s *= X[%s];", y, at(src, "k"))
	case src == nil:
		g.line("Y[(o * NJ + j) * NI + i] = %s;", value)
	case overwrite:
		g.line("Y[(o * NJ + j) * NI + i] = X[%s];", at(src, "k"))
	default:
		g.line("Y[(o * NJ + j) * NI + i] += X[%s];", at(src, "k"))
	}
	g.ind -= 4
	g.line("      }")
	if init != "" {
		g.line("  }")
	}
	g.ind--
	g.line("}")
}

// zeroFull reports whether a is a full(size, +0.0) node (a -0.0 fill is
// kept: its sign must survive an add of nothing).
func zeroFull(a ir.Arg) bool {
	n, ok := a.(*ir.Node)
	if !ok || (n.Target != "aten.full" && n.Target != "full") || len(n.Args) < 2 {
		return false
	}
	switch v := n.Args[1].(type) {
	case float64:
		return v == 0 && !math.Signbit(v)
	case int64:
		return v == 0
	case bool:
		return !v
	}
	return false
}
