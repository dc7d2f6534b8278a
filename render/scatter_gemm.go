package render

import (
	"gcdbg/ir"
	"gcdbg/loopir"
)

// A tied embedding's gradient (GPT-2's LM head is the token embedding):
// the table's gradient is P + scatter_add(zeros, 0, ids, dX), P the LM
// head's weight gradient (an mm) and the scatter_add the embedding's. As
// rendered otherwise, the mm writes P (8 MB for gpt2_block's 8192 x 256
// table, transposed), the scatter_add writes 8 MB of zeros and adds dX's
// rows, and the add reads both and writes the sum: 2.4 ms of its backward
// for 1,024 rows of 256 ids. When the add is the only reader of both, P
// comes from an mm alone in its kernel, and the ids name whole rows
// (an index constant along dim 1), the mm writes the sum's buffer Z itself
// (transposed where the add read P transposed, as gemm_fold.go) and the
// scatter_add visits only the rows its ids name: each such row's src rows
// are summed from zero in index order, as the scatter_add adds them, and
// the sum is added to Z's row in the add's operand order; a row no id
// names is P + 0, which changes only a -0 (to +0). No zeros are written
// and no 8 MB buffer is read back. Only the C dialect does it.

// scatterIntoProduct is a scatter_add of zeros whose result an add only
// reads, with an mm product's, at every point: the kernel's two members,
// the product's mm, the add's output Z and which operand of the add the
// product is.
type scatterIntoProduct struct {
	scatter, add, mm *loopir.Node
	z                string
	productFirst     bool
}

// foldScatterAddsIntoGEMMs finds such kernels, makes each mm write its
// add's output and drops the product's and the scatter_add's buffers.
func (r *renderer) foldScatterAddsIntoGEMMs() {
	if r.d.GlobalIdx != "" || r.p.Graph == nil {
		return
	}
	readers, outputs := r.readersAndOutputs()
	for _, k := range r.kernels {
		sp, st, ok := r.matchScatterIntoProduct(k, readers, outputs)
		if !ok {
			continue
		}
		r.folded[sp.mm] = &st
		r.scatterAdds[sp.scatter] = sp
		r.elide(sp.mm.Name, "the GEMM writes "+sp.z+", to which the scatter_add adds its rows in place (scatter_gemm.go)")
		r.elide(sp.scatter.Name, "its rows are added to "+sp.z+" in place (scatter_gemm.go)")
	}
}

func (r *renderer) matchScatterIntoProduct(k *loopir.Kernel, readers map[string]int, outputs map[string]bool) (*scatterIntoProduct, gemmStore, bool) {
	var no gemmStore
	if len(k.Nodes) != 2 {
		return nil, no, false
	}
	sc, add := k.Nodes[0], k.Nodes[1]
	if sc.Kind != loopir.Extern || sc.Op != "scatter_add" || add.Kind != loopir.Pointwise || len(add.Writes) != 1 ||
		len(add.Body) != 4 || len(add.Ranges) != 2 || readers[sc.Name] != 1 || outputs[sc.Name] || r.folded[sc] != nil {
		return nil, no, false
	}
	args, err := r.externArgs(sc)
	if err != nil || len(args) < 4 || !zeroFull(args[0]) {
		return nil, no, false
	}
	if d, ok := args[1].(int64); !ok || d != 0 {
		return nil, no, false
	}
	ob := r.p.Buffers[sc.Name]
	ix, src := r.argView(args[2]), r.argView(args[3])
	if ob == nil || ix == nil || src == nil {
		return nil, no, false
	}
	obs, ok1 := constList(ob.Sizes)
	if !ok1 || len(obs) != 2 || len(ix.Sizes) != 2 || len(src.Sizes) != 2 ||
		(ob.DType.String() != "float32" && ob.DType.String() != "float64") {
		return nil, no, false
	}
	ixs, ok2 := constList(ix.Sizes)
	srcs, ok3 := constList(src.Sizes)
	if !ok2 || !ok3 || ixs[1] != obs[1] || srcs[0] < ixs[0] || srcs[1] != obs[1] ||
		(ixs[1] != 1 && ix.Strides[1].String() != "0") {
		return nil, no, false // the ids must name whole rows
	}
	// add: two loads, their sum, its store.
	b := add.Body
	if b[0].Op != "load" || b[1].Op != "load" || b[2].Op != "add" || b[3].Op != "store" || len(b[2].Args) != 2 ||
		len(b[3].Args) != 1 || b[3].Args[0] != b[2].Dst {
		return nil, no, false
	}
	var lx, ls loopir.Stmt
	productFirst := false
	switch {
	case b[0].Buffer == sc.Name && b[1].Buffer != sc.Name:
		ls, lx = b[0], b[1]
	case b[1].Buffer == sc.Name && b[0].Buffer != sc.Name:
		lx, ls = b[0], b[1]
	default:
		return nil, no, false
	}
	switch {
	case b[2].Args[0] == lx.Dst && b[2].Args[1] == ls.Dst:
		productFirst = true
	case b[2].Args[0] == ls.Dst && b[2].Args[1] == lx.Dst:
	default:
		return nil, no, false
	}
	rng, ok4 := constList(add.Ranges)
	if !ok4 || rng[0] != obs[0] || rng[1] != obs[1] || !isContiguousStore(ls.Index, obs, rng) {
		return nil, no, false
	}
	z := r.p.Buffers[b[3].Buffer]
	if z == nil || z.Kind == loopir.Input || z.Kind == loopir.Constant || z.DType != ob.DType || r.aliasOf[z.Name] != "" ||
		r.why[z.Name] != "" || r.writer[z.Name] != add || !isContiguousStore(b[3].Index, obs, rng) {
		return nil, no, false
	}
	if zs, ok := constList(z.Sizes); !ok || len(zs) != 2 || zs[0] != obs[0] || zs[1] != obs[1] {
		return nil, no, false
	}
	// The product: a lone mm's whole result, read by the add alone.
	x := r.p.Buffers[lx.Buffer]
	mm := r.writer[lx.Buffer]
	if x == nil || mm == nil || mm.Kind != loopir.Extern || mm.Op != "mm" || r.folded[mm] != nil ||
		readers[x.Name] != 1 || outputs[x.Name] || x.DType != z.DType {
		return nil, no, false
	}
	if mk := r.kernelOf(mm); mk == nil || len(mk.Nodes) != 1 {
		return nil, no, false
	}
	xs, ok5 := constList(x.Sizes)
	if !ok5 || len(xs) != 2 || xs[0]*xs[1] != obs[0]*obs[1] {
		return nil, no, false
	}
	rs, cs, ok := productStore(lx.Index, b[3].Index, rng, xs[0], xs[1])
	if !ok {
		return nil, no, false
	}
	return &scatterIntoProduct{scatter: sc, add: add, mm: mm, z: z.Name, productFirst: productFirst},
		gemmStore{buf: z.Name, rowStride: rs, colStride: cs}, true
}

// argView is the view of a tensor argument, nil for anything else.
func (r *renderer) argView(a ir.Arg) *loopir.View {
	n, ok := a.(*ir.Node)
	if !ok {
		return nil
	}
	return r.p.Values[n.Name]
}

// scatterAddIntoProduct renders kernel members folded by
// foldScatterAddsIntoGEMMs; false for any other kernel.
func (g *kernelGen) scatterAddIntoProduct(ext *loopir.Node) bool {
	sp := g.r.scatterAdds[ext]
	if sp == nil {
		return false
	}
	args := g.externArgs(ext)
	if args == nil {
		return true
	}
	ix, src := g.operand(args[2], "index"), g.operand(args[3], "src")
	zs := g.r.store[sp.z]
	if ix == nil || src == nil || zs == nil {
		g.fail("scatter_add %s: no index, src or output in memory", ext.Name)
		return true
	}
	g.use(sp.z)
	ob := g.r.p.Buffers[ext.Name]
	t, it := g.ctype(ob.DType), g.ctype(ix.DType)
	node := sanitizeIdent(ext.Name)
	if len(ext.Origins) > 0 {
		node = sanitizeIdent(ext.Origins[len(ext.Origins)-1]) + " (" + node + ")"
	}
	sum := func(z, acc string) string { // the add's operand order
		if sp.productFirst {
			return z + " + " + acc
		}
		return acc + " + " + z
	}
	g.line("{ /* %s: the scatter_add of zeros along dim 0 added to the product the GEMM wrote into Z: a row the ids name gets its src rows summed from zero in index order, then added; any other row gets + 0 (scatter_gemm.go) */", node)
	g.ind++
	g.line("const int64_t K = %s, NI = %s, NJ = %s;", g.e(ix.Sizes[0]), g.e(ob.Sizes[1]), g.e(ob.Sizes[0]))
	g.line("const %s *I = %s; const %s *X = %s; %s *Z = %s;", it, g.r.store[ix.Buffer].c, t, g.r.store[src.Buffer].c, t, zs.c)
	g.line("for (int64_t k = 0; k < K; k++) {")
	g.line("  const int64_t j = (int64_t)I[(%s) + k * (%s)];", g.e(ix.Offset), g.e(ix.Strides[0]))
	g.line("  if (__builtin_expect(j < 0 || j >= NJ, 0)) gcdbg_oob(\"%s\", \"an index of the scatter_add result along dim 0\", j, NJ);", node)
	g.line("}")
	// first[j]: the first k naming row j (-1: none); next[k]: the next k
	// naming the same row.
	g.line("int64_t *first = (int64_t *)malloc((NJ + K + 1) * sizeof(int64_t));")
	g.line("if (!first) { fprintf(stderr, \"gcdbg: node %s: out of memory for the row lists of %%lld ids\\n\", (long long)K); fflush(stderr); abort(); }", node)
	g.line("int64_t *next = first + NJ;")
	g.line("for (int64_t j = 0; j < NJ; j++) first[j] = -1;")
	g.line("for (int64_t k = K - 1; k >= 0; k--) {")
	g.line("  const int64_t j = (int64_t)I[(%s) + k * (%s)];", g.e(ix.Offset), g.e(ix.Strides[0]))
	g.line("  next[k] = first[j];")
	g.line("  first[j] = k;")
	g.line("}")
	g.line("#pragma omp parallel for if(NJ * NI > 32768)")
	g.line("for (int64_t j = 0; j < NJ; j++) {")
	g.ind++
	g.line("%s *z = Z + j * NI;", t)
	g.line("if (first[j] < 0) {")
	g.line("  #pragma omp simd")
	g.line("  for (int64_t i = 0; i < NI; i++) if (z[i] == 0) z[i] = %s;", sum("z[i]", "("+t+")0"))
	g.line("  continue;")
	g.line("}")
	g.line("for (int64_t b = 0; b < NI; b += 64) {")
	g.ind++
	g.line("const int64_t w = NI - b < 64 ? NI - b : 64;")
	g.line("%s acc[64];", t)
	g.line("for (int64_t i = 0; i < w; i++) acc[i] = (%s)0;", t)
	g.line("for (int64_t k = first[j]; k >= 0; k = next[k]) {")
	g.line("  #pragma omp simd")
	g.line("  for (int64_t i = 0; i < w; i++) acc[i] += X[(%s) + k * (%s) + (b + i) * (%s)];", g.e(src.Offset), g.e(src.Strides[0]), g.e(src.Strides[1]))
	g.line("}")
	g.line("#pragma omp simd")
	g.line("for (int64_t i = 0; i < w; i++) z[b + i] = %s;", sum("z[b + i]", "acc[i]"))
	g.ind--
	g.line("}")
	g.ind--
	g.line("}")
	g.line("free(first);")
	g.ind--
	g.line("}")
	return true
}
