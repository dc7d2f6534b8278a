package render

import (
	"fmt"
	"strings"

	"gcdbg/loopir"
	"gcdbg/tensor"
)

// Row-major copies of transposed GEMM operands, a candidate chosen by
// measurement (choice bit choicePack, choice.go). BLAS takes a transposed
// operand through its trans flag at no copy of ours, and its packing
// routines read it in either layout; but the speed of a transposed layout
// differs by library and shape (oneDNN ran ffn_train's TN weight-gradient
// GEMMs 13-16% faster than OpenBLAS and its NT forward GEMMs 9-28% slower,
// docs/performance.md). A weight-gradient GEMM's transposed operand is the
// small one (an activation of M x K against K x N, N the layer's width),
// so copying it row-major, then calling the NN GEMM, costs 1/(2N) of the
// product's flops in memory traffic; whether the NN call wins that back is
// a matter of library, shape and machine, hence a candidate timed on the
// run's data like the others, not a rule. Swapping the operands to compute
// C^T = B^T A^T into the same row-major C is no candidate: cblas_sgemm's
// row-major interface is exactly that call to the column-major sgemm.
//
// The copy is exact and the GEMM then reads the same numbers, so the
// candidate computes what the library computes on an NN product of the
// same values (another kernel path of the library, so not necessarily
// bit-identical to its TN path; judged by the accuracy verdict like
// choiceDNNL: runner TestChoiceCandidatesMatch).

// packableMM reports whether the candidate is offered for an mm of static
// sizes m x n x k (as passed to the GEMM) whose operands' column strides
// (along K of A, along N of B) are sa1 and sb1: an operand is not row-major
// (a column stride not a constant 1), and the copies are small beside the
// product, at most 1/packMinRatio of its 2mnk flops in elements. Measured on
// this 2-core VM (2026-11-26, one thread, thread CPU time, best of 7-9): a
// transposed copy runs at about 2 ns per element, so copying a Linear's
// weight (4M elements of ffn_train's NT GEMMs) cost 8 ms against a 24 ms
// product and lost 35%, while a weight gradient's transposed activation
// (256 x 1024 for gpt2's tied lm_head, 1024 x 256 for ffn_train's) is 0.1%
// of its product's time: only those are worth timing.
func packableMM(m, n, k, sa1, sb1 loopir.Expr) bool {
	one := func(e loopir.Expr) bool {
		c, ok := e.(loopir.Const)
		return ok && c.V == 1
	}
	sz, ok := static([]loopir.Expr{m, n, k})
	if !ok || sz == 0 {
		return false
	}
	mm, _ := static([]loopir.Expr{m})
	nn, _ := static([]loopir.Expr{n})
	kk, _ := static([]loopir.Expr{k})
	var copied int64
	if !one(sa1) {
		copied += mm * kk
	}
	if !one(sb1) {
		copied += kk * nn
	}
	return copied > 0 && copied*packMinRatio <= 2*sz
}

// packMinRatio: the product's flops per copied element from which the
// candidate is offered (copy at most ~5% of the product's time at 2 ns per
// copied element and 100 GFLOP/s per core).
const packMinRatio = 4000

// gemmCall writes an mm's call: fn(args) as gemmFn names it (with the
// skinny-M candidate where skinny, gemm_skinny.go), and, when the kernel
// may choose (packable: an operand is transposed), the candidate that
// copies the transposed operands row-major and calls the OpenBLAS- or
// oneDNN-first GEMM (by choiceDNNL) on the copies.
func (g *kernelGen) gemmCall(t string, packable, skinny bool, args string) {
	fn := g.gemmFn(t, skinny)
	if !packable || !g.r.d.Entry || g.r.d.GlobalIdx != "" || (t != "float" && t != "double") {
		g.line("%s(%s);", fn, args)
		return
	}
	g.r.choiceOf(g.idx).pack = true
	base := gemmName(t)
	if t == "float" {
		base = fmt.Sprintf("(%s & %d ? %s : %s)", choiceVar, choiceDNNL, gemmDNNLName(t), gemmName(t))
	}
	g.line("if (%s & %d) %s(%s, %s);", choiceVar, choicePack, gemmPackName(t), base, args)
	g.line("else %s(%s);", fn, args)
}

func gemmPackName(t string) string { return "gcdbg_gemm_pack_" + sanitizeIdent(t) }

// gemmPackPrelude writes the packing GEMM of every element type whose
// kernels offer the candidate, after the GEMMs and the convolutions'
// prelude (sofar: the head written so far), with the scratch allocator
// when the convolutions' prelude did not write it.
func gemmPackPrelude(r *renderer, sofar string) string {
	offered := false
	for _, c := range r.alts {
		offered = offered || c.pack
	}
	if !offered {
		return ""
	}
	var b strings.Builder
	if !strings.Contains(sofar, convPreludeScratch) {
		b.WriteString(convPreludeScratch) // conv.go: gcdbg_scratch
	}
	for _, dt := range []tensor.DType{tensor.Float32, tensor.Float64} {
		if !r.gemms[dt] {
			continue
		}
		t := r.d.Types[dt]
		fmt.Fprintf(&b, `
/* Row-major copy P[r * C + c] = X[r * s0 + c * s1] in 32 x 32 tiles (both
   sides of a tile stay in L1), on the OpenMP team unless the kernel chose
   one thread. */
static __attribute__((unused)) void gcdbg_pack_rows_%[2]s(int64_t R, int64_t Cn, const %[1]s *X, int64_t s0, int64_t s1, %[1]s *P) {
  #pragma omp parallel for collapse(2) if(gcdbg_gemm_team && R * Cn > 65536)
  for (int64_t r0 = 0; r0 < R; r0 += 32)
    for (int64_t c0 = 0; c0 < Cn; c0 += 32) {
      const int64_t r1 = r0 + 32 < R ? r0 + 32 : R, c1 = c0 + 32 < Cn ? c0 + 32 : Cn;
      if (s0 < s1)
        for (int64_t c = c0; c < c1; c++)
          for (int64_t r = r0; r < r1; r++) P[r * Cn + c] = X[r * s0 + c * s1];
      else
        for (int64_t r = r0; r < r1; r++)
          for (int64_t c = c0; c < c1; c++) P[r * Cn + c] = X[r * s0 + c * s1];
    }
}
/* C = A B through gemm (the OpenBLAS- or oneDNN-first GEMM) on row-major
   copies of the operands that are not row-major (choice bit %[3]d,
   render/gemm_pack.go); scratch slots 1 and 2, as the convolutions'
   packed operands (kernels run one at a time). */
static __attribute__((unused)) void %[4]s(void (*gemm)(int64_t, int64_t, int64_t, const %[1]s *, int64_t, int64_t, const %[1]s *, int64_t, int64_t, %[1]s *, int64_t),
    int64_t M, int64_t N, int64_t K, const %[1]s *A, int64_t sa0, int64_t sa1, const %[1]s *B, int64_t sb0, int64_t sb1, %[1]s *C, int64_t ldc) {
  if (M > 0 && N > 0 && K > 0 && sa1 != 1) {
    %[1]s *P = (%[1]s *)gcdbg_scratch(1, (size_t)(M * K) * sizeof(%[1]s));
    gcdbg_pack_rows_%[2]s(M, K, A, sa0, sa1, P);
    A = P, sa0 = K, sa1 = 1;
  }
  if (M > 0 && N > 0 && K > 0 && sb1 != 1) {
    %[1]s *P = (%[1]s *)gcdbg_scratch(2, (size_t)(K * N) * sizeof(%[1]s));
    gcdbg_pack_rows_%[2]s(K, N, B, sb0, sb1, P);
    B = P, sb0 = N, sb1 = 1;
  }
  gemm(M, N, K, A, sa0, sa1, B, sb0, sb1, C, ldc);
}
`, t, sanitizeIdent(t), choicePack, gemmPackName(t))
	}
	return b.String()
}
