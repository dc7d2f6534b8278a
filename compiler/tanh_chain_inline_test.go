package compiler_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gcdbg/compiler"
	"gcdbg/graphtext"
	"gcdbg/interp"
	"gcdbg/stages"
)

// A long pointwise kernel: 96 chained tanh over one [32, 512] input, every
// step a temporary (two streams, so no cap splits it). gcc's inliner
// stops inlining a plain static inline function into a function this long
// (--param large-function-growth: the LSTM backward's 64-tanh kernel kept
// 21 calls), and a loop that still calls one is not vectorized. The
// prelude's gcdbg_tanhf, gcdbg_erff and gcdbg_expf are always_inline
// (render/erf_tanh.go, render/expf.go): the kernel's loop is reported
// vectorized and computes what the eager interpreter does.
func TestLongTanhChainInlinedAndVectorized(t *testing.T) {
	var b strings.Builder
	b.WriteString(`def forward(self, x: "f32[32, 512]", w: "f32[512]"):` + "\n    h0 = torch.tanh(x)\n")
	const n = 96
	for i := 1; i < n; i++ {
		fmt.Fprintf(&b, "    a%d = torch.mul(h%d, w)\n    h%d = torch.tanh(a%d)\n", i, i-1, i, i)
	}
	fmt.Fprintf(&b, "    return (h%d,)\n", n-1)
	path := filepath.Join(t.TempDir(), "tanh_chain.py")
	if err := os.WriteFile(path, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	tr, err := graphtext.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	units, err := stages.Run(tr, "memory")
	if err != nil {
		t.Fatal(err)
	}
	u := units[0]
	lp := u.Programs[0]
	src := renderLP(t, u, lp)
	if c := strings.Count(src.Code, "= gcdbg_tanhf("); c != n || len(lp.Schedule.Kernels) != 1 {
		t.Fatalf("%d kernels, %d gcdbg_tanhf calls: want one kernel of %d", len(lp.Schedule.Kernels), c, n)
	}
	art, err := compiler.Build(src.Program(), compiler.Options{CacheDir: t.TempDir(), VecReport: true})
	if err != nil {
		t.Fatal(err)
	}
	if loops := checkSimdLoopsVectorized(t, src.Code, art.VecReport); loops == 0 {
		t.Error("no simd loop")
	}
	if ok, err := checkNumbers(t, art, u, lp, interp.Inputs{}); err != nil || !ok {
		t.Fatalf("compiled values differ from the eager interpreter: %v", err)
	}
}
