package sched

import (
	"fmt"
)

// maxFusedCatInputs is the most inputs a cat may have and still fuse. A
// cat's body loads every input at every point (loopir.catBody), which a
// kernel that is the cat alone replaces by one copy loop per input
// (render/cat_copy.go); fused with a sibling or a consumer, the kernel
// runs the body: the stacked gate gradients of an unrolled nn.LSTM's
// weight gradient (24 inputs) fused with the same gradients' other stack
// ran 310 ms instead of a 3 MB copy. A cat of two to four inputs (the two
// directions of a bidirectional RNN) still fuses into its consumer.
const maxFusedCatInputs = 4

// longCat is the refusal when a or b holds a cat of more inputs than
// maxFusedCatInputs, "" otherwise.
func longCat(a, b *group) string {
	for _, g := range []*group{a, b} {
		for _, n := range g.nodes {
			if n.Cat != nil && len(n.Cat.Parts) > maxFusedCatInputs {
				return fmt.Sprintf("a cat of %d inputs runs alone, one copy loop per input (%s)", len(n.Cat.Parts), n.Name)
			}
		}
	}
	return ""
}
