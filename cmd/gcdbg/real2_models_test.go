package main

import (
	"strings"
	"testing"
)

// Issue 15, second round: models a new user wrote (stages/testdata/models/
// real2_*.py, exported by exporter/gcdbg_export.py in training) run
// compiled and match PyTorch's outputs and gradients. The eager fallbacks
// each model still has are listed by node-name prefix; any other fallback
// fails the test.
var real2Models = []struct {
	name     string
	fallback []string // node-name prefixes still allowed to run in the eager fallback
}{
	{"unet", []string{"scatter_add"}}, // padding_mode reflect/replicate/circular, Conv1d padding='same'
	{"lstm", nil},                     // nn.LSTM (2 layers, batch_first, given hx), unbatched nn.RNN(relu)
	{"gru", nil},                      // bidirectional 2-layer nn.GRU, nn.GRU from a given h_0
	{"tenc", nil},                     // nn.TransformerEncoder(Layer) traced through: dropout 0.1 (attention too), padding and causal masks, norm_first
	{"emb", nil},                      // Embedding(max_norm) L2 and L1 with padding_idx, F.embedding(max_norm)
	{"robust", nil},                   // median(dim), kthvalue, median(), logcumsumexp; the median's indices judged up to ties
}

func TestReal2ModelsRunCompiled(t *testing.T) {
	needCC(t)
	t.Setenv("GCDBG_CACHE_DIR", t.TempDir())
	for _, m := range real2Models {
		t.Run(m.name, func(t *testing.T) {
			res := runCompiledJSON(t, "--device", "cpu", "../../stages/testdata/real2_"+m.name+".json")
			if !res.OK || len(res.Graphs) != 1 {
				t.Fatalf("real2_%s does not match PyTorch compiled: %+v", m.name, res)
			}
			for _, f := range res.Graphs[0].Fallback {
				ok := false
				for _, p := range m.fallback {
					ok = ok || strings.HasPrefix(f, p)
				}
				if !ok {
					t.Errorf("eager fallback node %s in real2_%s", f, m.name)
				}
			}
		})
	}
}
