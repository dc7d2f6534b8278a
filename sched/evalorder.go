package sched

import "gcdbg/loopir"

// LoadsRunBy gives, for each member of kern, the latest position in
// kern.Nodes at which the rendered kernel may run the member's loads.
//
// A kernel's members are not evaluated in kern.Nodes order: the C
// renderer inlines a pointwise member whose buffers need no memory (read
// only by members, no output) and computes it where a member first loads
// it (render/cstyle.go, kernelGen.load), so its loads may run after a
// later member's store. attn_bias's backward (verdict/testdata) fuses
// [mm, mul_2 = mm*b, ..., mul_5 = f(mm), ..., mul_9 = g(mul_2)]: mul_2
// runs inside mul_9, after mul_5's store. Anything that lets a store
// overwrite a value a member still loads (an in-place plan, a GEMM writing
// its epilogue's output) must compare these positions with the store's,
// not the members' own.
//
// readElsewhere reports whether a buffer is read by a node of another
// kernel. A pointwise member that writes only buffers read nowhere else
// (no output, input or constant either) counts as inlined: its loads run
// as late as its latest in-kernel reader's. The bound is conservative: a
// member the renderer does store runs at its own position, never later.
func LoadsRunBy(p *loopir.Program, kern *loopir.Kernel, readElsewhere func(buf string) bool) map[*loopir.Node]int {
	outputs := map[string]bool{}
	for _, o := range p.Outputs {
		outputs[o] = true
	}
	stored := func(buf string) bool {
		b := p.Buffers[buf]
		return outputs[buf] || b == nil || b.Kind == loopir.Input || b.Kind == loopir.Constant || readElsewhere(buf)
	}
	at := make(map[*loopir.Node]int, len(kern.Nodes))
	readers := map[string][]*loopir.Node{}
	for _, n := range kern.Nodes {
		for _, d := range n.Reads {
			readers[d.Buffer] = append(readers[d.Buffer], n)
		}
	}
	// Readers come after their producer: a reverse walk sees them first.
	for i := len(kern.Nodes) - 1; i >= 0; i-- {
		n := kern.Nodes[i]
		at[n] = i
		if n.Kind != loopir.Pointwise {
			continue
		}
		inlined := len(n.Writes) > 0
		for _, w := range n.Writes {
			inlined = inlined && !stored(w.Buffer)
		}
		if !inlined {
			continue
		}
		for _, w := range n.Writes {
			for _, m := range readers[w.Buffer] {
				if j, ok := at[m]; ok && m != n {
					at[n] = max(at[n], j)
				}
			}
		}
	}
	return at
}
