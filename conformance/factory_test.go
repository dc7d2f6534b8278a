package conformance

import (
	"bufio"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"gcdbg/ir"
	"gcdbg/runner"
	"gcdbg/trace"
)

// arange's OpInfo samples have no tensor argument (arange(0.0, -8.000001,
// -4.0, dtype=torch.int64)): export_opinfo.py calls the OpInfo's torch.arange
// through the exporter's tracer (traced_factory), so the trace holds an
// arange node gcdbg computes instead of a constant fx froze while tracing
// (which _folded refuses). The samples are the int64 size rule (truncated
// arguments: 2 elements where ceil of the doubles gives 3) and float32's
// vectorized rounding; eager and compiled runs match PyTorch.
func TestArangeSamplesAreJudged(t *testing.T) {
	py := pythonWithTorch(t)
	dir := t.TempDir()
	ids := filepath.Join(dir, "ids.txt")
	want := []string{"arange/int64/10", "arange/int8/15", "arange/float32/24", "arange/float64/18"}
	if err := os.WriteFile(ids, []byte("arange/int64/10\narange/int8/15\narange/float32/24\narange/float64/18\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if b, err := exec.Command(py, "export_opinfo.py", "-o", dir, "--ids", ids).CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, b)
	}
	f, err := os.Open(filepath.Join(dir, "manifest.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	t.Setenv("GCDBG_CACHE_DIR", t.TempDir())
	seen := map[string]bool{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var rec struct{ ID, Trace, Refused string }
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			t.Fatal(err)
		}
		seen[rec.ID] = true
		if rec.Trace == "" {
			t.Errorf("%s: not exported: %s", rec.ID, rec.Refused)
			continue
		}
		tr, err := trace.Load(filepath.Join(dir, rec.Trace))
		if err != nil {
			t.Fatal(err)
		}
		nodes := 0
		for _, n := range tr.Graphs[0].Nodes {
			if n.Op == ir.CallFunction && n.Target == "torch.arange" {
				nodes++
			}
		}
		if nodes != 1 {
			t.Errorf("%s: %d torch.arange nodes, want 1", rec.ID, nodes)
		}
		for _, dev := range []string{"eager", "cpu"} {
			res, err := runner.Run(tr, runner.Options{Runs: 1, Device: dev})
			if err != nil {
				t.Fatalf("%s %s: %v", rec.ID, dev, err)
			}
			if !res.OK || len(res.Graphs[0].Outputs) != 1 || res.Graphs[0].Outputs[0].VsExpected == nil {
				t.Errorf("%s %s: does not match PyTorch:\n%s", rec.ID, dev, res.Summary())
			}
		}
	}
	for _, id := range want {
		if !seen[id] {
			t.Errorf("%s: not in the manifest", id)
		}
	}
}
