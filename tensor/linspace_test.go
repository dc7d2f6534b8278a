package tensor

import (
	"encoding/json"
	"math"
	"os"
	"strings"
	"testing"
)

// Linspace, Logspace and Eye give PyTorch 1.13's values bit for bit
// (testdata/gen_linspace.py, every trace dtype): linspace's vectorized pairs
// and halfway switch, truncated integer results, steps 0 and 1, logspace's
// bases 10, 2, 0.5 and -2, and PyTorch's errors (an integer dtype that
// cannot hold start, no Bool/Half kernel).
func TestLinspaceLogspaceEyeMatchPyTorch(t *testing.T) {
	b, err := os.ReadFile("testdata/linspace_cases.json")
	if err != nil {
		t.Fatal(err)
	}
	var f struct {
		Cases []struct {
			Op     string
			DType  string
			Args   []json.Number
			Values []float64
			Error  string
		}
	}
	if err := json.Unmarshal(b, &f); err != nil {
		t.Fatal(err)
	}
	if len(f.Cases) < 300 {
		t.Fatalf("%d cases", len(f.Cases))
	}
	for _, c := range f.Cases {
		dt, ok := ParseDType(c.DType)
		if !ok {
			t.Fatalf("dtype %q", c.DType)
		}
		// a Python int stays an int64 (uint8 takes -3, not -3.1)
		var args []Number
		var fs []float64
		for _, a := range c.Args {
			_, err := a.Int64()
			f, _ := a.Float64()
			args = append(args, Number{V: f, Int: err == nil})
			fs = append(fs, f)
		}
		var got *Tensor
		switch c.Op {
		case "linspace":
			got, err = Linspace(args[0], args[1], int(fs[2]), dt)
		case "logspace":
			got, err = Logspace(args[0], args[1], int(fs[2]), fs[3], dt)
		case "eye":
			got, err = Eye(int(fs[0]), int(fs[1]), dt)
		default:
			t.Fatalf("op %q", c.Op)
		}
		if c.Error != "" {
			if err == nil || !strings.Contains(err.Error(), c.Error) {
				t.Errorf("%s%v %s: %v, want error %q", c.Op, fs, dt, err, c.Error)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s%v %s: %v", c.Op, fs, dt, err)
			continue
		}
		if got.Numel() != len(c.Values) {
			t.Errorf("%s%v %s: %d elements, PyTorch %d", c.Op, fs, dt, got.Numel(), len(c.Values))
			continue
		}
		bad, first := 0, -1
		for i, w := range c.Values {
			g := got.Flat(i)
			if c.Op == "logspace" && dt == Float64 && math.Abs(g-w) <= 8*ulp64(w) {
				continue // Go's math.Pow against glibc's pow: up to 6 ulps here
			}
			if math.Float64bits(g) != math.Float64bits(w) && !(g == 0 && w == 0) && !(math.IsNaN(g) && math.IsNaN(w)) {
				if bad == 0 {
					first = i
				}
				bad++
			}
		}
		if bad > 0 {
			t.Errorf("%s%v %s: %d of %d elements differ, first [%d] %.17g, PyTorch %.17g", c.Op, fs, dt, bad, len(c.Values), first, got.Flat(first), c.Values[first])
		}
	}
}

// ulp64 is the spacing of float64 values at w.
func ulp64(w float64) float64 {
	return math.Nextafter(math.Abs(w), math.Inf(1)) - math.Abs(w)
}
