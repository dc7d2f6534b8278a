package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func run(args ...string) (int, string, string) {
	var out, errb bytes.Buffer
	code := mainArgs(args, &out, &errb)
	return code, out.String(), errb.String()
}

func TestRunEmbeddedExampleJSON(t *testing.T) {
	code, out, errs := run("run", "--json")
	if code != 0 {
		t.Fatalf("exit %d, stderr %s", code, errs)
	}
	var res struct {
		Trace  string
		Device string
		OK     bool
		Graphs []struct {
			Name    string
			Outputs []struct {
				Index      int
				VsExpected *struct {
					MaxAbsErr float64 `json:"max_abs_err"`
					MaxRelErr float64 `json:"max_rel_err"`
					Match     bool
				} `json:"vs_expected"`
			}
			Grads []struct {
				Name       string
				VsExpected *struct{ Match bool } `json:"vs_expected"`
				VsEager    *struct{ Match bool } `json:"vs_eager"`
			}
			Stages map[string]json.RawMessage
			Timing struct {
				EagerMS float64 `json:"eager_ms"`
				Runs    int
			}
		}
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	if res.Trace != "mlp" || res.Device != "cpu" || !res.OK || len(res.Graphs) != 1 {
		t.Fatalf("unexpected result: %+v", res)
	}
	g := res.Graphs[0]
	if len(g.Outputs) != 1 || g.Outputs[0].VsExpected == nil || !g.Outputs[0].VsExpected.Match {
		t.Fatalf("outputs: %+v", g.Outputs)
	}
	nodes := func(stage string) int {
		var v struct{ Nodes int }
		json.Unmarshal(g.Stages[stage], &v)
		return v.Nodes
	}
	if nodes("captured") != 8 || nodes("normalized") <= 8 || nodes("joint") == 0 || nodes("forward") == 0 || nodes("backward") == 0 {
		t.Errorf("stages: %s", out)
	}
	var saved int64
	if json.Unmarshal(g.Stages["saved_bytes"], &saved); saved <= 0 {
		t.Errorf("saved_bytes missing: %s", g.Stages["saved_bytes"])
	}
	// The seed MLP trains: six parameter grads, each checked against PyTorch.
	if len(g.Grads) != 6 {
		t.Fatalf("grads: %+v", g.Grads)
	}
	for _, gr := range g.Grads {
		if gr.VsExpected == nil || !gr.VsExpected.Match || gr.VsEager == nil || !gr.VsEager.Match {
			t.Errorf("grad %s: %+v %+v", gr.Name, gr.VsExpected, gr.VsEager)
		}
	}
	if g.Timing.EagerMS <= 0 || g.Timing.Runs != 5 {
		t.Errorf("timing: %+v", g.Timing)
	}
}

func TestRunExitCodes(t *testing.T) {
	dir := t.TempDir()
	// 2: unreadable input, reported on stderr and in JSON "error".
	bad := filepath.Join(dir, "bad.json")
	os.WriteFile(bad, []byte(`{"format":"gcdbg.trace","version":2}`), 0o600)
	code, out, errs := run("run", bad, "--json")
	if code != 2 || !strings.Contains(errs, "version") || !strings.Contains(out, `"error"`) {
		t.Fatalf("bad version: exit %d, stderr %q, stdout %q", code, errs, out)
	}
	code, _, errs = run("run", filepath.Join(dir, "missing.json"))
	if code != 2 || !strings.Contains(errs, "missing.json") {
		t.Fatalf("missing file: exit %d, stderr %q", code, errs)
	}
	// 1: a mismatch. Rewrite clamp_min's expected output.
	src, err := os.ReadFile("../../fixtures/clamp_min.json")
	if err != nil {
		t.Fatal(err)
	}
	var tr map[string]any
	json.Unmarshal(src, &tr)
	g := tr["graphs"].([]any)[0].(map[string]any)
	out0 := g["expected"].(map[string]any)["outputs"].([]any)[0].(map[string]any)
	out0["data"] = "AAAAAAAAAAA=" // two float32 zeros instead of [1.2, 0]
	b, _ := json.Marshal(tr)
	wrong := filepath.Join(dir, "wrong.json")
	os.WriteFile(wrong, b, 0o600)
	code, out, _ = run("run", wrong)
	if code != 1 || !strings.Contains(out, "MISMATCH") {
		t.Fatalf("mismatch: exit %d, stdout %s", code, out)
	}
}

func TestDumpStages(t *testing.T) {
	code, out, errs := run("dump", "--stage", "captured")
	if code != 0 || !strings.Contains(out, "graph():") || !strings.Contains(out, "call_module[target=linear_relu_stack.0]") {
		t.Fatalf("dump captured: exit %d %s %s", code, out, errs)
	}
	code, out, _ = run("dump", "../../fixtures/sin_cos.json", "--stage", "normalized")
	if code != 0 || !strings.Contains(out, `sin: "f32[64, 128]" = aten.sin(x)`) {
		t.Fatalf("dump normalized: %d %s", code, out)
	}
	code, _, errs = run("dump", "--stage", "nope")
	if code != 2 || !strings.Contains(errs, "captured") {
		t.Fatalf("unknown stage should list the stages: %d %s", code, errs)
	}
	code, out, _ = run("stages")
	if code != 0 || !strings.Contains(out, "normalized") {
		t.Fatalf("stages: %s", out)
	}
	code, out, _ = run("--help")
	if code != 0 || !strings.Contains(out, "gcdbg run") {
		t.Fatalf("help: %s", out)
	}
}
