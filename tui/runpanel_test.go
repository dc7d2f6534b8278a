package tui

import (
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
	for _, want := range []string{"PASS", "kernels, slowest first", "GB/s", "GFLOP/s", "forward", "backward", "compiled"} {
		if !strings.Contains(v, want) {
			t.Errorf("run panel lacks %q:\n%s", want, v)
		}
	}
}
