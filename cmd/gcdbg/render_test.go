package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestRenderSVG(t *testing.T) {
	out := filepath.Join(t.TempDir(), "mlp.svg")
	code, _, errs := run("render", "../../fixtures/mlp.json", "--stage", "forward", "-o", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	svg, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	// The forward graph's GEMM kernels are clusters, the legend names kinds.
	for _, want := range []string{"<svg", `class="node"`, `class="cluster"`, "forward/kernel0", "matmul", "linear_relu_stack_0_mm"} {
		if !bytes.Contains(svg, []byte(want)) {
			t.Errorf("SVG lacks %q", want)
		}
	}
	// With no TRACE the embedded example is drawn; a .dot file gets DOT.
	dot := filepath.Join(t.TempDir(), "ex.dot")
	if code, _, errs := run("render", "--stage", "captured", "-o", dot); code != 0 {
		t.Fatalf("embedded example: exit %d: %s", code, errs)
	}
	if b, _ := os.ReadFile(dot); !bytes.HasPrefix(b, []byte("digraph G {")) {
		t.Errorf("DOT output starts %q", b[:min(len(b), 20)])
	}
}

func TestRenderErrors(t *testing.T) {
	out := filepath.Join(t.TempDir(), "x.svg")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"render", "--stage", "decomposed"}, "need -o"},
		{[]string{"render", "--stage", "fusion", "-o", out}, "has no graph"},
		{[]string{"render", "--stage", "nope", "-o", out}, "unknown stage"},
		{[]string{"render", "../../fixtures/graph_break.json", "-o", out}, "choose one with --graph"},
		{[]string{"render", "../../fixtures/graph_break.json", "--graph", "g9", "-o", out}, `no graph "g9"`},
		{[]string{"render", "../../fixtures/sin_cos.json", "--stage", "joint", "-o", out}, "no joint graph"},
	} {
		code, _, errs := run(c.args...)
		if code != 2 || !strings.Contains(errs, c.want) {
			t.Errorf("%v: exit %d, stderr %q, want %q", c.args, code, errs, c.want)
		}
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("a failed render wrote its output file")
	}
}
