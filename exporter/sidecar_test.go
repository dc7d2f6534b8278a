package exporter_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"gcdbg/runner"
	"gcdbg/trace"
)

// Two exports of one model (seeds 0 and 1, -o s0.json and -o s1.json) in
// one folder: the sidecar was named after the model's NAME, so the second
// overwrote the tensors of the first, whose run then read seed 1's weights
// beside seed 0's inline values and reported a MISMATCH (examples/review8,
// helper-89). Each trace now has its own sidecar, named after -o, and both
// match PyTorch.
func TestTwoExportsKeepTheirOwnSidecars(t *testing.T) {
	dir := t.TempDir()
	for i, seed := range []string{"0", "1"} {
		out := filepath.Join(dir, "s"+seed+".json")
		cmd := exec.Command(python(t), "gcdbg_export.py", filepath.Join("testdata", "sidecar_two_seeds.py"), "-o", out, "--seed", seed, "--runs", "0")
		if b, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("export %d: %v\n%s", i, err, b)
		}
		if _, err := os.Stat(filepath.Join(dir, "s"+seed+".safetensors")); err != nil {
			t.Fatalf("export %d: no sidecar named after -o: %v", i, err)
		}
	}
	for _, seed := range []string{"0", "1"} {
		tr, err := trace.Load(filepath.Join(dir, "s"+seed+".json"))
		if err != nil {
			t.Fatal(err)
		}
		res, err := runner.Run(tr, runner.Options{Runs: 1, Device: "eager"})
		if err != nil {
			t.Fatal(err)
		}
		if !res.OK {
			t.Errorf("seed %s: does not match PyTorch:\n%s", seed, res.Summary())
		}
	}
}
