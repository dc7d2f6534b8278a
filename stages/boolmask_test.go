package stages

import (
	"strings"
	"testing"

	"gcdbg/trace"
)

// Boolean-mask indexing (testdata/degrade/bool_mask_index.py, exported by
// PyTorch 1.13: F.mse_loss(p[valid], t[valid])) has a data-dependent
// shape: normalization stops at the getitem and says why, where in the
// user's source (a detection loss has a dozen masks) and what to write
// instead, not only that the shapes differ.
func TestBoolMaskIndexSaysDataDependentShape(t *testing.T) {
	tr, err := trace.Load("testdata/degrade/bool_mask_index.json")
	if err != nil {
		t.Fatal(err)
	}
	_, err = Run(tr, "")
	if err == nil {
		t.Fatal("a boolean-mask index compiled")
	}
	for _, want := range []string{`node "getitem"`, `boolean mask "valid"`, "depends on the mask's values", "torch.where(mask, x, 0)",
		"(at bool_mask_index.py:12: return F.mse_loss(p[valid], t[valid]))"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("the error lacks %q: %v", want, err)
		}
	}
}
