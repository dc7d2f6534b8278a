package render

import (
	"strings"

	"gcdbg/loopir"
	"gcdbg/tensor"
)

// Vector reduce loops (CPU dialect). A reduce pass whose accumulators are
// all sums (float32, float64, integers) or max/min (float32, float64,
// integers), and whose loads are all affine (no gather that could alias a
// store), runs its innermost reduce loop as
//
//	int nan = 0;
//	#pragma omp simd reduction(+:acc) reduction(max:m) reduction(|:nan)
//	for (r1 = 0; r1 < N; r1++) { ... acc += (double)v; m = v > m ? v : m; nan |= v != v; }
//	if (nan) m = NAN;
//
// "omp simd reduction" lets gcc keep one partial per vector lane without
// -ffast-math (the only reordering is the lanes', which OpenMP allows). A
// float32 sum keeps its double accumulator, now one per lane (8 on
// AVX-512): float lanes were tried (a cascade of float partials over
// chunks of 1024, as PyTorch does), but they turned the cross-entropy
// backward's cancelling sums (Σ of a row's gradients, mathematically 0)
// into residuals of 1e-9 that fail the float64-referenced verdict. Sums of
// squares, which cannot cancel, keep float lanes (reduce.go, floatLaneSum).
// max/min compare in the lanes and a
// separate NaN flag makes any NaN the result, as PyTorch's max does (a
// lane-wise "v > m ? v : m" alone would drop NaNs). Argmax/argmin and
// products keep the scalar loop (first-index ties; products are rare).
// compiler's TestVectorReductionsVectorize compiles such kernels with
// -fopt-info-vec and checks that gcc reports every simd loop vectorized;
// each kernel's comment says which of its loops are vector loops.

// vectorPass reports whether the pass's reduce loop can be a vector loop.
func (g *kernelGen) vectorPass(accs []*accum, inner []*loopir.Node) bool {
	if g.r.d.SIMD == "" || len(g.sp.reduce) == 0 {
		return false
	}
	var ns []*loopir.Node
	for _, a := range accs {
		ns = append(ns, a.n)
		switch a.op {
		case "sum", "amax", "amin":
		default:
			return false
		}
		switch a.in {
		case tensor.Float32, tensor.Float64, tensor.Int64, tensor.Int32:
		default:
			return false
		}
		// A float sum into another float type (sum(x, dtype=float64)) keeps
		// the scalar loop; integer sums are exact in any order.
		if a.in.IsFloat() && a.dt != a.in {
			return false
		}
	}
	ns = append(ns, inner...)
	return simdSafe(ns)
}

// openVectorLoops opens the reduce loops of a vector pass: the outer ones
// plain, the innermost cut into chunks, each chunk a simd loop.
func (g *kernelGen) openVectorLoops(rs []string, accs []*accum) {
	sizes := g.sp.reduce
	t := g.idxType()
	// NaN flags live across every reduce loop: declared before them.
	for _, a := range accs {
		if (a.op == "amax" || a.op == "amin") && a.in.IsFloat() {
			a.nan = g.tmp()
			g.line("int %s = 0;", a.nan)
		}
	}
	for i := 0; i < len(rs)-1; i++ {
		g.line("for (%s %s = 0; %s < %s; %s++) {", t, rs[i], rs[i], g.expr(sizes[i], nil, nil), rs[i])
		g.ind++
	}
	last := rs[len(rs)-1]
	n := g.expr(sizes[len(sizes)-1], nil, nil)
	var clauses []string
	for _, a := range accs {
		switch a.op {
		case "sum":
			clauses = append(clauses, "reduction(+:"+a.acc+")")
		default: // amax, amin
			op := "max"
			if a.op == "amin" {
				op = "min"
			}
			clauses = append(clauses, "reduction("+op+":"+a.acc+")")
			if a.in.IsFloat() {
				clauses = append(clauses, "reduction(|:"+a.nan+")")
			} else {
				a.nan = "-" // integer: no NaN flag, but the vector combine
			}
		}
		if a.op == "sum" {
			a.part = a.acc
		}
	}
	g.line("%s", strings.TrimSpace(g.r.d.SIMD+" "+strings.Join(clauses, " ")))
	g.line("for (%s %s = 0; %s < %s; %s++) {", t, last, last, n, last)
	g.ind++
	if len(accs) > 0 {
		g.addVecNote("reduce loop vectorized (omp simd reduction, no -ffast-math): sums keep one double partial per " +
			"vector lane, max/min carry a NaN flag")
		for _, a := range accs {
			if a.floatLanes {
				g.addVecNote("a sum of squares keeps float partials, one per lane: no cancellation (reduce.go)")
			}
		}
	} else {
		g.addVecNote("loop over the reduced dimension vectorized (omp simd)")
	}
}

// closeVectorLoops closes what openVectorLoops opened and folds the chunk
// partials and NaN flags into the accumulators.
func (g *kernelGen) closeVectorLoops(rs []string, accs []*accum) {
	g.ind--
	g.line("}")
	g.closeLoops(len(rs) - 1)
	for _, a := range accs {
		if a.nan != "" && a.nan != "-" {
			g.line("if (%s) %s = (%s)%s;", a.nan, a.acc, g.ctype(a.in), g.r.d.NaN)
		}
		a.part, a.nan = "", ""
	}
}

// combineVector folds x into a vector pass's accumulator.
func (g *kernelGen) combineVector(a *accum, x string) {
	switch a.op {
	case "sum":
		g.line("%s += (%s)%s;", a.acc, g.accType(a), x)
	case "amax", "amin":
		cmp := ">"
		if a.op == "amin" {
			cmp = "<"
		}
		g.line("%s = %s %s %s ? %s : %s;", a.acc, x, cmp, a.acc, x, a.acc)
		if a.nan != "-" {
			g.line("%s |= %s != %s;", a.nan, x, x)
		}
	}
}

func (g *kernelGen) addVecNote(s string) {
	for _, n := range g.vecNotes {
		if n == s {
			return
		}
	}
	g.vecNotes = append(g.vecNotes, s)
}
