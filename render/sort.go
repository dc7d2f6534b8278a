package render

import (
	"fmt"
	"strings"

	"gcdbg/ir"
	"gcdbg/loopir"
	"gcdbg/tensor"
)

// sort and topk as generated C rather than an eager fallback, so a program
// that sorts runs in one compiled piece. Each slice along the sort
// dimension (a "row"; the rows are independent, so they run in parallel
// when there are many points) is copied into per-thread scratch as
// (value, index) pairs, sorted stably — insertion sort for short rows, a
// bottom-up merge sort otherwise — and its first k pairs are stored.
// The order is PyTorch's: ties keep index order and NaN sorts above every
// number (last ascending, first descending). topk orders as ATen's topk
// does, which is not stable (topk.go).

// sortInsertionMax is the longest row sorted by insertion (fewer moves
// than merging at this size, and no ping-pong between scratch halves).
const sortInsertionMax = 32

// sortPlan is what both renderings need: the row length R, the kept k,
// the strides along the sort dimension (input sx, values so, indices si)
// and C lines that unravel row number rem into the row's offsets xo, vo, io.
type sortPlan struct {
	dim                  int
	desc, isFloat        bool
	R, K, NO, sx, so, si string
	unravel              []string
	ist                  *storage
}

func (g *kernelGen) sortPlan(n *loopir.Node, args []ir.Arg, x *loopir.View, ob *loopir.Buffer) (sortPlan, bool) {
	var sp sortPlan
	dimArg, dirArg := args[1], args[2]
	if n.Op == "topk" {
		dimArg, dirArg = args[2], args[3]
	}
	dim, ok1 := dimArg.(int64)
	desc, ok2 := dirArg.(bool)
	if !ok1 || !ok2 {
		g.fail("%s %s: dim and direction must be constants (got %v, %v)", n.Op, n.Name, dimArg, dirArg)
		return sp, false
	}
	if len(n.Writes) != 2 {
		g.fail("%s %s: expected 2 outputs (values, indices), got %d", n.Op, n.Name, len(n.Writes))
		return sp, false
	}
	ib := g.r.p.Buffers[n.Writes[1].Buffer]
	sp.ist = g.r.store[n.Writes[1].Buffer]
	if ib == nil || sp.ist == nil || ib.DType != tensor.Int64 {
		g.fail("%s %s: the indices output %s is not an int64 buffer in memory", n.Op, n.Name, n.Writes[1].Buffer)
		return sp, false
	}
	g.use(n.Writes[1].Buffer)
	rank := len(x.Sizes)
	if len(ob.Sizes) != rank || len(ib.Sizes) != rank {
		g.fail("%s %s: outputs have rank %d/%d, input %d", n.Op, n.Name, len(ob.Sizes), len(ib.Sizes), rank)
		return sp, false
	}
	d, err := tensor.NormDim(int(dim), rank)
	if err != nil {
		g.fail("%s %s: dim %d: %v", n.Op, n.Name, dim, err)
		return sp, false
	}
	sp.dim, sp.desc = d, desc
	sp.isFloat = ob.DType == tensor.Float32 || ob.DType == tensor.Float64 || ob.DType == tensor.Float16 || ob.DType == tensor.BFloat16
	// A 0-d tensor is one row of length 1.
	sp.R, sp.K, sp.sx, sp.so, sp.si = "1", "1", "0", "0", "0"
	if rank > 0 {
		sp.R, sp.K = g.e(x.Sizes[d]), g.e(ob.Sizes[d])
		sp.sx, sp.so, sp.si = g.e(x.Strides[d]), g.e(ob.Strides[d]), g.e(ib.Strides[d])
	}
	no := []string{"1"}
	// Unravel the row number over the other dimensions (last fastest).
	for i := rank - 1; i >= 0; i-- {
		if i == d {
			continue
		}
		no = append(no, "("+g.e(x.Sizes[i])+")")
		sp.unravel = append(sp.unravel, fmt.Sprintf("{ const %s c = rem %% (%s); rem /= (%s); xo += c * (%s); vo += c * (%s); io += c * (%s); }",
			g.idxType(), g.e(x.Sizes[i]), g.e(x.Sizes[i]), g.e(x.Strides[i]), g.e(ob.Strides[i]), g.e(ib.Strides[i])))
	}
	sp.NO = strings.Join(no, " * ")
	return sp, true
}

// sortExtern writes the sort/topk of n into its two outputs (values into
// out, int64 indices into the node's second write).
func (g *kernelGen) sortExtern(n *loopir.Node, args []ir.Arg, out *storage, ob *loopir.Buffer) {
	if n.Op == "topk" { // ATen's (unstable) order: topk.go
		g.topkExtern(n, args, out, ob)
		return
	}
	x := g.operand(args[0], n.Op+" self")
	if x == nil {
		return
	}
	sp, ok := g.sortPlan(n, args, x, ob)
	if !ok {
		return
	}
	t := g.ctype(ob.DType)
	before := func(a, b string) string { return sortBefore(a, b, sp.desc, sp.isFloat) }
	g.line("/* %s %s along dim %d (%s), stable; NaN above every number */", n.Op, n.Name, sp.dim, map[bool]string{true: "descending", false: "ascending"}[sp.desc])
	// Scratch: two halves of R pairs (merge sort ping-pongs between them).
	radix := ob.DType == tensor.Float32 && g.r.d.Name == "c"
	scratch := []string{
		fmt.Sprintf("%s *v = (%s *)malloc(2 * (R > 0 ? R : 1) * sizeof(%s));", t, t, t),
		"int64_t *ix = (int64_t *)malloc(2 * (R > 0 ? R : 1) * sizeof(int64_t));",
	}
	allocated, free := "v && ix", "free(v); free(ix);"
	if radix {
		scratch = append(scratch, "uint32_t *rk = (uint32_t *)malloc(4 * (R > 0 ? R : 1) * sizeof(uint32_t));")
		allocated, free = "v && ix && rk", "free(v); free(ix); free(rk);"
	}
	g.sortRows(sp, t, x, scratch, allocated, free, func() {
		if radix {
			g.radixRow(sp, out)
		}
		g.line("for (int64_t j = 0; j < R; j++) { v[j] = X[xo + j * (%s)]; ix[j] = j; }", sp.sx)
		g.line("%s *sv = v; int64_t *si = ix;", t)
		g.line("if (R <= %d) {", sortInsertionMax)
		g.line("  for (int64_t j = 1; j < R; j++) {")
		g.line("    const %s tv = v[j]; const int64_t ti = ix[j]; int64_t p = j - 1;", t)
		g.line("    while (p >= 0 && %s) { v[p + 1] = v[p]; ix[p + 1] = ix[p]; p--; }", before("tv", "v[p]"))
		g.line("    v[p + 1] = tv; ix[p + 1] = ti;")
		g.line("  }")
		g.line("} else {")
		// Bottom-up merge: runs of width w from (sv, si) into (dv, di); the
		// left run wins unless the right element is strictly before it.
		g.line("  %s *dv = v + R; int64_t *di = ix + R;", t)
		g.line("  for (int64_t w = 1; w < R; w *= 2) {")
		g.line("    for (int64_t lo = 0; lo < R; lo += 2 * w) {")
		g.line("      const int64_t mid = lo + w < R ? lo + w : R, hi = lo + 2 * w < R ? lo + 2 * w : R;")
		g.line("      int64_t a = lo, b = mid, c = lo;")
		g.line("      while (a < mid && b < hi) {")
		g.line("        if (%s) { dv[c] = sv[b]; di[c++] = si[b++]; } else { dv[c] = sv[a]; di[c++] = si[a++]; }", before("sv[b]", "sv[a]"))
		g.line("      }")
		g.line("      while (a < mid) { dv[c] = sv[a]; di[c++] = si[a++]; }")
		g.line("      while (b < hi) { dv[c] = sv[b]; di[c++] = si[b++]; }")
		g.line("    }")
		g.line("    %s *tv = sv; sv = dv; dv = tv; int64_t *ti = si; si = di; di = ti;", t)
		g.line("  }")
		g.line("}")
		g.line("for (int64_t j = 0; j < K; j++) { %s[vo + j * (%s)] = sv[j]; %s[io + j * (%s)] = si[j]; }", out.c, sp.so, sp.ist.c, sp.si)
		if radix {
			g.ind--
			g.line("}")
		}
	})
}

// sortRadixMin is the shortest float row sorted by radix: below it the
// merge sort's log2(R) passes cost less than the radix's four passes and
// histograms.
const sortRadixMin = 512

// radixRow opens, for a float32 row of at least sortRadixMin, a stable LSD
// radix sort of the row's indices by a 32-bit key, four passes of 8 bits
// (a pass whose digit is the same for every key is skipped), and stores
// the first K values (read back from X, so -0 and NaN payloads are the
// input's) and indices; shorter rows take the else branch the caller
// writes (insertion or merge sort). The key orders as PyTorch's sort
// does: the float's bits with the sign flipped (negative: all bits
// flipped), every NaN as +NaN (above +Inf), -0 as +0 (a tie with +0, kept
// in index order), and complemented for descending. The merge sort's
// branchy compare cost ~19 ms for 64 rows of 8192 (top-p filtering:
// review10 finding 11); the radix passes are branch-free.
func (g *kernelGen) radixRow(sp sortPlan, out *storage) {
	g.line("if (R >= %d && R < 2147483647) {", sortRadixMin)
	g.ind++
	g.line("uint32_t *k0 = rk, *k1 = rk + R, *i0 = rk + 2 * R, *i1 = rk + 3 * R;")
	g.line("int64_t cnt[4][256];")
	g.line("memset(cnt, 0, sizeof cnt);")
	g.line("for (int64_t j = 0; j < R; j++) {")
	g.line("  const float f = X[xo + j * (%s)];", sp.sx)
	g.line("  uint32_t u; memcpy(&u, &f, 4);")
	g.line("  if (f != f) u = 0x7fc00000u; else if (f == 0) u = 0;")
	g.line("  u = (u & 0x80000000u) ? ~u : (u | 0x80000000u);")
	if sp.desc {
		g.line("  u = ~u;")
	}
	g.line("  k0[j] = u; i0[j] = (uint32_t)j;")
	g.line("  cnt[0][u & 255]++; cnt[1][(u >> 8) & 255]++; cnt[2][(u >> 16) & 255]++; cnt[3][u >> 24]++;")
	g.line("}")
	g.line("for (int p = 0; p < 4; p++) {")
	g.line("  const int sh = 8 * p;")
	g.line("  if (cnt[p][(k0[0] >> sh) & 255] == R) continue; /* one digit for every key */")
	g.line("  int64_t pos[256], acc = 0;")
	g.line("  for (int d = 0; d < 256; d++) { pos[d] = acc; acc += cnt[p][d]; }")
	g.line("  for (int64_t j = 0; j < R; j++) { const uint32_t u = k0[j]; const int64_t q = pos[(u >> sh) & 255]++; k1[q] = u; i1[q] = i0[j]; }")
	g.line("  uint32_t *tk = k0; k0 = k1; k1 = tk; uint32_t *ti = i0; i0 = i1; i1 = ti;")
	g.line("}")
	g.line("for (int64_t j = 0; j < K; j++) { const int64_t q = i0[j]; %s[vo + j * (%s)] = X[xo + q * (%s)]; %s[io + j * (%s)] = q; }",
		out.c, sp.so, sp.sx, sp.ist.c, sp.si)
	g.ind--
	g.line("} else {")
	g.ind++
}

// sortRows writes the frame sort and topk (topk.go) run in: R, K, NO and
// the input X; per thread the scratch (its declarations, the condition
// that it was allocated, the line that frees it); one iteration per row
// with the row's offsets xo, vo, io unravelled from its number, in which
// body writes the row's work.
func (g *kernelGen) sortRows(sp sortPlan, t string, x *loopir.View, scratch []string, ok, free string, body func()) {
	g.line("{")
	g.ind++
	g.line("const int64_t R = %s, K = %s, NO = %s;", sp.R, sp.K, sp.NO)
	g.line("const %s *X = %s;", t, g.ptr(x))
	g.line("#pragma omp parallel if(NO > 1 && NO * R > 16384)")
	g.line("{")
	g.ind++
	for _, l := range scratch {
		g.line("%s", l)
	}
	g.line("if (%s) {", ok)
	g.ind++
	g.line("#pragma omp for")
	g.line("for (int64_t o = 0; o < NO; o++) {")
	g.ind++
	// Unravel the row number over the other dimensions (last fastest).
	g.line("int64_t rem = o, xo = 0, vo = 0, io = 0;")
	for _, l := range sp.unravel {
		g.line("%s", l)
	}
	body()
	g.ind--
	g.line("}")
	g.ind--
	g.line("}")
	g.line("%s", free)
	g.ind--
	g.line("}")
	g.ind--
	g.line("}")
}

// sortBefore is the C condition "a sorts strictly before b": for floats,
// NaN is above every number (x != x is NaN: the code is built without
// -ffast-math); descending swaps the operands.
func sortBefore(a, b string, desc, isFloat bool) string {
	if desc {
		a, b = b, a
	}
	if !isFloat {
		return fmt.Sprintf("(%s < %s)", a, b)
	}
	return fmt.Sprintf("(%s != %s ? %s == %s : %s < %s)", b, b, a, a, a, b)
}

// sortSIMT is sort/topk on the GPU with one thread per input element and
// no scratch memory: the element's place in its row is the number of
// elements that sort before it — strictly before, or equal and earlier
// (which is what makes it stable) — and it is stored there when that place
// is among the first k. O(R²) work per row, all of it parallel. The thread
// then runs the kernel's epilogue at the output point it wrote.
func (g *simtGen) sortSIMT(n *loopir.Node, args []ir.Arg, out *storage, ob *loopir.Buffer) {
	x := g.operand(args[0], n.Op+" self")
	if x == nil {
		return
	}
	sp, ok := g.sortPlan(n, args, x, ob)
	if !ok {
		return
	}
	t, it, d := g.ctype(ob.DType), g.idxType(), g.r.d
	g.launch = Launch{Shape: "pointwise", Units: g.r.sizeText(loopir.Mul(append([]loopir.Expr{loopir.C(1)}, x.Sizes...)...)), PerGroup: simtBlock, Block: simtBlock}
	g.line("/* %s %s along dim %d (%s), stable: each element counts the elements before it */", n.Op, n.Name, sp.dim, map[bool]string{true: "descending", false: "ascending"}[sp.desc])
	g.line("const %s R = %s, K = %s, NO = %s;", it, sp.R, sp.K, sp.NO)
	g.line("const %s *X = %s;", d.BufferQualifier+t, g.ptr(x))
	g.line("for (%s f = %s; f < NO * R; f += %s) {", it, d.GlobalIdx, d.GlobalSize)
	g.ind++
	g.line("const %s j = f %% R;", it)
	g.line("%s rem = f / R, xo = 0, vo = 0, io = 0;", it)
	for _, l := range sp.unravel {
		g.line("%s", l)
	}
	g.line("const %s xj = X[xo + j * (%s)];", t, sp.sx)
	g.line("%s r = 0;", it)
	g.line("for (%s i = 0; i < R; i++) {", it)
	g.line("  const %s xi = X[xo + i * (%s)];", t, sp.sx)
	g.line("  if (%s || (i < j && !%s)) r++;", sortBefore("xi", "xj", sp.desc, sp.isFloat), sortBefore("xj", "xi", sp.desc, sp.isFloat))
	g.line("}")
	g.line("if (r < K) {")
	g.ind++
	g.line("%s[vo + r * (%s)] = xj; %s[io + r * (%s)] = (%s)j;", out.c, sp.so, sp.ist.c, sp.si, g.ctype(tensor.Int64))
	g.epilogue(n, "(vo + r * ("+sp.so+"))")
	g.ind--
	g.line("}")
	g.ind--
	g.line("}")
}
