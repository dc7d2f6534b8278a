package render

import (
	"fmt"
	"strings"

	"gcdbg/loopir"
	"gcdbg/tensor"
)

// The skinny-M GEMM, a candidate chosen by measurement (choice bit
// choiceSkinny, choice.go) for a float32 mm with few static output rows
// (M <= skinnyMaxM) whose operands are both contiguous along K: x @ W^T,
// a Linear layer's weight [N, K] row-major, as an LSTM step's two
// 20x512 @ 512x2048 products (bench/models/lstm_cell.py). OpenBLAS and
// oneDNN pack the whole weight on every call, which at M = 20 costs about
// as much as the product; this kernel reads each row of W once, straight
// from memory, and takes its dot products with all M rows of x (kept in
// cache): a tile of skinnyMR rows of x by skinnyNR rows of W is
// skinnyMR*skinnyNR float accumulators of an omp simd reduction over K, so
// each loaded vector of x and of W feeds several FMAs. The OpenMP team
// splits N into tiles (unless the kernel chose one thread); no scratch,
// no packing.
//
// Exact IEEE arithmetic (no -ffast-math): each output is the plain sum of
// its K products, in another order than BLAS's (the simd reduction's
// lanes), so NaN and Inf propagate as in any dot product; the result is
// judged by the accuracy verdict like the other GEMM candidates.
//
// The tile, 5x5 with simdlen(8) (eight-lane partial sums per accumulator),
// was the fastest of 4x4, 4x5, 4x6, 5x4, 5x6, 6x3, 6x4, 6x5, 7x4, 8x3, 2x8
// and 10x2 at simdlen 4, 8 and 16 in a C probe on this 2-core AMD EPYC
// (AVX-512) VM, 2026-11-26 23:44, load 1.4-1.8, one thread, median of 41
// alternating calls, gcc 12 -O3 -march=native: 20x2048x512 0.47-0.48 ms
// against OpenBLAS's 0.61-0.62 (4x4 with simdlen 16 took 0.87: gcc's
// reduction epilogue sums the 16 lanes one by one), 8x2048x512 0.24
// against 0.37, 32x2048x512 0.78-0.97 against 0.83-0.89 (no gain at 32).
const (
	skinnyMaxM = 32
	skinnyMR   = 5
	skinnyNR   = 5
	skinnyLen  = 8
	// NN (B [K, N] row-major, x @ W with W stored [in, out], or a
	// backward's dY @ W): skinnyNNMR rows of C by skinnyNNJB columns as a
	// local array the compiler keeps in vector registers, each row of B
	// read once per tile of rows, no reduction across lanes. A C probe
	// (same machine, 23:51, load 1.8-1.9, one thread, median of 41):
	// 20x512 from K = 2048, 0.46 ms against OpenBLAS's 0.61; 10x16 0.50,
	// 5x64 0.47, 4x16 0.85, 10x32 and 20x16 1.2-1.4 (too many accumulators
	// for the registers).
	skinnyNNMR = 5
	skinnyNNJB = 32
)

// skinnyMM reports whether an mm of static m rows whose first operand's
// stride along K is sa1 and second operand's strides along K and N are sb0
// and sb1 (as passed to the GEMM) is offered the skinny-M candidate:
// float32, m at most skinnyMaxM, A contiguous along K and B along K (NT)
// or along N (NN), strides the constant 1.
func skinnyMM(dt tensor.DType, m, sa1, sb0, sb1 loopir.Expr) bool {
	one := func(e loopir.Expr) bool {
		c, ok := e.(loopir.Const)
		return ok && c.V == 1
	}
	mm, ok := static([]loopir.Expr{m})
	return dt == tensor.Float32 && ok && mm > 0 && mm <= skinnyMaxM && one(sa1) && (one(sb0) || one(sb1))
}

func gemmSkinnyName(t string) string { return "gcdbg_gemm_skinny_" + sanitizeIdent(t) }

// skinnyTile writes the dot products of mr rows of x (from row i) with the
// nr rows of W at w0.. (from column n0): mr*nr simd reduction accumulators.
func skinnyTile(b *strings.Builder, ind string, mr, nr int) {
	var accs, xs, ys []string
	for i := 0; i < mr; i++ {
		xs = append(xs, fmt.Sprintf("*a%d = A + (i + %d) * sa0", i, i))
		for j := 0; j < nr; j++ {
			accs = append(accs, fmt.Sprintf("c%d_%d", i, j))
		}
	}
	fmt.Fprintf(b, "%sconst float %s;\n", ind, strings.Join(xs, ", "))
	fmt.Fprintf(b, "%sfloat %s = 0;\n", ind, strings.Join(accs, " = 0, "))
	fmt.Fprintf(b, "%s#pragma omp simd simdlen(%d) reduction(+:%s)\n", ind, skinnyLen, strings.Join(accs, ","))
	fmt.Fprintf(b, "%sfor (int64_t k = 0; k < K; k++) {\n", ind)
	xs = xs[:0]
	for i := 0; i < mr; i++ {
		xs = append(xs, fmt.Sprintf("x%d = a%d[k]", i, i))
	}
	for j := 0; j < nr; j++ {
		ys = append(ys, fmt.Sprintf("y%d = w%d[k]", j, j))
	}
	fmt.Fprintf(b, "%s  const float %s;\n", ind, strings.Join(xs, ", "))
	fmt.Fprintf(b, "%s  const float %s;\n", ind, strings.Join(ys, ", "))
	for i := 0; i < mr; i++ {
		b.WriteString(ind + " ")
		for j := 0; j < nr; j++ {
			fmt.Fprintf(b, " c%d_%d += x%d * y%d;", i, j, i, j)
		}
		b.WriteString("\n")
	}
	fmt.Fprintf(b, "%s}\n", ind)
	for i := 0; i < mr; i++ {
		b.WriteString(ind)
		for j := 0; j < nr; j++ {
			if j > 0 {
				b.WriteString(" ")
			}
			fmt.Fprintf(b, "C[(i + %d) * ldc + n0 + %d] = c%d_%d;", i, j, i, j)
		}
		b.WriteString("\n")
	}
}

// skinnyNNTile writes C's rows i.. (mr of them) at columns j0..j0+w of an
// NN product: mr x skinnyNNJB accumulators, a simd loop over the w
// columns of each row of B.
func skinnyNNTile(b *strings.Builder, ind string, mr int, w string) {
	var xs, fma []string
	for r := 0; r < mr; r++ {
		xs = append(xs, fmt.Sprintf("x%d = A[(i + %d) * sa0 + k]", r, r))
		fma = append(fma, fmt.Sprintf("acc[%d][j] += x%d * b[j];", r, r))
	}
	fmt.Fprintf(b, "%sfloat acc[%d][%d] __attribute__((aligned(64))) = {{0}};\n", ind, mr, skinnyNNJB)
	fmt.Fprintf(b, "%sfor (int64_t k = 0; k < K; k++) {\n", ind)
	fmt.Fprintf(b, "%s  const float *b = B + k * sb0 + j0;\n", ind)
	fmt.Fprintf(b, "%s  const float %s;\n", ind, strings.Join(xs, ", "))
	fmt.Fprintf(b, "%s  #pragma omp simd\n", ind)
	fmt.Fprintf(b, "%s  for (int64_t j = 0; j < %s; j++) {\n", ind, w)
	fmt.Fprintf(b, "%s    %s\n", ind, strings.Join(fma, " "))
	fmt.Fprintf(b, "%s  }\n%s}\n", ind, ind)
	fmt.Fprintf(b, "%sfor (int r = 0; r < %d; r++)\n", ind, mr)
	fmt.Fprintf(b, "%s  for (int64_t j = 0; j < %s; j++) C[(i + r) * ldc + j0 + j] = acc[r][j];\n", ind, w)
}

// skinnyNN writes the NN path: the team splits N into blocks of
// skinnyNNJB columns (the last one narrower).
func skinnyNN(b *strings.Builder) {
	fmt.Fprintf(b, `  if (sb0 != 1) {
    /* NN: B's rows contiguous along N */
    #pragma omp parallel for schedule(static) if(gcdbg_gemm_team && M * N * K > 65536)
    for (int64_t j0 = 0; j0 < N; j0 += %[1]d) {
      const int64_t nj = N - j0 < %[1]d ? N - j0 : %[1]d;
      int64_t i = 0;
      if (nj == %[1]d) {
        for (; i + %[2]d <= M; i += %[2]d) {
`, skinnyNNJB, skinnyNNMR)
	skinnyNNTile(b, "          ", skinnyNNMR, fmt.Sprint(skinnyNNJB))
	b.WriteString("        }\n      }\n      for (; i < M; i++) {\n")
	skinnyNNTile(b, "        ", 1, "nj")
	b.WriteString("      }\n    }\n    return;\n  }\n")
}

// gemmSkinnyFunc is the skinny-M GEMM with gemmFunc's signature: the
// tiles where M is at most skinnyMaxM, A is contiguous along K and B
// along K (NT) or N (NN), else the OpenBLAS-first GEMM.
func gemmSkinnyFunc(t string) string {
	var b, nn strings.Builder
	skinnyNN(&nn)
	var ws []string
	for j := 0; j < skinnyNR; j++ {
		ws = append(ws, fmt.Sprintf("*w%d = B + (n0 + %d) * sb1", j, j))
	}
	fmt.Fprintf(&b, `
/* The skinny-M GEMM (choice bit %[1]d, render/gemm_skinny.go): C = A B for
   M <= %[2]d with A contiguous along K. NT (B contiguous along K, x @ W^T):
   each row of W read once, its dot products with %[3]d rows of A at a
   time, %[4]d rows of W at a time. NN (B contiguous along N): rows of C
   accumulated in registers, %[8]d at a time, from B's rows. The team
   splits N unless the kernel chose one thread. Other shapes go to the
   OpenBLAS-first GEMM. */
static __attribute__((unused)) void %[5]s(int64_t M, int64_t N, int64_t K, const float *A, int64_t sa0, int64_t sa1,
    const float *B, int64_t sb0, int64_t sb1, float *C, int64_t ldc) {
  if (M <= 0 || M > %[2]d || N <= 0 || K <= 0 || sa1 != 1 || (sb0 != 1 && sb1 != 1)) {
    %[6]s(M, N, K, A, sa0, sa1, B, sb0, sb1, C, ldc);
    return;
  }
%[9]s  const int64_t NT = N / %[4]d * %[4]d;
  #pragma omp parallel for schedule(static) if(gcdbg_gemm_team && M * N * K > 65536)
  for (int64_t n0 = 0; n0 < NT; n0 += %[4]d) {
    const float %[7]s;
    int64_t i = 0;
    for (; i + %[3]d <= M; i += %[3]d) {
`, choiceSkinny, skinnyMaxM, skinnyMR, skinnyNR, gemmSkinnyName(t), gemmName(t), strings.Join(ws, ", "), skinnyNNMR, nn.String())
	skinnyTile(&b, "      ", skinnyMR, skinnyNR)
	b.WriteString("    }\n    for (; i < M; i++) {\n")
	skinnyTile(&b, "      ", 1, skinnyNR)
	b.WriteString(`    }
  }
  for (int64_t n0 = NT; n0 < N; n0++) {
    const float *w0 = B + n0 * sb1;
    for (int64_t i = 0; i < M; i++) {
`)
	skinnyTile(&b, "      ", 1, 1)
	b.WriteString("    }\n  }\n}\n")
	return b.String()
}

// gemmSkinnyPrelude writes the skinny-M GEMM when a kernel offers it.
func gemmSkinnyPrelude(r *renderer) string {
	for _, c := range r.alts {
		if c.skinny {
			return gemmSkinnyFunc(r.d.Types[tensor.Float32])
		}
	}
	return ""
}
