package sched

import (
	"fmt"
	"math/rand"
	"testing"

	"gcdbg/loopir"
)

// randomDAG is n pointwise nodes over one shape, each reading one to
// three earlier buffers (or the input).
func randomDAG(rng *rand.Rand, n int) *loopir.Program {
	b := newProg()
	b.input("in", 4, 8)
	names := []string{"in"}
	for i := 0; i < n; i++ {
		var reads []loopir.Dep
		for k := 0; k < 1+rng.Intn(3); k++ {
			j := len(names) - 1 - rng.Intn(min(len(names), 6))
			if rng.Intn(4) == 0 {
				j = rng.Intn(len(names))
			}
			reads = append(reads, rd(names[j], full(4, 8)))
		}
		name := fmt.Sprintf("buf%d", i)
		b.pw(name, []int64{4, 8}, reads...)
		names = append(names, name)
	}
	b.output(names[len(names)-1])
	return b.p
}

// The two-sided search answers what the plain one-sided search answers,
// for every pair of groups, on random DAGs before and between fusions.
func TestReachesMatchesDFS(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	for trial := 0; trial < 30; trial++ {
		s, groups, err := newState(randomDAG(rng, 20+rng.Intn(40)))
		if err != nil {
			t.Fatal(err)
		}
		if !s.topoOK {
			t.Fatal("a DAG's numbering is not topological")
		}
		check := func(stage string) {
			live := s.alive(groups)
			for _, a := range live {
				for _, b := range live {
					got, want := s.reaches(a, b), s.reachesDFS(a, b, map[*group]bool{})
					if got != want {
						t.Fatalf("trial %d %s: reaches(%s, %s) = %v, the plain search says %v", trial, stage, a.name(), b.name(), got, want)
					}
				}
			}
		}
		check("before fusion")
		for _, pr := range s.candidates(groups) {
			a, b := s.current(pr[0]), s.current(pr[1])
			if a == b || rng.Intn(3) == 0 {
				continue
			}
			if d := s.decide(1, a, b); d.Action == "fuse" {
				s.fuse(a, b)
				check("after fusing " + d.A + " and " + d.B)
			}
		}
	}
}

// unrolledLSTM is the loop program of an LSTM layer unrolled over t steps
// as the lowering writes it: per step an input projection (x_t @ W_ih, no
// path to the other steps' projections), the recurrent GEMM (h @ W_hh),
// the gates and the cell and hidden state updates. Every step reads the
// two weights, so each group is paired with the next MaxPairAttempts
// steps' and most pairs are refused as cycles, or as two externs after a
// search that finds no path.
func unrolledLSTM(t int) *loopir.Program {
	const bsz, hid = 32, 64
	b := newProg()
	b.input("w_ih", hid, 4*hid)
	b.input("w_hh", hid, 4*hid)
	b.input("bias", 4*hid)
	b.input("h0", bsz, hid)
	b.input("c0", bsz, hid)
	h, c := "h0", "c0"
	g4 := []int64{bsz, 4 * hid}
	hs := []int64{bsz, hid}
	for i := 0; i < t; i++ {
		x := fmt.Sprintf("x%d", i)
		b.input(x, bsz, hid)
		xp := b.ext(fmt.Sprintf("xp%d", i), "mm", loopir.Extern, g4, x, "w_ih").Name
		hp := b.ext(fmt.Sprintf("hp%d", i), "mm", loopir.Extern, g4, h, "w_hh").Name
		g := b.pw(fmt.Sprintf("g%d", i), g4, rd(xp, full(g4...)), rd(hp, full(g4...)), rd("bias", x1(4*hid))).Name
		c = b.pw(fmt.Sprintf("cell%d", i), hs, rd(g, full(hs...)), rd(c, full(hs...))).Name
		h = b.pw(fmt.Sprintf("hid%d", i), hs, rd(g, full(hs...)), rd(c, full(hs...))).Name
	}
	b.output(h, c)
	return b.p
}

// BenchmarkFuseUnrolledLSTM: fusion of an unrolled LSTM layer at 24, 48
// and 96 steps (examples/review/lstm_train.py's shape of program; its cost
// per step should not grow with the steps beyond MaxPairAttempts).
func BenchmarkFuseUnrolledLSTM(b *testing.B) {
	for _, steps := range []int{24, 48, 96} {
		p := unrolledLSTM(steps)
		b.Run(fmt.Sprintf("T=%d", steps), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				if _, err := Fuse(p); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
