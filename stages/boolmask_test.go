package stages

import (
	"strings"
	"testing"

	"gcdbg/trace"
)

// A boolean-mask selection that only reductions read is taken padded
// (normalize_masked_sel.go, runner's TestMaskedSelection*); one read by
// anything else has a data-dependent shape: normalization stops at the
// getitem and says why, where in the user's source (a detection loss has a
// dozen masks), which reader keeps it from being taken and where that is,
// and what to write instead, not only that the shapes differ. Traces
// exported by PyTorch 1.13: testdata/degrade/bool_mask_index.py
// (p[valid].cumsum(0)), bool_mask_max.py (s[pos].max(): PyTorch raises for
// an empty selection's maximum), bool_mask_rank.py (x[m] + x[:, 0][m]: [K, C]
// + [K] broadcasts along the rows), bool_mask_rows.py (x[m][:2]: the first
// selected rows; column slices x[m][:, :2] are taken).
func TestBoolMaskIndexSaysDataDependentShape(t *testing.T) {
	for _, c := range []struct {
		name  string
		wants []string
	}{
		{"bool_mask_index", []string{`node "getitem"`, `boolean mask "valid"`, "depends on the mask's values", "torch.where(mask, x, 0)",
			"(at bool_mask_index.py:12: sel = p[valid])",
			`node "cumsum" (at bool_mask_index.py:13: return F.mse_loss(p, t) + sel.cumsum(0).max()) reads it with aten.cumsum`}},
		{"bool_mask_max", []string{`node "getitem"`, `boolean mask "gt"`, "(at bool_mask_max.py:12: return s.sigmoid().mean() + s[pos].max())",
			"PyTorch raises for an empty selection's maximum", `torch.where(mask, x, float("-inf")).max()`}},
		{"bool_mask_rank", []string{`boolean mask "gt"`, `node "add" (at bool_mask_rank.py:12: return (x[m] + x[:, 0][m]).sum())`,
			"beside a selection of another rank, which would broadcast along the selection's rows"}},
		{"bool_mask_rows", []string{`node "getitem_1" (at bool_mask_rows.py:12: return x[m][:2].sum())`,
			"reads it with aten.getitem of its rows (dim 0), whose length depends on the mask's values"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			tr, err := trace.Load("testdata/degrade/" + c.name + ".json")
			if err != nil {
				t.Fatal(err)
			}
			_, err = Run(tr, "")
			if err == nil {
				t.Fatal("a boolean-mask index compiled")
			}
			for _, want := range c.wants {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("the error lacks %q: %v", want, err)
				}
			}
		})
	}
}
