package main

import (
	"strings"
	"testing"
)

// `gcdbg run` on a model with many grads printed a line per grad, per
// buffer, per kernel and per kernel choice: 300-1,500 lines, the verdict on
// the last (examples/review9 finding 7). The verdict now comes first too,
// the grads that plainly match are one line (naming the nearest its bound),
// and --all prints each.
func TestRunIsConciseUnlessAll(t *testing.T) {
	const path = "../../fixtures/transformer_block.json"
	code, out, errs := run("run", path, "--runs", "1", "--device", "eager")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	lines := strings.Split(out, "\n")
	if len(lines) < 2 || !strings.HasPrefix(lines[1], "verdict: every output, gradient and buffer matches") {
		t.Errorf("the verdict must be the second line:\n%s", out)
	}
	if n := strings.Count(out, "  grad of "); n != 0 || !strings.Contains(out, "12 more grads match (the nearest its bound: ") {
		t.Errorf("want one summary line for the 12 matching grads, got %d grad lines:\n%s", n, out)
	}
	code, out, errs = run("run", path, "--runs", "1", "--device", "eager", "--all")
	if code != 0 {
		t.Fatalf("--all: exit %d: %s", code, errs)
	}
	if n := strings.Count(out, "  grad of "); n != 12 || strings.Contains(out, "more grads match") {
		t.Errorf("--all must print each of the 12 grads, got %d:\n%s", n, out)
	}
	// --device eager says so, and does not compare the interpreter with itself
	if !strings.HasPrefix(out, "trace transformer_block ("+path+"), device eager (") || strings.Contains(out, "vs gcdbg eager:") {
		t.Errorf("--device eager: want the header to say eager and no vs-eager lines:\n%s", out)
	}
}

// A model returning a dict: each output is labelled with its key, as the
// trace's output_keys give them (testdata/dict_outputs.py; review10
// finding 12: they were "output 0" and "output 1").
func TestRunLabelsDictOutputs(t *testing.T) {
	code, out, errs := run("run", "testdata/dict_outputs.json", "--runs", "1", "--device", "eager")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, want := range []string{"\n  output 0 (loss) float32[]\n", "\n  output 1 (logits) float32[5 3]\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("want %q in:\n%s", want, out)
		}
	}
}
