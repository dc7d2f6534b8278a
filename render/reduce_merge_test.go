package render

import (
	"testing"

	"gcdbg/loopir"
)

// Only plain linear occurrences of a reduce variable count: a variable
// under a floor division, a modulo, a product or an indirect index makes
// the load non-mergeable.
func TestLinearCoefs(t *testing.T) {
	r0, r1 := loopir.V("r0", loopir.C(16)), loopir.V("r1", loopir.C(16))
	x0 := loopir.V("x0", loopir.C(64))
	names := []string{"r0", "r1"}
	cases := []struct {
		e    loopir.Expr
		want []int64
		ok   bool
	}{
		{loopir.Add(loopir.Mul(loopir.C(256), x0), loopir.Mul(loopir.C(16), r0), r1), []int64{16, 1}, true},
		{r1, []int64{0, 1}, true},
		{loopir.Mul(loopir.C(3), x0), []int64{0, 0}, true},
		{loopir.Add(loopir.FloorDiv(r1, loopir.C(4)), r0), nil, false},
		{loopir.Add(loopir.Mod(r0, loopir.C(4)), r1), nil, false},
		{loopir.Mul(r0, r1), nil, false},
		{loopir.Add(loopir.Indirect{Tmp: "tmp0"}, r1), nil, false},
	}
	for _, c := range cases {
		got, ok := linearCoefs(c.e, names)
		if ok != c.ok {
			t.Errorf("%s: ok %v, want %v", c.e, ok, c.ok)
			continue
		}
		for i := range c.want {
			if got[i] != c.want[i] {
				t.Errorf("%s: coefficients %v, want %v", c.e, got, c.want)
				break
			}
		}
	}
}
