package runner

import (
	"fmt"
	"path/filepath"
	"sync"

	"gcdbg/compiler"
	"gcdbg/gpu"
	"gcdbg/render"
	"gcdbg/stages"
	"gcdbg/tensor"
	"gcdbg/trace"
)

// `run --device opencl|cuda`: the same flow as --device cpu (compiled.go)
// — every program of a graph rendered, run, its outputs and grads
// compared with eager and PyTorch — but rendered in the GPU dialect and
// run by the Go host driver (gpu.Exec) on the chosen device. Kernel times
// come from device events, transfers are timed apart, and each kernel's
// bandwidth is given as a fraction of a device-to-device copy measured in
// the same run.

// IsGPU reports whether a --device value names a GPU backend.
func IsGPU(device string) bool { return device == "opencl" || device == "cuda" }

// GPUStats is a graph's "stages.gpu" entry in the JSON.
type GPUStats struct {
	Device        string  `json:"device"`
	KernelMS      float64 `json:"kernel_ms"`   // all kernels, one run (medians summed)
	TransferMS    float64 `json:"transfer_ms"` // host<->device copies of one run (median)
	TransferBytes int64   `json:"transfer_bytes"`
	FallbackMS    float64 `json:"fallback_ms"`
	CopyGBps      float64 `json:"copy_gbps"` // the device-to-device copy probe
	// BandwidthFraction is the kernels' bytes over their time, as a
	// fraction of the copy probe's bandwidth.
	BandwidthFraction float64 `json:"bandwidth_fraction"`
}

// GPUKernelResult is a kernels entry with its fraction of copy bandwidth.
type GPUKernelResult struct {
	KernelResult
	CopyFraction float64 `json:"copy_fraction"`
}

var (
	gpuMu      sync.Mutex
	gpuDevices = map[string]gpu.Device{}
)

// openGPU opens a backend's device once per process (context creation and
// device discovery are not free; programs are compiled per run).
func openGPU(backend string) (gpu.Device, error) {
	gpuMu.Lock()
	defer gpuMu.Unlock()
	if d := gpuDevices[backend]; d != nil {
		return d, nil
	}
	d, err := gpu.Open(backend)
	if err != nil {
		return nil, fmt.Errorf("--device %s: %w", backend, err)
	}
	gpuDevices[backend] = d
	return d, nil
}

// addGPU runs u's programs on the GPU and puts their results in gr; res
// gets the device's name.
func addGPU(tr *trace.Trace, u *stages.Unit, opt Options, gr *GraphResult, res *Result, refs *references) error {
	dev, err := openGPU(opt.Device)
	if err != nil {
		return err
	}
	gpuMu.Lock() // one program on a device at a time
	defer gpuMu.Unlock()
	res.Device = dev.Name()
	if len(u.Programs) == 0 {
		return fmt.Errorf("graph %q: no compiled program (the loop stages did not run)", u.Captured.Name)
	}
	d := render.Dialects[opt.Device]
	cr := &compiledRun{}
	st := GPUStats{Device: dev.Name()}
	var ks []GPUKernelResult
	var kernelBytes int64
	var kernelSecs float64
	results := stages.NewResults[*tensor.Tensor]()
	cr.results = results
	label := tr.Name
	if tr.Path != "" {
		label = filepath.Base(tr.Path)
	}
	for i, lp := range u.Programs {
		where := fmt.Sprintf("graph %q (%s)", u.Captured.Name, lp.Role)
		if lp.Loops == nil || lp.Schedule == nil {
			return fmt.Errorf("%s: no loop program (the loop stages did not run)", where)
		}
		// The stages' plan is the C dialect's (its render-time elisions);
		// this dialect's own is planned here.
		plan := render.PlanMemory(lp.Loops, lp.Schedule.Kernels, d)
		src, err := render.Render(lp.Loops, lp.Schedule.Kernels, plan, d, render.Options{Trace: label, Graph: u.Captured.Name, Role: lp.Role})
		if err != nil {
			return fmt.Errorf("%s: %w", where, err)
		}
		in, err := programInputs(&src.Manifest, lp.Graph, results.Saved)
		if err != nil {
			return fmt.Errorf("%s: %w", where, err)
		}
		probe := int64(-1)
		if i == 0 {
			probe = 0 // default size, once per graph
		}
		r, err := gpu.Exec(dev, src.Code, &src.Manifest, in, gpu.Options{Runs: opt.Runs, ProbeBytes: probe})
		if err != nil {
			return err
		}
		if i == 0 {
			st.CopyGBps = r.CopyGBps
		}
		// Built by the device's runtime on every run ("compiled"): gcdbg
		// keeps no GPU binaries of its own.
		cr.builds = append(cr.builds, BuildInfo{Role: lp.Role, Cache: "miss", MS: r.BuildSeconds * 1e3})
		cr.add(lp.Role, &src.Manifest, &compiler.ExecResult{Outputs: r.Outputs, Seconds: r.Seconds,
			KernelSeconds: r.KernelSeconds, FallbackSeconds: r.FallbackSeconds})
		st.TransferMS += compiler.Median(r.TransferSeconds) * 1e3
		st.TransferBytes += r.TransferBytes
		st.FallbackMS += compiler.Median(r.FallbackSeconds) * 1e3
		med := (&compiler.ExecResult{KernelSeconds: r.KernelSeconds}).MedianKernelSeconds()
		for _, step := range src.Manifest.Steps {
			for _, k := range step.Kernels {
				if k.Index < len(med) {
					kernelSecs += med[k.Index]
					kernelBytes += k.Bytes
				}
			}
		}
		if err := results.Add(u, lp.Role, r.Outputs); err != nil {
			return err
		}
	}
	if err := cr.fill(u, gr, refs); err != nil {
		return err
	}
	for _, k := range cr.kernels {
		gk := GPUKernelResult{KernelResult: k}
		if st.CopyGBps > 0 {
			gk.CopyFraction = k.GBps / st.CopyGBps
		}
		ks = append(ks, gk)
	}
	gr.Kernels = gr.Kernels[:0]
	for _, k := range ks {
		gr.Kernels = append(gr.Kernels, k)
	}
	st.KernelMS = kernelSecs * 1e3
	if kernelSecs > 0 && st.CopyGBps > 0 {
		st.BandwidthFraction = float64(kernelBytes) / kernelSecs / 1e9 / st.CopyGBps
	}
	gr.Stages["gpu"] = st
	return nil
}
