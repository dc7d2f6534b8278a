package main

import (
	"strings"
	"testing"

	"gcdbg/runner"
)

// gcdbg help, run --help and run's refusal of an unknown device list the
// same devices, runner.Devices, every one of which run accepts.
func TestDeviceListHasOneHome(t *testing.T) {
	want := "--device " + strings.Join(runner.Devices, "|")
	if code, out, _ := run("help"); code != 0 || !strings.Contains(out, want) {
		t.Errorf("gcdbg help (exit %d) lacks %q:\n%s", code, want, out)
	}
	if code, _, errs := run("run", "--help"); code != 0 || !strings.Contains(errs, want) {
		t.Errorf("gcdbg run --help (exit %d) lacks %q:\n%s", code, want, errs)
	}
	_, _, errs := run("run", "--device", "tpu")
	for _, d := range runner.Devices {
		if !strings.Contains(errs, d) {
			t.Errorf("refusing --device tpu does not name %s: %s", d, errs)
		}
		if err := checkDevice(d, ""); err != nil {
			t.Errorf("--device %s is listed but refused: %v", d, err)
		}
	}
	if len(runner.Devices) < 4 {
		t.Errorf("devices %v: cpu, opencl, cuda and eager expected", runner.Devices)
	}
}
