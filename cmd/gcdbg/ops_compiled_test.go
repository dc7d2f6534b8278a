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
