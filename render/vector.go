package render

import (
	"fmt"
	"strings"

	"gcdbg/loopir"
	"gcdbg/tensor"
)

// Vector reduce loops (CPU dialect). A reduce pass whose accumulators are
// all sums (float32, float64, integers) or max/min (float32, float64,
// integers), and whose loads are all affine (no gather that could alias a
// store), runs its innermost reduce loop as
//
//	for (r1c = 0; r1c < N; r1c += 1024) {          // chunks
//	  float p = 0;                                 // float32 sums: a partial per chunk
//	  #pragma omp simd reduction(+:p) reduction(max:m) reduction(|:nan)
//	  for (r1 = r1c; r1 < min(r1c + 1024, N); r1++) { ... p += v; m = v > m ? v : m; nan |= v != v; }
//	  acc += p;                                    // double accumulator across chunks
//	}
//	if (nan) m = NAN;
//
// "omp simd reduction" lets gcc keep one partial sum per vector lane (a
// float32 row of 1024 is 64 partial sums of 16 values on AVX-512) without
// -ffast-math; each chunk's float sum goes into the double accumulator, so
// the error grows with the chunk, not the row: a cascade, as PyTorch's
// vectorized float sums are. max/min compare in the lanes and a separate
// NaN flag makes any NaN the result, as PyTorch's max does (a lane-wise
// "v > m ? v : m" alone would drop NaNs). Argmax/argmin and products keep
// the scalar loop (first-index ties; products are rare and short).
// compiler's TestVectorReductionsVectorize compiles such kernels with
// -fopt-info-vec and checks that gcc reports every simd loop vectorized;
// each kernel's comment says which of its loops are vector loops.

// vectorChunk is the number of reduce points per float partial sum.
const vectorChunk = 1024

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
	partials, chunked := false, false
	for _, a := range accs {
		if a.op == "sum" && a.in == tensor.Float32 {
			partials = true
		}
	}
	if c, ok := sizes[len(sizes)-1].(loopir.Const); partials && (!ok || c.V > vectorChunk) {
		chunked = true
	}
	g.chunked = chunked
	var clauses []string
	for _, a := range accs {
		switch {
		case a.op == "sum" && a.in == tensor.Float32:
			a.part = g.tmp()
			clauses = append(clauses, "reduction(+:"+a.part+")")
		case a.op == "sum":
			a.part = a.acc
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
	}
	if chunked {
		g.line("for (%s %sc = 0; %sc < %s; %sc += %d) {", t, last, last, n, last, vectorChunk)
		g.ind++
		for _, a := range accs {
			if a.op == "sum" && a.in == tensor.Float32 {
				g.line("float %s = 0;", a.part)
			}
		}
		g.line("const %s %se = %sc + %d < %s ? %sc + %d : %s;", t, last, last, vectorChunk, n, last, vectorChunk, n)
		g.line("%s", strings.TrimSpace(g.r.d.SIMD+" "+strings.Join(clauses, " ")))
		g.line("for (%s %s = %sc; %s < %se; %s++) {", t, last, last, last, last, last)
	} else {
		for _, a := range accs {
			if a.op == "sum" && a.in == tensor.Float32 {
				g.line("float %s = 0;", a.part)
			}
		}
		g.line("%s", strings.TrimSpace(g.r.d.SIMD+" "+strings.Join(clauses, " ")))
		g.line("for (%s %s = 0; %s < %s; %s++) {", t, last, last, n, last)
	}
	g.ind++
	switch {
	case chunked:
		g.addVecNote(fmt.Sprintf("reduce loop vectorized (omp simd reduction, no -ffast-math): float32 sums keep float "+
			"partials in the vector lanes over chunks of %d, each chunk added in double", vectorChunk))
	case partials:
		g.addVecNote("reduce loop vectorized (omp simd reduction, no -ffast-math): float32 sums keep float " +
			"partials in the vector lanes, added in double")
	case len(accs) > 0:
		g.addVecNote("reduce loop vectorized (omp simd reduction, no -ffast-math); max/min carry a NaN flag")
	default:
		g.addVecNote("loop over the reduced dimension vectorized (omp simd)")
	}
}

// closeVectorLoops closes what openVectorLoops opened and folds the chunk
// partials and NaN flags into the accumulators.
func (g *kernelGen) closeVectorLoops(rs []string, accs []*accum) {
	g.ind--
	g.line("}")
	for _, a := range accs {
		if a.op == "sum" && a.in == tensor.Float32 {
			g.line("%s += (double)%s;", a.acc, a.part)
		}
	}
	if g.chunked {
		g.ind--
		g.line("}")
	}
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
		if a.part != a.acc {
			g.line("%s += %s;", a.part, x)
		} else {
			g.line("%s += (%s)%s;", a.acc, g.accType(a), x)
		}
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
