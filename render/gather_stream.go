package render

import (
	"fmt"
	"regexp"

	"gcdbg/loopir"
	"gcdbg/tensor"
)

// Non-temporal row stores for a gather that copies whole rows (an
// embedding lookup: 8,192 ids x 512 floats = 16 MB out of a 64 MB table).
// The output is written once and not read back by the kernel, but each
// ordinary store first reads its line for ownership, and the 16 MB of
// output push the table's rows out of the L3 that the next ids would hit.
// Streaming stores (movntps through write-combining buffers) write the
// lines without reading them and without keeping them. gcc emits them for
// no loop (`#pragma omp simd nontemporal` is accepted and ignored by gcc 12;
// it turns the row loop into memcpy), so a row-copy gather gets a second
// form of its row loop: the id and both ends of the row checked once, then
// gcdbg_stream_bytes (AVX-512/AVX/SSE2 streaming stores on the 64-byte
// aligned part, plain copies at the ends).
//
// Which form runs is a choice by measurement (choice.go, bit
// choiceStream): a consumer that reads the output next may prefer it in
// cache, and the softmax rows measured slower with streamed output
// (docs/performance.md). Hand-measured on the embedding's shape (one
// thread, min of 5 x 40 runs, load ~13): plain row loop with prefetch
// 1.3-1.9 ms, streaming stores 0.7-1.1 ms; a row gathered into an L1
// buffer and then streamed is no faster than the plain loop (1.4-1.8 ms).
//
// The values are the loaded bytes, unchanged: the form is offered only
// when the stored value is the gathered element itself (loads and
// stores of one dtype, through inlined copies), and the id is checked
// against its dimension and the row's first and last elements against the
// table exactly as each element's load would be.

// streamMinBytes is the smallest output offered the streaming form: below
// it the rows stay in cache for the next kernel and the candidate is never
// worth timing.
const streamMinBytes = 4 << 20

// streamPrelude is the row copy with streaming stores, written once when a
// kernel uses it.
const streamPrelude = `
#if defined(__SSE2__)
#include <immintrin.h>
#endif
/* Copies n bytes with streaming (non-temporal) stores where dst is 64-byte
   aligned, plain stores before and after (render/gather_stream.go); with
   AVX-512BW the two ends are one masked load and store each, not calls. */
static inline void gcdbg_stream_bytes(void *dst, const void *src, int64_t n) {
  char *d = (char *)dst;
  const char *s = (const char *)src;
  int64_t head = (int64_t)((64 - ((uintptr_t)d & 63)) & 63);
  if (head > n) head = n;
#if defined(__AVX512F__) && defined(__AVX512BW__)
  if (head) {
    const __mmask64 m = (__mmask64)((1ULL << head) - 1);
    _mm512_mask_storeu_epi8(d, m, _mm512_maskz_loadu_epi8(m, s));
  }
  d += head; s += head; n -= head;
  for (; n >= 64; n -= 64, d += 64, s += 64) _mm512_stream_si512((__m512i *)d, _mm512_loadu_si512((const void *)s));
  if (n) {
    const __mmask64 m = (__mmask64)((1ULL << n) - 1);
    _mm512_mask_storeu_epi8(d, m, _mm512_maskz_loadu_epi8(m, s));
  }
#else
  memcpy(d, s, (size_t)head);
  d += head; s += head; n -= head;
#if defined(__AVX512F__)
  for (; n >= 64; n -= 64, d += 64, s += 64) _mm512_stream_si512((__m512i *)d, _mm512_loadu_si512((const void *)s));
#elif defined(__AVX__)
  for (; n >= 32; n -= 32, d += 32, s += 32) _mm256_stream_si256((__m256i *)d, _mm256_loadu_si256((const __m256i *)s));
#elif defined(__SSE2__)
  for (; n >= 16; n -= 16, d += 16, s += 16) _mm_stream_si128((__m128i *)d, _mm_loadu_si128((const __m128i *)s));
#endif
  memcpy(d, s, (size_t)n);
#endif
}
/* Orders this thread's streaming stores before what follows (the other
   threads' are ordered by the locked instructions of the loop's barrier). */
static inline void gcdbg_stream_fence(void) {
#if defined(__SSE2__)
  _mm_sfence();
#else
  __sync_synchronize();
#endif
}
`

func streamPreludeOf(r *renderer) string {
	if !r.streams {
		return ""
	}
	return streamPrelude
}

// rowStream is the row form being written: the gathered load and how many
// elements a row has; src is set by checkedLoad to the row's first element.
type rowStream struct {
	load  loopir.Stmt
	node  *loopir.Node // the member storing the row
	elems string
	src   string
}

// streamGather writes a two-loop gather nest whose single stored member
// copies gathered rows with both forms of the row loop, selected by the
// kernel's choice; false (nothing written) where the form does not apply.
func (g *kernelGen) streamGather(names []string, clause string, members, emit []*loopir.Node) bool {
	if g.r.d.Name != "c" || !g.r.d.Entry || len(names) != 2 || len(emit) != 1 {
		return false
	}
	st, ok := g.rowCopyLoad(emit[0], names[1])
	if !ok {
		return false
	}
	ob := g.r.p.Buffers[emit[0].Name]
	n, ok := static(ob.Sizes)
	if !ok || n*int64(ob.DType.Size()) < streamMinBytes {
		return false
	}
	g.r.choiceOf(g.idx).stream = true
	g.r.streams = true
	inner := g.expr(g.sp.outer[1], nil, nil)
	if clause != "" {
		g.line("%s %s", g.r.d.ParallelFor, clause)
	}
	g.line("for (%s %s = 0; %s < %s; %s++) {", g.idxType(), names[0], names[0], g.expr(g.sp.outer[0], nil, nil), names[0])
	g.ind++
	g.prefetchGatherRows(members, names, g.sp.outer) // gather_prefetch.go
	g.line("if (%s & %d) {  /* the row whole, streaming stores (gather_stream.go) */", choiceVar, choiceStream)
	g.ind++
	g.line("const %s %s = 0;  /* the row's first element */", g.idxType(), names[1])
	g.rs = &rowStream{load: st, node: emit[0], elems: inner}
	g.push()
	g.emitMember(emit[0])
	g.pop()
	if g.rs.src == "" {
		g.fail("gather %s: the streamed row's source was not reached", emit[0].Name)
	}
	g.rs = nil
	g.ind--
	g.line("} else {")
	g.ind++
	g.line("for (%s %s = 0; %s < %s; %s++) {", g.idxType(), names[1], names[1], inner, names[1])
	g.ind++
	g.push()
	g.emitMember(emit[0])
	g.pop()
	g.closeLoops(2)
	g.closeLoops(1)
	g.line("if (%s & %d) gcdbg_stream_fence();", choiceVar, choiceStream)
	return true
}

// rowCopyLoad finds the gathered load whose element n stores unchanged:
// n's stored value is a load, through inlined members that are each a
// load and a store of it, down to a load at a data-dependent index whose
// other statements only compute that index from plain loads; every dtype
// on the way is the same; the load's and n's store index step by one
// element with the inner loop (and the inner loop appears nowhere else).
func (g *kernelGen) rowCopyLoad(n *loopir.Node, inner string) (loopir.Stmt, bool) {
	var none loopir.Stmt
	ob := g.r.p.Buffers[n.Name]
	if ob == nil || g.r.store[n.Name] == nil || !g.unitInnerOnly(n, storeOf(n).Index, inner) {
		return none, false
	}
	dt := ob.DType
	cur := n
	for depth := 0; depth < 8; depth++ {
		s, ok := storedLoad(cur)
		if !ok || s.DType != dt {
			return none, false
		}
		if p := g.inline[s.Buffer]; p != nil {
			if len(cur.Body) != 2 || hasIndirect(s.Index) || g.r.p.Buffers[p.Name] == nil || g.r.p.Buffers[p.Name].DType != dt {
				return none, false
			}
			cur = p
			continue
		}
		st := g.r.store[s.Buffer]
		if st == nil || st.dt != dt || !hasIndirect(s.Index) || !g.unitInnerOnly(cur, s.Index, inner) {
			return none, false
		}
		feed, ok := g.idFeed(cur, s)
		if !ok || len(cur.Body) != len(feed)+2 {
			return none, false
		}
		for _, f := range feed { // one id per row: no id load moves with the inner loop
			if mentions(f.Index, []string{g.innerVar(cur, inner)}) {
				return none, false
			}
		}
		return s, true
	}
	return none, false
}

// storeOf is n's store statement.
func storeOf(n *loopir.Node) loopir.Stmt {
	var st loopir.Stmt
	for _, s := range n.Body {
		if s.Op == "store" {
			st = s
		}
	}
	return st
}

// storedLoad is the load statement whose value n stores.
func storedLoad(n *loopir.Node) (loopir.Stmt, bool) {
	st := storeOf(n)
	if st.Op != "store" || len(st.Args) != 1 {
		return loopir.Stmt{}, false
	}
	for _, s := range n.Body {
		if s.Dst == st.Args[0] {
			return s, s.Op == "load"
		}
	}
	return loopir.Stmt{}, false
}

// unitInnerOnly reports whether idx (over n's variables) steps by exactly
// one element with the C loop variable inner: one of n's variables is
// bound to inner itself, idx is a sum with the term 1*v and no other
// mention of v, and no other variable's binding involves inner.
func (g *kernelGen) unitInnerOnly(n *loopir.Node, idx loopir.Expr, inner string) bool {
	word := regexp.MustCompile(`\b` + regexp.QuoteMeta(inner) + `\b`)
	v := ""
	for k, c := range g.varsOf(n) {
		switch {
		case c == inner:
			if v != "" {
				return false
			}
			v = k
		case word.MatchString(c):
			return false
		}
	}
	sum, ok := idx.(*loopir.Sum)
	if v == "" || !ok || !unitInner(idx, v) {
		return false
	}
	uses := 0
	for _, t := range sum.Terms {
		for _, f := range t.Factors {
			if _, data := f.(loopir.Indirect); !data && mentions(f, []string{v}) { // reduce_merge.go
				uses++
			}
		}
	}
	return uses == 1
}

// innerVar is n's variable bound to the C loop variable inner ("" if none).
func (g *kernelGen) innerVar(n *loopir.Node, inner string) string {
	for k, c := range g.varsOf(n) {
		if c == inner {
			return k
		}
	}
	return ""
}

// streamRow is checkedLoad's part in the row form: besides the first
// element's checks (already written), the row's last element against the
// buffer, and the row's address for the store.
func (g *kernelGen) streamRow(s loopir.Stmt, st *storage, at, ext value, node string) (value, bool) {
	rs := g.rs
	if rs == nil || rs.src != "" || s.Buffer != rs.load.Buffer || s.Index.String() != rs.load.Index.String() {
		return value{}, false
	}
	last := g.decl(tensor.Int64, fmt.Sprintf("%s + (%s - 1)", at.c, rs.elems))
	g.line("if (__builtin_expect(%s < 0 || %s >= %s, 0)) gcdbg_oob(\"%s\", \"the elements of %s\", %s, %s);", last.c, last.c, ext.c, node, sanitizeIdent(s.Buffer), last.c, ext.c)
	rs.src = "(" + st.c + " + " + at.c + ")"
	return value{"0", s.DType}, true
}

// streamStore is storeValue's part in the row form: the row copied whole.
func (g *kernelGen) streamStore(n *loopir.Node, mem *storage, idx string) bool {
	rs := g.rs
	if rs == nil || rs.node != n || rs.src == "" {
		return false
	}
	g.line("gcdbg_stream_bytes(%s + %s, %s, %s * (int64_t)sizeof(%s));", mem.c, idx, rs.src, rs.elems, g.stype(mem.dt))
	return true
}
