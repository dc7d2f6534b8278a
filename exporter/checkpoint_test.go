package exporter_test

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"gcdbg/trace"
)

// torch.utils.checkpoint around a model's blocks (examples/review9 finding
// 1): PyTorch 1.13's default, reentrant checkpoint was refused ("Checkpointing
// is not compatible with .grad()", blamed on the model), and traced, it ran
// the blocks under no_grad, which the tracer took for the user's no-grad
// block: every gradient before it was lost. The exporter runs checkpoints as
// plain calls (the same values and gradients: testdata/checkpoint_same.py
// checks them bit for bit against PyTorch's real checkpointing, dropout
// included), keeping PyTorch's no gradient for the blocks' parameters where
// no input of a reentrant checkpoint requires grad.
func TestCheckpointTracedThrough(t *testing.T) {
	py := python(t)
	for _, v := range []string{"reentrant", "nonreentrant", "nograd_input"} {
		same := exec.Command(py, filepath.Join("testdata", "checkpoint_same.py"))
		same.Env = append(os.Environ(), "VARIANT="+v)
		if b, err := same.CombinedOutput(); err != nil {
			t.Fatalf("%s: test premise: PyTorch's checkpointed gradients are the plain calls': %v\n%s", v, err, b)
		}
		out, msg, err := exportWith(t, "checkpoint_blocks.py", []string{"VARIANT=" + v})
		if err != nil {
			t.Errorf("%s: export failed: %v\n%s", v, err, msg)
			continue
		}
		tr, err := trace.Load(out)
		if err != nil {
			t.Fatal(err)
		}
		var noGrad []string
		for name := range tr.Graphs[0].Expected.NoGrad {
			noGrad = append(noGrad, name)
		}
		sort.Strings(noGrad)
		blocksFree := len(noGrad) == 12 && strings.HasPrefix(noGrad[0], "blocks.") && strings.HasPrefix(noGrad[11], "blocks.")
		if (v == "nograd_input") != blocksFree {
			t.Errorf("%s: parameters PyTorch gives no gradient: %v", v, noGrad)
		}
		for _, dev := range []string{"eager", "cpu"} {
			res := runTrace(t, out, dev)
			compared, said := 0, 0
			for _, g := range res.Graphs[0].Grads {
				if g.VsExpected != nil {
					compared++
					if strings.Contains(g.VsExpected.Reference, "PyTorch gives this no gradient") {
						said++
					}
				}
			}
			if want := map[bool]int{true: 12, false: 0}[v == "nograd_input"]; said != want {
				t.Errorf("%s %s: %d grads say PyTorch gives them no gradient, want %d", v, dev, said, want)
			}
			if !res.OK || compared != len(res.Graphs[0].Grads) || compared < 14 {
				t.Errorf("%s %s: %d of %d grads compared with PyTorch; ok %v:\n%s", v, dev, compared, len(res.Graphs[0].Grads), res.OK, res.Summary())
			}
		}
	}
}

// --eval exports a model file that says TRAIN = True in inference mode
// (examples/review9 finding 6: only --train existed, and exporting a
// training model's eval graph took a wrapper file): no gradients, and its
// dropout inactive, so the output matches PyTorch's eval-mode output.
func TestEvalFlagOverridesTrain(t *testing.T) {
	out, msg, err := exportWith(t, "checkpoint_blocks.py", nil, "--eval")
	if err != nil {
		t.Fatalf("export --eval failed: %v\n%s", err, msg)
	}
	res := runTrace(t, out, "eager")
	g := res.Graphs[0]
	if len(g.Grads) != 0 || !res.OK || g.Outputs[0].VsExpected == nil {
		t.Errorf("--eval: want an inference graph matching PyTorch, got %d grads, ok %v:\n%s", len(g.Grads), res.OK, res.Summary())
	}
	if _, msg, err := exportWith(t, "checkpoint_blocks.py", nil, "--train", "--eval"); err == nil {
		t.Errorf("--train --eval together must be refused:\n%s", msg)
	}
}

// A NaN-filled buffer and a NaN constant that forward only reads export,
// and no buffer is listed as mutated: the comparison with their snapshot
// holds NaN equal to NaN (testdata/nan_buffers.py; review10 findings 6-7).
func TestNaNBuffersAreNotMutations(t *testing.T) {
	out, msg, err := export(t, "nan_buffers.py")
	if err != nil {
		t.Fatalf("export failed: %v\n%s", err, msg)
	}
	tr, err := trace.Load(out)
	if err != nil {
		t.Fatal(err)
	}
	if e := tr.Graphs[0].Expected; e != nil && len(e.Buffers) != 0 {
		t.Errorf("expected.buffers lists %d buffers; forward writes none", len(e.Buffers))
	}
	res := runTrace(t, out, "eager")
	if !res.OK {
		t.Errorf("the run does not match PyTorch:\n%s", res.Summary())
	}
}

// A model with nn.MultiheadAttention (dropout > 0, training) that fails on
// its own example inputs gets the exporter's message and exit 2, not a bare
// traceback (testdata/mha_model_error.py; review10 finding 10).
func TestMultiheadAttentionModelErrorIsExplained(t *testing.T) {
	_, msg, err := export(t, "mha_model_error.py")
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 2 {
		t.Fatalf("want exit 2, got %v:\n%s", err, msg)
	}
	if !strings.Contains(msg, "the model fails on its example inputs at mha_model_error.py:") || strings.Contains(msg, "Traceback") {
		t.Errorf("want the model's error named at its line, no traceback:\n%s", msg)
	}
}
