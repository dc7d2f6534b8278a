package sched

import (
	"fmt"
	"strings"
	"testing"

	"gcdbg/loopir"
)

// kernelStreams counts the buffers kernel k of s accesses in memory: those
// it reads and no member writes, and those it writes that an output or
// another kernel reads.
func kernelStreams(s *Schedule, k int) int {
	writes, reads := map[string]bool{}, map[string]bool{}
	for _, n := range s.Kernels[k].Nodes {
		for _, w := range n.Writes {
			writes[w.Buffer] = true
		}
		for _, r := range n.Reads {
			reads[r.Buffer] = true
		}
	}
	readElsewhere := map[string]bool{}
	for i, kk := range s.Kernels {
		if i == k {
			continue
		}
		for _, n := range kk.Nodes {
			for _, r := range n.Reads {
				readElsewhere[r.Buffer] = true
			}
		}
	}
	outputs := map[string]bool{}
	for _, o := range s.Program.Outputs {
		outputs[o] = true
	}
	streams := 0
	for b := range reads {
		if !writes[b] {
			streams++
		}
	}
	for b := range writes {
		if outputs[b] || readElsewhere[b] {
			streams++
		}
	}
	return streams
}

// A recurrence whose every step reads its own input and stores its state
// (an LSTM backward's recomputation of 32 steps' gates, each stored for
// the gradient): fused whole, one kernel of 80 streams. The cap splits it
// into kernels of at most maxFusedStreams, and the refusal says why with
// the numbers.
func TestStreamCapSplitsALongRecurrence(t *testing.T) {
	b := newProg()
	prev := ""
	var outs []string
	for i := 0; i < 40; i++ {
		in, c := fmt.Sprintf("in%d", i), fmt.Sprintf("c%d", i)
		b.input(in, 32, 512)
		deps := []loopir.Dep{rd(in, full(32, 512))}
		if prev != "" {
			deps = append(deps, rd(prev, full(32, 512)))
		}
		b.pw(c, []int64{32, 512}, deps...)
		outs = append(outs, c)
		prev = c
	}
	b.output(outs...)
	s := schedule(t, b.p)
	if len(s.Kernels) < 2 {
		t.Fatalf("%d kernel(s) of 80 streams, want it split under the cap of %d\n%s", len(s.Kernels), maxFusedStreams, s.Log())
	}
	for k := range s.Kernels {
		if n := kernelStreams(s, k); n > maxFusedStreams {
			t.Errorf("kernel %d accesses %d buffers, more than the cap %d", k, n, maxFusedStreams)
		}
	}
	if len(s.Kernels) > 3 {
		t.Errorf("%d kernels: the cap of %d should leave 2 (80 streams)\n%s", len(s.Kernels), maxFusedStreams, s.Log())
	}
	why := false
	for _, d := range s.Decisions {
		if d.Action == "refuse" && strings.Contains(d.Reason, fmt.Sprintf("more than the cap of %d", maxFusedStreams)) &&
			strings.Contains(d.Reason, "would access ") {
			why = true
		}
	}
	if !why {
		t.Errorf("no refusal names the cap and the kernel's buffer count:\n%s", s.Log())
	}
}

// Temporaries consumed inside the kernel are not streams: a chain of 200
// pointwise nodes of which only the last is stored is still one kernel of
// two streams.
func TestStreamCapIgnoresTemporaries(t *testing.T) {
	b := newProg()
	b.input("x", 32, 512)
	prev := "x"
	for i := 0; i < 200; i++ {
		c := fmt.Sprintf("t%d", i)
		b.pw(c, []int64{32, 512}, rd(prev, full(32, 512)))
		prev = c
	}
	b.output(prev)
	s := schedule(t, b.p)
	if len(s.Kernels) != 1 || kernelStreams(s, 0) != 2 {
		t.Fatalf("%d kernels, want one of 2 streams\n%s", len(s.Kernels), s.Log())
	}
}
