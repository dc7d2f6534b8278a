package runner

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gcdbg/gpu"
	"gcdbg/trace"
)

// Every fixture on OpenCL (PoCL in CI): the compiled outputs and grads
// match gcdbg's eager reference and PyTorch's values.
func TestOpenCLFixtures(t *testing.T) {
	needGPU(t, "opencl")
	checkGPUFixtures(t, "opencl")
}

// needGPU skips t without a device of backend (opencl, cuda), or fails it
// where GCDBG_REQUIRE_OPENCL / GCDBG_REQUIRE_CUDA is set.
func needGPU(t *testing.T, backend string) {
	t.Helper()
	d, err := gpu.Open(backend)
	if err == nil {
		d.Close()
		return
	}
	if os.Getenv("GCDBG_REQUIRE_"+strings.ToUpper(backend)) != "" {
		t.Fatal(err)
	}
	t.Skipf("no %s device: %v", backend, err)
}

// The same on CUDA wherever an NVIDIA driver and NVRTC are present (no
// GPU in CI: it skips there, saying why; GCDBG_REQUIRE_CUDA=1 makes a
// missing device a failure, for runs on a GPU machine).
func TestCUDAFixtures(t *testing.T) {
	needGPU(t, "cuda")
	checkGPUFixtures(t, "cuda")
}

// checkGPUFixtures runs every fixture and both op zoos on device and
// checks each output and grad against eager and PyTorch with the verdict.
func checkGPUFixtures(t *testing.T, device string) {
	paths, _ := filepath.Glob("../fixtures/*.json")
	zoo, _ := filepath.Glob("../stages/testdata/zoo_*.json")
	paths = append(paths, zoo...)
	for _, p := range paths {
		t.Run(strings.TrimSuffix(filepath.Base(p), ".json"), func(t *testing.T) {
			tr, err := trace.Load(p)
			if err != nil {
				t.Fatal(err)
			}
			res, err := Run(tr, Options{Runs: 1, Device: device})
			if err != nil {
				t.Fatal(err)
			}
			checkGPUResult(t, res, device)
		})
	}
}

// checkGPUResult checks a run on device: the device and backend, and each
// output and grad against eager and PyTorch by the verdict.
func checkGPUResult(t *testing.T, res *Result, device string) {
	t.Helper()
	if !strings.HasPrefix(res.Device, device+": ") || res.Backend != "compiled" {
		t.Errorf("device %q backend %q", res.Device, res.Backend)
	}
	for _, g := range res.Graphs {
		st, _ := g.Stages["gpu"].(GPUStats)
		t.Logf("graph %s: kernels %.3f ms, transfers %.3f ms (%d B), fallbacks %.3f ms, copy %.2f GB/s, fraction %.3f",
			g.Name, st.KernelMS, st.TransferMS, st.TransferBytes, st.FallbackMS, st.CopyGBps, st.BandwidthFraction)
		for _, o := range g.Outputs {
			if !matches(o.VsEager) || !matches(o.VsExpected) {
				t.Errorf("graph %s output %d: vs eager %+v, vs PyTorch %+v", g.Name, o.Index, o.VsEager, o.VsExpected)
			}
		}
		for _, gr := range g.Grads {
			if !matches(gr.VsEager) || !matches(gr.VsExpected) {
				t.Errorf("graph %s grad %s: vs eager %+v, vs PyTorch %+v", g.Name, gr.Name, gr.VsEager, gr.VsExpected)
			}
		}
	}
	if !res.OK {
		t.Errorf("run not OK")
	}
}
