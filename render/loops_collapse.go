package render

import "gcdbg/loopir"

// collapseMinIters is how many iterations the OpenMP loop of a nest needs
// to spread over the team evenly enough (static schedule, up to 16 threads).
const collapseMinIters = 256

// collapseDepth is how many outer loops of a nest the parallel pragma
// collapses: the shortest prefix with at least collapseMinIters
// iterations (all of them when a size is symbolic first). Collapsing every
// loop but the innermost made GCC recompute each point's indices from the
// collapsed counter: a pixel shuffle's copy [4, 32, 96, 2, 96, 2] (SR
// models: innermost loop of 2) under collapse(5) took 30–40 ms where
// collapse(3) takes 8 ms (same process, interleaved, load ~9), the inner
// loops then stepping their indices by increments.
func collapseDepth(sizes []loopir.Expr) int {
	p := int64(1)
	for i, s := range sizes {
		c, ok := s.(loopir.Const)
		if !ok {
			return len(sizes)
		}
		p *= c.V
		if p >= collapseMinIters {
			return i + 1
		}
	}
	return len(sizes)
}
