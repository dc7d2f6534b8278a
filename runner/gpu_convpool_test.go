package runner

import (
	"slices"
	"strings"
	"testing"

	"gcdbg/render"
	"gcdbg/stages"
	"gcdbg/trace"
)

// Convolution backward and pooling run as device kernels on the GPU
// dialects (render/simt_convpool.go): in these training traces no step of
// a compiled program is a host fallback on the device where the C dialect
// compiles it (strict: none at all), and the outputs and grads match eager
// and PyTorch by the verdict. gpu_convpool_train covers strides,
// asymmetric padding, dilation, groups, depthwise, a stride past the
// window, max_pool2d with ceil_mode, dilation and NaNs, avg_pool2d with
// ceil_mode, count_include_pad and divisor_override, overlapping adaptive
// cells and a global pool; the conv_* traces NaN/Inf weights and output
// gradients at padded borders (conv_nonfinite.go), depthwise NaN weights,
// 1-D (an unbatched Conv1d's weight gradient is an eager op on every
// device) and 1x1 convolutions, conv_plane's and conv_transpose's shapes
// (a transposed conv's forward is conv2d_backward_input); pool_ties max
// pooling's ties, NaNs and -inf windows (max_pool2d's own kernels, and the
// 3-D pools with indices that 1-D and 2-D pools with indices decompose
// to); pool_indices max
// pools with indices, max_unpool (a host fallback on the GPU) and an int64
// avg_pool2d.
var gpuConvPoolTraces = []struct {
	path   string
	strict bool // no fallback step at all
	// eagerOnly: PyTorch's own kernels differ from eager at the padded
	// border (oneDNN's GEMM-based kernels multiply the padding: NaN where
	// eager and gcdbg's C and GPU code are finite, conv_nonfinite.go);
	// checked against eager only, as TestConvNonFiniteGEMMKernels does.
	eagerOnly bool
	// wantCode: text the device source must hold (the weight gradient's
	// two forms: one block per element, one per (oc, ci) pair; the input
	// gradient's 4 channels per thread and 1).
	wantCode []string
	// hostOps may be fallbacks on the device (render/simt.go hostOnlyOps).
	hostOps []string
}{
	{path: "testdata/gpu_convpool_train.json", strict: true, wantCode: []string{"f < OC * CG * KH * KW; f += ", "pc < OC * CG; pc += ", "CB = 4;", "CB = 1;"}},
	{path: "testdata/conv_nonfinite.json", strict: true},
	{path: "testdata/conv_nonfinite_gemm.json", strict: true, eagerOnly: true},
	{path: "testdata/conv_depthwise_train.json", strict: true},
	{path: "testdata/conv_depthwise_nanw.json", strict: true},
	{path: "testdata/conv1d_train.json"},
	{path: "testdata/conv1x1_train.json", strict: true},
	{path: "testdata/conv_plane_train.json", strict: true},
	{path: "testdata/conv_transpose_train.json", strict: true},
	{path: "testdata/pool_ties.json", strict: true},
	// max pools with indices (NaNs, -inf windows), max_unpool, a dilated
	// 1-D pool with ceil_mode, an int64 avg_pool2d (truncating division)
	{path: "testdata/pool_indices.json", hostOps: []string{"aten.max_unpool3d"}},
}

func TestOpenCLConvPoolKernels(t *testing.T) {
	needGPU(t, "opencl")
	checkGPUConvPool(t, "opencl")
}

// The same on CUDA where a driver and NVRTC are present
// (GCDBG_REQUIRE_CUDA=1 makes a missing device a failure).
func TestCUDAConvPoolKernels(t *testing.T) {
	needGPU(t, "cuda")
	checkGPUConvPool(t, "cuda")
}

func checkGPUConvPool(t *testing.T, device string) {
	for _, c := range gpuConvPoolTraces {
		t.Run(c.path, func(t *testing.T) {
			tr, err := trace.Load(c.path)
			if err != nil {
				t.Fatal(err)
			}
			units, err := stages.Run(tr, "")
			if err != nil {
				t.Fatal(err)
			}
			var code strings.Builder
			for _, u := range units {
				for _, lp := range u.Programs {
					where := u.Captured.Name + " (" + lp.Role + ")"
					if lp.Loops == nil || lp.Schedule == nil {
						t.Fatalf("graph %s: no loop program", where)
					}
					onDev, launches := fallbackOps(t, c.path, u, lp, render.Dialects[device], &code)
					onCPU, _ := fallbackOps(t, c.path, u, lp, render.C, nil)
					if launches == 0 {
						t.Errorf("graph %s: no kernels", where)
					}
					for op, k := range onDev {
						if (c.strict || k > onCPU[op]) && !slices.Contains(c.hostOps, op) {
							t.Errorf("graph %s: %d %s step(s) are host fallbacks on %s (%d on the CPU)", where, k, op, device, onCPU[op])
						}
					}
				}
			}
			for _, w := range c.wantCode {
				if !strings.Contains(code.String(), w) {
					t.Errorf("no %q in the %s source", w, device)
				}
			}
			res, err := RunUnits(tr, units, Options{Runs: 1, Device: device})
			if err != nil {
				t.Fatal(err)
			}
			if !c.eagerOnly {
				checkGPUResult(t, res, device)
				return
			}
			for _, g := range res.Graphs {
				for _, o := range g.Outputs {
					if !matches(o.VsEager) {
						t.Errorf("graph %s output %d: vs eager %+v", g.Name, o.Index, o.VsEager)
					}
				}
				for _, gr := range g.Grads {
					if !matches(gr.VsEager) {
						t.Errorf("graph %s grad %s: vs eager %+v", g.Name, gr.Name, gr.VsEager)
					}
				}
			}
		})
	}
}

// fallbackOps renders one program in dialect d and counts its fallback
// steps by op, and its kernel launches; the source goes to code if set.
func fallbackOps(t *testing.T, path string, u *stages.Unit, lp *stages.LoopProgram, d render.Dialect, code *strings.Builder) (map[string]int, int) {
	t.Helper()
	plan := render.PlanMemory(lp.Loops, lp.Schedule.Kernels, d)
	src, err := render.Render(lp.Loops, lp.Schedule.Kernels, plan, d, render.Options{Trace: path, Graph: u.Captured.Name, Role: lp.Role})
	if err != nil {
		t.Fatalf("graph %s (%s) in %s: %v", u.Captured.Name, lp.Role, d.Name, err)
	}
	if code != nil {
		code.WriteString(src.Code)
	}
	ops, launches := map[string]int{}, 0
	for _, st := range src.Manifest.Steps {
		switch st.Kind {
		case "fallback":
			ops[st.Op]++
		default:
			launches++
		}
	}
	return ops, launches
}
