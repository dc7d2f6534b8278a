package runner

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"gcdbg/graphtext"
	"gcdbg/render"
	"gcdbg/stages"
	"gcdbg/trace"
)

// Batched GEMMs (issue 13; render/gemm_batch.go, testdata/models/attention_bmm.py):
// every bmm kernel runs its batches through the team-or-one-thread loop;
// the QK^T kernel's scale+mask epilogue and the 3-batch bmm's epilogue run
// per batch inside that loop; PV's identity copy into the output and a
// Linear's (an mm viewed back to 3-D) are gone (the GEMMs write the
// outputs); and for each choice a kernel can take (the
// batches on the team, all on one thread, the generated GEMM) the compiled
// outputs — NaN, +Inf and -Inf in the inputs — match PyTorch's and the
// eager interpreter's.
func TestBatchedGEMMEpilogues(t *testing.T) {
	tr, units, src := renderFirstProgram(t, "testdata/attention_bmm.json")
	bmms, inside := 0, 0
	for _, k := range strings.Split(src.Code, "\n// kernel ")[1:] {
		head := k[:strings.IndexByte(k, '\n')]
		if !strings.Contains(head, " extern bmm") {
			continue
		}
		bmms++
		if !strings.Contains(k, "batches on the OpenMP team") || !strings.Contains(k, "gcdbg_bmm_par(gcdbg_nb)") {
			t.Errorf("kernel %s: the batches are not on the team:\n%s", head, k)
		}
		if strings.Contains(k, "the epilogue of batch bi") {
			inside++
		}
		if strings.Contains(head, "pointwise") && !strings.Contains(k, "the epilogue of batch bi") {
			t.Errorf("kernel %s: its row-major epilogue runs after all batches:\n%s", head, k)
		}
	}
	folded := map[string]bool{}
	for _, st := range src.Manifest.Steps {
		for _, k := range st.Kernels {
			if k.Kind == "extern" && len(k.Origins) == 2 {
				folded[strings.Join(k.Origins, ",")] = true
			}
		}
	}
	if bmms != 4 || inside != 2 {
		t.Errorf("%d bmm kernels, %d with the epilogue per batch; want 4 and 2 (QK^T's scale+mask, the 3-batch bmm's sub)", bmms, inside)
	}
	for _, want := range []string{"matmul_1_bmm,matmul_1", "proj_mm,proj"} {
		if !folded[want] {
			t.Errorf("an identity copy of a GEMM's result is still an epilogue (want one extern kernel with origins %s):\n%s", want, src.Code)
		}
	}
	matchEachChoice(t, tr, units, 4, "0", "1", "2")
}

// renderFirstProgram loads a trace (skipping without a C compiler), runs
// the stages and renders its first program in the C dialect.
func renderFirstProgram(t *testing.T, path string) (*trace.Trace, []*stages.Unit, *render.Source) {
	t.Helper()
	if _, err := exec.LookPath("cc"); err != nil {
		t.Skip("no C compiler (cc) on PATH")
	}
	tr, err := trace.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	units, src := renderUnits(t, tr, filepath.Base(path))
	return tr, units, src
}

// renderGraphText is renderFirstProgram for a graph given as readable graph
// text (graphtext), written to name in a temporary folder.
func renderGraphText(t *testing.T, name, text string) (*trace.Trace, []*stages.Unit, *render.Source) {
	t.Helper()
	if _, err := exec.LookPath("cc"); err != nil {
		t.Skip("no C compiler (cc) on PATH")
	}
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	tr, err := graphtext.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	units, src := renderUnits(t, tr, name)
	return tr, units, src
}

// renderUnits runs the pipeline on tr and renders its first program in C.
func renderUnits(t *testing.T, tr *trace.Trace, name string) ([]*stages.Unit, *render.Source) {
	t.Helper()
	units, err := stages.Run(tr, "")
	if err != nil {
		t.Fatal(err)
	}
	lp := units[0].Programs[0]
	src, err := render.Render(lp.Loops, lp.Schedule.Kernels, lp.Memory, render.C,
		render.Options{Trace: name, Graph: units[0].Captured.Name, Role: lp.Role})
	if err != nil {
		t.Fatal(err)
	}
	return units, src
}

// matchEachChoice runs the compiled program once with each forced choice
// (GCDBG_CHOICE) and fails unless its nOut outputs match PyTorch's and the
// eager interpreter's.
func matchEachChoice(t *testing.T, tr *trace.Trace, units []*stages.Unit, nOut int, choices ...string) {
	t.Helper()
	for _, choice := range choices {
		t.Run("choice"+choice, func(t *testing.T) {
			t.Setenv("GCDBG_CHOICE", choice)
			res, err := RunUnits(tr, units, Options{Runs: 1, Device: "cpu"})
			if err != nil {
				t.Fatal(err)
			}
			if res.Backend != "compiled" || !res.OK {
				t.Fatalf("backend %q: does not match:\n%s", res.Backend, res.Summary())
			}
			g := res.Graphs[0]
			if len(g.Outputs) != nOut {
				t.Fatalf("%d outputs, want %d", len(g.Outputs), nOut)
			}
			for _, o := range g.Outputs {
				if o.VsExpected == nil || !o.VsExpected.Match || o.VsEager == nil || !o.VsEager.Match {
					t.Errorf("output %d: vs PyTorch %+v, vs eager %+v", o.Index, o.VsExpected, o.VsEager)
				}
			}
		})
	}
}
