package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// stripTrace copies a fixture into dir with the given module attrs removed
// (optional ones a trace may omit) and fn applied to every call_module.
func stripTrace(t *testing.T, dir, fixture string, fn func(m map[string]any)) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "fixtures", fixture+".json"))
	if err != nil {
		t.Fatal(err)
	}
	var tr map[string]any
	if err := json.Unmarshal(b, &tr); err != nil {
		t.Fatal(err)
	}
	for _, g := range tr["graphs"].([]any) {
		for _, n := range g.(map[string]any)["nodes"].([]any) {
			if m, ok := n.(map[string]any)["module"].(map[string]any); ok {
				fn(m)
			}
		}
	}
	out := filepath.Join(dir, fixture+".json")
	b, _ = json.Marshal(tr)
	if err := os.WriteFile(out, b, 0o600); err != nil {
		t.Fatal(err)
	}
	if sc, err := os.ReadFile(filepath.Join("..", "..", "fixtures", fixture+".safetensors")); err == nil {
		if err := os.WriteFile(filepath.Join(dir, fixture+".safetensors"), sc, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// exporter/bench_eager.py rebuilds modules by their constructors with
// PyTorch's defaults for optional attrs a trace omits (Conv2d without
// padding_mode/dilation/groups, Linear without bias), times them warm and
// says how; a mode-dependent module without its training flag is refused
// with a message naming the trace, graph and node.
func TestBenchEagerRebuildsWithDefaults(t *testing.T) {
	if exec.Command(python, "-c", "import torch").Run() != nil {
		t.Skip("PyTorch is not importable by " + python)
	}
	script := filepath.Join("..", "..", "exporter", "bench_eager.py")
	dir := t.TempDir()
	conv := stripTrace(t, dir, "conv_add", func(m map[string]any) {
		a := m["attrs"].(map[string]any)
		for _, k := range []string{"padding_mode", "output_padding", "dilation", "groups"} {
			delete(a, k)
		}
	})
	mlp := stripTrace(t, dir, "mlp", func(m map[string]any) {
		if m["type"] == "torch.nn.Linear" {
			delete(m["params"].(map[string]any), "bias")
		}
	})
	for _, p := range []string{conv, mlp} {
		out, err := exec.Command(python, script, p, "--runs", "2").Output()
		if err != nil {
			t.Fatalf("%s: %v: %s", p, err, out)
		}
		var r struct {
			Graphs []struct {
				Forward float64   `json:"eager_forward_ms"`
				How     string    `json:"how"`
				Calls   []float64 `json:"calls_ms"`
			} `json:"graphs"`
		}
		if err := json.Unmarshal(out, &r); err != nil || len(r.Graphs) == 0 {
			t.Fatalf("%s: %v: %s", p, err, out)
		}
		g := r.Graphs[0]
		if g.Forward <= 0 || len(g.Calls) != 2 || !strings.Contains(g.How, "MALLOC_MMAP_THRESHOLD_=") || !strings.Contains(g.How, "dropped") {
			t.Errorf("%s: %+v", p, g)
		}
	}
	bn := stripTrace(t, dir, "frozen_bn", func(m map[string]any) { delete(m, "training") })
	out, err := exec.Command(python, script, bn, "--runs", "1").CombinedOutput()
	if err == nil || !strings.Contains(string(out), "training flag") || !strings.Contains(string(out), "node") {
		t.Errorf("a BatchNorm without its training flag: err %v, output %s", err, out)
	}
}

// bench_eager.py rebuilds recurrent modules, whose constructors take
// *args/**kwargs and forward them to RNNBase (nn.GRU refuses even a
// default proj_size): it fell back to the time recorded at export.
func TestBenchEagerRebuildsRecurrentModules(t *testing.T) {
	if exec.Command(python, "-c", "import torch").Run() != nil {
		t.Skip("PyTorch is not importable by " + python)
	}
	dir := t.TempDir()
	for _, cls := range []string{"GRU", "LSTM"} {
		model := filepath.Join(dir, strings.ToLower(cls)+".py")
		src := "import torch\nimport torch.nn as nn\nTRAIN = True\n\nclass M(nn.Module):\n" +
			"    def __init__(self):\n        super().__init__()\n        self.rnn = nn." + cls + "(6, 5, num_layers=2, batch_first=True)\n\n" +
			"    def forward(self, x):\n        out, _ = self.rnn(x)\n        return out.pow(2).mean()\n\n" +
			"def make():\n    return M(), (torch.randn(3, 4, 6),)\n"
		if err := os.WriteFile(model, []byte(src), 0o600); err != nil {
			t.Fatal(err)
		}
		tr := filepath.Join(dir, strings.ToLower(cls)+".json")
		if out, err := exec.Command(python, filepath.Join("..", "..", "exporter", "gcdbg_export.py"), model, "-o", tr, "--runs", "0").CombinedOutput(); err != nil {
			t.Fatalf("%s: export: %v: %s", cls, err, out)
		}
		out, err := exec.Command(python, filepath.Join("..", "..", "exporter", "bench_eager.py"), tr, "--runs", "1").CombinedOutput()
		if err != nil || !strings.Contains(string(out), "eager_forward_ms") {
			t.Errorf("%s: bench_eager.py could not rebuild the module: %v: %s", cls, err, out)
		}
	}
}
