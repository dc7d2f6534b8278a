package runner

import (
	"os/exec"
	"testing"

	"gcdbg/trace"
)

// An autotuned run on an empty choice cache confirms the kernels' choices in
// the program (compiler/autotune_program.go): the seed MLP in training, its
// forward's three Linear GEMMs back to back and its backward's. Every
// tunable kernel reports the program check that decided it, runs the chosen
// configuration's choice, and every output, gradient and buffer computed
// with those choices matches PyTorch and the eager interpreter.
func TestChoicesConfirmedInProgramMatch(t *testing.T) {
	if _, err := exec.LookPath("cc"); err != nil {
		t.Skip("no C compiler (cc) on PATH")
	}
	t.Setenv("GCDBG_CACHE_DIR", t.TempDir())
	t.Setenv("GCDBG_AUTOTUNE", "")
	t.Setenv("GCDBG_CHOICE", "")
	tr, err := trace.Load("../fixtures/mlp.json")
	if err != nil {
		t.Fatal(err)
	}
	res, err := Run(tr, Options{Runs: 1, Device: "cpu"})
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, g := range res.Graphs {
		for _, k := range g.Kernels {
			kr, ok := k.(KernelResult)
			if !ok || kr.Choice == nil {
				continue
			}
			pc := kr.Choice.Program
			if pc == nil {
				t.Errorf("%s (%s): no program check: %s", kr.Name, kr.Role, kr.Choice)
				continue
			}
			for i, name := range pc.Names {
				if name == kr.Name && pc.Configs[pc.Chosen].Choices[i] == kr.Choice.Choice {
					checked++
				}
			}
		}
		checkAllMatch(t, g, " with the choices confirmed in the program")
	}
	if checked < 3 {
		t.Errorf("%d kernels ran their program check's chosen configuration, want the forward's 3 Linear layers at least", checked)
	}
}
