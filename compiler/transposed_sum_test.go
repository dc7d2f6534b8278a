package compiler_test

import (
	"math"
	"math/rand"
	"os/exec"
	"strings"
	"testing"

	"gcdbg/compiler"
	"gcdbg/graphtext"
	"gcdbg/stages"
	"gcdbg/tensor"
)

// A sum of many transposed inputs (an unrolled LSTM's per-step weight
// gradients, added into one [H, 4H] gradient) runs its tiles with the
// inputs' contiguous loop innermost, the output's store the one stream
// that jumps (render/loops.go tiledNest: 24 inputs of 1 MB went 1.1 GB/s
// the other way, every input's 32 lines per tile outgrowing L1), while a
// single transposed copy keeps its order; both give exactly the float32
// sums in the graph's order, NaN and ±Inf included, on sizes that are not
// multiples of the tile.
const transposedSumGraph = `def forward(self, a0: "f32[70, 100]", a1: "f32[70, 100]", a2: "f32[70, 100]", a3: "f32[70, 100]", a4: "f32[70, 100]", a5: "f32[70, 100]", b: "f32[80, 90]"):
    s = a0.t() + a1.t() + a2.t() + a3.t() + a4.t() + a5.t()
    c = b.t() * 2.0
    return (s, c)
`

func TestTransposedSumTilesAlongInputs(t *testing.T) {
	if _, err := exec.LookPath("cc"); err != nil {
		t.Skip("no C compiler (cc) on PATH")
	}
	tr, err := graphtext.Parse([]byte(transposedSumGraph), t.TempDir(), "tsum.py")
	if err != nil {
		t.Fatal(err)
	}
	units, err := stages.Run(tr, "kernels")
	if err != nil {
		t.Fatal(err)
	}
	lp := units[0].Programs[0]
	code := lp.Source.Code
	// the order of the two point loops inside each tile, per tiled nest
	var orders []string
	lines := strings.Split(code, "\n")
	for i, l := range lines {
		if strings.Contains(l, "t + 32 <") && i+1 < len(lines) && strings.Contains(lines[i+1], "t + 32 <") {
			f1, f2 := strings.Fields(l), strings.Fields(lines[i+1])
			orders = append(orders, f1[2]+","+f2[2])
		}
	}
	got := strings.Join(orders, " ")
	if len(orders) != 2 || !strings.Contains(got, "x1,x0") || !strings.Contains(got, "x0,x1") {
		t.Errorf("tiled point loops %q: want the sum's inputs read along x0 innermost (x1,x0) and the copy's x1 innermost (x0,x1)\n%s", got, code)
	}
	art, err := compiler.Build(lp.Source.Program(), compiler.Options{CacheDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewSource(7))
	special := []float64{math.NaN(), math.Inf(1), math.Inf(-1)}
	in := map[string]*tensor.Tensor{}
	names := []string{"a0", "a1", "a2", "a3", "a4", "a5"}
	for _, n := range append(names, "b") {
		x := tensor.New(tensor.Float32, 70, 100)
		if n == "b" {
			x = tensor.New(tensor.Float32, 80, 90)
		}
		for i := 0; i < x.Numel(); i++ {
			v := rng.NormFloat64() * 1e3
			if rng.Intn(500) == 0 {
				v = special[rng.Intn(len(special))]
			}
			x.SetFlat(i, v)
		}
		in[n] = x
	}
	res, err := compiler.Exec(art.Library, &art.Manifest, in, compiler.ExecOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Outputs) != 2 {
		t.Fatalf("%d outputs, want 2", len(res.Outputs))
	}
	bad := 0
	for i := 0; i < 100; i++ {
		for j := 0; j < 70; j++ {
			s := float32(in["a0"].Flat(j*100 + i))
			for _, n := range names[1:] {
				s += float32(in[n].Flat(j*100 + i))
			}
			if g := float32(res.Outputs[0].Flat(i*70 + j)); math.Float32bits(g) != math.Float32bits(s) && !(g != g && s != s) && bad < 5 {
				bad++
				t.Errorf("sum [%d, %d] = %v, want %v", i, j, g, s)
			}
		}
	}
	for i := 0; i < 90; i++ {
		for j := 0; j < 80; j++ {
			w := float32(in["b"].Flat(j*90+i)) * 2
			if g := float32(res.Outputs[1].Flat(i*80 + j)); math.Float32bits(g) != math.Float32bits(w) && !(g != g && w != w) && bad < 10 {
				bad++
				t.Errorf("copy [%d, %d] = %v, want %v", i, j, g, w)
			}
		}
	}
}
