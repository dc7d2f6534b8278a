package render

import "fmt"

// oneDNN's sgemm as a third GEMM candidate (choice bit choiceDNNL,
// choice.go) beside OpenBLAS and the generated GEMM, for float32 mm/bmm
// kernels and the convolutions' per-image GEMMs. PyTorch's own CPU
// convolutions and many of its matmuls run oneDNN's JIT kernels; the
// library ships with PyTorch (Debian's libdnnl2, a dependency of
// libtorch1.13) and is found at run time like OpenBLAS: dlopen, no
// link-time dependency; without it (or with GCDBG_NO_BLAS=1) the candidate
// runs the OpenBLAS-first GEMM, so a program never fails for its absence.
//
// Measured with a C probe (2026-11-26 03:51, load 1.4-2.7, one thread,
// best of 15 alternating rounds): a conv's per-image GEMM 64x256x576
// 0.167 ms with oneDNN against 0.196 with OpenBLAS (113 against 96
// GFLOP/s), the backward-input shape 576x256x64 110 against 100 GFLOP/s,
// the backward-weight shape 64x576x256 (B transposed) 100 against 93; on
// 1024^3 and a transformer FFN's NT shape OpenBLAS was as fast or faster,
// hence a candidate chosen by measurement, not a replacement.
//
// Threads: oneDNN runs on the OpenMP team (libdnnl uses libgomp, the same
// passive pool as the kernels), sequentially inside an enclosing parallel
// region (the convolutions' per-image loop); a kernel that chose one
// thread sets gcdbg_gemm_team = 0 around its call (choice.go), and the
// wrapper then sets OpenMP's thread count to 1 for the call. A large GEMM
// on the team (at least 2^22 multiply-adds, 64 rows or columns per thread)
// is not handed to oneDNN's own threading but cut by the team into one
// slice of the larger of M and N per thread, each slice a sequential
// oneDNN call: on 2 threads oneDNN's own split of ffn_train's and
// t5_ffn's GEMMs did more work in all than its one-thread kernel. C probe
// (2026-11-26 18:56, load 24-26, so process CPU time, not wall time, of
// one 2-thread call, min of 9): NT 256x4096x1024 (x@W1^T) oneDNN's
// threads 31.0 ms, the slices 22.5, OpenBLAS 24.2; NT 256x1024x4096
// 30.7 / 22.8 / 24.9; NN 256x4096x1024 22.0 / 20.9 / 23.0; TN
// 1024x4096x256 20.1 / 20.0 / 23.7; NT 4096x512x2048 (t5_ffn's wo)
// 107.6 / 81.2 / 87.9. Equal slices on a quiet machine make the wall time
// about half that; whether it wins stays a measurement (the candidate is
// chosen per kernel, compiler/autotune.go).

const dnnlPrelude = `
#include <omp.h>
typedef int (*gcdbg_dnnl_sgemm_t)(char, char, int64_t, int64_t, int64_t, float, const float *, int64_t, const float *, int64_t, float, float *, int64_t);
static gcdbg_dnnl_sgemm_t gcdbg_dnnl_sgemm;
static pthread_once_t gcdbg_dnnl_once = PTHREAD_ONCE_INIT;
/* libdnnl's handle; NULL without it or with GCDBG_NO_BLAS=1 (also conv_dnnl.go's loader) */
static void *gcdbg_dnnl_open(void) {
  if (gcdbg_no_blas()) return NULL;
  void *h = dlopen("libdnnl.so.2", RTLD_NOW | RTLD_LOCAL);
  return h ? h : dlopen("libdnnl.so", RTLD_NOW | RTLD_LOCAL);
}
static void gcdbg_dnnl_load(void) {
  void *h = gcdbg_dnnl_open();
  if (!h) return;
  gcdbg_dnnl_sgemm = (gcdbg_dnnl_sgemm_t)dlsym(h, "dnnl_sgemm");
}
/* C = A B + beta C through oneDNN's sgemm (BLAS layouts, row major); 0 when
   it cannot (no oneDNN, strides it does not take, an error status). A kernel
   that chose one thread (gcdbg_gemm_team = 0) runs it with OpenMP's thread
   count at 1; inside a parallel region oneDNN runs sequentially anyway. */
static __attribute__((unused)) int gcdbg_dnnl_gemm(int64_t M, int64_t N, int64_t K, const float *A, int64_t sa0, int64_t sa1,
    const float *B, int64_t sb0, int64_t sb1, float beta, float *C, int64_t ldc) {
  pthread_once(&gcdbg_dnnl_once, gcdbg_dnnl_load);
  int ta, tb, lda, ldb;
  if (!gcdbg_dnnl_sgemm || M <= 0 || N <= 0 || K <= 0 || ldc >= 2147483647 || !gcdbg_blas_layout(M, K, sa0, sa1, &ta, &lda) ||
      !gcdbg_blas_layout(K, N, sb0, sb1, &tb, &ldb))
    return 0;
  const char cta = ta == 112 ? 'T' : 'N', ctb = tb == 112 ? 'T' : 'N';
  const int team = gcdbg_gemm_team && !omp_in_parallel() ? omp_get_max_threads() : 1;
  const int64_t D = N >= M ? N : M;
  if (team > 1 && beta == 0.0f && M * N * K >= ((int64_t)1 << 22) && D >= 64 * (int64_t)team) {
    /* The team splits the larger of M and N into one slice per thread, each
       a sequential oneDNN call (oneDNN runs sequentially inside a parallel
       region): its own threading of these shapes did more work in all
       (render/gemm_dnnl.go's comment). beta 0 only, so that a failed slice
       leaves nothing for the caller's fallback to add twice. */
    const int64_t ch = ((D + team - 1) / team + 15) / 16 * 16;
    int bad = 0;
    #pragma omp parallel num_threads(team) reduction(|:bad)
    {
      const int64_t lo = omp_get_thread_num() * ch, hi = lo + ch < D ? lo + ch : D;
      if (lo < hi)
        bad |= (N >= M ? gcdbg_dnnl_sgemm(cta, ctb, M, hi - lo, K, 1.0f, A, lda, B + lo * sb1, ldb, beta, C + lo, ldc)
                       : gcdbg_dnnl_sgemm(cta, ctb, hi - lo, N, K, 1.0f, A + lo * sa0, lda, B, ldb, beta, C + lo * ldc, ldc)) != 0;
    }
    return !bad;
  }
  const int one = !gcdbg_gemm_team && !omp_in_parallel();
  const int nt = one ? omp_get_max_threads() : 0;
  if (one) omp_set_num_threads(1);
  const int st = gcdbg_dnnl_sgemm(cta, ctb, M, N, K, 1.0f, A, lda, B, ldb, beta, C, ldc);
  if (one) omp_set_num_threads(nt);
  return st == 0;
}
`

// gemmDNNLName is the oneDNN-first GEMM of element type t (float only).
func gemmDNNLName(t string) string { return "gcdbg_gemm_dnnl_" + sanitizeIdent(t) }

// gemmDNNLFunc is the oneDNN-first GEMM for float, with gemmFunc's
// signature: gcdbg_dnnl_gemm, else the OpenBLAS-first GEMM.
func gemmDNNLFunc(t string) string {
	return fmt.Sprintf(`
static __attribute__((unused)) void %[1]s(int64_t M, int64_t N, int64_t K, const float *A, int64_t sa0, int64_t sa1,
    const float *B, int64_t sb0, int64_t sb1, float *C, int64_t ldc) {
  if (!gcdbg_dnnl_gemm(M, N, K, A, sa0, sa1, B, sb0, sb1, 0.0f, C, ldc))
    %[2]s(M, N, K, A, sa0, sa1, B, sb0, sb1, C, ldc);
}
`, gemmDNNLName(t), gemmName(t))
}

// dnnlAccFunc is the oneDNN accumulating GEMM of convAccFn, written after
// conv_acc.go's OpenBLAS one (its fallback) in the convolutions' prelude.
func dnnlAccFunc(t string) string {
	return fmt.Sprintf(`
/* C += A B through oneDNN (beta 1), conv2d_backward_weight's accumulation
   (conv_acc.go); OpenBLAS's when oneDNN cannot. 0 when neither can. */
static __attribute__((unused)) int gcdbg_gemm_acc_dnnl_%[1]s(int64_t M, int64_t N, int64_t K, const float *A, int64_t sa0, int64_t sa1,
    const float *B, int64_t sb0, int64_t sb1, float *C, int64_t ldc) {
  return gcdbg_dnnl_gemm(M, N, K, A, sa0, sa1, B, sb0, sb1, 1.0f, C, ldc) || gcdbg_gemm_acc_%[1]s(M, N, K, A, sa0, sa1, B, sb0, sb1, C, ldc);
}
`, sanitizeIdent(t))
}

// convAccFn is conv2d_backward_weight's accumulating GEMM (C += A B,
// returning 0 when it cannot): OpenBLAS's (conv_acc.go), or oneDNN's when
// the kernel chose it, as convGemmFn.
func (g *kernelGen) convAccFn(t string) string {
	acc := "gcdbg_gemm_acc_" + sanitizeIdent(t)
	if !g.r.d.Entry || t != "float" {
		return acc
	}
	g.r.choiceOf(g.idx).dnnl = true
	return fmt.Sprintf("(%s & %d ? gcdbg_gemm_acc_dnnl_%s : %s)", choiceVar, choiceDNNL, sanitizeIdent(t), acc)
}

// convGemmFn is the GEMM function a convolution's per-image GEMMs call:
// OpenBLAS-first, or oneDNN's sgemm when the kernel chose it (float32
// only; the generated GEMM is not offered: it is no candidate at these
// sizes). The images already run on the OpenMP team, each GEMM on one
// thread, so no thread choice either.
func (g *kernelGen) convGemmFn(t string) string {
	if !g.r.d.Entry || t != "float" {
		return gemmName(t)
	}
	g.r.choiceOf(g.idx).dnnl = true
	return fmt.Sprintf("(%s & %d ? %s : %s)", choiceVar, choiceDNNL, gemmDNNLName(t), gemmName(t))
}
