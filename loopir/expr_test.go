package loopir

import "testing"

func TestExprSimplify(t *testing.T) {
	x0, x1 := V("x0", C(8)), V("x1", C(8))
	y1 := V("x1", C(784))
	s1 := S("s1")
	z1 := V("x1", s1)
	cases := []struct {
		got  Expr
		want string
	}{
		{Add(Mul(C(784), x0), y1), "x1 + 784*x0"},
		{Add(Mul(x0, C(1)), C(0)), "x0"},
		{Add(C(2), C(3), Mul(C(2), C(4))), "13"},
		{Add(x0, x0, Mul(C(-2), x0)), "0"},
		{Sub(Add(x1, C(3)), C(5)), "x1 - 2"},
		{FloorDiv(Mul(x0, C(8)), C(8)), "x0"},
		{FloorDiv(Add(Mul(x0, C(8)), x1), C(8)), "x0"},
		{Mod(Add(Mul(x0, C(8)), x1), C(8)), "x1"},
		{FloorDiv(Add(Mul(x0, C(8)), y1), C(8)), "x0 + (x1//8)"},
		{Mod(Add(Mul(x0, C(8)), y1), C(8)), "(x1 % 8)"},
		{FloorDiv(FloorDiv(y1, C(4)), C(7)), "(x1//28)"},
		{Add(Mul(C(28), FloorDiv(y1, C(28))), Mod(y1, C(28))), "x1"},
		{FloorDiv(Add(Mul(s1, x0), z1), s1), "x0"},
		{Mod(Add(Mul(s1, x0), z1), s1), "x1"},
		{Add(z1, Mul(x0, s1)), "x1 + s1*x0"},
		{Mul(Add(x0, C(1)), C(3)), "3*x0 + 3"},
		{Mod(C(-7), C(3)), "2"},
		{FloorDiv(C(-7), C(2)), "-4"},
	}
	for i, c := range cases {
		if c.got.String() != c.want {
			t.Errorf("case %d: got %s, want %s", i, c.got, c.want)
		}
	}
	e := Add(Mul(C(784), x0), y1)
	if v := e.Eval(map[string]int64{"x0": 2, "x1": 5}); v != 1573 {
		t.Errorf("eval: %d", v)
	}
	if got := Subst(e, map[string]Expr{"x0": C(1)}).String(); got != "x1 + 784" {
		t.Errorf("subst: %s", got)
	}
	if natLess("x10", "x9") || !natLess("x9", "x10") {
		t.Error("natural order")
	}
}

// Simplified expressions must evaluate like the unsimplified arithmetic
// over every point of their ranges.
func TestExprSimplifyIsSound(t *testing.T) {
	x0, x1 := V("x0", C(6)), V("x1", C(12))
	for d := int64(1); d <= 13; d++ {
		a := Add(Mul(C(12), x0), x1, C(5))
		fd, md := FloorDiv(a, C(d)), Mod(a, C(d))
		for i := int64(0); i < 6; i++ {
			for j := int64(0); j < 12; j++ {
				env := map[string]int64{"x0": i, "x1": j}
				v := 12*i + j + 5
				if fd.Eval(env) != v/d || md.Eval(env) != v%d {
					t.Fatalf("d=%d at (%d,%d): %s=%d %s=%d, want %d %d", d, i, j, fd, fd.Eval(env), md, md.Eval(env), v/d, v%d)
				}
			}
		}
	}
}

// A flat index split over three dims of a view and put back together folds
// to the flat index (foldDivMod's chained rule), and every intermediate
// form still evaluates like the unfolded expression.
func TestFoldDivModChain(t *testing.T) {
	x := V("x", C(4*32*48*48))
	e := Add(Mod(x, C(9216)), Mul(C(9216), Mod(FloorDiv(x, C(9216)), C(8))), Mul(C(73728), FloorDiv(x, C(73728))))
	if e.String() != "x" {
		t.Errorf("folded to %s, want x", e)
	}
	part := Add(Mod(x, C(9216)), Mul(C(9216), Mod(FloorDiv(x, C(9216)), C(8))))
	if part.String() != Mod(x, C(73728)).String() {
		t.Errorf("two of the three terms fold to %s, want %s", part, Mod(x, C(73728)))
	}
	// the division form: 2*(x//100) + (x//50) % 2 is x//50 ((x//50)//2 is x//100)
	if got := Add(Mul(C(2), FloorDiv(x, C(100))), Mod(FloorDiv(x, C(50)), C(2))); got.String() != FloorDiv(x, C(50)).String() {
		t.Errorf("2*(x//100) + (x//50) %% 2 folded to %s, want %s", got, FloorDiv(x, C(50)))
	}
	for _, v := range []int64{0, 1, 9215, 9216, 73727, 73728, 123456, 294911, -1, -9217} {
		env := map[string]int64{"x": v}
		want := pyMod(v, 9216) + 9216*pyMod(floorDiv(v, 9216), 8)
		if got := part.Eval(env); got != want {
			t.Errorf("x=%d: %d, want %d", v, got, want)
		}
	}
}
