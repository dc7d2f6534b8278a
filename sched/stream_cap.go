package sched

import "fmt"

// maxFusedStreams is the most buffers a fused kernel may access in memory
// (its streams: each buffer it reads that no member writes, and each it
// writes that an output or a kernel outside reads; a temporary consumed
// inside the kernel stays in registers and is not one). A fusion that
// would grow a kernel past it is refused. The backward of an LSTM language
// model (examples/review5/lstm_lm.py) recomputes the 32 steps' gates from
// the saved pre-activations, each step storing the gates and cell state
// the gradient reads: fused, one loop of 223 streams, whose 64 tanh calls
// gcc's inliner stopped inlining (fixed by always_inline, render/erf_tanh.go)
// and which, vectorized, still ran at about half the speed of the same
// work split into kernels of at most 64 or 32 streams (measured; why is
// not pinned down: a loop of 223 base pointers cannot keep them in
// registers, and the hardware prefetchers track far fewer streams)
// (docs/performance.md, "Long kernels: inline math, a cap on streams").
const maxFusedStreams = 64

// bufStreams is 1 when a kernel of the groups gs (one, or two being
// fused) accesses buf in memory: reads it without writing it, or writes it
// and an output or a node outside gs reads it.
func (s *state) bufStreams(buf string, gs ...*group) int {
	read, written := false, false
	for _, g := range gs {
		read, written = read || g.reads[buf], written || g.writes[buf]
	}
	switch {
	case read && !written:
		return 1
	case written && (s.outputs[buf] || !s.onlyReadBy(buf, gs[0], gs[len(gs)-1])):
		return 1
	}
	return 0
}

// streamsOf counts a new group's streams.
func (s *state) streamsOf(g *group) int {
	n := 0
	for buf := range g.reads {
		if !g.writes[buf] {
			n++
		}
	}
	for buf := range g.writes {
		n += s.bufStreams(buf, g)
	}
	return n
}

// mergedStreams is the streams of a and b fused: only the buffers both
// touch can change, so it walks the smaller group's buffers (fusing a node
// into a chain of 10,000 costs what the node touches).
func (s *state) mergedStreams(a, b *group) int {
	n := a.streams + b.streams
	small, big := a, b
	if len(small.reads)+len(small.writes) > len(big.reads)+len(big.writes) {
		small, big = big, small
	}
	adjust := func(buf string) {
		if big.reads[buf] || big.writes[buf] {
			n += s.bufStreams(buf, a, b) - s.bufStreams(buf, a) - s.bufStreams(buf, b)
		}
	}
	for buf := range small.reads {
		adjust(buf)
	}
	for buf := range small.writes {
		if !small.reads[buf] {
			adjust(buf)
		}
	}
	return n
}

// manyStreams is the refusal when fusing a and b would make a kernel of
// more than maxFusedStreams streams, more than either has alone (a single
// node past the cap still takes fusions that do not add to it); "" when
// it would not.
func (s *state) manyStreams(a, b *group) string {
	n := s.mergedStreams(a, b)
	if n <= maxFusedStreams || n <= max(a.streams, b.streams) {
		return ""
	}
	return fmt.Sprintf("the kernel would access %d buffers in memory (%d + %d apart), more than the cap of %d: so many streams run slower fused than apart (sched/stream_cap.go)",
		n, a.streams, b.streams, maxFusedStreams)
}
