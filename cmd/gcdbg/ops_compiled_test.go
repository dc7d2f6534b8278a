package main

import (
	"strings"
	"testing"
)

// The op families of issue 15 in a training-mode trace (activation and
// loss modules, scans, norms, einsum, ...) run compiled and match PyTorch's
// outputs and gradients; the only eager fallbacks are the scatter_add and
// slice_scatter of index_select's and slicing's backward.
func TestZooExtRunsCompiled(t *testing.T) {
	needCC(t)
	t.Setenv("GCDBG_CACHE_DIR", t.TempDir())
	res := runCompiledJSON(t, "--device", "cpu", "../../stages/testdata/zoo_ext.json")
	if !res.OK || len(res.Graphs) != 1 {
		t.Fatalf("zoo_ext does not match PyTorch compiled: %+v", res)
	}
	for _, f := range res.Graphs[0].Fallback {
		if !strings.HasPrefix(f, "scatter_add") && !strings.HasPrefix(f, "slice_scatter") {
			t.Errorf("eager fallback node %s in zoo_ext", f)
		}
	}
}

// Models of the kinds issue 15's users brought (text classifier with
// Conv1d and label smoothing, VAE with BCE, GPT-2 block with
// `B, T, C = x.size()` and math.sqrt, T5 feed-forward, MobileNet block with
// ReLU6/Hardswish/Hardsigmoid, cumsum/topk/gather), all in training: the
// pipeline's eager run matches PyTorch's outputs and gradients.
func TestRealModelsMatchPyTorch(t *testing.T) {
	for _, m := range []string{"textcls", "vae", "gpt2block", "t5ff", "mobilenet", "ctg"} {
		code, out, errs := run("run", "--json", "--device", "eager", "--runs", "1", "../../stages/testdata/real_"+m+".json")
		if code != 0 || !strings.Contains(out, `"ok": true`) && !strings.Contains(out, `"ok":true`) {
			t.Errorf("%s: exit %d, not ok: %s\n%.2000s", m, code, errs, out)
		}
	}
}
