package gpu

import (
	"path/filepath"
	"testing"

	"gcdbg/interp"
	"gcdbg/render"
	"gcdbg/stages"
	"gcdbg/tensor"
	"gcdbg/trace"
)

// A program with fallbacks between kernels (max_unpool3d, which the GPU
// dialects leave to the host: render/simt.go hostOnlyOps; the pools have
// device kernels since simt_convpool.go) runs on the device: fallback
// operands come down, results go back up, and the outputs match the eager
// interpreter.
func TestExecWithFallback(t *testing.T) {
	c := openCLOrSkip(t)
	tr, err := trace.Load("../runner/testdata/pool_indices.json")
	if err != nil {
		t.Fatal(err)
	}
	units, err := stages.Run(tr, "")
	if err != nil {
		t.Fatal(err)
	}
	u := units[0]
	lp := u.Programs[0]
	src, err := render.Render(lp.Loops, lp.Schedule.Kernels, lp.Memory, render.OpenCL, render.Options{Trace: filepath.Base(tr.Path), Graph: u.Captured.Name, Role: lp.Role})
	if err != nil {
		t.Fatal(err)
	}
	fallbacks := 0
	for _, st := range src.Manifest.Steps {
		if st.Kind == "fallback" {
			fallbacks++
		}
	}
	if fallbacks == 0 {
		t.Fatal("expected fallback steps (max_unpool3d on the host)")
	}
	inputs := programInputs(t, src, lp)
	res, err := Exec(c, src.Code, &src.Manifest, inputs, Options{Runs: 2})
	if err != nil {
		t.Fatal(err)
	}
	eager, err := u.RunEager()
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < u.UserOutputs(); i++ {
		ref, _ := interp.AsTensor(eager[i])
		got := res.Outputs[i]
		if cmp := interp.Compare(got, ref, interp.DefaultTolerance(got.DType)); !cmp.Match {
			t.Errorf("output %d: %+v", i, cmp)
		}
	}
	if len(res.KernelSeconds) != 2 || res.TransferBytes == 0 || res.CopyGBps <= 0 {
		t.Errorf("timings: %d runs of kernel times, %d transfer bytes, copy %.2f GB/s", len(res.KernelSeconds), res.TransferBytes, res.CopyGBps)
	}
	t.Logf("%s: %d fallbacks, transfers %v s, copy %.2f GB/s", res.Device, fallbacks, res.TransferSeconds, res.CopyGBps)
}

func programInputs(t *testing.T, src *render.Source, lp *stages.LoopProgram) map[string]*tensor.Tensor {
	t.Helper()
	in := map[string]*tensor.Tensor{}
	for _, b := range src.Manifest.Buffers {
		if b.Kind != "input" && b.Kind != "constant" {
			continue
		}
		key := b.Target
		if key == "" {
			key = b.Name
		}
		td := lp.Graph.Tensors[key]
		if td == nil || td.T == nil {
			t.Fatalf("no tensor %q", key)
		}
		in[key] = td.T
	}
	return in
}
