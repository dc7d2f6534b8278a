package compiler

import (
	"testing"
)

// A fake program: each kernel's time per choice, as measure would read it
// from kernel_seconds. The chooser must pick each kernel's measured-fastest
// candidate, keep the default within switchMargin, run every kernel with
// its fixed (cached) choice, and stop timing a candidate far slower than
// the best after the first round.
func TestChooseAlternativesPicksMeasuredFaster(t *testing.T) {
	alts := func(cs ...int32) []Alternative {
		var out []Alternative
		for _, c := range cs {
			out = append(out, Alternative{Choice: c, Label: []string{"blas+team", "blas+one", "gen+team", "gen+one"}[c]})
		}
		return out
	}
	ks := []KernelSpec{
		{Index: 0, Name: "k0_mm", Alternatives: alts(0, 1, 2, 3)},
		{Index: 1, Name: "k1_pointwise", Alternatives: alts(0, 1)},
		{Index: 2, Name: "k2_plain"},
		{Index: 3, Name: "k3_cached", Alternatives: alts(0, 1)},
		{Index: 4, Name: "k4_gemm_wins", Alternatives: alts(0, 2)},
	}
	cost := map[int]map[int32]float64{
		0: {0: 1.0, 1: 0.5, 2: 3.0, 3: 2.6},
		1: {0: 0.300, 1: 0.299}, // within the margin: the default stays
		2: {0: 0.1},
		3: {0: 1, 1: 0.1},
		4: {0: 0.9, 2: 0.4},
	}
	calls := map[int32]int{}
	measure := func(ch []int32) ([]float64, error) {
		if ch[3] != 1 {
			t.Errorf("the cached kernel ran choice %d, want its fixed 1", ch[3])
		}
		if ch[2] != 0 {
			t.Errorf("a kernel without alternatives got choice %d", ch[2])
		}
		v := ch[0]
		calls[v]++
		secs := make([]float64, 5)
		for k, c := range cost {
			secs[k] = c[ch[k]]
		}
		return secs, nil
	}
	ds, err := chooseAlternatives(ks, 5, 5, map[int]int32{3: 1}, measure)
	if err != nil {
		t.Fatal(err)
	}
	want := map[int]int32{0: 1, 1: 0, 4: 2}
	if len(ds) != len(want) {
		t.Fatalf("%d decisions, want %d: %+v", len(ds), len(want), ds)
	}
	for _, d := range ds {
		if d.Choice != want[d.Index] {
			t.Errorf("%s: choice %d (%s), want %d; times %+v", d.Kernel, d.Choice, d.Label, want[d.Index], d.Times)
		}
		if len(d.Times) != len(ks[d.Index].Alternatives) {
			t.Errorf("%s: %d timings, want one per alternative", d.Kernel, len(d.Times))
		}
	}
	// Choice 3 (k0 only: 2.6 > 4 x 0.5) is pruned after the first round;
	// choice 2 is not (k4's best). The others run every round.
	if calls[3] != 1 || calls[2] != 5 || calls[0] != 5 || calls[1] != 5 {
		t.Errorf("measure calls per choice %v, want 3 once and the others 5 times", calls)
	}
	if !ds[0].Times[3].Pruned || ds[0].Times[1].Pruned {
		t.Errorf("pruned flags wrong: %+v", ds[0].Times)
	}
}

// A decision saved under a kernel key and symbol values is found again for
// the same key on this machine, and not for other symbol values or keys.
func TestChoiceStoreRoundTrip(t *testing.T) {
	dir := t.TempDir()
	s, err := openChoices(dir)
	if err != nil {
		t.Fatal(err)
	}
	d := Decision{Kernel: "k0", Choice: 2, Label: "generated GEMM", Machine: Machine(), Rounds: 5,
		Times: []CandidateTime{{Choice: 0, Label: "OpenBLAS", Seconds: 2e-3}, {Choice: 2, Label: "generated GEMM", Seconds: 1e-3}}}
	if err := s.save("abc", "ks0=4;", d); err != nil {
		t.Fatal(err)
	}
	got, ok := s.load("abc", "ks0=4;")
	if !ok || got.Choice != 2 || len(got.Times) != 2 {
		t.Fatalf("load: %+v %v", got, ok)
	}
	if _, ok := s.load("abc", "ks0=8;"); ok {
		t.Error("found a decision for other symbol values")
	}
	if _, ok := s.load("abd", "ks0=4;"); ok {
		t.Error("found a decision for another kernel")
	}
}
