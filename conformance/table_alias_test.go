package conformance

import "testing"

// F.grid_sample's OpInfo (nn.functional.grid_sample) is refused under the
// core ATen op `gcdbg ops --coverage` lists out of scope, grid_sampler_2d.
func TestOutOfScopeAlias(t *testing.T) {
	m := map[string]string{"grid_sampler_2d": "not modeled"}
	if why, ok := outOfScopeFor(m, "nn.functional.grid_sample"); !ok || why != "not modeled" {
		t.Fatalf("grid_sample: %q %v", why, ok)
	}
	if _, ok := outOfScopeFor(m, "nn.functional.grid"); ok {
		t.Fatal("an unrelated name matched")
	}
}
