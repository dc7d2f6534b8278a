package verdict

import (
	"strings"
	"testing"
)

// A mismatch's headline names the check that failed first, never leads
// with a passing number: the reference check failing while the result's
// rmse passes reads "✗ reference ≠ PyTorch (…) · rmse … ≤ …", not
// "✗ rmse 0 ≤ 1.4 · reference ≠ PyTorch" (examples/unseen, "Smaller").
func TestShortLeadsWithTheFailedCheck(t *testing.T) {
	const n = 800
	f := truth(n, 8)
	b := noisy(f, 6e-8, 9)
	for i := 0; i < 16; i++ { // PyTorch zeroes one row; gcdbg does not
		b[i] = 0
	}
	j := judge(noisy(f, 6e-8, 10), b, f, []int{50, 16})
	if j.Match || j.Check == nil || j.Check.Agree || !(j.RMSE <= j.Bound()) {
		t.Fatalf("want a reference-check failure with a passing rmse: %s", j.Detail())
	}
	s := j.Short()
	if !strings.HasPrefix(s, "✗ reference ≠ PyTorch (rmse ") || !strings.Contains(s, " > ") {
		t.Errorf("the headline does not lead with the failed reference check: %s", s)
	}
	if i, k := strings.Index(s, "reference ≠ PyTorch"), strings.Index(s, " ≤ "); k >= 0 && k < i {
		t.Errorf("a passing check comes before the failed one: %s", s)
	}
	if d := j.Detail(); !strings.HasPrefix(d, "MISMATCH [failed: reference ≠ PyTorch") {
		t.Errorf("Detail does not name the failed check first: %s", d)
	}

	// One wrong element: both checks fail, both are named, failing.
	f = truth(512, 4)
	r := noisy(f, 6e-8, 6)
	r[137] *= 1 + 1e-3
	j = judge(r, noisy(f, 6e-8, 5), f, []int{8, 64})
	if s := j.Short(); j.Match || !strings.HasPrefix(s, "✗ rmse ") || !strings.Contains(s, "· worst ") || strings.Contains(s, "≤") {
		t.Errorf("one wrong element: %s (%s)", s, j.Detail())
	}

	// A match is unchanged: the rmse against its bound, nothing else.
	f = truth(256, 1)
	j = judge(noisy(f, 6e-8, 2), noisy(f, 6e-8, 3), f, []int{256})
	if s := j.Short(); !j.Match || !strings.HasPrefix(s, "✓ rmse ") || strings.Contains(s, "·") {
		t.Errorf("a match: %s", s)
	}
}
