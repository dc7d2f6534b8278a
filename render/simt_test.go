package render_test

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gcdbg/graphtext"
	"gcdbg/render"
	"gcdbg/stages"
)

var update = flag.Bool("update", false, "rewrite the golden GPU sources in testdata")

// The CUDA and OpenCL sources of three programs are golden files: CUDA
// cannot be compiled or run without an NVIDIA driver, so its source is
// pinned here (OpenCL's is also run on PoCL by the runner's tests).
// Regenerate with `go test ./render -run TestGPUGolden -update`.
func TestGPUGolden(t *testing.T) {
	cases := []struct {
		name string
		lp   func(t *testing.T) (*stages.Unit, *stages.LoopProgram)
	}{
		{"sin_cos", program("../fixtures/sin_cos.json", "inference")},
		{"softmax", program("../examples/softmax.py", "inference")},
		{"mlp_forward", program("../fixtures/mlp.json", "forward")},
	}
	for _, c := range cases {
		u, lp := c.lp(t)
		for _, d := range []render.Dialect{render.CUDA, render.OpenCL} {
			src := renderLP(t, u, lp, d, render.Options{})
			path := filepath.Join("testdata", c.name+d.Ext)
			if *update {
				if err := os.WriteFile(path, []byte(src.Code), 0o644); err != nil {
					t.Fatal(err)
				}
				continue
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run with -update to create it)", err)
			}
			if string(want) != src.Code {
				t.Errorf("%s: the %s source differs from %s (run with -update after checking the diff)", c.name, d.Name, path)
			}
		}
	}
}

func program(path, role string) func(t *testing.T) (*stages.Unit, *stages.LoopProgram) {
	return func(t *testing.T) (*stages.Unit, *stages.LoopProgram) {
		t.Helper()
		var units []*stages.Unit
		if strings.HasSuffix(path, ".py") {
			tr, err := graphtext.Load(path)
			if err != nil {
				t.Fatal(err)
			}
			if units, err = stages.Run(tr, "memory"); err != nil {
				t.Fatal(err)
			}
		} else {
			units = loadUnits(t, path)
		}
		for _, u := range units {
			for _, lp := range u.Programs {
				if lp.Role == role {
					return u, lp
				}
			}
		}
		t.Fatalf("%s: no %s program", path, role)
		return nil, nil
	}
}

// The SIMT structure is there, spelled per dialect: grid-stride loops,
// block reductions in shared memory (warp shuffles on CUDA), the tiled
// GEMM, and a manifest of launch steps the host can read back.
func TestSIMTShape(t *testing.T) {
	u, lp := program("../examples/softmax.py", "inference")(t)
	cu := renderLP(t, u, lp, render.CUDA, render.Options{})
	cl := renderLP(t, u, lp, render.OpenCL, render.Options{})
	for _, want := range []string{`extern "C" __global__ void`, "__shared__ double", "__syncthreads();", "__shfl_down_sync", "gridDim.x"} {
		if !strings.Contains(cu.Code, want) {
			t.Errorf("CUDA softmax lacks %q", want)
		}
	}
	for _, want := range []string{"__kernel void", "__local double", "barrier(CLK_LOCAL_MEM_FENCE);", "get_num_groups(0)", "__global const float *"} {
		if !strings.Contains(cl.Code, want) {
			t.Errorf("OpenCL softmax lacks %q", want)
		}
	}
	if strings.Contains(cl.Code, "__shfl") || strings.Contains(cl.Code, "#include") {
		t.Errorf("OpenCL source has CUDA or C spellings")
	}
	for _, st := range cl.Manifest.Steps {
		if st.Kind != "launch" {
			continue
		}
		slots, l, err := render.LaunchOf(&st)
		if err != nil {
			t.Fatal(err)
		}
		if l.Shape != "reduction" || l.Block != 256 || l.Units != "8" || len(slots) != 2 {
			t.Errorf("softmax launch %+v with slots %v, want one reduction over 8 rows reading x and writing the result", l, slots)
		}
	}
	u, lp = program("../fixtures/mlp.json", "forward")(t)
	mm := renderLP(t, u, lp, render.CUDA, render.Options{}).Code
	if !strings.Contains(mm, "__shared__ float As[16][17];") || !strings.Contains(mm, "k0 += 16") {
		t.Errorf("the mlp forward has no tiled shared-memory GEMM:\n%s", mm)
	}
}
