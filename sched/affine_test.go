package sched

import (
	"math/rand"
	"testing"

	"gcdbg/loopir"
)

// TestAffineMatchesExhaustive: whenever the analytic index check decides,
// it agrees with evaluating both indices at every point of the space (the
// sampler's method, exhaustive on these small spaces). Shapes are random
// factorizations of the same flat space, so digit systems nest or not;
// indices are either the dense (flat) index of the member's ranges —
// equal for every factorization — or random affine forms.
func TestAffineMatchesExhaustive(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	factor := func(n int64) []int64 {
		var out []int64
		for n > 1 {
			var ds []int64
			for d := int64(2); d <= n; d++ {
				if n%d == 0 {
					ds = append(ds, d)
				}
			}
			d := ds[rng.Intn(len(ds))]
			if rng.Intn(4) == 0 {
				out = append(out, 1) // a size-1 dim
			}
			out = append(out, d)
			n /= d
		}
		return out
	}
	index := func(prefix string, sizes []int64, dense bool) loopir.Expr {
		vs := vars(prefix, sizes)
		if dense {
			return at(sizes, vs...)
		}
		terms := []loopir.Expr{loopir.C(int64(rng.Intn(3)))}
		for _, v := range vs {
			k := loopir.C(int64(rng.Intn(5) - 2))
			if rng.Intn(5) == 0 {
				terms = append(terms, loopir.Mul(k, loopir.S("s0"), v))
			} else {
				terms = append(terms, loopir.Mul(k, v))
			}
		}
		return loopir.Add(terms...)
	}
	s := &state{p: &loopir.Program{Buffers: map[string]*loopir.Buffer{}}, env: map[string]int64{"s0": 3}}
	var decided, equal int
	for iter := 0; iter < 3000; iter++ {
		o := []int64{6, 12, 8, 30}[rng.Intn(4)]
		r := []int64{1, 2, 3, 4}[rng.Intn(4)]
		// member: kind 0 runs once per outer point, 1 inside the reduce
		// loop, 2 is a reduction over (o | r).
		mk := func(kind int) (*loopir.Node, nodeMap, []int64, []int64) {
			var m nodeMap
			m.reduce = r
			switch kind {
			case 0:
				m.x = factor(o)
			case 1:
				m.x, m.inner = factor(o*r), true
			default:
				m.x, m.r, m.inner, m.isRed = factor(o), factor(r), true, true
			}
			return &loopir.Node{Name: "n"}, m, m.x, m.r
		}
		dense := rng.Intn(2) == 0
		c, cm, cx, cr := mk(rng.Intn(3))
		p, pm, px, pr := mk(rng.Intn(3))
		ri := index("x", cx, dense)
		if cm.isRed && len(cr) > 0 && dense {
			ri = at(append(append([]int64{}, cx...), cr...), append(vars("x", cx), vars("r", cr)...)...)
		}
		wi := index("x", px, dense)
		if pm.isRed && len(pr) > 0 && dense {
			wi = at(append(append([]int64{}, px...), pr...), append(vars("x", px), vars("r", pr)...)...)
		}
		c.Reads = []loopir.Dep{rd("b", ri)}
		p.Writes = []loopir.Dep{rd("b", wi)}
		s.lin = nil
		got, ok := s.affineEqual(c, 0, cm, p, pm, "b", o, r)
		if !ok {
			continue
		}
		want := true
		for i := int64(0); i < o && want; i++ {
			for j := int64(0); j < r; j++ {
				pt := []int64{i, j}
				if ri.Eval(cm.env(pt, s.env)) != wi.Eval(pm.env(pt, s.env)) {
					want = false
					break
				}
			}
		}
		if got != want {
			t.Fatalf("o=%d r=%d: read %s over %+v, write %s over %+v: analytic says %v, exhaustive %v", o, r, ri, cm, wi, pm, got, want)
		}
		decided++
		if got {
			equal++
		}
	}
	t.Logf("%d decided, %d equal", decided, equal)
	if decided < 2000 || equal < 200 {
		t.Errorf("too few decided cases: %d decided, %d equal", decided, equal)
	}
}
