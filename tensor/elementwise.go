package tensor

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// The eager interpreter's elementwise loops over large tensors (loading
// an operand broadcast to the result's shape, the arithmetic, rounding to
// the dtype, where, clamp, copies) run in contiguous chunks across the
// cores (parallelRows, blas.go): every element is computed exactly as the
// one loop over all of them computes it, so the values are the same bit
// for bit whatever the split. The float64 reference runs of the accuracy
// verdict spend most of their time in these loops on convolutional
// training graphs (a MobileNetV2's batch-norm, ReLU6 and their gradients).

// serialElems makes the elementwise loops run on one core (tests compare
// the two).
var serialElems atomic.Bool

// SetSerial makes the elementwise loops run on one core (true) or split
// across the cores (false, the default) and returns the previous setting:
// the tests' way to compare both.
func SetSerial(on bool) bool { return serialElems.Swap(on) }

// parallelElems runs f over [0, n) in contiguous chunks, one per core,
// when n is large enough (parallelRows' threshold).
func parallelElems(n int, f func(lo, hi int)) {
	if serialElems.Load() {
		f(0, n)
		return
	}
	parallelRows(n, n, f)
}

// ParallelElems is parallelElems for the interpreter's own elementwise
// passes (interp's simulated float32 rounding).
func ParallelElems(n int, f func(lo, hi int)) { parallelElems(n, f) }

// Chunks is how many contiguous chunks parallelElems splits n elements
// into: 1 (one loop, on this goroutine) for a small n or under SetSerial.
func Chunks(n int) int {
	if serialElems.Load() || n < blasMinWork {
		return 1
	}
	return max(1, min(runtime.GOMAXPROCS(0), n))
}

// EachChunk calls f(c, lo, hi) for the parts contiguous chunks of [0, n)
// (chunk c is [n*c/parts, n*(c+1)/parts)), each on its own goroutine when
// parts > 1, and returns when all are done.
func EachChunk(n, parts int, f func(c, lo, hi int)) {
	if parts <= 1 {
		f(0, 0, n)
		return
	}
	var wg sync.WaitGroup
	for c := 1; c < parts; c++ {
		wg.Add(1)
		go func() { defer wg.Done(); f(c, n*c/parts, n*(c+1)/parts) }()
	}
	f(0, 0, n/parts)
	wg.Wait()
}

// parallelWork is parallelRows (n rows, work multiply-adds or terms in
// all) under SetSerial.
func parallelWork(n, work int, f func(lo, hi int)) {
	if serialElems.Load() {
		f(0, n)
		return
	}
	parallelRows(n, work, f)
}

// gather copies the elements [lo, lo+len(dst)) of t, in row-major logical
// order, from src (t's storage: S.F or S.I) into dst, converting each with
// a plain Go conversion (what Flat and FlatInt do): the strided walk of
// loadF and Clone without a call per element.
func gather[S, D float64 | int64](dst []D, src []S, t *Tensor, lo int) {
	n := len(dst)
	if n == 0 {
		return
	}
	nd := len(t.Shape)
	if nd == 0 {
		dst[0] = D(src[t.Offset])
		return
	}
	idx := make([]int, nd)
	p := t.Offset
	rem := lo
	for d := nd - 1; d >= 0; d-- {
		idx[d] = rem % t.Shape[d]
		rem /= t.Shape[d]
		p += idx[d] * t.Strides[d]
	}
	inner, is := t.Shape[nd-1], t.Strides[nd-1]
	i := 0
	for i < n {
		m := min(inner-idx[nd-1], n-i)
		seg := dst[i : i+m]
		switch is {
		case 0:
			v := D(src[p])
			for j := range seg {
				seg[j] = v
			}
		case 1:
			s := src[p : p+m]
			for j := range seg {
				seg[j] = D(s[j])
			}
		default:
			q := p
			for j := range seg {
				seg[j] = D(src[q])
				q += is
			}
		}
		i += m
		if i >= n {
			break
		}
		// Next row: the inner index back to 0, carry into the outer dims.
		p -= idx[nd-1] * is
		idx[nd-1] = 0
		for d := nd - 2; d >= 0; d-- {
			idx[d]++
			p += t.Strides[d]
			if idx[d] < t.Shape[d] {
				break
			}
			p -= idx[d] * t.Strides[d]
			idx[d] = 0
		}
	}
}
