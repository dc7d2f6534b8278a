package render

import (
	"regexp"

	"gcdbg/loopir"
)

// Prefetching a gather's rows ahead. An embedding's row copy is one
// contiguous run per id (2 KB for 512 floats), and the hardware prefetcher
// finds each run only after its first misses: every row starts with a
// memory latency. The ids are in memory ahead of the loop, so before
// copying row x0 the kernel asks for the lines of row x0+4
// (__builtin_prefetch, which never faults: an id out of range only
// prefetches nothing useful, and the load itself is still checked).
// Hand-measured on bench/models/embedding.py, one thread, CPU time, at load
// ~11: 1.99-2.29 ms -> 1.26-1.90 ms (min of 40, four alternations).

// prefetchAhead is how many rows ahead the lines are asked for.
const prefetchAhead = 4

// prefetchGatherRows emits, inside the outer loop of a two-loop gather nest
// (names: outer, inner), the prefetch of row outer+prefetchAhead for each
// member's (inlined ones too) data-dependent load whose index steps by one element with the
// inner loop, when the id feeding it is a plain load of a buffer.
func (g *kernelGen) prefetchGatherRows(members []*loopir.Node, names []string, sizes []loopir.Expr) {
	if g.r.d.Name != "c" || len(names) != 2 {
		return
	}
	outer, inner := names[0], names[1]
	word := regexp.MustCompile(`\b` + outer + `\b`)
	innerWord := regexp.MustCompile(`\b` + inner + `\b`)
	for _, n := range members {
		for _, s := range n.Body {
			if s.Op != "load" || !hasIndirect(s.Index) || g.inline[s.Buffer] != nil || !unitInner(s.Index, inner) {
				continue
			}
			feed, ok := g.idFeed(n, s)
			if !ok {
				continue
			}
			st := g.r.store[s.Buffer]
			if st == nil {
				continue
			}
			vars, usesInner := map[string]string{}, false
			for k, v := range g.varsOf(n) {
				if v == inner {
					v = "0"
				}
				usesInner = usesInner || innerWord.MatchString(v)
				vars[k] = word.ReplaceAllString(v, "pf_"+outer)
			}
			if usesInner {
				continue // the inner variable inside a larger expression
			}
			bytes := g.r.d.Types[st.dt]
			g.line("{  /* prefetch row %s+%d of the gather (gather_prefetch.go) */", outer, prefetchAhead)
			g.ind++
			g.line("const %s pf_%s = %s + %d < %s ? %s + %d : %s - 1;", g.idxType(), outer, outer, prefetchAhead,
				g.expr(sizes[0], nil, nil), outer, prefetchAhead, g.expr(sizes[0], nil, nil))
			g.push()
			tmps := map[string]value{}
			for _, f := range feed {
				v := g.declExact(f.DType, g.loadExpr(f.DType, g.r.store[f.Buffer].c+"["+g.expr(f.Index, vars, tmps)+"]"))
				g.use(f.Buffer)
				tmps[f.Dst] = v
			}
			g.pop()
			g.line("const int64_t pf_at = %s;", g.expr(s.Index, vars, tmps))
			g.line("for (int64_t pf_k = 0; pf_k < %s * (int64_t)sizeof(%s); pf_k += 64)", g.expr(sizes[1], nil, nil), bytes)
			g.line("  __builtin_prefetch((const void *)((uintptr_t)%s + (uintptr_t)pf_at * sizeof(%s) + (uintptr_t)pf_k), 0, 0);", st.c, bytes)
			g.ind--
			g.line("}")
			return // one prefetch per row
		}
	}
}

// unitInner reports whether idx is a sum with the term 1*inner.
func unitInner(idx loopir.Expr, inner string) bool {
	sum, ok := idx.(*loopir.Sum)
	if !ok {
		return false
	}
	for _, t := range sum.Terms {
		if len(t.Factors) == 1 && t.K == 1 {
			if v, ok := t.Factors[0].(loopir.Var); ok && v.Name == inner {
				return true
			}
		}
	}
	return false
}

// idFeed is the statements of n computing the indirect values of s: each
// must be a load of a buffer with memory at an index without indirection.
func (g *kernelGen) idFeed(n *loopir.Node, s loopir.Stmt) ([]loopir.Stmt, bool) {
	def := map[string]loopir.Stmt{}
	for _, b := range n.Body {
		if b.Dst != "" {
			def[b.Dst] = b
		}
	}
	var feed []loopir.Stmt
	for _, ind := range indirectsOf(s.Index) {
		f, ok := def[ind.Tmp]
		if !ok || f.Op != "load" || hasIndirect(f.Index) || g.inline[f.Buffer] != nil || g.r.store[f.Buffer] == nil {
			return nil, false
		}
		if _, ok := g.r.d.Types[f.DType]; !ok {
			return nil, false
		}
		feed = append(feed, f)
	}
	return feed, len(feed) > 0
}
