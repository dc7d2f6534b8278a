package sched

import (
	"gcdbg/loopir"
)

// keptForReduction is the refusal, in the first round, of fusing a with b
// when one of them is a pointwise group whose every buffer only one
// reduction group r (neither a nor b) reads, over r's whole iteration
// space: fused into r as its prologue (reorder.go) the values are summed
// where they are computed and never stored, while fused anywhere else they
// are stored for r to read back. The pair r, p is a candidate of the same
// round (r reads what p writes), tried after the higher-ranked fusions
// with p's producers; from the second round on, p may fuse with them
// again (r did not take it).
//
// BatchNorm's backward (stages/simplify_bwd.go) sums g * xc beside g and
// xc: the product's only reader is the sum, but an extern's epilogue (the
// max-pool backward that makes g) took it first and stored it,
// resnet_block_train's stem: 8 MB written and read back per step. A
// GroupNorm's weight gradient g * y (read by its channel sum only) was
// stored by the row kernel, and that channel sum then shared no input
// with the bias's: two kernels.
func (s *state) keptForReduction(round int, a, b *group) string {
	if round != 1 {
		return ""
	}
	for _, pr := range [][2]*group{{a, b}, {b, a}} {
		p, other := pr[0], pr[1]
		if p.kind != loopir.Pointwise || len(p.writes) == 0 {
			continue
		}
		var r *group
		only := true
		for buf := range p.writes {
			if s.outputs[buf] {
				only = false
				break
			}
			for _, i := range s.readerIdx[buf] {
				g := s.at[i]
				if g == p {
					continue
				}
				if r == nil {
					r = g
				}
				only = only && g == r
			}
		}
		if !only || r == nil || r == other || r.kind != loopir.Reduction || len(r.reduce) == 0 ||
			!sameNumel(p.outer, concat(r.outer, r.reduce)) {
			continue
		}
		return "kept for " + r.name() + ", its only reader: inside the reduction loop it is never stored"
	}
	return ""
}
