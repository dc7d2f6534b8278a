package tensor

import (
	"os"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/ebitengine/purego"
)

// The eager interpreter's large floating matrix products go to OpenBLAS's
// cblas_dgemm (float64 in, float64 out, one rounding of the result to the
// dtype afterwards, as the loops do) when libopenblas is present: the
// float64 reference runs of the accuracy verdict spend most of their time
// in GEMMs (a Llama block's training step: 85% of the joint graph's run in
// the i-k-j loops), and dgemm is ten times faster. Its sums run in another
// order than the loops' (blocked along k, fused multiply-adds): a float64
// rounding difference, far below the float32 rounding the verdict measures
// (docs/verdict.md). Integer products keep the loops (exact int64 sums up
// to 2^53, as before). The library is found at run time through purego
// like the GPU runtimes (no cgo, no link-time dependency); without it, or
// with GCDBG_NO_BLAS=1 (the generated code's switch too), the loops run.
//
// OpenBLAS runs one thread per call (openblas_set_num_threads(1)) and the
// callers split the rows across goroutines themselves (parallelRows): no
// OpenBLAS thread spins beside the interpreter's next op, and each result
// element's sum is the same whatever the split.

// blasMinWork is the smallest product (n·k·p multiply-adds) sent to dgemm
// and split across goroutines; smaller ones run the loops on one core.
const blasMinWork = 1 << 16

const (
	cblasRowMajor = 101
	cblasNoTrans  = 111
	cblasTrans    = 112
)

var blas struct {
	once sync.Once
	// off makes blasDgemm nil (tests: the loops, for comparison).
	off   bool
	calls atomic.Int64
	dgemm func(order, transA, transB, m, n, k int32, alpha float64, a *float64, lda int32, b *float64, ldb int32, beta float64, c *float64, ldc int32)
}

// blasDgemm is cblas_dgemm, nil when OpenBLAS is absent or switched off.
func blasDgemm() func(order, transA, transB, m, n, k int32, alpha float64, a *float64, lda int32, b *float64, ldb int32, beta float64, c *float64, ldc int32) {
	blas.once.Do(func() {
		if os.Getenv("GCDBG_NO_BLAS") == "1" {
			return
		}
		var h uintptr
		for _, p := range []string{"libopenblas.so.0", "libopenblas.so"} {
			if x, err := purego.Dlopen(p, purego.RTLD_NOW|purego.RTLD_LOCAL); err == nil {
				h = x
				break
			}
		}
		if h == 0 {
			return
		}
		gemm, err1 := purego.Dlsym(h, "cblas_dgemm")
		setThreads, err2 := purego.Dlsym(h, "openblas_set_num_threads")
		if err1 != nil || err2 != nil {
			return
		}
		purego.SyscallN(setThreads, 1)
		purego.RegisterFunc(&blas.dgemm, gemm)
	})
	if blas.off {
		return nil
	}
	return blas.dgemm
}

// BLASCalls is how many dgemm calls the interpreter has made: tests
// check with it that a path they mean to exercise went through OpenBLAS.
func BLASCalls() int64 { return blas.calls.Load() }

// BLASAvailable reports whether the interpreter's GEMMs go to OpenBLAS.
func BLASAvailable() bool { return blasDgemm() != nil }

// fitsBLAS reports whether every size fits OpenBLAS's 32-bit integers and
// none is zero (an empty product or k = 0 is the loops' trivial case).
func fitsBLAS(dims ...int) bool {
	for _, d := range dims {
		if d <= 0 || d > 1<<31-1 {
			return false
		}
	}
	return true
}

// parallelRows runs f over [0, n) in contiguous chunks, one goroutine per
// available core, when work (multiply-adds) is large enough; each chunk's
// results are computed exactly as one call over [0, n) computes them.
func parallelRows(n, work int, f func(lo, hi int)) {
	parts := min(runtime.GOMAXPROCS(0), n)
	if parts < 2 || work < blasMinWork {
		f(0, n)
		return
	}
	var wg sync.WaitGroup
	for i := 1; i < parts; i++ {
		lo, hi := n*i/parts, n*(i+1)/parts
		wg.Add(1)
		go func() { defer wg.Done(); f(lo, hi) }()
	}
	f(0, n/parts)
	wg.Wait()
}

// gemmBLAS computes c[n×p] = beta·c + a[n×k] · b[k×p] (row-major; a
// stored transposed, a[k×n], with transA; b stored transposed, b[p×k],
// with transB) through dgemm, split by rows of c; false when dgemm is not
// available for these sizes (the caller runs its loops; c untouched).
func gemmBLAS(a, b, c []float64, n, k, p int, transA, transB bool, beta float64) bool {
	dgemm := blasDgemm()
	if dgemm == nil || !fitsBLAS(n, k, p) || n*k*p < blasMinWork {
		return false
	}
	ta, lda := int32(cblasNoTrans), int32(k)
	if transA {
		ta, lda = cblasTrans, int32(n)
	}
	tb, ldb := int32(cblasNoTrans), int32(p)
	if transB {
		tb, ldb = cblasTrans, int32(k)
	}
	blas.calls.Add(1)
	parallelRows(n, n*k*p, func(lo, hi int) {
		if hi <= lo {
			return
		}
		ap := &a[lo*k]
		if transA {
			ap = &a[lo] // column lo of the stored a[k×n]
		}
		dgemm(cblasRowMajor, ta, tb, int32(hi-lo), int32(p), int32(k), 1,
			ap, lda, &b[0], ldb, beta, &c[lo*p], int32(p))
		runtime.KeepAlive(a)
		runtime.KeepAlive(b)
		runtime.KeepAlive(c)
	})
	return true
}
