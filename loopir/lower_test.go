package loopir

import (
	"math/rand"
	"strings"
	"testing"

	"gcdbg/tensor"
)

func TestSinCos(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	b := newGB(t, "sin_cos")
	x := b.input("x", randT(rng, tensor.Float32, 8, 128))
	s := b.call("sin", x)
	c := b.call("cos", s)
	p := checkAgainstEager(t, b.output(s, c), fuseAll)
	if len(p.Nodes) != 2 || p.KernelCount() != 2 {
		t.Fatalf("want 2 pointwise nodes, got %d", len(p.Nodes))
	}
	out := Print(p)
	for _, want := range []string{"tmp0 = load(arg0_1, x1 + 128*x0)", "tmp0 = load(buf0, x1 + 128*x0)",
		"FixedLayout('cpu', torch.float32, size=[8, 128], stride=[128, 1])",
		"MemoryDep('arg0_1', c1 + 128*c0, {c0: 8, c1: 128})", "tmp1 = sin(tmp0)"} {
		if !strings.Contains(out, want) {
			t.Errorf("printout lacks %q:\n%s", want, out)
		}
	}
}

func TestBroadcastAddAndScalars(t *testing.T) {
	rng := rand.New(rand.NewSource(2))
	b := newGB(t, "bcast")
	x := b.input("x", randT(rng, tensor.Float32, 4, 5))
	y := b.input("y", randT(rng, tensor.Float32, 5))
	i := b.input("i", randT(rng, tensor.Int64, 4, 1))
	a := b.call("add", x, y)
	m := b.call("mul", a, 2.5)
	k := b.call("add", m, i)         // int column promotes to float32
	d := b.call("div", i, int64(2))  // int / int is true division
	cm := b.call("gt", k, 0.0)       // bool result
	w := b.call("where", cm, k, 0.0) // relu via where
	p := checkAgainstEager(t, b.output(w, d), fuseAll)
	out := Print(p)
	if !strings.Contains(out, "load(arg1_1, x1)") || !strings.Contains(out, "load(arg2_1, x0)") {
		t.Errorf("broadcast dims should drop out of load indices:\n%s", out)
	}
}

func TestSumKeepdimAndSoftmax(t *testing.T) {
	rng := rand.New(rand.NewSource(3))
	b := newGB(t, "softmax")
	x := b.input("x", randT(rng, tensor.Float32, 3, 4, 6))
	s := b.call("sum", x, ir_tuple(0, 2), true)
	mx := b.call("amax", x, ir_tuple(-1), true)
	e := b.call("exp", b.call("sub", x, mx))
	den := b.call("sum", e, ir_tuple(-1), true)
	sm := b.call("div", e, den)
	am := b.call("argmax", x, int64(1))
	all := b.call("sum", x)
	p := checkAgainstEager(t, b.output(s, sm, am, all), fuseAll)
	red := 0
	for _, n := range p.Nodes {
		if n.Kind == Reduction {
			red++
		}
	}
	if red != 5 {
		t.Errorf("want 5 reductions, got %d:\n%s", red, Print(p))
	}
}

func TestViewsFoldIntoIndices(t *testing.T) {
	rng := rand.New(rand.NewSource(4))
	b := newGB(t, "views")
	x := b.input("x", randT(rng, tensor.Float32, 4, 6))
	tr := b.call("permute", x, ir_tuple(1, 0))                 // [6, 4]
	v := b.call("view", b.call("alias", x), ir_tuple(2, 2, 6)) // contiguous view
	u := b.call("unsqueeze", tr, int64(0))                     // [1, 6, 4]
	e := b.call("expand", u, ir_tuple(3, 6, 4))
	sl := b.call("slice", e, int64(1), int64(1), int64(5), int64(2)) // [3, 2, 4]
	se := b.call("select", sl, int64(2), int64(-1))                  // [3, 2]
	r := b.call("neg", se)
	q := b.call("relu", b.call("squeeze", b.call("view", v, ir_tuple(1, 24))))
	p := checkAgainstEager(t, b.output(r, q, tr), fuseAll)
	// neg, relu, and the copy making the transposed input an output buffer.
	if p.KernelCount() != 3 {
		t.Errorf("views must make no nodes: %d nodes\n%s", p.KernelCount(), Print(p))
	}
	if !strings.Contains(Print(p), "load(arg0_1, 2*x1 + 3)") && !strings.Contains(Print(p), "load(arg0_1, 12*x1 + 3)") {
		t.Logf("%s", Print(p))
	}
}

func TestMMBiasRelu(t *testing.T) {
	rng := rand.New(rand.NewSource(5))
	b := newGB(t, "mlp")
	x := b.input("x", randT(rng, tensor.Float32, 8, 16))
	w := b.param("fc.weight", randT(rng, tensor.Float32, 10, 16))
	bias := b.param("fc.bias", randT(rng, tensor.Float32, 10))
	mm := b.call("mm", x, b.call("permute", w, ir_tuple(1, 0)))
	y := b.call("relu", b.call("add", mm, bias))
	p := checkAgainstEager(t, b.output(y), fuseAll)
	if p.Nodes[0].Kind != Extern || p.Buffers["fc_weight"] == nil {
		t.Errorf("mm should be an extern reading fc_weight:\n%s", Print(p))
	}
}

func TestGatherIndexSelectAndFallbacks(t *testing.T) {
	rng := rand.New(rand.NewSource(6))
	b := newGB(t, "gather")
	x := b.input("x", randT(rng, tensor.Float32, 3, 5))
	idx := b.input("idx", randT(rng, tensor.Int64, 3, 2))
	g := b.call("gather", x, int64(1), idx)
	is := b.call("index_select", x, int64(1), b.call("select", idx, int64(1), int64(0)))
	srt := b.call("sort", x, int64(-1))
	vals := b.call("getitem", srt, int64(0))
	z := b.call("add", vals, b.call("full", ir_tuple(3, 5), 1.5))
	ar := b.call("mul", b.call("arange", int64(5)), int64(2))
	p := checkAgainstEager(t, b.output(g, is, z, ar), fuseAll)
	if !strings.Contains(Print(p), "load(arg0_1, 5*x0 + tmp0)") {
		t.Errorf("gather should load indirectly:\n%s", Print(p))
	}
}

// Inside one kernel, a pointwise buffer no other kernel reads is inlined,
// never written; unfused, it is.
func TestFusedIntermediateNotMaterialized(t *testing.T) {
	rng := rand.New(rand.NewSource(9))
	b := newGB(t, "inline")
	x := b.input("x", randT(rng, tensor.Float32, 4, 4))
	p := checkAgainstEager(t, b.output(b.call("neg", b.call("exp", x))), fuseAll)
	for i, ks := range [][]*Kernel{nil, fuseAll(p)} {
		r, err := run(p, ks, InputsFromGraph(p))
		if err != nil {
			t.Fatal(err)
		}
		if _, written := r.bufs["buf0"]; written != (i == 0) {
			t.Errorf("run %d: buf0 written = %v", i, written)
		}
	}
}
