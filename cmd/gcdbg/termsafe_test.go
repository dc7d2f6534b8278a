package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// hostileTrace writes fixtures/sin_cos.json with ESC/OSC/CSI bytes in the
// trace, graph and node names (and, with badKwarg, a kwarg whose name holds
// them, which normalization refuses naming it).
func hostileTrace(t *testing.T, badKwarg bool) string {
	t.Helper()
	raw, err := os.ReadFile("../../fixtures/sin_cos.json")
	if err != nil {
		t.Fatal(err)
	}
	var tr map[string]any
	if err := json.Unmarshal(raw, &tr); err != nil {
		t.Fatal(err)
	}
	tr["name"] = "t\x1b]0;retitled\x07race"
	g := tr["graphs"].([]any)[0].(map[string]any)
	g["name"] = "g\x1b[2J\x1b[H0"
	for _, n := range g["nodes"].([]any) {
		n := n.(map[string]any)
		if n["name"] == "sin" {
			n["name"] = "s\u009b31min"
		}
		if n["name"] == "cos" {
			n["name"] = "c\x1b[31mos\r"
			if badKwarg {
				n["kwargs"] = map[string]any{"k\x1b]8;;http://x\x07w": 1}
			}
		}
	}
	// Arguments naming the renamed nodes.
	fix := func(a any) any {
		if m, ok := a.(map[string]any); ok && m["node"] == "sin" {
			m["node"] = "s\u009b31min"
		} else if ok && m["node"] == "cos" {
			m["node"] = "c\x1b[31mos\r"
		}
		return a
	}
	for _, n := range g["nodes"].([]any) {
		n := n.(map[string]any)
		args := n["args"].([]any)
		for i, a := range args {
			if l, ok := a.([]any); ok {
				for j := range l {
					l[j] = fix(l[j])
				}
			} else {
				args[i] = fix(a)
			}
		}
	}
	dir := t.TempDir()
	st, err := os.ReadFile("../../fixtures/sin_cos.safetensors")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "sin_cos.safetensors"), st, 0o644); err != nil {
		t.Fatal(err)
	}
	out, _ := json.Marshal(tr)
	p := filepath.Join(dir, "hostile.json")
	if err := os.WriteFile(p, out, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func assertTerminalSafe(t *testing.T, what, s string) {
	t.Helper()
	for _, bad := range []string{"\x1b", "\x07", "\u009b", "\r"} {
		if strings.Contains(s, bad) {
			t.Errorf("%s: raw %q reaches the terminal:\n%s", what, bad, s)
		}
	}
}

func TestHostileNamesAreEscaped(t *testing.T) {
	p := hostileTrace(t, false)
	code, out, errs := run("run", "--device", "eager", p)
	if code != 0 {
		t.Fatalf("run: exit %d\n%s%s", code, out, errs)
	}
	assertTerminalSafe(t, "run", out+errs)
	if !strings.Contains(out, `g\x1b[2J\x1b[H0`) {
		t.Errorf("run: the graph's name is not shown escaped:\n%s", out)
	}

	code, out, errs = run("run", "--json", "--device", "eager", p)
	if code != 0 {
		t.Fatalf("run --json: exit %d\n%s", code, errs)
	}
	assertTerminalSafe(t, "run --json", out+errs)
	var res struct {
		Trace  string
		Graphs []struct{ Name string }
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("run --json: not JSON after sanitising: %v", err)
	}
	if len(res.Graphs) != 1 || res.Graphs[0].Name != "g\x1b[2J\x1b[H0" {
		t.Errorf("run --json: the graph's name does not decode to the trace's: %+v", res)
	}

	for _, stage := range []string{"captured", "normalized", "fusion", "kernels"} {
		code, out, errs = run("dump", p, "--stage", stage)
		if code != 0 {
			t.Fatalf("dump %s: exit %d\n%s", stage, code, errs)
		}
		assertTerminalSafe(t, "dump "+stage, out+errs)
	}
	code, out, errs = run("dump", p, "--graph", "nope")
	if code == 0 {
		t.Fatalf("dump --graph nope: exit 0")
	}
	assertTerminalSafe(t, "dump error", out+errs)

	code, out, errs = run("watch", p, "--count", "1", "--device", "eager", "--runs", "1")
	if code != 0 || !strings.Contains(out, `g\x1b[2J\x1b[H0`) {
		t.Fatalf("watch: exit %d, no escaped graph name in its line\n%s%s", code, out, errs)
	}
	assertTerminalSafe(t, "watch", out+errs)
}

func TestHostileKwargErrorIsEscaped(t *testing.T) {
	p := hostileTrace(t, true)
	code, out, errs := run("run", "--device", "eager", p)
	if code != 2 {
		t.Fatalf("run: exit %d, want 2 (unknown kwarg)\n%s%s", code, out, errs)
	}
	assertTerminalSafe(t, "run error", out+errs)
	if !strings.Contains(errs, `k\x1b]8;;http://x\x07w`) {
		t.Errorf("the error does not name the kwarg, escaped:\n%s", errs)
	}
}
