package stages

import (
	"fmt"
	"math/rand"
	"testing"
)

type tEdge struct {
	from, to string
	c        int64
}

func buildNet(es []tEdge) *FlowNet {
	f := NewFlowNet()
	for _, e := range es {
		f.AddEdge(e.from, e.to, e.c)
	}
	return f
}

func cutSum(cut []CutEdge) int64 {
	var s int64
	for _, e := range cut {
		s += e.Cap
	}
	return s
}

// The network of CLRS figure 26.1: maximum flow 23.
func TestMaxFlowCLRS(t *testing.T) {
	f := buildNet([]tEdge{
		{"s", "v1", 16}, {"s", "v2", 13}, {"v2", "v1", 4}, {"v1", "v3", 12},
		{"v3", "v2", 9}, {"v2", "v4", 14}, {"v4", "v3", 7}, {"v3", "t", 20}, {"v4", "t", 4},
	})
	v, cut := f.MinCut("s", "t")
	if v != 23 {
		t.Fatalf("max flow = %d, want 23", v)
	}
	if cutSum(cut) != 23 {
		t.Fatalf("cut %v sums to %d, want 23", cut, cutSum(cut))
	}
}

// Two equally cheap cuts in series: s -5-> a -5-> t. The sink-closest one is a→t.
func TestMinCutClosestToSink(t *testing.T) {
	f := buildNet([]tEdge{{"s", "a", 5}, {"a", "t", 5}})
	v, cut := f.MinCut("s", "t")
	if v != 5 || len(cut) != 1 || cut[0].From != "a" || cut[0].To != "t" {
		t.Fatalf("got flow %d cut %v, want 5 and a→t", v, cut)
	}
}

// Inf edges are never cut; the cheapest finite edges are.
func TestMinCutAvoidsInf(t *testing.T) {
	f := buildNet([]tEdge{
		{"s", "x_in", Inf}, {"x_in", "x_out", 100}, {"x_out", "y_in", Inf},
		{"y_in", "y_out", 10}, {"y_out", "t", Inf}, {"x_out", "z_in", Inf},
		{"z_in", "z_out", 10}, {"z_out", "t", Inf},
	})
	v, cut := f.MinCut("s", "t")
	if v != 20 || cutSum(cut) != 20 || len(cut) != 2 {
		t.Fatalf("got %d %v, want 20 via y and z", v, cut)
	}
	// Now make x cheaper than y+z: x alone is cut.
	f = buildNet([]tEdge{
		{"s", "x_in", Inf}, {"x_in", "x_out", 15}, {"x_out", "y_in", Inf},
		{"y_in", "y_out", 10}, {"y_out", "t", Inf}, {"x_out", "z_in", Inf},
		{"z_in", "z_out", 10}, {"z_out", "t", Inf},
	})
	v, cut = f.MinCut("s", "t")
	if v != 15 || len(cut) != 1 || cut[0].From != "x_in" {
		t.Fatalf("got %d %v, want 15 via x", v, cut)
	}
}

func TestMaxFlowNoPathAndInfinite(t *testing.T) {
	f := buildNet([]tEdge{{"s", "a", 3}, {"b", "t", 3}})
	if v := f.MaxFlow("s", "t"); v != 0 {
		t.Fatalf("disconnected: flow %d, want 0", v)
	}
	f = buildNet([]tEdge{{"s", "a", Inf}, {"a", "t", Inf}})
	if v := f.MaxFlow("s", "t"); v < Inf {
		t.Fatalf("all-Inf path: flow %d, want >= Inf", v)
	}
}

// On random small networks the max flow equals the cheapest cut found by
// brute force over every vertex subset (max-flow/min-cut theorem).
func TestMaxFlowMatchesBruteForce(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	for trial := 0; trial < 200; trial++ {
		n := 2 + rng.Intn(5) // vertices besides s and t
		names := []string{"s", "t"}
		for i := 0; i < n; i++ {
			names = append(names, fmt.Sprint("v", i))
		}
		var es []tEdge
		for i := range names {
			for j := range names {
				if i != j && rng.Intn(3) == 0 {
					es = append(es, tEdge{names[i], names[j], int64(rng.Intn(10))})
				}
			}
		}
		got, cut := buildNet(es).MinCut("s", "t")
		if cutSum(cut) != got {
			t.Fatalf("trial %d: cut %v sums to %d, flow %d", trial, cut, cutSum(cut), got)
		}
		best := int64(-1)
		for mask := 0; mask < 1<<n; mask++ { // which v_i sit with s
			side := map[string]bool{"s": true}
			for i := 0; i < n; i++ {
				if mask&(1<<i) != 0 {
					side[names[2+i]] = true
				}
			}
			var c int64
			for _, e := range es {
				if side[e.from] && !side[e.to] {
					c += e.c
				}
			}
			if best < 0 || c < best {
				best = c
			}
		}
		if got != best {
			t.Fatalf("trial %d: max flow %d, brute-force min cut %d (%v)", trial, got, best, es)
		}
	}
}
