package render

import (
	"fmt"

	"gcdbg/ir"
	"gcdbg/loopir"
)

// Batched GEMMs (bmm) on the CPU: attention's QK^T and PV are 32 products
// of 128x128x64 (B=4 H=8 T=128 D=64). They ran one after the other, each
// split by OpenBLAS over both cores (a few microseconds of work per
// thread, then a barrier) or, chosen by measurement, all on one thread;
// then the epilogue (the scale and the causal mask) ran as a second pass
// over the whole 2 MB product, and PV's result was copied into the output
// by an identity epilogue. Now:
//
//   - the batches run on the OpenMP team, one single-threaded GEMM each
//     (as the convolutions' images do, conv.go), when there are enough of
//     them to share evenly (gcdbg_bmm_par); the "one thread" choice
//     (choice.go) still runs them all on the calling thread;
//   - the epilogue of batch bi runs right after its GEMM, on the same
//     thread, while the 64 KB product is in L1/L2 — when every access
//     of the product's storage by the epilogue is at the epilogue's own
//     point in row-major order (so batch bi's points read only batch bi's
//     product) and no epilogue store lands in the GEMMs' operands;
//   - an epilogue that only copies the whole product into another buffer
//     in the same row-major order (PV's view back to [B, H, T, D]; an mm's
//     too: a Linear on a 3-D input, t5_ffn's 8 MB output) is dropped and
//     the GEMM writes that buffer (foldCopyEpilogues).
//
// Each batch's product is the same BLAS call as before, so the values are
// bit-identical to the serial loop's. Measured on bench/models/attention.py
// (docs/performance.md, 2026-11-26).

// bmmPrelude decides at run time whether a bmm's batches go to the team.
const bmmPrelude = `
#include <omp.h>
/* Whether a bmm's nb batches run on the OpenMP team, one single-threaded
   GEMM each (render/gemm_batch.go): at least two, a team of two or more,
   not already inside a parallel region, and a share that is even (nb a
   multiple of the team) or at worst a quarter off (nb >= 4 x team). */
static inline int gcdbg_bmm_par(int64_t nb) {
  const int nt = omp_get_max_threads();
  return nb >= 2 && nt > 1 && !omp_in_parallel() && (nb % nt == 0 || nb >= 4 * (int64_t)nt);
}
`

// foldCopyEpilogues drops, from a kernel that is an mm/bmm and its
// epilogue, a member that copies the whole product unchanged and in
// row-major order into another buffer, when nothing else reads the
// product: the GEMM writes that buffer instead (the product's buffer is
// not allocated). Only the C dialect (the SIMT GEMM writes its own
// buffer).
func (r *renderer) foldCopyEpilogues() {
	if r.d.GlobalIdx != "" {
		return
	}
	readers, outputs := r.readersAndOutputs()
	for ki, k := range r.kernels {
		var ext *loopir.Node
		for _, n := range k.Nodes {
			if n.Kind == loopir.Extern {
				ext = n
			}
		}
		if ext == nil || (ext.Op != "mm" && ext.Op != "bmm") || r.folded[ext] != nil ||
			readers[ext.Name] != 1 || outputs[ext.Name] {
			continue
		}
		var drop *loopir.Node
		for _, c := range k.Nodes {
			if c != ext && r.productCopy(k, ext, c) {
				drop = c
				break
			}
		}
		if drop == nil {
			continue
		}
		y := drop.Body[1].Buffer
		xs, _ := constList(r.p.Buffers[ext.Name].Sizes)
		r.folded[ext] = &gemmStore{buf: y, rowStride: xs[len(xs)-1], colStride: 1, origins: drop.Origins}
		r.elide(ext.Name, "the GEMM writes "+y+" directly, its copy epilogue dropped (gemm_batch.go)")
		r.writer[y] = ext
		nk := *k
		nk.Nodes = without(k.Nodes, drop)
		r.kernels[ki] = &nk
		for _, n := range nk.Nodes {
			r.kindOf[n] = ki
		}
	}
}

// productCopy reports whether c (a member of k) is exactly y[p] = x[p] at
// every row-major point p of both, x the whole product of ext and y a
// buffer of the same dtype and element count that only c writes and no
// other member of k reads.
func (r *renderer) productCopy(k *loopir.Kernel, ext, c *loopir.Node) bool {
	if c.Kind != loopir.Pointwise || len(c.Body) != 2 || len(c.Writes) != 1 {
		return false
	}
	ld, st := c.Body[0], c.Body[1]
	if ld.Op != "load" || st.Op != "store" || len(st.Args) != 1 || st.Args[0] != ld.Dst || ld.Buffer != ext.Name {
		return false
	}
	x, y := r.p.Buffers[ext.Name], r.p.Buffers[st.Buffer]
	if x == nil || y == nil || x.DType != y.DType || r.writer[y.Name] != c || y.Kind == loopir.Input || y.Kind == loopir.Constant {
		return false
	}
	xn, ok1 := static(x.Sizes)
	yn, ok2 := static(y.Sizes)
	cn, ok3 := static(c.Ranges)
	if !ok1 || !ok2 || !ok3 || xn != yn || xn != cn || len(x.Sizes) < 2 {
		return false
	}
	if !rowMajorIndex(ld.Index, c.Ranges) || !rowMajorIndex(st.Index, c.Ranges) {
		return false
	}
	return !readInKernel(&loopir.Kernel{Nodes: without(k.Nodes, c)}, y.Name)
}

// bmmBatched writes a bmm kernel (the call and its epilogue members) with
// the batches on the OpenMP team and, when it may, the epilogue of each
// batch right after its GEMM. False (nothing written) where it does not
// apply; the caller then writes the plain call and epilogue nest.
func (g *kernelGen) bmmBatched(n *loopir.Node, members []*loopir.Node) bool {
	if n.Op != "bmm" || g.r.d.Name != "c" || !g.r.d.Entry || g.r.d.ParallelFor == "" {
		return false
	}
	ob := g.r.p.Buffers[n.Name]
	if ob == nil || len(ob.Sizes) != 3 || g.narrowExtern(n) != "" {
		return false
	}
	t := g.ctype(ob.DType)
	if t != "float" && t != "double" {
		return false
	}
	bound, err := g.r.externArgs(n)
	if err != nil || len(bound) < 2 {
		return false
	}
	for _, a := range bound[:2] {
		nd, ok := a.(*ir.Node)
		if !ok {
			return false
		}
		v := g.r.p.Values[nd.Name]
		if v == nil || g.r.store[v.Buffer] == nil || len(v.Sizes) != 3 {
			return false
		}
	}
	dst := n.Name
	if f := g.r.folded[n]; f != nil {
		if f.colStride != 1 {
			return false
		}
		dst = f.buf
	}
	out := g.r.store[dst]
	if out == nil {
		return false
	}
	a, b := g.operand(bound[0], "bmm self"), g.operand(bound[1], "bmm mat2")
	g.use(dst)
	inside := g.batchEpilogue(n, members, dst, ob, []string{a.Buffer, b.Buffer})
	M, N, K := g.e(a.Sizes[1]), g.e(b.Sizes[2]), g.e(a.Sizes[2])
	g.r.choiceOf(g.idx).threads = true
	one := fmt.Sprintf("(%s & %d)", choiceVar, choiceOneThread)
	g.line("{  /* batches on the OpenMP team, one single-threaded GEMM each (gemm_batch.go) */")
	g.ind++
	g.line("const int64_t gcdbg_nb = %s;", g.e(a.Sizes[0]))
	g.line("const int gcdbg_par = !%s && gcdbg_bmm_par(gcdbg_nb);", one)
	g.line("const int gcdbg_bt = %s || gcdbg_par ? gcdbg_blas_threads(1) : -1;", one)
	g.line("gcdbg_gemm_team = !%s && !gcdbg_par;", one)
	g.line("%s if(gcdbg_par)", g.r.d.ParallelFor)
	g.line("for (int64_t bi = 0; bi < gcdbg_nb; bi++) {")
	g.ind++
	g.line("%s(%s, %s, %s, %s + bi * %s, %s, %s, %s + bi * %s, %s, %s, %s + bi * %s * %s, %s);", g.gemmFn(t, false),
		M, N, K, g.ptr(a), g.e(a.Strides[0]), g.e(a.Strides[1]), g.e(a.Strides[2]),
		g.ptr(b), g.e(b.Strides[0]), g.e(b.Strides[1]), g.e(b.Strides[2]), out.c, M, N, N)
	if inside {
		names := loopNames("x", len(g.sp.outer))
		g.line("const %s %s = bi;  /* the epilogue of batch bi, while its product is in cache */", g.idxType(), names[0])
		g.openLoops(names[1:], g.sp.outer[1:], "", true)
		g.push()
		for _, m := range members {
			if g.inline[m.Name] == nil {
				g.emitMember(m)
			}
		}
		g.pop()
		g.closeLoops(len(names) - 1)
	}
	g.ind--
	g.line("}")
	g.line("gcdbg_gemm_team = 1;")
	g.line("if (gcdbg_bt > 1) gcdbg_blas_threads(gcdbg_bt);")
	g.ind--
	g.line("}")
	if !inside {
		g.pointwiseNest(members)
	}
	return true
}

// batchEpilogue reports whether the epilogue members may run per batch,
// inside the loop over the batches: the nest's first loop is the batch
// (g.sp.outer[0] is the product's first size), the members are pointwise
// over the product's points, vectorizable as a plain nest, every load or
// store of memory that overlaps the product's storage (dst) is at the
// member's own row-major point (so the points of batch bi touch only
// batch bi's product), and no store overlaps the GEMMs' operands (which
// other batches still read).
func (g *kernelGen) batchEpilogue(n *loopir.Node, members []*loopir.Node, dst string, ob *loopir.Buffer, operands []string) bool {
	o := g.sp.outer
	if len(o) < 2 || ob.Sizes[0].String() == "1" || o[0].String() != ob.Sizes[0].String() {
		return false
	}
	var emit []*loopir.Node
	for _, m := range members {
		if g.inline[m.Name] == nil {
			emit = append(emit, m)
		}
	}
	if len(emit) == 0 || !simdSafe(members) || g.transposed(members, emit) {
		return false
	}
	for _, m := range members {
		if m.Kind != loopir.Pointwise || numel(squeeze(m.Ranges)) != numel(o) {
			return false
		}
		for _, s := range m.Body {
			if s.Op != "load" && s.Op != "store" {
				continue
			}
			if (g.r.overlaps(s.Buffer, dst) || s.Buffer == n.Name) && !rowMajorIndex(s.Index, m.Ranges) {
				return false
			}
			if s.Op == "store" {
				for _, op := range operands {
					if g.r.overlaps(s.Buffer, op) {
						return false
					}
				}
			}
		}
	}
	return true
}

// overlaps reports whether buffers a and b may share memory: the same
// slot, and in the arena byte ranges that meet (any two arena buffers
// when a size is symbolic). A buffer without memory (computed in
// registers) overlaps nothing.
func (r *renderer) overlaps(a, b string) bool {
	sa, sb := r.store[a], r.store[b]
	if sa == nil || sb == nil {
		return false
	}
	if a == b {
		return true
	}
	if (sa.arena >= 0) != (sb.arena >= 0) {
		return false // one in the arena, the other a slot of its own
	}
	if sa.arena < 0 {
		return sa.slot == sb.slot
	}
	ba, bb := r.p.Buffers[a], r.p.Buffers[b]
	if ba == nil || bb == nil {
		return true
	}
	na, ok1 := static(ba.Sizes)
	nb, ok2 := static(bb.Sizes)
	if !ok1 || !ok2 {
		return true
	}
	ea, eb := sa.arena+na*int64(ba.DType.Size()), sb.arena+nb*int64(bb.DType.Size())
	return sa.arena < eb && sb.arena < ea
}
