package runner

import "testing"

// A buffer slice written with a bound computed from a size
// (testdata/models/setitem_traced_bound.py, exported from PyTorch: MoCo's
// enqueue `self.queue[:, 2:2 + x.shape[0]] = q.detach().T`) becomes a
// slice_scatter as with a constant bound; as an index_put its slice reached
// the compiled program's eager fallback, which failed to encode it ("node
// "index_put": args[1]: cannot encode a ir.Slice argument"). Eager and
// compiled match PyTorch, the updated queue buffer included.
func TestSetitemWithSizeBoundCompiles(t *testing.T) {
	checkEagerAndCompiled(t, "testdata/setitem_traced_bound.json", 1, 2)
}
