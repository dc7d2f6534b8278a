package tensor

import (
	"encoding/json"
	"math"
	"os"
	"testing"
)

// TestTopkTiesPyTorch: torch.topk's indices (PyTorch 1.13, CPU) on rows full
// of equal values and NaN (testdata/gen_topk.py: lengths 1 to 257, k from 1
// to n, so both nth_element with sort and partial_sort, largest and not,
// sorted and not) are Topk's, index for index. A stable order (what Topk
// did before) picked other indices among ties: topk/bfloat16/1's gradient
// went to element 5 of a row where PyTorch's goes to element 9.
func TestTopkTiesPyTorch(t *testing.T) {
	raw, err := os.ReadFile("testdata/topk_ties.json")
	if err != nil {
		t.Fatal(err)
	}
	var data struct {
		Cases []struct {
			Row             []*float64
			K               int
			Largest, Sorted bool
			Indices         []int64
		}
	}
	if err := json.Unmarshal(raw, &data); err != nil {
		t.Fatal(err)
	}
	if len(data.Cases) < 1000 {
		t.Fatalf("%d cases, want the generator's 1104", len(data.Cases))
	}
	stableDiffers := 0
	for ci, c := range data.Cases {
		x := New(Float32, len(c.Row))
		for i, v := range c.Row {
			x.S.F[i] = math.NaN()
			if v != nil {
				x.S.F[i] = *v
			}
		}
		v, ix, err := Topk(x, c.K, 0, c.Largest, c.Sorted)
		if err != nil {
			t.Fatalf("case %d: %v", ci, err)
		}
		for j, want := range c.Indices {
			if ix.S.I[j] != want {
				t.Fatalf("case %d (n %d, k %d, largest %v, sorted %v): indices %v, PyTorch %v", ci, len(c.Row), c.K, c.Largest, c.Sorted, ix.S.I, c.Indices)
			}
			got, w := v.S.F[j], x.S.F[want]
			if got != w && !(math.IsNaN(got) && math.IsNaN(w)) {
				t.Fatalf("case %d: value %d is %v, x[%d] = %v", ci, j, got, want, w)
			}
		}
		if c.Sorted {
			_, st, _ := Sort(x, 0, c.Largest, true)
			for j, want := range c.Indices {
				if st.S.I[j] != want {
					stableDiffers++
					break
				}
			}
		}
	}
	if stableDiffers == 0 {
		t.Errorf("no case where a stable sort's first k indices differ from PyTorch's: the cases do not test the tie order")
	}
	t.Logf("%d cases; a stable sort picks other indices in %d of them", len(data.Cases), stableDiffers)
}
