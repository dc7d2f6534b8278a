package render

import "gcdbg/loopir"

// Gathers (embedding, index_select, indexing by a tensor): a pointwise nest
// whose loads have a data-dependent index may not carry "omp simd" (a
// gather could alias a store), and openLoops then collapsed every loop of
// the nest into one. For an embedding's [8192 ids, 512] nest that turned
// the contiguous row copy into a flat loop that divides its counter back
// into (id, column) and reloads and bound-checks the id at every element.
// Keeping the innermost loop out of the collapse gives gcc the row loop
// back: it hoists the id load and its bound check (the id is invariant in
// the row) and vectorizes the copy, versioned at run time against
// aliasing (-fopt-info-vec: "loop vectorized using 64 byte vectors ...
// versioned for vectorization because of possible aliasing").
// Measured on bench/models/embedding.py, one thread, CPU time, ids drawn
// over the whole 32,000-row table: 9.2 -> 2.5 ms (min of 20).

// gatherInner reports whether a pointwise nest that is not simd-safe
// should keep its innermost loop out of the parallel collapse: a CPU
// dialect, at least two loops, an innermost loop of at least 16 points
// (or a symbolic size) and at least 16 points in the outer loops to share
// among the threads.
func (g *kernelGen) gatherInner(sizes []loopir.Expr) bool {
	if g.r.d.ParallelFor == "" || len(sizes) < 2 {
		return false
	}
	if c, ok := sizes[len(sizes)-1].(loopir.Const); ok && c.V < 16 {
		return false
	}
	if c, ok := loopir.Mul(sizes[:len(sizes)-1]...).(loopir.Const); ok && c.V < 16 {
		return false
	}
	return true
}

// openGatherLoops opens the nest's loops, the parallel pragma collapsing
// all but the innermost, which stays a plain loop (no simd pragma).
func (g *kernelGen) openGatherLoops(names []string, sizes []loopir.Expr, parallel string, members []*loopir.Node) {
	for i, nm := range names {
		if i == len(names)-1 {
			g.prefetchGatherRows(members, names, sizes) // gather_prefetch.go
		}
		if i == 0 && parallel != "" {
			if coll := len(names) - 1; coll > 1 {
				g.line("%s collapse(%d) %s", g.r.d.ParallelFor, coll, parallel)
			} else {
				g.line("%s %s", g.r.d.ParallelFor, parallel)
			}
		}
		t := g.idxType()
		g.line("for (%s %s = 0; %s < %s; %s++) {", t, nm, nm, g.expr(sizes[i], nil, nil), nm)
		g.ind++
	}
}
