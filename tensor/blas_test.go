package tensor

import (
	"math"
	"math/rand/v2"
	"os"
	"runtime"
	"testing"

	"github.com/ebitengine/purego"
)

// The dgemm paths (blas.go, conv_blas.go) against the loops they replace,
// on edge shapes: empty and 1-sized dimensions, transposed and broadcast
// operands, NaN and ±Inf. Values agree up to float64 summation order
// (bounded by the sum of |products|); NaN and ±Inf sit at the same places.

// withLoops runs f with dgemm switched off.
func withLoops(f func()) {
	blas.off = true
	defer func() { blas.off = false }()
	f()
}

// requireBLAS fails where libopenblas loads but the interpreter does not
// use it (a test of the dgemm path that ran the loops proves nothing).
func requireBLAS(t *testing.T) {
	t.Helper()
	if os.Getenv("GCDBG_NO_BLAS") == "1" {
		t.Skip("GCDBG_NO_BLAS=1")
	}
	h, err := purego.Dlopen("libopenblas.so.0", purego.RTLD_NOW|purego.RTLD_LOCAL)
	if err != nil {
		t.Skipf("no OpenBLAS on this machine: %v", err)
	}
	_ = purego.Dlclose(h)
	if !BLASAvailable() {
		t.Fatal("libopenblas.so.0 loads, but the interpreter's GEMMs do not use it")
	}
}

func randT(r *rand.Rand, shape ...int) *Tensor {
	t := New(Float64, shape...)
	for i := range t.S.F {
		t.S.F[i] = r.NormFloat64()
	}
	return t
}

// closeTo compares got with want (the loops) where bound[i] is the sum of
// |products| of element i: |got - want| <= 1e-13·bound, NaN where NaN,
// the same ±Inf.
func blasCloseTo(t *testing.T, what string, got, want, bound *Tensor) {
	t.Helper()
	if len(got.Shape) != len(want.Shape) || got.Numel() != want.Numel() {
		t.Fatalf("%s: shape %v, want %v", what, got.Shape, want.Shape)
	}
	for i := range got.Shape {
		if got.Shape[i] != want.Shape[i] {
			t.Fatalf("%s: shape %v, want %v", what, got.Shape, want.Shape)
		}
	}
	if got.DType != want.DType {
		t.Fatalf("%s: dtype %v, want %v", what, got.DType, want.DType)
	}
	bad := 0
	for i := 0; i < got.Numel(); i++ {
		g, w := got.Flat(i), want.Flat(i)
		ok := false
		switch {
		case math.IsNaN(w):
			ok = math.IsNaN(g)
		case math.IsInf(w, 0):
			ok = g == w
		default:
			b := 1e-13 * math.Abs(bound.Flat(i))
			if got.DType != Float64 {
				b += math.Abs(w) * 2.4e-7 // one float32 ulp apart at most (the sums round either way)
			}
			ok = !math.IsNaN(g) && math.Abs(g-w) <= b
		}
		if !ok && bad < 5 {
			t.Errorf("%s: [%d] = %v, loops %v (|products| %v)", what, i, g, w, bound.Flat(i))
		}
		if !ok {
			bad++
		}
	}
	if bad > 0 {
		t.Errorf("%s: %d of %d elements differ", what, bad, got.Numel())
	}
}

func absT(t *testing.T, x *Tensor) *Tensor {
	t.Helper()
	y, err := Unary("abs", x)
	if err != nil {
		t.Fatal(err)
	}
	return y
}

func TestMatmulBLASMatchesLoops(t *testing.T) {
	requireBLAS(t)
	r := rand.New(rand.NewPCG(1, 2))
	type op struct {
		name string
		f    func(a, b *Tensor) (*Tensor, error)
		a, b *Tensor
	}
	tr := func(x *Tensor) *Tensor { // a transposed (non-contiguous) view of x's last two dims
		d := x.Dim()
		sh, st := append([]int{}, x.Shape...), append([]int{}, x.Strides...)
		sh[d-1], sh[d-2] = sh[d-2], sh[d-1]
		st[d-1], st[d-2] = st[d-2], st[d-1]
		return x.View(sh, st, x.Offset)
	}
	nonfinite := randT(r, 64, 300)
	nonfinite.S.F[3*300+7] = math.NaN()
	nonfinite.S.F[10*300+1] = math.Inf(1)
	nonfinite.S.F[11*300+2] = math.Inf(-1)
	withInf := randT(r, 300, 50)
	withInf.S.F[5*50+9] = math.Inf(1)
	for i := 0; i < 50; i++ {
		withInf.S.F[4*50+i] = 0 // a zero row meeting the column of +Inf: 0·Inf = NaN
	}
	nonfinite.S.F[20*300+5] = 0 // meets withInf's +Inf (row 5, column 9): 0·Inf
	cases := []op{
		{"mm 1xKxP", Mm, randT(r, 1, 4096), randT(r, 4096, 64)},
		{"mm Nx1xP", Mm, randT(r, 512, 1), randT(r, 1, 256)},
		{"mm NxKx1", Mm, randT(r, 256, 512), randT(r, 512, 1)},
		{"mm odd", Mm, randT(r, 67, 129), randT(r, 129, 33)},
		{"mm k=0", Mm, randT(r, 300, 0), randT(r, 0, 300)},
		{"mm n=0", Mm, randT(r, 0, 300), randT(r, 300, 300)},
		{"mm transposed a", Mm, tr(randT(r, 129, 67)), randT(r, 129, 40)},
		{"mm transposed b", Mm, randT(r, 67, 129), tr(randT(r, 40, 129))},
		{"mm NaN/Inf", Mm, nonfinite, withInf},
		{"bmm", Bmm, randT(r, 3, 40, 50), randT(r, 3, 50, 60)},
		{"matmul broadcast", Matmul, randT(r, 2, 1, 40, 50), randT(r, 3, 50, 60)},
		{"matmul vector", Matmul, randT(r, 300, 400), randT(r, 400)},
		{"linear", func(a, b *Tensor) (*Tensor, error) { return Linear(a, b, nil) }, randT(r, 4, 30, 200), randT(r, 70, 200)},
		{"linear transposed w", func(a, b *Tensor) (*Tensor, error) { return Linear(a, b, nil) }, randT(r, 90, 200), tr(randT(r, 200, 70))},
		{"linear NaN/Inf", func(a, b *Tensor) (*Tensor, error) { return Linear(a, b, nil) }, nonfinite, tr(withInf)},
	}
	for _, c := range cases {
		before := BLASCalls()
		got, err := c.f(c.a, c.b)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		used := BLASCalls() > before
		var want, bound *Tensor
		withLoops(func() {
			want, err = c.f(c.a, c.b)
			if err == nil {
				bound, err = c.f(absT(t, c.a), absT(t, c.b))
			}
		})
		if err != nil {
			t.Fatalf("%s (loops): %v", c.name, err)
		}
		empty := got.Numel() == 0 || c.a.Shape[c.a.Dim()-1] == 0
		if used == empty {
			t.Errorf("%s: dgemm used %v, want %v (empty or k = 0 runs the loops)", c.name, used, !empty)
		}
		blasCloseTo(t, c.name, got, want, bound)
		// the float32 result: the same sums rounded once
		a32, b32 := c.a.To(Float32), c.b.To(Float32)
		got32, err := c.f(a32, b32)
		if err != nil {
			t.Fatal(err)
		}
		var want32 *Tensor
		withLoops(func() { want32, _ = c.f(a32, b32) })
		blasCloseTo(t, c.name+" float32", got32, want32, bound)
	}
	// NaN and Inf reach the result where the loops put them.
	got, _ := Mm(nonfinite, withInf)
	if n := countNaN(got); n < 51 {
		t.Errorf("premise: the NaN row and 0·Inf give NaNs, got %d", n)
	}
}

func countNaN(t *Tensor) int {
	n := 0
	for i := 0; i < t.Numel(); i++ {
		if math.IsNaN(t.Flat(i)) {
			n++
		}
	}
	return n
}

// An integer product keeps the loops (exact int64 sums), whatever its size.
func TestIntegerMatmulKeepsLoops(t *testing.T) {
	a, b := New(Int64, 128, 128), New(Int64, 128, 128)
	for i := range a.S.I {
		a.S.I[i], b.S.I[i] = int64(i%7-3), int64(i%5-2)
	}
	before := BLASCalls()
	if _, err := Mm(a, b); err != nil {
		t.Fatal(err)
	}
	if BLASCalls() != before {
		t.Error("an int64 mm went to dgemm")
	}
}

type convCase struct {
	name                        string
	x, w, b                     *Tensor
	stride, padding, dil        [2]int
	groups                      int
	wantBLASFwd, wantBLASWeight bool
}

func convCases(r *rand.Rand) []convCase {
	xNaN := randT(r, 2, 8, 20, 20)
	xNaN.S.F[100] = math.NaN()
	xNaN.S.F[900] = math.Inf(1)
	wInf := randT(r, 16, 8, 3, 3)
	wInf.S.F[5] = math.Inf(-1)
	return []convCase{
		{"3x3 pad", randT(r, 2, 8, 20, 20), randT(r, 16, 8, 3, 3), randT(r, 16), [2]int{1, 1}, [2]int{1, 1}, [2]int{1, 1}, 1, true, true},
		{"1x1", randT(r, 3, 32, 10, 12), randT(r, 48, 32, 1, 1), nil, [2]int{1, 1}, [2]int{}, [2]int{1, 1}, 1, true, true},
		{"stride dil", randT(r, 2, 8, 23, 19), randT(r, 16, 8, 3, 2), randT(r, 16), [2]int{2, 1}, [2]int{2, 1}, [2]int{2, 3}, 1, true, true},
		{"groups 2", randT(r, 2, 16, 16, 16), randT(r, 32, 8, 3, 3), nil, [2]int{1, 1}, [2]int{1, 1}, [2]int{1, 1}, 2, true, true},
		{"one image 1-wide", randT(r, 1, 64, 1, 300), randT(r, 64, 64, 1, 2), randT(r, 64), [2]int{1, 1}, [2]int{0, 1}, [2]int{1, 4}, 1, true, true},
		{"NaN/Inf in x", xNaN, randT(r, 16, 8, 3, 3), nil, [2]int{1, 1}, [2]int{1, 1}, [2]int{1, 1}, 1, true, false},
		// -Inf in the weight meets the padding's zeros: the loops run (0·Inf).
		{"Inf in w padded", randT(r, 2, 8, 20, 20), wInf, nil, [2]int{1, 1}, [2]int{1, 1}, [2]int{1, 1}, 1, false, true},
		{"Inf in w unpadded", randT(r, 2, 8, 20, 20), wInf, nil, [2]int{1, 1}, [2]int{}, [2]int{1, 1}, 1, true, true},
		{"depthwise (small groups)", randT(r, 2, 8, 20, 20), randT(r, 8, 1, 3, 3), nil, [2]int{1, 1}, [2]int{1, 1}, [2]int{1, 1}, 8, false, false},
	}
}

func TestConvBLASMatchesLoops(t *testing.T) {
	requireBLAS(t)
	r := rand.New(rand.NewPCG(3, 4))
	for _, c := range convCases(r) {
		var gOut *Tensor
		var usedFwd, usedWeight bool // the first run's forward and weight gradient went to dgemm
		run := func(x, w, b, g *Tensor) (out, gx, gw *Tensor) {
			var err error
			calls := BLASCalls()
			if out, err = Conv2d(x, w, b, c.stride, c.padding, c.dil, c.groups); err != nil {
				t.Fatalf("%s: %v", c.name, err)
			}
			first := g == nil
			if first {
				usedFwd = BLASCalls() > calls
			}
			if g == nil {
				g = randT(r, out.Shape...)
				if c.name == "NaN/Inf in x" {
					g.S.F[7] = math.NaN()
				}
				gOut = g
			}
			if gx, err = Conv2dBackwardInput(g, w, x.Shape, c.stride, c.padding, c.dil, c.groups); err != nil {
				t.Fatalf("%s: %v", c.name, err)
			}
			calls = BLASCalls()
			if gw, err = Conv2dBackwardWeight(g, x, w.Shape, c.stride, c.padding, c.dil, c.groups); err != nil {
				t.Fatalf("%s: %v", c.name, err)
			}
			if first {
				usedWeight = BLASCalls() > calls
			}
			return out, gx, gw
		}
		before := BLASCalls()
		out, gx, gw := run(c.x, c.w, c.b, nil)
		if used := BLASCalls() > before; used != (c.wantBLASFwd || c.wantBLASWeight) {
			t.Errorf("%s: dgemm used %v", c.name, used)
		}
		if usedFwd != c.wantBLASFwd || usedWeight != c.wantBLASWeight {
			t.Errorf("%s: dgemm used by the forward %v (want %v), by the weight gradient %v (want %v)", c.name, usedFwd, c.wantBLASFwd, usedWeight, c.wantBLASWeight)
		}
		var lo, lgx, lgw, bo, bgx, bgw *Tensor
		withLoops(func() {
			lo, lgx, lgw = run(c.x, c.w, c.b, gOut)
			var ab *Tensor
			if c.b != nil {
				ab = absT(t, c.b)
			}
			bo, bgx, bgw = run(absT(t, c.x), absT(t, c.w), ab, absT(t, gOut))
		})
		blasCloseTo(t, c.name+" forward", out, lo, bo)
		blasCloseTo(t, c.name+" input grad", gx, lgx, bgx)
		blasCloseTo(t, c.name+" weight grad", gw, lgw, bgw)
	}
}

// The loops split across goroutines (parallelRows) give the serial loops'
// sums bit for bit: every result element is summed by one goroutine in the
// serial order.
func TestParallelLoopsAreSerialBitForBit(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	runAll := func() []*Tensor {
		var out []*Tensor
		for _, c := range convCases(rand.New(rand.NewPCG(7, 8))) {
			o, err := Conv2d(c.x, c.w, c.b, c.stride, c.padding, c.dil, c.groups)
			if err != nil {
				t.Fatal(err)
			}
			g := randT(rand.New(rand.NewPCG(9, 10)), o.Shape...)
			gx, err := Conv2dBackwardInput(g, c.w, c.x.Shape, c.stride, c.padding, c.dil, c.groups)
			if err != nil {
				t.Fatal(err)
			}
			gw, err := Conv2dBackwardWeight(g, c.x, c.w.Shape, c.stride, c.padding, c.dil, c.groups)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, o, gx, gw)
		}
		a, b := randT(r, 70, 300), randT(r, 300, 90)
		m, err := Mm(a, b)
		if err != nil {
			t.Fatal(err)
		}
		l, err := Linear(a, randT(r, 50, 300), nil)
		if err != nil {
			t.Fatal(err)
		}
		return append(out, m, l)
	}
	var serial, parallel []*Tensor
	withLoops(func() {
		old := runtime.GOMAXPROCS(1)
		serial = runAll()
		runtime.GOMAXPROCS(3) // an uneven split of every dimension
		r = rand.New(rand.NewPCG(5, 6))
		parallel = runAll()
		runtime.GOMAXPROCS(old)
	})
	for i := range serial {
		for k := 0; k < serial[i].Numel(); k++ {
			s, p := serial[i].Flat(k), parallel[i].Flat(k)
			if math.Float64bits(s) != math.Float64bits(p) && !(math.IsNaN(s) && math.IsNaN(p)) {
				t.Fatalf("result %d [%d]: parallel %v, serial %v", i, k, p, s)
			}
		}
	}
}
