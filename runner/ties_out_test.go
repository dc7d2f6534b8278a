package runner

import (
	"strings"
	"testing"

	"gcdbg/tensor"
	"gcdbg/trace"
)

// topk with out=(values, indices): normalization makes it the functional
// topk and a copy_ into each buffer, which become write-backs. The indices,
// as output 1 and as buffer t2, are judged up to ties like plain topk's
// (PyTorch-exported sample with many int64 ties); an index that selects
// another value is still a MISMATCH in both.
func TestTiesFollowOutBuffers(t *testing.T) {
	path := "testdata/out_variants/topk.out__int64__0.json"
	tr, err := trace.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	// gcdbg's topk picks PyTorch's indices among ties (ATen's order,
	// tensor/topk_order.go): so that the recorded indices differ from
	// gcdbg's among ties, each is moved to an unpicked element of equal value.
	x := tr.Graphs[0].Tensors["t0"].T
	idx := tr.Graphs[0].Expected.Outputs[1]
	row := x.Shape[len(x.Shape)-1]
	k := idx.Shape[len(idx.Shape)-1]
	for r := 0; r < idx.Numel()/k; r++ {
		base, picked := r*row, map[int64]bool{}
		for c := 0; c < k; c++ {
			picked[idx.FlatInt(r*k+c)] = true
		}
		for c := 0; c < k; c++ {
			cur := idx.FlatInt(r*k + c)
			for j := int64(0); j < int64(row); j++ {
				if !picked[j] && x.FlatInt(base+int(j)) == x.FlatInt(base+int(cur)) {
					picked[j], picked[cur] = true, false
					idx.SetFlatInt(r*k+c, j)
					break
				}
			}
		}
	}
	res, err := Run(tr, Options{Runs: 1, Device: "eager"})
	if err != nil {
		t.Fatal(err)
	}
	g := res.Graphs[0]
	if !res.OK {
		t.Fatalf("topk.out with ties must match: %s", res.Summary())
	}
	o := g.Outputs[1]
	if o.VsExpected == nil || o.VsExpected.MaxAbsErr == 0 {
		t.Fatal("test premise: PyTorch's indices differ from gcdbg's among ties")
	}
	if !strings.Contains(o.VsExpected.Reference, "ties") {
		t.Errorf("output 1: the match must say it is up to ties: %s", o.VsExpected.Detail())
	}
	var t2 *BufferResult
	for i := range g.Buffers {
		if g.Buffers[i].Name == "t2" {
			t2 = &g.Buffers[i]
		}
	}
	if t2 == nil || t2.VsExpected == nil || !t2.VsExpected.Match || !strings.Contains(t2.VsExpected.Reference, "ties") {
		t.Fatalf("buffer t2 (the indices' out= buffer) must be compared with PyTorch and match up to ties: %+v", t2)
	}

	// One index pointing at a different value of its row (topk along the
	// last dim, of size 5): a mismatch, for the output and the buffer.
	changed := false
	for i := 0; i < idx.Numel() && !changed; i++ {
		base := (i / k) * row
		cur := x.FlatInt(base + int(idx.FlatInt(i)))
		for j := 0; j < row; j++ {
			if x.FlatInt(base+j) != cur {
				idx.SetFlatInt(i, int64(j))
				changed = true
				break
			}
		}
	}
	if !changed {
		t.Fatal("test premise: a row with two different values")
	}
	res, err = Run(tr, Options{Runs: 1, Device: "eager"})
	if err != nil {
		t.Fatal(err)
	}
	g = res.Graphs[0]
	if res.OK || g.Outputs[1].VsExpected.Match {
		t.Fatalf("an index selecting another value must not match: %s", g.Outputs[1].VsExpected.Detail())
	}
	for _, b := range g.Buffers {
		if b.Name == "t2" && b.VsExpected.Match {
			t.Fatalf("buffer t2 with an index selecting another value must not match: %s", b.VsExpected.Detail())
		}
	}
}

// Integer values are tied only when equal: 10000000 and 10000001 are not
// (they are within the float near-tie tolerance relative to their size, and
// int64 beyond 2^53 would round together in float64).
func TestTiesIntegersExact(t *testing.T) {
	for _, vals := range [][]int64{{10000000, 10000001}, {1 << 60, 1<<60 + 1}} {
		x := tensor.New(tensor.Int64, 2)
		x.SetFlatInt(0, vals[0])
		x.SetFlatInt(1, vals[1])
		a, b := tensor.New(tensor.Int64, 1), tensor.New(tensor.Int64, 1)
		b.SetFlatInt(0, 1)
		for _, ts := range []*tieSource{{x: x, dim: 0}, {x: x, dim: -1, flat: true}} {
			if ts.equivalentIndices(a, b) {
				t.Errorf("%v: indices 0 and 1 select different integers (flat=%v)", vals, ts.flat)
			}
			if !ts.equivalentIndices(a, a) {
				t.Errorf("%v: equal indices must be equivalent", vals)
			}
		}
	}
}

// addmm with out=buf returns buf: PyTorch's output is its value of the
// buffer, so the write-back is compared with it, and judged as the output is
// (with PyTorch's bfloat16 rounding as a baseline) instead of failing
// alone against a tighter bound.
func TestReturnedOutBufferHasPyTorchsValue(t *testing.T) {
	tr, err := trace.Load("testdata/out_variants/addmm.out__bfloat16__0.json")
	if err != nil {
		t.Fatal(err)
	}
	if tr.Graphs[0].Expected.Buffers != nil {
		t.Fatal("test premise: the trace records no expected.buffers")
	}
	res, err := Run(tr, Options{Runs: 1, Device: "eager"})
	if err != nil {
		t.Fatal(err)
	}
	g := res.Graphs[0]
	if len(g.Buffers) != 1 || g.Buffers[0].VsExpected == nil {
		t.Fatalf("the out= buffer must be compared with PyTorch's output: %+v", g.Buffers)
	}
	o, b := g.Outputs[0].VsExpected, g.Buffers[0].VsExpected
	if o.MaxAbsErr != b.MaxAbsErr || o.Match != b.Match {
		t.Errorf("the buffer is the output: same comparison expected, output %s, buffer %s", o.Detail(), b.Detail())
	}
	if !res.OK {
		t.Fatalf("addmm.out bfloat16 must match: %s", res.Summary())
	}
}
