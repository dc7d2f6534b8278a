package loopir

import (
	"testing"

	"gcdbg/tensor"
)

// A compiled arange gives the eager op's numbers (tensor.Arange, PyTorch's
// kernel): integer dtypes from truncated start and step in int64, floating
// ones as a loop only where every value is an integer the dtype holds
// exactly (arange(6, dtype=float32), arange(-3, 9, 2, dtype=float16));
// elsewhere (arange(0.5, 4, 0.37)) PyTorch's rounding depends on its
// vectorized layout and FMA, and the node is an eager fallback.
func TestArangeLoopsOrFallback(t *testing.T) {
	b := newGB(t, "arange")
	outs := b.output(
		b.call("arange", int64(6), nil, int64(1), tensor.Float32),
		b.call("arange", int64(-3), int64(9), int64(2), tensor.Float16),
		b.call("arange", 2.9, -7.9, -4.0, tensor.Int8),
		b.call("arange", 0.5, 4.0, 0.37, tensor.Float32),
		b.call("arange", int64(0), int64(3000), int64(1), tensor.Float16),
	)
	p := checkAgainstEager(t, outs, fuseAll)
	want := map[string]bool{"arange_0": false, "arange_1": false, "arange_2": false, "arange_3": true, "arange_4": true}
	got := map[string]bool{}
	for _, n := range p.Nodes {
		for _, o := range n.Origins {
			got[o] = n.Kind == Fallback
		}
	}
	for name, fall := range want {
		if g, ok := got[name]; !ok || g != fall {
			t.Errorf("%s: fallback %v (lowered %v), want %v:\n%s", name, g, ok, fall, Print(p))
		}
	}
}
