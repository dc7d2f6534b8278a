package exporter_test

import (
	"sort"
	"strings"
	"testing"

	"gcdbg/ir"
	"gcdbg/stages"
)

// Size tuples built with Python's sequence arithmetic (HF's
// `x.size()[:-1] + (4, 8)`, timm's `(x.shape[0],) + (1,) * (x.ndim - 1)`)
// normalize (they were "expected a tensor or number, got a tuple"), and
// x.new_empty(shape).bernoulli_(p) is a recorded draw that gcdbg replays
// (it was an unsupported Tensor method): the eager and compiled runs match
// PyTorch elementwise, outputs and gradients. bernoulli_() without p draws
// with bernoulli_'s default 0.5, not with self's values as bernoulli(x) would.
func TestDropPathSizeTuplesAndInplaceBernoulli(t *testing.T) {
	out, msg, err := export(t, "drop_path_sizes.py")
	if err != nil {
		t.Fatalf("export failed: %v\n%s", err, msg)
	}
	var got []string
	for k := range readRaw(t, out).Graphs[0].Expected.Random {
		got = append(got, k)
	}
	sort.Strings(got)
	if strings.Join(got, " ") != "bernoulli_ bernoulli__1" {
		t.Errorf("expected.random records %v, want bernoulli_ bernoulli__1", got)
	}
	// Without the recorded draws gcdbg draws its own: keep where u < p.
	own := exportLoad(t, "testdata/drop_path_sizes.py")
	own.Graphs[0].Expected.Random = nil
	units, err := stages.Run(own, "normalized")
	if err != nil {
		t.Fatal(err)
	}
	var ps []string
	for _, n := range units[0].Normalized.Nodes {
		if n.Target != "aten.lt" || len(n.Args) < 2 {
			continue
		}
		if u, ok := n.Args[0].(*ir.Node); ok && u.Target == "aten.philox_rand" {
			ps = append(ps, ir.FormatArg(n.Args[1], func(m *ir.Node) string { return m.Name }))
		}
	}
	if strings.Join(ps, " ") != "0.7 0.5" {
		t.Errorf("bernoulli probabilities %v, want [0.7 0.5]", ps)
	}
	tr := exportLoad(t, "testdata/drop_path_sizes.py")
	matchesCompiled(t, tr, 2, 2)
}

// torchvision's stochastic_depth: torch.empty of a size list holding a
// traced size, then bernoulli_ and div_. fx failed on the torch.empty
// ("invalid combination of arguments - got (_Proxy, ...)"); it is a graph
// node now, both draws are recorded and replayed, and the eager and
// compiled runs match PyTorch, gradients included.
func TestTorchvisionStochasticDepth(t *testing.T) {
	out, msg, err := export(t, "stochastic_depth_tv.py")
	if err != nil {
		t.Fatalf("export failed: %v\n%s", err, msg)
	}
	if n := len(readRaw(t, out).Graphs[0].Expected.Random); n != 2 {
		t.Errorf("expected.random records %d draws, want 2", n)
	}
	matchesCompiled(t, exportLoad(t, "testdata/stochastic_depth_tv.py"), 1, 4)
}
