package tensor

import (
	"fmt"
	"math"
	"testing"
)

func arangeF(t *testing.T, shape ...int) *Tensor {
	t.Helper()
	x := New(Float32, shape...)
	for i := range x.S.F {
		x.S.F[i] = float64(i)
	}
	return x
}

func ip(i int) *int { return &i }

func TestViewsAlias(t *testing.T) {
	base := arangeF(t, 3, 4)

	row, err := Select(base, 0, 1)
	if err != nil {
		t.Fatal(err)
	}
	row.SetFlat(2, 100)
	if base.At(1, 2) != 100 {
		t.Fatalf("Select view does not alias: %v", base)
	}

	tr, _ := Transpose(base, 0, 1)
	tr.SetFlat(1, -5) // tr[0][1] == base[1][0]
	if base.At(1, 0) != -5 {
		t.Fatalf("Transpose view does not alias: %v", base)
	}

	sl, _ := Slice(base, 1, ip(1), nil, ip(2)) // base[:, 1::2]
	sl.SetFlat(5, 42)                          // sl[2][1] == base[2][3]
	if base.At(2, 3) != 42 {
		t.Fatalf("Slice view does not alias: %v", base)
	}

	// view of a view of a view, then setitem through it
	v1, _ := Transpose(base, 0, 1)         // [4, 3]
	v2, _ := Slice(v1, 0, ip(1), nil, nil) // [3, 3]
	v3, _ := Select(v2, 1, -1)             // [3] = base[2, 1:]
	if err := IndexPut(v3, []IndexItem{{Kind: IdxTensor, Tensor: FromInts(Int64, []int{2}, []int64{0, -1})}}, PyNumber(7.0)); err != nil {
		t.Fatal(err)
	}
	if base.At(2, 1) != 7 || base.At(2, 3) != 7 {
		t.Fatalf("IndexPut through views not visible in base: %v", base)
	}

	// basic indexing returns a view
	iv, _ := Index(base, []IndexItem{{Kind: IdxEllipsis}, {Kind: IdxInt, Int: 0}})
	if iv.S != base.S {
		t.Fatal("basic Index should alias")
	}
	// advanced indexing copies
	av, _ := Index(base, []IndexItem{{Kind: IdxTensor, Tensor: FromInts(Int64, []int{1}, []int64{0})}})
	if av.S == base.S {
		t.Fatal("advanced Index should copy")
	}

	// reshape: a view when possible, else a copy
	r1, _ := Reshape(base, []int{2, 6})
	if r1.S != base.S {
		t.Fatal("Reshape of a contiguous tensor should alias")
	}
	r2, _ := Reshape(tr, []int{12})
	if r2.S == base.S {
		t.Fatal("Reshape of a transposed tensor must copy")
	}
	if _, err := ViewAs(tr, []int{12}); err == nil {
		t.Fatal("ViewAs of a transposed tensor must fail")
	}

	parts, _ := Split(base, []int{1}, 0)
	parts[2].SetFlat(0, -1)
	if base.At(2, 0) != -1 {
		t.Fatal("Split results must alias")
	}
	ch, _ := Chunk(base, 2, 1)
	ch[1].SetFlat(0, -9)
	if base.At(0, 2) != -9 {
		t.Fatal("Chunk results must alias")
	}
	ex, _ := Expand(FromFloats(Float32, []int{1}, []float64{3}), []int{4})
	if ex.Strides[0] != 0 {
		t.Fatal("Expand must not copy")
	}
}

// TestNoPanicHostile throws bad arguments at every entry point: each call
// must return (possibly) an error, never panic.
func TestNoPanicHostile(t *testing.T) {
	empty := New(Float32, 0, 3)
	x := arangeF(t, 2, 3)
	s0 := Scalar(Float32, 1)
	i64 := FromInts(Int64, []int{2}, []int64{1, 0})
	bad := &Tensor{DType: Float32, Shape: []int{4}, Strides: []int{5}, S: &Storage{F: make([]float64, 3)}}
	noStore := &Tensor{DType: Float32, Shape: []int{2}, Strides: []int{1}}
	huge := 1 << 62
	calls := map[string]func() error{}
	add := func(name string, f func() error) { calls[name] = f }
	for k, in := range []*Tensor{empty, x, s0, i64, bad, noStore, nil} {
		tag := []string{"empty", "x", "0d", "i64", "malformed", "nostorage", "nil"}[k]
		for _, op := range []string{"exp", "neg", "bitwise_not", "round", "bogus"} {
			add("unary "+op+tag, func() error { _, err := Unary(op, in); return err })
		}
		for _, op := range []string{"add", "div", "floor_divide", "pow", "bitwise_and", "eq", "bogus"} {
			add("binary "+op+tag, func() error { _, err := Binary(op, in, x); return err })
			add("binary2 "+op+tag, func() error { _, err := Binary(op, i64, in); return err })
		}
		for _, op := range []string{"sum", "amax", "mean", "prod", "any", "bogus"} {
			for _, dims := range [][]int{nil, {5}, {-9}, {0, 0}, {huge}} {
				add(fmt.Sprint("reduce", op, dims, tag), func() error { _, err := Reduce(op, in, dims, true); return err })
			}
		}
		for _, d := range []*int{nil, ip(7), ip(-huge)} {
			add(fmt.Sprint("argmax", d, tag), func() error { _, err := Argmax(in, d, false); return err })
		}
		add("var"+tag, func() error { _, err := Var(in, []int{9}, 1, false); return err })
		add("where"+tag, func() error { _, err := Where(in, x, x); return err })
		add("clamp"+tag, func() error { _, err := Clamp(in, nil, nil); return err })
		add("masked"+tag, func() error { _, err := MaskedFill(x, in, s0); return err })
		add("reshape"+tag, func() error { _, err := Reshape(in, []int{-1, -1}); return err })
		add("reshape2"+tag, func() error { _, err := Reshape(in, []int{huge, huge, 0}); return err })
		add("reshape3"+tag, func() error { _, err := Reshape(in, []int{-1, huge}); return err })
		add("view"+tag, func() error { _, err := ViewAs(in, []int{-3}); return err })
		add("permute"+tag, func() error { _, err := Permute(in, []int{0, huge}); return err })
		add("transpose"+tag, func() error { _, err := Transpose(in, 0, huge); return err })
		add("t"+tag, func() error { _, err := T(in); return err })
		add("expand"+tag, func() error { _, err := Expand(in, []int{huge, huge, -1, -1}); return err })
		add("expand2"+tag, func() error { _, err := Expand(in, []int{-2}); return err })
		add("unsqueeze"+tag, func() error { _, err := Unsqueeze(in, huge); return err })
		add("squeeze"+tag, func() error { _, err := Squeeze(in, []int{huge}); return err })
		add("flatten"+tag, func() error { _, err := Flatten(in, 1, -huge); return err })
		add("select"+tag, func() error { _, err := Select(in, 0, huge); return err })
		add("narrow"+tag, func() error { _, err := Narrow(in, 0, -huge, huge); return err })
		add("narrow2"+tag, func() error { _, err := Narrow(in, 0, 1, huge); return err })
		add("slice"+tag, func() error { _, err := Slice(in, 0, ip(-huge), ip(huge), ip(huge)); return err })
		add("slice0"+tag, func() error { _, err := Slice(in, 0, nil, nil, ip(0)); return err })
		add("diagonal"+tag, func() error { _, err := Diagonal(in, -huge, 0, 1); return err })
		add("diagonal2"+tag, func() error { _, err := Diagonal(in, huge, 0, 1); return err })
		add("index"+tag, func() error {
			_, err := Index(in, []IndexItem{{Kind: IdxEllipsis}, {Kind: IdxEllipsis}, {Kind: IdxInt, Int: huge}})
			return err
		})
		add("index2"+tag, func() error {
			_, err := Index(in, []IndexItem{{Kind: IdxTensor, Tensor: FromInts(Int64, []int{3}, []int64{int64(huge), -int64(huge), 0})}})
			return err
		})
		add("index3"+tag, func() error {
			_, err := Index(in, []IndexItem{{Kind: IdxNone}, {Kind: IdxTensor, Tensor: nil}, {Kind: 99}})
			return err
		})
		add("index4"+tag, func() error {
			_, err := Index(in, []IndexItem{{Kind: IdxTensor, Tensor: New(Bool, 7, 7, 7)}})
			return err
		})
		add("indexput"+tag, func() error {
			return IndexPut(in, []IndexItem{{Kind: IdxTensor, Tensor: i64}}, x)
		})
		add("indexput2"+tag, func() error { return IndexPut(x, []IndexItem{{Kind: IdxInt, Int: 0}}, in) })
		add("cat"+tag, func() error { _, err := Cat([]*Tensor{in, x}, huge); return err })
		add("stack"+tag, func() error { _, err := Stack([]*Tensor{in, in}, -huge); return err })
		add("split"+tag, func() error { _, err := Split(in, []int{huge}, 0); return err })
		add("split2"+tag, func() error { _, err := Split(in, []int{huge, -huge}, 0); return err })
		add("split3"+tag, func() error { _, err := Split(in, nil, 0); return err })
		add("chunk"+tag, func() error { _, err := Chunk(in, huge, 0); return err })
		add("chunk2"+tag, func() error { _, err := Chunk(in, -1, 0); return err })
		add("triu"+tag, func() error { _, err := Triu(in, huge); return err })
		add("sort"+tag, func() error { _, _, err := Sort(in, huge, true, true); return err })
		add("topk"+tag, func() error { _, _, err := Topk(in, huge, 0, true, true); return err })
		add("topk2"+tag, func() error { _, _, err := Topk(in, -1, -1, true, true); return err })
		add("flip"+tag, func() error { _, err := Flip(in, []int{0, 0}); return err })
		add("repeat"+tag, func() error { _, err := Repeat(in, []int{huge, huge, huge}); return err })
	}
	add("cat empty", func() error { _, err := Cat(nil, 0); return err })
	add("stack empty", func() error { _, err := Stack(nil, 0); return err })
	add("full neg", func() error { _, err := Full([]int{-1}, 0, Float32); return err })
	add("full huge", func() error { _, err := Full([]int{huge, huge}, 0, Float32); return err })
	add("full baddtype", func() error { _, err := Full([]int{2}, 0, DType(200)); return err })
	add("zeros huge", func() error { _, err := Zeros([]int{1 << 20, 1 << 20}, Int64); return err })
	add("arange nan", func() error { _, err := Arange(0, math.NaN(), 1, Invalid); return err })
	add("arange inf", func() error { _, err := Arange(0, math.Inf(1), 1, Float32); return err })
	add("arange tiny step", func() error { _, err := Arange(0, 1, 1e-300, Float32); return err })
	add("arange zero", func() error { _, err := Arange(0, 1, 0, Float32); return err })
	add("int min div", func() error {
		_, err := Binary("floor_divide", FromInts(Int64, []int{1}, []int64{math.MinInt64}), PyNumber(-1))
		return err
	})
	add("int min rem", func() error {
		_, err := Binary("remainder", FromInts(Int64, []int{1}, []int64{math.MinInt64}), PyNumber(-1))
		return err
	})
	add("bcast huge", func() error {
		a, _ := Expand(Scalar(Float32, 1), []int{1 << 14, 1})
		b, _ := Expand(Scalar(Float32, 1), []int{1, 1 << 15})
		_, err := Binary("add", a, b)
		return err
	})
	for name, f := range calls {
		func() {
			defer func() {
				if r := recover(); r != nil {
					t.Errorf("%s: panic: %v", name, r)
				}
			}()
			_ = f()
		}()
	}
	// These must be errors, not silently accepted.
	for name, f := range map[string]func() error{
		"topk huge": calls["topkx"],
		"full neg":  calls["full neg"],
		"bad view":  calls["unary expmalformed"],
		"int div 0": func() error {
			_, err := Binary("floor_divide", i64, FromInts(Int64, []int{2}, []int64{0, 1}))
			return err
		},
	} {
		if f == nil || f() == nil {
			t.Errorf("%s: want an error", name)
		}
	}
}

func BenchmarkBinaryAdd(b *testing.B) {
	x := New(Float32, 128, 768)
	y := New(Float32, 768)
	for i := 0; i < b.N; i++ {
		if _, err := Binary("add", x, y); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkReduceSum(b *testing.B) {
	x := New(Float32, 128, 768)
	for i := 0; i < b.N; i++ {
		if _, err := Reduce("sum", x, []int{-1}, true); err != nil {
			b.Fatal(err)
		}
	}
}
