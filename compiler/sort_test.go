package compiler_test

import (
	"math"
	"math/rand"
	"os/exec"
	"testing"

	"gcdbg/compiler"
	"gcdbg/graphtext"
	"gcdbg/stages"
	"gcdbg/tensor"
)

// sort and topk compile to generated C (render/sort.go, render/topk.go), not
// an eager fallback, and agree exactly — values and indices — with the
// reference tensor.Sort/Topk: sort stable (ties keep index order), topk in
// ATen's order among ties (sorted or not), NaN above every number,
// ±inf, both directions, the sort dimension strided or seen through a
// permute, short rows (insertion sort) and long odd-length rows (merge).
const sortGraph = `def forward(self, x: "f32[6, 45, 5]", y: "f32[7, 12]", z: "f32[3, 300]"):
    a, ai = torch.sort(x, dim=1)
    b, bi = torch.sort(x, 1, True)
    c, ci = torch.sort(y)
    d, di = torch.sort(y, descending=True)
    e, ei = torch.sort(x.permute(0, 2, 1), dim=2, descending=True)
    f, fi = torch.topk(x, 7, dim=1)
    h, hi = torch.topk(y, 3, 0, False)
    k, ki = torch.sort(x, dim=0)
    m, mi = torch.topk(z, 2)
    n, ni = torch.topk(z, 40, 1, False)
    p, pi = torch.topk(x, 7, 1, True, False)
    return (a, ai, b, bi, c, ci, d, di, e, ei, f, fi, h, hi, k, ki, m, mi, n, ni, p, pi)
`

func TestCompiledSortMatchesReference(t *testing.T) {
	if _, err := exec.LookPath("cc"); err != nil {
		t.Skip("no C compiler (cc) on PATH")
	}
	tr, err := graphtext.Parse([]byte(sortGraph), t.TempDir(), "sort.py")
	if err != nil {
		t.Fatal(err)
	}
	units, err := stages.Run(tr, "kernels")
	if err != nil {
		t.Fatal(err)
	}
	lp := units[0].Programs[0]
	m := lp.Source.Program().Manifest
	if len(m.Steps) == 0 {
		t.Fatal("no steps")
	}
	for _, st := range m.Steps {
		if st.Kind != "segment" {
			t.Fatalf("a %s step is left: %s %s", st.Kind, st.Op, st.IRNode)
		}
	}
	art, err := compiler.Build(lp.Source.Program(), compiler.Options{CacheDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	// Few distinct values, so that rows have many ties.
	rng := rand.New(rand.NewSource(5))
	special := []float64{math.NaN(), math.Inf(1), math.Inf(-1), 0, math.Copysign(0, -1)}
	fill := func(shape ...int) *tensor.Tensor {
		x := tensor.New(tensor.Float32, shape...)
		for i := 0; i < x.Numel(); i++ {
			v := float64(rng.Intn(7)) - 3
			if rng.Intn(5) == 0 {
				v = special[rng.Intn(len(special))]
			}
			x.SetFlat(i, v)
		}
		return x
	}
	x, y, z := fill(6, 45, 5), fill(7, 12), fill(3, 300)
	res, err := compiler.Exec(art.Library, &art.Manifest, map[string]*tensor.Tensor{"x": x, "y": y, "z": z}, compiler.ExecOptions{})
	if err != nil {
		t.Fatal(err)
	}
	xp, err := tensor.Permute(x, []int{0, 2, 1})
	if err != nil {
		t.Fatal(err)
	}
	type ref struct {
		name string
		v, i *tensor.Tensor
		err  error
	}
	var want []ref
	add := func(name string, v, i *tensor.Tensor, err error) { want = append(want, ref{name, v, i, err}) }
	v, i, err := tensor.Sort(x, 1, false, true)
	add("sort(x, 1)", v, i, err)
	v, i, err = tensor.Sort(x, 1, true, true)
	add("sort(x, 1, descending)", v, i, err)
	v, i, err = tensor.Sort(y, -1, false, true)
	add("sort(y)", v, i, err)
	v, i, err = tensor.Sort(y, -1, true, true)
	add("sort(y, descending)", v, i, err)
	v, i, err = tensor.Sort(xp, 2, true, true)
	add("sort(x.permute(0, 2, 1), 2, descending)", v, i, err)
	v, i, err = tensor.Topk(x, 7, 1, true, true)
	add("topk(x, 7, 1)", v, i, err)
	v, i, err = tensor.Topk(y, 3, 0, false, true)
	add("topk(y, 3, 0, smallest)", v, i, err)
	v, i, err = tensor.Sort(x, 0, false, true)
	add("sort(x, 0)", v, i, err)
	// topk's order is ATen's (libstdc++'s partial_sort for k*64 <= n, else nth_element, then
	// introsort of the first k-1 when sorted): tensor.Topk's, which matches PyTorch's indices
	// (tensor.TestTopkTiesPyTorch); the generated C must pick the same among ties
	v, i, err = tensor.Topk(z, 2, -1, true, true)
	add("topk(z, 2) (partial_sort)", v, i, err)
	v, i, err = tensor.Topk(z, 40, 1, false, true)
	add("topk(z, 40, 1, smallest) (introsort of 39)", v, i, err)
	v, i, err = tensor.Topk(x, 7, 1, true, false)
	add("topk(x, 7, 1, sorted=False)", v, i, err)
	if len(res.Outputs) != 2*len(want) {
		t.Fatalf("%d outputs, want %d", len(res.Outputs), 2*len(want))
	}
	for k, w := range want {
		if w.err != nil {
			t.Fatal(w.err)
		}
		gv, gi := res.Outputs[2*k], res.Outputs[2*k+1]
		if gv.Numel() != w.v.Numel() || gi.Numel() != w.i.Numel() || gi.DType != tensor.Int64 {
			t.Fatalf("%s: got %v/%v %s, want %v", w.name, gv.Shape, gi.Shape, gi.DType, w.v.Shape)
		}
		bad := 0
		for j := 0; j < w.v.Numel(); j++ {
			a, b := gv.Flat(j), w.v.Flat(j)
			same := a == b && math.Signbit(a) == math.Signbit(b) || math.IsNaN(a) && math.IsNaN(b)
			if (!same || gi.FlatInt(j) != w.i.FlatInt(j)) && bad < 5 {
				bad++
				t.Errorf("%s[%d]: got (%v, %d), want (%v, %d)", w.name, j, a, gi.FlatInt(j), b, w.i.FlatInt(j))
			}
		}
	}
}
