package runner

import (
	"path/filepath"
	"strings"
	"testing"

	"gcdbg/trace"
)

// Traces PyTorch 1.13 exported (testdata/dtypes/gen.py; opinfo_* are
// OpInfo samples of conformance/export_opinfo.py) in the dtypes other
// than float32, int64 and bool, each through the eager interpreter and
// the compiled C, every output and gradient against PyTorch's:
//   - floordiv_f32: floor division and remainder through fmod (1 // 0.1
//     is 9; the compiled code computed floor(1 / 0.1) = 10);
//   - opinfo_remainder_bfloat16_7: a remainder whose float quotient
//     overflows (the compiled a - floor(a / b) * b gave -Inf, PyTorch 0);
//   - chain_*, cast_*, math_bfloat16: float16/bfloat16 compiled (16-bit
//     storage, float compute, each op rounded: render/narrow.go), with
//     reductions, casts, scalar operands, tanh/exp/softmax and a matmul;
//   - int_*: uint8/int8/int32 wraparound, floor division, remainder and
//     true division;
//   - any_all_uint8: any/all of uint8 are uint8 (the decomposition gave bool);
//   - to_other_dtype: x.to(y.dtype) (normalization took the dtype for a tensor);
//   - opinfo_max_dim_float16_0: max(x, dim) of a float16 tensor with ties: the
//     gradient goes to the returned index only (it was split among the ties).
func TestDTypeSemanticsMatchPyTorch(t *testing.T) {
	files, err := filepath.Glob("testdata/dtypes/*.json")
	if err != nil || len(files) < 10 {
		t.Fatalf("%d traces in testdata/dtypes (%v), want 10", len(files), err)
	}
	t.Setenv("GCDBG_CACHE_DIR", t.TempDir())
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".json")
		t.Run(name, func(t *testing.T) {
			tr, err := trace.Load(f)
			if err != nil {
				t.Fatal(err)
			}
			for _, dev := range []string{"eager", "cpu"} {
				res, err := Run(tr, Options{Runs: 1, Device: dev})
				if err != nil {
					t.Fatalf("--device %s: %v", dev, err)
				}
				if dev == "cpu" && res.Backend != "compiled" {
					t.Errorf("--device cpu: backend %q, want compiled", res.Backend)
				}
				if !res.OK || len(res.Graphs) != 1 {
					t.Errorf("--device %s:\n%s", dev, res.Summary())
					continue
				}
				g := res.Graphs[0]
				for _, o := range g.Outputs {
					if o.VsExpected == nil || !o.VsExpected.Match {
						t.Errorf("--device %s: output %d vs PyTorch: %+v", dev, o.Index, o.VsExpected)
					}
				}
				for _, gr := range g.Grads {
					if gr.VsExpected == nil || !gr.VsExpected.Match {
						t.Errorf("--device %s: grad of %s vs PyTorch: %+v", dev, gr.Name, gr.VsExpected)
					}
				}
			}
		})
	}
}
