#!/usr/bin/python3
# bench/per_gemm_ffn.py [ROUNDS]: ffn_train's five GEMMs (docs/performance.md, "ffn_train: where the time goes"),
# run with OMP_NUM_THREADS=2 OMP_WAIT_POLICY=passive OPENBLAS_THREAD_TIMEOUT=4 /usr/bin/python3.
# Same-process, interleaved: PyTorch's torch.mm (its OpenBLAS via libblas.so.3) vs the calls the
# compiled kernels make: cblas_sgemm of libopenblas.so.0 (choice 0) and dnnl_sgemm (choice 8),
# same M,N,K, transposes, leading dimensions (row-major, as render/gemm.go passes them).
import ctypes, sys, time, statistics, torch
torch.set_num_threads(2)
ob = ctypes.CDLL("libopenblas.so.0"); dn = ctypes.CDLL("libdnnl.so.2")
ob.cblas_sgemm.argtypes = [ctypes.c_int]*6 + [ctypes.c_float, ctypes.c_void_p, ctypes.c_int, ctypes.c_void_p, ctypes.c_int, ctypes.c_float, ctypes.c_void_p, ctypes.c_int]
dn.dnnl_sgemm.argtypes = [ctypes.c_char, ctypes.c_char] + [ctypes.c_int64]*3 + [ctypes.c_float, ctypes.c_void_p, ctypes.c_int64, ctypes.c_void_p, ctypes.c_int64, ctypes.c_float, ctypes.c_void_p, ctypes.c_int64]
torch.manual_seed(0)
def mk(*s): return torch.randn(*s)
x, W1, W2, h, g, gh = mk(256,1024), mk(4096,1024), mk(1024,4096), mk(256,4096), mk(256,1024), mk(256,4096)
# (name, torch lambda, A, transA, lda, B, transB, ldb, M, N, K)
cases = [
 ("fwd k0 x@W1^T NT", lambda: torch.mm(x, W1.t()), x, 'N', 1024, W1, 'T', 1024, 256, 4096, 1024),
 ("fwd k1 h@W2^T NT", lambda: torch.mm(h, W2.t()), h, 'N', 4096, W2, 'T', 4096, 256, 1024, 4096),
 ("bwd k2 g@W2 NN",   lambda: torch.mm(g, W2),     g, 'N', 1024, W2, 'N', 4096, 256, 4096, 1024),
 ("bwd k3 g^T@h TN",  lambda: torch.mm(g.t(), h),  g, 'T', 1024, h, 'N', 4096, 1024, 4096, 256),
 ("bwd k5 gh^T@x TN", lambda: torch.mm(gh.t(), x), gh, 'T', 4096, x, 'N', 1024, 4096, 1024, 256),
]
def run_ob(c, C):
    _, _, A, ta, lda, B, tb, ldb, M, N, K = c
    ob.cblas_sgemm(101, 112 if ta == 'T' else 111, 112 if tb == 'T' else 111, M, N, K, 1.0, A.data_ptr(), lda, B.data_ptr(), ldb, 0.0, C.data_ptr(), N)
def run_dn(c, C):
    _, _, A, ta, lda, B, tb, ldb, M, N, K = c
    st = dn.dnnl_sgemm(ta.encode(), tb.encode(), M, N, K, 1.0, A.data_ptr(), lda, B.data_ptr(), ldb, 0.0, C.data_ptr(), N)
    assert st == 0
res = {}
outs = {}
for c in cases:
    C1, C2 = torch.empty(c[8], c[9]), torch.empty(c[8], c[9])
    ref = c[1](); run_ob(c, C1); run_dn(c, C2)
    print(c[0], "max|torch-openblas|", (ref - C1).abs().max().item(), "max|torch-dnnl|", (ref - C2).abs().max().item())
    outs[c[0]] = (C1, C2)
R = int(sys.argv[1]) if len(sys.argv) > 1 else 20
for r in range(R):
    for c in cases:
        C1, C2 = outs[c[0]]
        for who, f in (("torch.mm", c[1]), ("cblas", lambda: run_ob(c, C1)), ("dnnl", lambda: run_dn(c, C2))):
            t0 = time.perf_counter(); f(); res.setdefault((c[0], who), []).append((time.perf_counter() - t0) * 1e3)
print(f"{'GEMM':20s} {'torch.mm min/med':>18s} {'cblas min/med':>16s} {'dnnl min/med':>16s}  ratio cblas/torch, dnnl/torch (min; med)")
for c in cases:
    t, o, d = (res[(c[0], w)] for w in ("torch.mm", "cblas", "dnnl"))
    m = statistics.median
    print(f"{c[0]:20s} {min(t):7.2f}/{m(t):7.2f}   {min(o):7.2f}/{m(o):7.2f}  {min(d):7.2f}/{m(d):7.2f}   {min(o)/min(t):.2f} {min(d)/min(t):.2f} ; {m(o)/m(t):.2f} {m(d)/m(t):.2f}")
