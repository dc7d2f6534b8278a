package main

import (
	"regexp"
	"strings"
	"testing"

	"gcdbg/gpu"
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

// On a GPU device (OpenCL here: PoCL in CI; CUDA on an NVIDIA machine runs
// the same printer) run's text shows how each program was built and the
// per-kernel table, as on the CPU: the GPU path's kernel entries carry a
// copy fraction beside the CPU fields and were once skipped, leaving an
// empty table under its heading and an empty "build:" line (seen on an
// H100 with --device cuda).
func TestRunShowsGPUKernelsAndBuilds(t *testing.T) {
	for _, device := range []string{"opencl", "cuda"} {
		t.Run(device, func(t *testing.T) {
			d, err := gpu.Open(device)
			if err != nil {
				t.Skipf("no %s device here: %v", device, err)
			}
			d.Close()
			code, out, errs := run("run", "../../fixtures/mlp.json", "--device", device, "--runs", "2")
			if code != 0 {
				t.Fatalf("exit %d: %s\n%s", code, out, errs)
			}
			if !regexp.MustCompile(`build: forward compiled \([0-9.]+ ms\), backward compiled \([0-9.]+ ms\)`).MatchString(out) {
				t.Errorf("no build line naming both programs:\n%s", out)
			}
			if !regexp.MustCompile(`gpu: kernels [0-9.]+ ms, host<->device copies [0-9.]+ ms \([0-9]+ bytes\), host fallbacks [0-9.]+ ms; device copy [0-9.]+ GB/s`).MatchString(out) {
				t.Errorf("no gpu summary line:\n%s", out)
			}
			i := strings.Index(out, "kernels (median of 2 runs):")
			if i < 0 {
				t.Fatalf("no kernel table:\n%s", out)
			}
			rows := regexp.MustCompile(`(?m)^    \S+\s+(forward|backward)\s+\S+\s+[0-9.]+\s+[0-9.]+\s+[0-9.]+`).FindAllString(out[i:], -1)
			if len(rows) < 2 {
				t.Errorf("%d kernel rows under the table's heading:\n%s", len(rows), out[i:])
			}
		})
	}
}
