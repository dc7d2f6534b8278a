package stress

import (
	"errors"
	"strings"
	"testing"

	"gcdbg/compiler"
	"gcdbg/stages"
	"gcdbg/tensor"
)

// Generated scatter code (loopir/scatter.go's extern, render/scatter_extern.go)
// checks its indices itself: run straight through the compiled program (no
// eager run before it), an index of 4 or -1 into a dim of 4 stops the kernel
// with an error naming the node instead of writing outside the row; in-range
// indices, duplicates included, give PyTorch's result (the last write in
// index order wins; PyTorch 1.13: torch.zeros(2, 4).scatter(1,
// torch.tensor([[1, 3, 1], [0, 0, 2]]), torch.tensor([[1., 2., 3.], [4., 5.,
// 6.]])) = [[0, 3, 0, 2], [5, 0, 6, 0]]).
func TestCompiledScatterChecksBounds(t *testing.T) {
	t.Setenv("GCDBG_CACHE_DIR", t.TempDir())
	text := "def forward(self, x: \"f32[2, 4]\", i: \"i64[2, 3]\", s: \"f32[2, 3]\"):\n    return (torch.scatter(x, 1, i, s) * 2,)\n"
	tr, err := Load(text, "scatter")
	if err != nil {
		t.Fatal(err)
	}
	units, err := stages.Run(tr, "kernels")
	if err != nil {
		t.Fatal(err)
	}
	lp := units[0].Programs[0]
	if !strings.Contains(lp.Source.Code, "gcdbg_oob(") || !strings.Contains(lp.Source.Code, "scatter along dim 1") {
		t.Fatalf("the generated code has no scatter with a bounds check:\n%s", lp.Source.Code)
	}
	art, err := compiler.Build(lp.Source.Program(), compiler.Options{})
	if err != nil {
		t.Fatal(err)
	}
	inputs := func(idx []int64) map[string]*tensor.Tensor {
		m := map[string]*tensor.Tensor{}
		for _, b := range art.Manifest.Buffers {
			if b.Kind != "input" {
				continue
			}
			key := b.Target
			if key == "" {
				key = b.Name
			}
			switch {
			case strings.Contains(key, "x"):
				m[key] = tensor.New(tensor.Float32, 2, 4)
			case strings.Contains(key, "i"):
				m[key] = tensor.FromInts(tensor.Int64, []int{2, 3}, idx)
			default:
				m[key] = tensor.FromFloats(tensor.Float32, []int{2, 3}, []float64{1, 2, 3, 4, 5, 6})
			}
		}
		return m
	}
	for _, bad := range [][]int64{{1, 3, 1, 0, 4, 2}, {1, 3, 1, 0, -1, 2}} {
		_, err = compiler.Exec(art.Library, &art.Manifest, inputs(bad), compiler.ExecOptions{Runs: 1})
		var ee *compiler.ExecError
		if !errors.As(err, &ee) {
			t.Fatalf("index %v: an out-of-range index ran: err %v", bad, err)
		}
		if !strings.Contains(ee.Error(), "index out of bounds in node") || !strings.Contains(ee.Error(), "scatter") {
			t.Fatalf("the error does not name the node: %v", ee)
		}
	}
	res, err := compiler.Exec(art.Library, &art.Manifest, inputs([]int64{1, 3, 1, 0, 0, 2}), compiler.ExecOptions{Runs: 1})
	if err != nil {
		t.Fatalf("in-range indices: %v", err)
	}
	want := []float64{0, 3, 0, 2, 5, 0, 6, 0}
	for k, w := range want {
		if got := res.Outputs[0].Flat(k); got != 2*w {
			t.Errorf("element %d = %v, want %v", k, got, 2*w)
		}
	}
}
