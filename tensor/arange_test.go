package tensor

import (
	"encoding/json"
	"math"
	"os"
	"strings"
	"testing"
)

// Arange gives PyTorch 1.13's values bit for bit (testdata/gen_arange.py):
// floating dtypes with its vectorized kernel's layout and FMA rounding,
// integer dtypes from truncated arguments (int64's own size rule), and
// its errors (a step that truncates to 0).
func TestArangeMatchesPyTorch(t *testing.T) {
	b, err := os.ReadFile("testdata/arange_cases.json")
	if err != nil {
		t.Fatal(err)
	}
	var f struct {
		Cases []struct {
			DType  string
			Args   []*float64
			Values []float64
			Error  string
		}
	}
	if err := json.Unmarshal(b, &f); err != nil {
		t.Fatal(err)
	}
	if len(f.Cases) < 100 {
		t.Fatalf("%d cases", len(f.Cases))
	}
	for _, c := range f.Cases {
		dt, ok := ParseDType(c.DType)
		if !ok {
			t.Fatalf("dtype %q", c.DType)
		}
		start, end, step := 0.0, *c.Args[0], 1.0
		if len(c.Args) == 3 {
			start, end, step = *c.Args[0], *c.Args[1], *c.Args[2]
		}
		got, err := Arange(start, end, step, dt)
		if c.Error != "" {
			if err == nil || !strings.Contains(err.Error(), c.Error) {
				t.Errorf("arange(%v, %v, %v, %s): %v, want error %q", start, end, step, dt, err, c.Error)
			}
			continue
		}
		if err != nil {
			t.Errorf("arange(%v, %v, %v, %s): %v", start, end, step, dt, err)
			continue
		}
		if got.Numel() != len(c.Values) {
			t.Errorf("arange(%v, %v, %v, %s): %d elements, PyTorch %d", start, end, step, dt, got.Numel(), len(c.Values))
			continue
		}
		bad := 0
		for i, w := range c.Values {
			if g := got.Flat(i); math.Float64bits(g) != math.Float64bits(w) && !(g == 0 && w == 0) {
				if bad == 0 {
					t.Errorf("arange(%v, %v, %v, %s)[%d] = %v, PyTorch %v", start, end, step, dt, i, g, w)
				}
				bad++
			}
		}
		if bad > 1 {
			t.Errorf("  ... %d elements differ", bad)
		}
	}
}
