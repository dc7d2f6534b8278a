package render

import (
	"fmt"
	"strings"

	"gcdbg/ir"
	"gcdbg/loopir"
)

// topk in C orders each row as PyTorch's CPU topk does (ATen's
// topk_impl_loop: libstdc++'s std::partial_sort when k*64 <= n, else
// std::nth_element at k-1 then, when sorted, std::sort of the first k-1),
// which is not a stable order: among equal values it picks the indices
// these algorithms pick, and the gradient goes there. The steps are
// tensor/topk_order.go's (the interpreter's), in C: a row's positions q are
// reordered by the comparator on the row's values (widened to double, or
// int64 for integers; NaN ranks first when largest, last when smallest).

// topkOrderC is the ordering, instantiated per value type (@S@, @T@; @LT@
// is "x before y ascending" on x, y, NaN above every number).
const topkOrderC = `
typedef struct { const @T@ *v; int desc; int64_t *q; } gcdbg_topk_@S@_t;
static inline int gcdbg_topk_@S@_lt(const gcdbg_topk_@S@_t *c, int64_t a, int64_t b) {
  const @T@ x = c->desc ? c->v[b] : c->v[a], y = c->desc ? c->v[a] : c->v[b];
  return @LT@;
}
static void gcdbg_topk_@S@_adjust(const gcdbg_topk_@S@_t *c, int64_t first, int64_t hole, int64_t n, int64_t val) {
  int64_t *q = c->q;
  const int64_t top = hole;
  int64_t child = hole;
  while (child < (n - 1) / 2) {
    child = 2 * (child + 1);
    if (gcdbg_topk_@S@_lt(c, q[first + child], q[first + child - 1])) child--;
    q[first + hole] = q[first + child];
    hole = child;
  }
  if ((n & 1) == 0 && child == (n - 2) / 2) {
    child = 2 * (child + 1);
    q[first + hole] = q[first + child - 1];
    hole = child - 1;
  }
  for (int64_t parent = (hole - 1) / 2; hole > top && gcdbg_topk_@S@_lt(c, q[first + parent], val); parent = (hole - 1) / 2) {
    q[first + hole] = q[first + parent];
    hole = parent;
  }
  q[first + hole] = val;
}
static void gcdbg_topk_@S@_heapselect(const gcdbg_topk_@S@_t *c, int64_t first, int64_t middle, int64_t last) {
  int64_t *q = c->q;
  const int64_t n = middle - first;
  if (n >= 2) {
    for (int64_t parent = (n - 2) / 2;; parent--) {
      gcdbg_topk_@S@_adjust(c, first, parent, n, q[first + parent]);
      if (parent == 0) break;
    }
  }
  for (int64_t i = middle; i < last; i++) {
    if (gcdbg_topk_@S@_lt(c, q[i], q[first])) {
      const int64_t val = q[i];
      q[i] = q[first];
      gcdbg_topk_@S@_adjust(c, first, 0, n, val);
    }
  }
}
static void gcdbg_topk_@S@_sortheap(const gcdbg_topk_@S@_t *c, int64_t first, int64_t last) {
  int64_t *q = c->q;
  while (last - first > 1) {
    last--;
    const int64_t val = q[last];
    q[last] = q[first];
    gcdbg_topk_@S@_adjust(c, first, 0, last - first, val);
  }
}
static int64_t gcdbg_topk_@S@_partition(const gcdbg_topk_@S@_t *c, int64_t first, int64_t last) {
  int64_t *q = c->q, t;
  const int64_t a = first + 1, b = first + (last - first) / 2, d = last - 1;
  int64_t m;
  if (gcdbg_topk_@S@_lt(c, q[a], q[b])) m = gcdbg_topk_@S@_lt(c, q[b], q[d]) ? b : (gcdbg_topk_@S@_lt(c, q[a], q[d]) ? d : a);
  else m = gcdbg_topk_@S@_lt(c, q[a], q[d]) ? a : (gcdbg_topk_@S@_lt(c, q[b], q[d]) ? d : b);
  t = q[first]; q[first] = q[m]; q[m] = t;
  int64_t lo = first + 1, hi = last;
  for (;;) {
    while (gcdbg_topk_@S@_lt(c, q[lo], q[first])) lo++;
    hi--;
    while (gcdbg_topk_@S@_lt(c, q[first], q[hi])) hi--;
    if (lo >= hi) return lo;
    t = q[lo]; q[lo] = q[hi]; q[hi] = t;
    lo++;
  }
}
static void gcdbg_topk_@S@_linear(const gcdbg_topk_@S@_t *c, int64_t last) {
  int64_t *q = c->q;
  const int64_t val = q[last];
  for (int64_t next = last - 1; gcdbg_topk_@S@_lt(c, val, q[next]); next--) {
    q[last] = q[next];
    last = next;
  }
  q[last] = val;
}
static void gcdbg_topk_@S@_insertion(const gcdbg_topk_@S@_t *c, int64_t first, int64_t last) {
  int64_t *q = c->q;
  if (first == last) return;
  for (int64_t i = first + 1; i < last; i++) {
    if (gcdbg_topk_@S@_lt(c, q[i], q[first])) {
      const int64_t val = q[i];
      memmove(q + first + 1, q + first, (size_t)(i - first) * sizeof(int64_t));
      q[first] = val;
    } else {
      gcdbg_topk_@S@_linear(c, i);
    }
  }
}
static void gcdbg_topk_@S@_introsort(const gcdbg_topk_@S@_t *c, int64_t first, int64_t last, int depth) {
  while (last - first > 16) {
    if (depth == 0) {
      gcdbg_topk_@S@_heapselect(c, first, last, last);
      gcdbg_topk_@S@_sortheap(c, first, last);
      return;
    }
    depth--;
    const int64_t cut = gcdbg_topk_@S@_partition(c, first, last);
    gcdbg_topk_@S@_introsort(c, cut, last, depth);
    last = cut;
  }
}
/* q[0..k) := the row positions topk returns, in its order */
static __attribute__((unused)) void gcdbg_topk_@S@(const @T@ *v, int64_t n, int64_t k, int desc, int sorted, int64_t *q) {
  const gcdbg_topk_@S@_t c = {v, desc, q};
  for (int64_t j = 0; j < n; j++) q[j] = j;
  if (k == 0) return;
  if (k * 64 <= n) {
    gcdbg_topk_@S@_heapselect(&c, 0, k, n);
    gcdbg_topk_@S@_sortheap(&c, 0, k);
    return;
  }
  int64_t first = 0, last = n;
  const int64_t nth = k - 1;
  int depth = 2 * gcdbg_topk_lg(last - first), done = 0;
  while (last - first > 3) {
    if (depth == 0) {
      gcdbg_topk_@S@_heapselect(&c, first, nth + 1, last);
      const int64_t t = q[first]; q[first] = q[nth]; q[nth] = t;
      done = 1;
      break;
    }
    depth--;
    const int64_t cut = gcdbg_topk_@S@_partition(&c, first, last);
    if (cut <= nth) first = cut; else last = cut;
  }
  if (!done) gcdbg_topk_@S@_insertion(&c, first, last);
  if (sorted && k - 1 > 0) {
    gcdbg_topk_@S@_introsort(&c, 0, k - 1, 2 * gcdbg_topk_lg(k - 1));
    if (k - 1 > 16) {
      gcdbg_topk_@S@_insertion(&c, 0, 16);
      for (int64_t i = 16; i < k - 1; i++) gcdbg_topk_@S@_linear(&c, i);
    } else {
      gcdbg_topk_@S@_insertion(&c, 0, k - 1);
    }
  }
}
`

const topkLgC = `
static inline int gcdbg_topk_lg(int64_t n) { int l = -1; while (n) { l++; n >>= 1; } return l; }
`

// topkPrelude is the ordering's C when a kernel of the program runs topk.
func topkPrelude(r *renderer) string {
	for _, k := range r.kernels {
		for _, n := range k.Nodes {
			if n.Kind == loopir.Extern && n.Op == "topk" {
				return topkLgC +
					strings.NewReplacer("@S@", "f", "@T@", "double", "@LT@", "(y != y ? x == x : x < y)").Replace(topkOrderC) +
					strings.NewReplacer("@S@", "i", "@T@", "int64_t", "@LT@", "(x < y)").Replace(topkOrderC)
			}
		}
	}
	return ""
}

// topkExtern writes topk's values and int64 indices (its second write).
func (g *kernelGen) topkExtern(n *loopir.Node, args []ir.Arg, out *storage, ob *loopir.Buffer) {
	x := g.operand(args[0], n.Op+" self")
	if x == nil {
		return
	}
	sp, ok := g.sortPlan(n, args, x, ob)
	if !ok {
		return
	}
	sorted, ok := args[4].(bool)
	if !ok {
		g.fail("topk %s: sorted must be a constant (got %v)", n.Name, args[4])
		return
	}
	t, suf, wide := g.ctype(ob.DType), "i", "int64_t"
	if sp.isFloat {
		suf, wide = "f", "double"
	}
	g.line("/* topk %s along dim %d (%s), ATen's order (libstdc++'s nth_element/partial_sort; render/topk.go) */",
		n.Name, sp.dim, map[bool]string{true: "largest", false: "smallest"}[sp.desc])
	g.sortRows(sp, t, x, []string{
		fmt.Sprintf("%s *w = (%s *)malloc((R > 0 ? R : 1) * sizeof(%s));", wide, wide, wide),
		"int64_t *q = (int64_t *)malloc((R > 0 ? R : 1) * sizeof(int64_t));",
	}, "w && q", "free(w); free(q);", func() {
		g.line("for (int64_t j = 0; j < R; j++) w[j] = (%s)%s;", wide, g.loadExpr(g.r.p.Buffers[x.Buffer].DType, fmt.Sprintf("X[xo + j * (%s)]", sp.sx)))
		g.line("gcdbg_topk_%s(w, R, K, %d, %d, q);", suf, b2i(sp.desc), b2i(sorted))
		g.line("for (int64_t j = 0; j < K; j++) { %s[vo + j * (%s)] = X[xo + q[j] * (%s)]; %s[io + j * (%s)] = q[j]; }",
			out.c, sp.so, sp.sx, sp.ist.c, sp.si)
	})
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
