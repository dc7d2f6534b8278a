package tui

import (
	"errors"
	"strings"
	"testing"

	"gcdbg/runner"
	"gcdbg/trace"
)

func TestDeviceKeyCyclesDevices(t *testing.T) {
	r := &runPanel{}
	r.nextDevice(Options{Device: "cpu"})
	var seen []string
	for i := 0; i < len(devices); i++ {
		seen = append(seen, r.device)
		r.nextDevice(Options{})
	}
	if got := strings.Join(seen, " "); got != "opencl cuda eager cpu" {
		t.Fatalf("d cycles %q", got)
	}
}

// A compiled run's panel lists its kernels with time, bandwidth and rate.
func TestRunPanelShowsKernels(t *testing.T) {
	tr, err := trace.Load("../fixtures/mlp.json")
	if err != nil {
		t.Fatal(err)
	}
	res, err := runner.Run(tr, runner.Options{Runs: 1, Device: "cpu"})
	if err != nil {
		t.Fatal(err)
	}
	r := &runPanel{res: res, device: "cpu"}
	v := r.view()
	for _, want := range []string{"PASS", "kernels timed, slowest first", "GB/s", "GFLOP/s", "forward", "backward", "compiled"} {
		if !strings.Contains(v, want) {
			t.Errorf("run panel lacks %q:\n%s", want, v)
		}
	}
}

// On a small terminal the run panel keeps its title and verdict on screen
// and scrolls with } and { to every kernel of the transformer block; a
// failed run on another device never shows the old result as its own.
func TestRunPanelScrollsAndKeepsItsVerdict(t *testing.T) {
	m := loaded(t, "transformer_block.json", 100, 30)
	res, err := runner.RunUnits(m.tr, m.ranUnits(), runner.Options{Runs: 1, Device: "cpu"})
	if err != nil {
		t.Fatal(err)
	}
	m.run = runPanel{res: res, device: "cpu", visible: true}
	m = send(m, nil)
	var kernels []string
	for _, g := range res.Graphs {
		for _, k := range g.Kernels {
			if kr, ok := runner.KernelOf(k); ok {
				kernels = append(kernels, kr.Name)
			}
		}
	}
	if len(kernels) < 10 {
		t.Fatalf("%d kernels", len(kernels))
	}
	seen := map[string]bool{}
	for i := 0; i < 200; i++ {
		s := screen(m)
		if rows := strings.Split(s, "\n"); len(rows) != 30 {
			t.Fatalf("%d rows", len(rows))
		}
		if !strings.Contains(s, "run vs PyTorch") || !strings.Contains(s, "PASS on cpu") {
			t.Fatalf("the run panel's title or verdict scrolled away:\n%s", s)
		}
		for _, k := range kernels {
			if strings.Contains(s, cut(k, 24)) {
				seen[cut(k, 24)] = true
			}
		}
		if i == 0 && !strings.Contains(s, "{ } scroll") {
			t.Fatalf("a clipped panel does not say how to scroll:\n%s", s)
		}
		m = press(m, "}")
	}
	if len(seen) < len(kernels)*9/10 {
		t.Errorf("scrolling showed %d of %d kernels", len(seen), len(kernels))
	}
	for i := 0; i < 200; i++ {
		m = press(m, "{")
	}
	if !strings.Contains(screen(m), "graph g0") {
		t.Error("{ does not scroll back to the top")
	}
	m.run = runPanel{res: res, device: "cuda", visible: true, err: errors.New("no CUDA driver (libcuda.so.1 not found)\nsecond line of the error")}
	s := screen(send(m, nil))
	if !strings.Contains(s, "FAIL on cuda: could not run — no CUDA driver") || !strings.Contains(s, "from a run on cpu, not cuda") || strings.Contains(s, "PASS") {
		t.Errorf("a failed CUDA run after a CPU one:\n%s", s)
	}
}
