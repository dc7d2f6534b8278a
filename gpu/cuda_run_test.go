package gpu

import (
	"path/filepath"
	"testing"

	"gcdbg/interp"
	"gcdbg/render"
	"gcdbg/stages"
	"gcdbg/trace"
)

// Wherever a CUDA driver is present, the CUDA dialect's code for real
// traces compiles (NVRTC), runs on the device and computes what gcdbg's
// eager interpreter computes: the MLP, the transformer block and the conv
// net, first program (the forward, or the inference graph). Elsewhere the
// test says why it skips; it never compares against golden files it wrote.
func TestCUDACompilesRunsAndCompares(t *testing.T) {
	c, err := OpenCUDA()
	if err != nil {
		t.Skipf("no CUDA device to run on here: %v (this test compiles, runs and compares wherever a CUDA driver is present)", err)
	}
	defer c.Close()
	for _, f := range []string{"mlp.json", "transformer_block.json", "conv_add.json"} {
		tr, err := trace.Load(filepath.Join("..", "fixtures", f))
		if err != nil {
			t.Fatal(err)
		}
		units, err := stages.Run(tr, "")
		if err != nil {
			t.Fatal(err)
		}
		u := units[0]
		lp := u.Programs[0]
		src, err := render.Render(lp.Loops, lp.Schedule.Kernels, lp.Memory, render.CUDA, render.Options{Trace: f, Graph: u.Captured.Name, Role: lp.Role})
		if err != nil {
			t.Fatalf("%s: render: %v", f, err)
		}
		res, err := Exec(c, src.Code, &src.Manifest, programInputs(t, src, lp), Options{Runs: 2})
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		eager, err := u.RunEager()
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < u.UserOutputs(); i++ {
			ref, err := interp.AsTensor(eager[i])
			if err != nil {
				t.Fatal(err)
			}
			if i >= len(res.Outputs) {
				t.Fatalf("%s: %d outputs from the device, want at least %d", f, len(res.Outputs), u.UserOutputs())
			}
			got := res.Outputs[i]
			if cmp := interp.Compare(got, ref, interp.DefaultTolerance(got.DType)); !cmp.Match {
				t.Errorf("%s: output %d on %s: %s (max abs err %g)", f, i, c.Name(), cmp.Why, cmp.MaxAbsErr)
			}
		}
		t.Logf("%s on %s: %d kernels", f, c.Name(), len(src.Kernels))
	}
}
