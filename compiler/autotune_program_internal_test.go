package compiler

import (
	"fmt"
	"slices"
	"testing"
)

// The program check (autotune_program.go) times whole-program
// configurations as the program runs them: each kernel's own choice, every
// kernel that can on one thread, every kernel on all threads; each
// configuration back to back with itself, only the run after the first
// counted; cached kernels and kernels without alternatives keep their
// choices. The fake program below is fast for a configuration only when the
// run before it ran another one (as the chooser's interleaved rounds see
// it) and slow back to back (as the timed runs see it), the way
// lstm_cell's OpenBLAS GEMMs on all threads were: the check must count the
// back-to-back times, and so replace the per-kernel winners.
func TestProgramCheckTimesConfigurationsBackToBack(t *testing.T) {
	alts := func(cs ...int32) []Alternative {
		var out []Alternative
		for _, c := range cs {
			out = append(out, Alternative{Choice: c, Label: fmt.Sprintf("c%d", c)})
		}
		return out
	}
	ks := []KernelSpec{
		{Index: 0, Name: "k0_mm", Key: "a", Alternatives: alts(0, 1, 2, 3)},
		{Index: 1, Name: "k1_mm", Key: "b", Alternatives: alts(0, 1, 2, 3)},
		{Index: 3, Name: "k3_pointwise", Key: "c", Alternatives: alts(0, 1)},
		{Index: 4, Name: "k4_gemm_only", Key: "d", Alternatives: alts(0, 2)},
	}
	own := map[int]int32{0: 0, 1: 2, 3: 1, 4: 2}
	cfgs := programConfigs(ks, own)
	want := [][]int32{{0, 2, 1, 2}, {1, 3, 1, 2}, {0, 2, 0, 2}}
	if len(cfgs) != len(want) {
		t.Fatalf("configurations %+v, want %v", cfgs, want)
	}
	for i, c := range cfgs {
		if !slices.Equal(c.Choices, want[i]) {
			t.Errorf("configuration %d (%s): %v, want %v", i, c.Label, c.Choices, want[i])
		}
	}
	// Only the default and one-thread: no configuration but the own one
	// when every kernel already is where the others would put it.
	if got := programConfigs(ks[3:], map[int]int32{4: 2}); len(got) != 1 {
		t.Errorf("a kernel without a one-thread candidate got configurations %+v", got)
	}

	// Fast alone, slow back to back: own 1.0 / 2.0 ms, one thread 1.6 /
	// 1.6, all threads 0.9 / 2.4.
	alone := map[string]float64{"[0 2 1 2]": 1.0e-3, "[1 3 1 2]": 1.6e-3, "[0 2 0 2]": 0.9e-3}
	b2b := map[string]float64{"[0 2 1 2]": 2.0e-3, "[1 3 1 2]": 1.6e-3, "[0 2 0 2]": 2.4e-3}
	var prev string
	var calls []string
	measure := func(ch []int32) (float64, []float64, error) {
		if ch[2] != 0 || ch[5] != 3 {
			t.Errorf("kernel without alternatives ran %d, cached kernel 5 ran %d (want 0 and its fixed 3)", ch[2], ch[5])
		}
		key := fmt.Sprint([]int32{ch[0], ch[1], ch[3], ch[4]})
		calls = append(calls, key)
		s := alone[key]
		if key == prev {
			s = b2b[key]
		}
		prev = key
		ks := make([]float64, 6)
		ks[0], ks[1] = s/2, s/2
		return s, ks, nil
	}
	pc, err := confirmInProgram(ks, 6, 5, 2, map[int]int32{5: 3}, cfgs, measure)
	if err != nil {
		t.Fatal(err)
	}
	if len(calls) != 5*2*3 {
		t.Fatalf("%d program runs, want 5 rounds x 2 back-to-back x 3 configurations", len(calls))
	}
	for i := 0; i < len(calls); i += 2 {
		if calls[i] != calls[i+1] {
			t.Fatalf("runs %d and %d ran %s then %s: a configuration's runs are not back to back", i, i+1, calls[i], calls[i+1])
		}
	}
	for i, c := range pc.Configs {
		if c.Seconds != b2b[fmt.Sprint(c.Choices)] {
			t.Errorf("%s: %g s, want its back-to-back time %g", c.Label, c.Seconds, b2b[fmt.Sprint(c.Choices)])
		}
		if len(c.KernelSeconds) != len(ks) || c.KernelSeconds[0] != c.Seconds/2 {
			t.Errorf("configuration %d: kernel seconds %v", i, c.KernelSeconds)
		}
	}
	if pc.Chosen != 1 || !slices.Equal(pc.Kernels, []string{"a", "b", "c", "d"}) {
		t.Fatalf("chose configuration %d (want 1, one thread) for kernels %v", pc.Chosen, pc.Kernels)
	}

	// The decisions take the program's configuration; where it is not the
	// kernel's own choice, that is kept as Alone.
	out := []Decision{{Index: 0, Choice: 0, Label: "c0"}, {Index: 1, Choice: 2, Label: "c2"}, {Index: 3, Choice: 1, Label: "c1"}, {Index: 4, Choice: 2, Label: "c2"}}
	fixed := map[int]int32{5: 3}
	applyProgram(ks, &pc, out, fixed)
	for i, w := range []struct {
		choice int32
		alone  string
	}{{1, "c0"}, {3, "c2"}, {1, ""}, {2, ""}} {
		d := out[i]
		if d.Choice != w.choice || d.Alone != w.alone || d.Program != &pc || fixed[d.Index] != w.choice || d.Label != fmt.Sprintf("c%d", w.choice) {
			t.Errorf("kernel %d: choice %d (%s), alone %q, fixed %d; want %d, alone %q", d.Index, d.Choice, d.Label, d.Alone, fixed[d.Index], w.choice, w.alone)
		}
	}

	// Within the margin the kernels' own choices stay.
	b2b["[1 3 1 2]"] = 1.99e-3
	pc, err = confirmInProgram(ks, 6, 3, 2, map[int]int32{5: 3}, cfgs, measure)
	if err != nil {
		t.Fatal(err)
	}
	if pc.Chosen != 0 {
		t.Errorf("a configuration 0.5%% faster replaced the kernels' own choices: %+v", pc.Configs)
	}
}

// A program check is cached under its kernels' keys and symbol values, and
// found again only for the same per-kernel choices.
func TestProgramCheckStoreRoundTrip(t *testing.T) {
	s, err := openChoices(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer SetLoadForTest(0.2, true)()
	ks := []KernelSpec{{Index: 0, Key: "a"}, {Index: 1, Key: "b"}}
	pk := programKey(ks)
	pc := ProgramCheck{Kernels: []string{"a", "b"}, Machine: Machine(), Chosen: 1, Rounds: 5, Burst: 2,
		Configs: []ProgramConfig{{Label: cfgOwn, Choices: []int32{0, 0}, Seconds: 2e-3}, {Label: cfgOne, Choices: []int32{1, 1}, Seconds: 1e-3}}}
	if err := s.saveProgram(pk, "", pc); err != nil {
		t.Fatal(err)
	}
	got, ok := s.loadProgram(pk, "", []int32{0, 0})
	if !ok || got.Chosen != 1 || !slices.Equal(got.Configs[1].Choices, []int32{1, 1}) {
		t.Fatalf("load: %+v %v", got, ok)
	}
	if _, ok := s.loadProgram(pk, "", []int32{0, 2}); ok {
		t.Error("found a check made for other per-kernel choices")
	}
	if _, ok := s.loadProgram(pk, "s0=3;", []int32{0, 0}); ok {
		t.Error("found a check for other symbol values")
	}
	if programKey(ks) == programKey([]KernelSpec{ks[1], ks[0]}) || programKey([]KernelSpec{{Key: "a"}, {}}) != "" {
		t.Error("program key does not follow the kernels' keys in order")
	}
}
