package stress

import (
	"errors"
	"strings"
	"testing"

	"gcdbg/compiler"
	"gcdbg/stages"
	"gcdbg/tensor"
)

// Generated gather/index_select code checks its indices itself: run
// straight through the compiled program (no eager run before it to catch
// the index), an index out of range stops the kernel with an error naming
// the node instead of reading outside the buffer; in-range indices give
// the eager interpreter's numbers.
func TestCompiledIndexingChecksBounds(t *testing.T) {
	t.Setenv("GCDBG_CACHE_DIR", t.TempDir())
	cases := []struct {
		name, text, op string
		bad, good      []int64
	}{
		{"index_select", "def forward(self, x: \"f32[8, 4]\", i: \"i64[3]\"):\n    return (torch.index_select(x, 0, i) * 2,)\n",
			"index_select", []int64{0, 9, 2}, []int64{7, 0, 3}},
		{"gather", "def forward(self, x: \"f32[8, 4]\", i: \"i64[8, 1]\"):\n    return (torch.gather(x, 1, i) + 1,)\n",
			"gather", []int64{0, 1, 2, 3, 4, 1, 2, 3}, []int64{0, 1, 2, 3, 3, 1, 2, 0}},
	}
	for _, c := range cases {
		tr, err := Load(c.text, c.name)
		if err != nil {
			t.Fatal(err)
		}
		units, err := stages.Run(tr, "kernels")
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		lp := units[0].Programs[0]
		if !strings.Contains(lp.Source.Code, "gcdbg_oob(") {
			t.Fatalf("%s: the generated code has no bounds check:\n%s", c.name, lp.Source.Code)
		}
		art, err := compiler.Build(lp.Source.Program(), compiler.Options{})
		if err != nil {
			t.Fatal(err)
		}
		x := tensor.New(tensor.Float32, 8, 4)
		for i := 0; i < 32; i++ {
			x.SetFlat(i, float64(i))
		}
		shape := []int{len(c.bad)}
		if c.op == "gather" {
			shape = []int{8, 1}
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
				if strings.Contains(key, "i") && !strings.Contains(key, "x") {
					m[key] = tensor.FromInts(tensor.Int64, shape, idx)
				} else {
					m[key] = x
				}
			}
			return m
		}
		_, err = compiler.Exec(art.Library, &art.Manifest, inputs(c.bad), compiler.ExecOptions{Runs: 1})
		var ee *compiler.ExecError
		if !errors.As(err, &ee) {
			t.Fatalf("%s: an out-of-range index ran: err %v", c.name, err)
		}
		if !strings.Contains(ee.Error(), "index out of bounds in node") || !strings.Contains(ee.Error(), c.op) {
			t.Fatalf("%s: the error does not name the node: %v", c.name, ee)
		}
		res, err := compiler.Exec(art.Library, &art.Manifest, inputs(c.good), compiler.ExecOptions{Runs: 1})
		if err != nil {
			t.Fatalf("%s: in-range indices: %v", c.name, err)
		}
		out := res.Outputs[0]
		for k := 0; k < out.Numel(); k++ {
			var want float64
			if c.op == "index_select" {
				want = 2 * float64(int(c.good[k/4])*4+k%4)
			} else {
				want = 1 + float64(k*4+int(c.good[k]))
			}
			if out.Flat(k) != want {
				t.Fatalf("%s: element %d = %v, want %v", c.name, k, out.Flat(k), want)
			}
		}
	}
}
