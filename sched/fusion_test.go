package sched

import (
	"strings"
	"testing"

	"gcdbg/loopir"
)

func x0(n int64) loopir.Expr { return loopir.V("x0", loopir.C(n)) }
func x1(n int64) loopir.Expr { return loopir.V("x1", loopir.C(n)) }

func schedule(t *testing.T, p *loopir.Program) *Schedule {
	t.Helper()
	s, err := Fuse(p)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range s.Decisions {
		if d.Action == "refuse" && d.Reason == "" {
			t.Errorf("refusal without a reason: %+v", d)
		}
	}
	checkOrder(t, s)
	return s
}

// checkOrder: every node appears in exactly one kernel, and every buffer
// is written in a kernel no later than the kernels that read it.
func checkOrder(t *testing.T, s *Schedule) {
	t.Helper()
	kernelOf := map[string]int{}
	count := 0
	for i, k := range s.Kernels {
		for _, n := range k.Nodes {
			count++
			for _, w := range n.Writes {
				kernelOf[w.Buffer] = i
			}
		}
	}
	if count != len(s.Program.Nodes) {
		t.Fatalf("kernels hold %d nodes, the program has %d", count, len(s.Program.Nodes))
	}
	for i, k := range s.Kernels {
		for _, n := range k.Nodes {
			for _, r := range n.Reads {
				if w, ok := kernelOf[r.Buffer]; ok && w > i {
					t.Errorf("kernel %d reads %s before kernel %d writes it", i, r.Buffer, w)
				}
			}
		}
	}
}

func kernelWith(s *Schedule, node string) *loopir.Kernel {
	for _, k := range s.Kernels {
		for _, n := range k.Nodes {
			if n.Name == node {
				return k
			}
		}
	}
	return nil
}

func sinCos() *loopir.Program {
	b := newProg()
	b.input("arg0_1", 64, 128)
	b.pw("buf0", []int64{64, 128}, rd("arg0_1", full(64, 128)))
	b.pw("buf1", []int64{64, 128}, rd("buf0", full(64, 128)))
	b.output("buf0", "buf1")
	return b.p
}

func TestSinCosOneKernel(t *testing.T) {
	s := schedule(t, sinCos())
	if len(s.Before) != 2 || len(s.Kernels) != 1 {
		t.Fatalf("kernels %d -> %d, want 2 -> 1\n%s", len(s.Before), len(s.Kernels), s.Log())
	}
	d := s.Decisions[0]
	// buf0 is an output, so it is still written: only cos's read is saved.
	if d.Action != "fuse" || d.Category != Vertical || d.BytesSaved != 64*128*4 {
		t.Errorf("decision %+v", d)
	}
	log := s.Log()
	for _, want := range []string{"attempting fusion (1/10): 2 nodes", "fusing buf0 with buf1"} {
		if !strings.Contains(log, want) {
			t.Errorf("log lacks %q:\n%s", want, log)
		}
	}
}

// softmax over the last dim of [8, 16] in core ops: amax, sub, exp, sum, div.
func softmax() *loopir.Program {
	b := newProg()
	b.input("arg0_1", 8, 16)
	b.red("buf0", []int64{8}, []int64{16}, rd("arg0_1", rfull([]int64{8}, 16)))
	b.pw("buf1", []int64{8, 16}, rd("arg0_1", full(8, 16)), rd("buf0", x0(8)))
	b.pw("buf2", []int64{8, 16}, rd("buf1", full(8, 16)))
	b.red("buf3", []int64{8}, []int64{16}, rd("buf2", rfull([]int64{8}, 16)))
	b.pw("buf4", []int64{8, 16}, rd("buf2", full(8, 16)), rd("buf3", x0(8)))
	b.output("buf4")
	return b.p
}

func TestSoftmaxAtMostTwoKernels(t *testing.T) {
	s := schedule(t, softmax())
	if len(s.Before) != 5 || len(s.Kernels) > 2 {
		t.Fatalf("kernels %d -> %d, want 5 -> <=2\n%s", len(s.Before), len(s.Kernels), s.Log())
	}
	cats := map[string]bool{}
	for _, d := range s.Decisions {
		if d.Action == "fuse" {
			cats[d.Category] = true
		}
	}
	if !cats[Vertical] {
		t.Errorf("sub and exp should fuse vertically first:\n%s", s.Log())
	}
}

// layerNorm over the last dim of [8, 32]: mean = sum/D, var = sum((x-mean)^2)/D,
// rstd = rsqrt(var+eps), out = (x-mean)*rstd*w + b.
func layerNorm() *loopir.Program {
	b := newProg()
	b.input("arg0_1", 8, 32)
	b.input("w", 32)
	b.input("b", 32)
	b.red("buf0", []int64{8}, []int64{32}, rd("arg0_1", rfull([]int64{8}, 32)))
	b.pw("buf1", []int64{8}, rd("buf0", x0(8)))
	b.pw("buf2", []int64{8, 32}, rd("arg0_1", full(8, 32)), rd("buf1", x0(8)))
	b.pw("buf3", []int64{8, 32}, rd("buf2", full(8, 32)))
	b.red("buf4", []int64{8}, []int64{32}, rd("buf3", rfull([]int64{8}, 32)))
	b.pw("buf5", []int64{8}, rd("buf4", x0(8)))
	b.pw("buf6", []int64{8}, rd("buf5", x0(8)))
	b.pw("buf7", []int64{8, 32}, rd("buf2", full(8, 32)), rd("buf6", x0(8)))
	b.pw("buf8", []int64{8, 32}, rd("buf7", full(8, 32)), rd("w", x1(32)))
	b.pw("buf9", []int64{8, 32}, rd("buf8", full(8, 32)), rd("b", x1(32)))
	b.output("buf9")
	return b.p
}

func TestLayerNormAtMostTwoKernels(t *testing.T) {
	s := schedule(t, layerNorm())
	if len(s.Kernels) > 2 {
		t.Fatalf("kernels %d -> %d, want <=2\n%s", len(s.Before), len(s.Kernels), s.Log())
	}
	// The first attempt to fuse the centring with the normalization must
	// be refused: the variance reduction sits between them.
	found := false
	for _, d := range s.Decisions {
		if d.Action == "refuse" && strings.Contains(d.Reason, "would create a cycle") {
			found = true
		}
	}
	if !found {
		t.Errorf("no cycle refusal:\n%s", s.Log())
	}
}

// mlp: mm + bias add + relu, then a second mm + bias add.
func mlp() *loopir.Program {
	b := newProg()
	b.input("arg0_1", 8, 784)
	b.input("w1", 784, 512)
	b.input("b1", 512)
	b.input("w2", 512, 10)
	b.input("b2", 10)
	b.ext("buf0", "mm", loopir.Extern, []int64{8, 512}, "arg0_1", "w1")
	b.pw("buf1", []int64{8, 512}, rd("buf0", full(8, 512)), rd("b1", x1(512)))
	b.pw("buf2", []int64{8, 512}, rd("buf1", full(8, 512)))
	b.ext("buf3", "mm", loopir.Extern, []int64{8, 10}, "buf2", "w2")
	b.pw("buf4", []int64{8, 10}, rd("buf3", full(8, 10)), rd("b2", x1(10)))
	b.output("buf4")
	return b.p
}

func TestMLPEpiloguesFuseOntoGEMM(t *testing.T) {
	s := schedule(t, mlp())
	if len(s.Kernels) != 2 {
		t.Fatalf("kernels %d -> %d, want 5 -> 2\n%s", len(s.Before), len(s.Kernels), s.Log())
	}
	if k := kernelWith(s, "buf0"); k != kernelWith(s, "buf1") || k != kernelWith(s, "buf2") {
		t.Errorf("mm, bias add and relu are not one kernel:\n%s", s.PostFusion())
	}
	if kernelWith(s, "buf3") != kernelWith(s, "buf4") {
		t.Errorf("the second mm lost its bias add:\n%s", s.PostFusion())
	}
	if !hasRefusal(s, "extern can only take epilogues") {
		t.Errorf("relu into the next mm was not refused:\n%s", s.Log())
	}
}

func hasRefusal(s *Schedule, reason string) bool {
	for _, d := range s.Decisions {
		if d.Action == "refuse" && strings.Contains(d.Reason, reason) {
			return true
		}
	}
	return false
}

func TestRefusalReasons(t *testing.T) {
	// Two sums of the same input over different dims share a read.
	b := newProg()
	b.input("arg0_1", 64, 128)
	b.red("buf0", []int64{64}, []int64{128}, rd("arg0_1", rfull([]int64{64}, 128)))
	b.red("buf1", []int64{128}, []int64{64}, rd("arg0_1", loopir.Add(loopir.Mul(loopir.C(128), loopir.V("r0", loopir.C(64))), x0(128))))
	b.output("buf0", "buf1")
	s := schedule(t, b.p)
	if !hasRefusal(s, "reduction ranges differ (64, 128) vs (128, 64)") {
		t.Errorf("want a reduction-ranges refusal:\n%s", s.Log())
	}

	// A column read over other ranges; a transposed read over the same
	// number of points (as [128, 64] and as [64, 64]).
	b = newProg()
	b.input("arg0_1", 64, 128)
	b.pw("buf0", []int64{64, 128}, rd("arg0_1", full(64, 128)))
	b.pw("buf1", []int64{64}, rd("buf0", loopir.Mul(loopir.C(128), x0(64))))
	b.output("buf1")
	s = schedule(t, b.p)
	if !hasRefusal(s, "ranges differ (64, 128) vs (64,)") || len(s.Kernels) != 2 {
		t.Errorf("want a ranges refusal:\n%s", s.Log())
	}
	b = newProg()
	b.input("arg0_1", 64, 128)
	b.pw("buf0", []int64{64, 128}, rd("arg0_1", full(64, 128)))
	b.pw("buf1", []int64{128, 64}, rd("buf0", loopir.Add(loopir.Mul(loopir.C(128), x1(64)), x0(128))))
	b.output("buf1")
	s = schedule(t, b.p)
	if !hasRefusal(s, "memory deps did not match: buf1 reads buf0[128*x1 + x0]") || len(s.Kernels) != 2 {
		t.Errorf("want an index refusal:\n%s", s.Log())
	}
	b = newProg()
	b.input("arg0_1", 64, 64)
	b.pw("buf0", []int64{64, 64}, rd("arg0_1", full(64, 64)))
	b.pw("buf1", []int64{64, 64}, rd("buf0", loopir.Add(loopir.Mul(loopir.C(64), x1(64)), x0(64))))
	b.output("buf1")
	s = schedule(t, b.p)
	if !hasRefusal(s, "memory deps did not match: buf1 reads buf0[") || len(s.Kernels) != 2 {
		t.Errorf("want an index refusal:\n%s", s.Log())
	}

	// A fallback between two pointwise nodes: fusing them would cycle.
	b = newProg()
	b.input("arg0_1", 8, 16)
	b.pw("buf0", []int64{8, 16}, rd("arg0_1", full(8, 16)))
	b.ext("buf1", "sort", loopir.Fallback, []int64{8, 16}, "buf0")
	b.pw("buf2", []int64{8, 16}, rd("buf0", full(8, 16)), rd("buf1", full(8, 16)))
	b.output("buf2")
	s = schedule(t, b.p)
	if !hasRefusal(s, "would create a cycle: buf0 → buf1 → buf2") || !hasRefusal(s, "fallback nodes do not fuse") {
		t.Errorf("want cycle and fallback refusals:\n%s", s.Log())
	}
	if len(s.Kernels) != 3 {
		t.Errorf("kernels %d, want 3", len(s.Kernels))
	}
}

func TestHorizontalFusion(t *testing.T) {
	// Two siblings reading the same input, nothing between them.
	b := newProg()
	b.input("arg0_1", 32, 32)
	b.pw("buf0", []int64{32, 32}, rd("arg0_1", full(32, 32)))
	b.pw("buf1", []int64{32, 32}, rd("arg0_1", full(32, 32)))
	b.output("buf0", "buf1")
	s := schedule(t, b.p)
	if len(s.Kernels) != 1 || s.Decisions[0].Category != Horizontal || s.Decisions[0].BytesSaved != 32*32*4 {
		t.Errorf("want one horizontal fusion saving one read:\n%s", s.Log())
	}
}

func TestBadProgramsDoNotPanic(t *testing.T) {
	if _, err := Fuse(nil); err == nil {
		t.Error("nil program: want an error")
	}
	b := newProg()
	b.pw("buf0", []int64{4}, rd("nowhere", x0(4)))
	if _, err := Fuse(b.p); err == nil || !strings.Contains(err.Error(), `"nowhere"`) {
		t.Errorf("unknown buffer: err %v", err)
	}
	b = newProg()
	b.input("arg0_1", 4)
	n := b.pw("buf0", []int64{4}, rd("arg0_1", x0(4)))
	n.Ranges = []loopir.Expr{loopir.S("s9")} // a size nobody knows
	b.pw("buf1", []int64{4}, rd("buf0", nil))
	if _, err := Fuse(b.p); err != nil {
		t.Errorf("unknown symbol: %v", err)
	}
}

// A linear on a 3-d input: the GEMM writes [16, 96], its bias add reads
// it as [2, 8, 96]. Same points, same elements: the epilogue fuses. Read
// transposed, it does not.
func TestEpilogueThroughReshape(t *testing.T) {
	build := func(idx loopir.Expr) *loopir.Program {
		b := newProg()
		b.input("arg0_1", 16, 32)
		b.input("w", 32, 96)
		b.input("bias", 96)
		b.ext("buf0", "mm", loopir.Extern, []int64{16, 96}, "arg0_1", "w")
		b.pw("buf1", []int64{2, 8, 96}, rd("buf0", idx), rd("bias", loopir.V("x2", loopir.C(96))))
		b.output("buf1")
		return b.p
	}
	s := schedule(t, build(full(2, 8, 96)))
	if len(s.Kernels) != 1 || s.Decisions[0].Category != ExternEpilogue {
		t.Errorf("want the bias add fused onto the GEMM:\n%s", s.Log())
	}
	x := func(i int, n int64) loopir.Expr { return loopir.V("x"+string(rune('0'+i)), loopir.C(n)) }
	// element (x0, x1, x2) read from row x2 % 16: not the element written at this point
	s = schedule(t, build(loopir.Add(loopir.Mul(loopir.C(96), x(1, 8)), x(0, 2), loopir.Mul(loopir.C(768), x(0, 2)))))
	if len(s.Kernels) != 2 || !hasRefusal(s, "memory deps did not match") {
		t.Errorf("want an index refusal:\n%s", s.Log())
	}
}
