package loopir

import (
	"strings"
	"testing"
)

// A flat offset whose low terms stay below a divisor g of the constant
// divides through g (divsplit.go): InstanceNorm's backward index
// (36864*x0 + 9216*r0 + 96*r1 + r2) // 294912 is x0 // 8, and its % is
// the offset with x0 reduced modulo 8, no / or % left on the inner
// variables. Every rewritten form evaluates like the integer arithmetic
// at every point, for each divisor and offset.
func TestFloorDivModThroughDivisor(t *testing.T) {
	x0, r0, r1, r2 := V("x0", C(32)), V("r0", C(4)), V("r1", C(96)), V("r2", C(96))
	a := Add(Mul(C(36864), x0), Mul(C(9216), r0), Mul(C(96), r1), r2)
	if got := FloorDiv(a, C(294912)).String(); got != "(x0//8)" {
		t.Errorf("InstanceNorm quotient: got %s, want (x0//8)", got)
	}
	if got := Mod(a, C(294912)).String(); strings.ContainsAny(strings.ReplaceAll(got, "(x0 % 8)", ""), "/%") {
		t.Errorf("InstanceNorm remainder keeps a division of the inner variables: %s", got)
	}
	// small ranges, every point: offsets with and without a constant, a
	// negative coefficient among the high terms, and divisors that do and
	// do not take the split
	y0, y1, y2 := V("y0", C(5)), V("y1", C(3)), V("y2", C(4))
	offs := []struct {
		e  Expr
		at func(a, b, c int64) int64
	}{
		{Add(Mul(C(12), y0), Mul(C(4), y1), y2), func(a, b, c int64) int64 { return 12*a + 4*b + c }},
		{Add(Mul(C(12), y0), Mul(C(4), y1), y2, C(3)), func(a, b, c int64) int64 { return 12*a + 4*b + c + 3 }},
		{Add(Mul(C(24), y0), Mul(C(-12), y1), y2, C(40)), func(a, b, c int64) int64 { return 24*a - 12*b + c + 40 }},
		{Add(Mul(C(36), y0), Mul(C(4), y1), y2), func(a, b, c int64) int64 { return 36*a + 4*b + c }},
	}
	split := 0
	for i, o := range offs {
		for d := int64(2); d <= 80; d++ {
			fd, md := FloorDiv(o.e, C(d)), Mod(o.e, C(d))
			if _, _, _, ok := divSplit(o.e, d); ok {
				split++
			}
			for a := int64(0); a < 5; a++ {
				for b := int64(0); b < 3; b++ {
					for c := int64(0); c < 4; c++ {
						env := map[string]int64{"y0": a, "y1": b, "y2": c}
						v := o.at(a, b, c)
						if got, want := fd.Eval(env), floorDiv(v, d); got != want {
							t.Fatalf("offset %d: (%s)//%d = %s: %d at %v, want %d", i, o.e, d, fd, got, env, want)
						}
						if got, want := md.Eval(env), pyMod(v, d); got != want {
							t.Fatalf("offset %d: (%s) %% %d = %s: %d at %v, want %d", i, o.e, d, md, got, env, want)
						}
					}
				}
			}
		}
	}
	if split == 0 {
		t.Fatal("no offset took the divisor split")
	}
}
