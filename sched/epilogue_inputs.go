package sched

import (
	"gcdbg/loopir"
)

// ExternEpilogueInput is the fusion of a pointwise group into an mm's
// kernel whose epilogue is its only reader: the group does not feed the
// GEMM (it is no prologue), it computes values the epilogue combines with
// the product, at the product's points.
const ExternEpilogueInput = "extern-epilogue input"

// epilogueInput reports whether pointwise group p may join extern group e
// as an input of e's epilogue: e's extern is an mm (its epilogue runs as
// one pointwise nest over the product after the call, render/loops.go),
// which reads nothing p writes; p runs over as many points as the
// product; and every buffer p writes is read only inside p and e and is
// no output, so in the fused kernel it is a register of the epilogue's
// loop and never stored.
//
// GELU's backward after a min-cut partition (ffn_train, t5_ffn, gpt2's
// MLP): the derivative recomputes erf(a/√2) (or tanh) from the saved a,
// and the mm's epilogue multiplies it with the product dY·W. Refused as a
// prologue, the recomputation was a kernel of its own that stored three
// [256, 4096] buffers (12 MB) for the epilogue to read back, where the
// epilogue now reads a once (4 MB).
func (s *state) epilogueInput(p, e *group) bool {
	if p.kind != loopir.Pointwise || e.kind != loopir.Extern || !sameNumel(p.outer, e.outer) {
		return false
	}
	for _, n := range e.nodes {
		if n.Kind != loopir.Extern {
			continue
		}
		if n.Op != "mm" || readsAny(n, p.writes) {
			return false
		}
	}
	for buf := range p.writes {
		if s.outputs[buf] || !s.onlyReadBy(buf, p, e) {
			return false
		}
	}
	return true
}
