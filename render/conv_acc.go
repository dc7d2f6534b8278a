package render

import "fmt"

// convAccHelper is C += A·B through BLAS with beta 1, for
// conv2d_backward_weight: each image's dY_g · colᵀ accumulates straight
// into the thread's sum instead of a per-image product added after (a
// pass over OCG·CGK elements per image). It returns 0 (nothing done) when
// BLAS is absent, the type has no BLAS GEMM (blas ""), or the operands'
// strides do not suit it; the caller then takes the product-and-add path.
// Measured with the lead's C probe (2026-11-26, 64->64 3x3 at 16x16, batch
// 32, two threads): 3.9 against 4.1-4.6 ms.
func convAccHelper(t, blas string) string {
	n := sanitizeIdent(t)
	if blas == "" {
		return fmt.Sprintf(`
static __attribute__((unused)) int gcdbg_gemm_acc_%s(int64_t M, int64_t N, int64_t K, const %s *A, int64_t sa0, int64_t sa1,
    const %s *B, int64_t sb0, int64_t sb1, %s *C, int64_t ldc) { return 0; }
`, n, t, t, t)
	}
	return fmt.Sprintf(`
/* C += A B through BLAS (beta 1); 0 when it cannot (no BLAS, strides BLAS does not take) */
static __attribute__((unused)) int gcdbg_gemm_acc_%[1]s(int64_t M, int64_t N, int64_t K, const %[2]s *A, int64_t sa0, int64_t sa1,
    const %[2]s *B, int64_t sb0, int64_t sb1, %[2]s *C, int64_t ldc) {
  pthread_once(&gcdbg_blas_once, gcdbg_blas_load);
  int ta, tb, lda, ldb;
  if (!%[3]s || M <= 0 || N <= 0 || K <= 0 || ldc >= 2147483647 || !gcdbg_blas_layout(M, K, sa0, sa1, &ta, &lda) ||
      !gcdbg_blas_layout(K, N, sb0, sb1, &tb, &ldb))
    return 0;
  %[3]s(101, ta, tb, (int)M, (int)N, (int)K, 1, A, lda, B, ldb, 1, C, (int)ldc);
  return 1;
}
`, n, t, blas)
}
