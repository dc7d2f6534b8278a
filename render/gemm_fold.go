package render

import (
	"gcdbg/loopir"
)

// Transposed GEMM results: a graph output that is the transpose of an mm
// result (the weight gradients of a Linear layer: mm(x^T, g) returned as
// its transpose) lowers to an mm into an intermediate and a pointwise
// kernel that copies it out transposed — a strided read of the whole
// matrix, the slowest kernel of the MLP's backward. When the copy is the
// intermediate's only reader, the GEMM writes the output directly with the
// transposed layout instead (C^T = B^T A^T: BLAS takes the swapped,
// transposed operands at no cost), and the copy kernel disappears.

// gemmStore is where a folded mm writes: buffer buf, element (i, j) of the
// product at buf[i*rowStride + j*colStride] (one of the two is 1).
type gemmStore struct {
	buf                  string
	rowStride, colStride int64
	origins              []string // the copy's nodes, now computed by the GEMM
}

// foldTransposedGEMMs finds (mm, transposing copy) pairs among r.kernels,
// drops the copy kernels and records where each mm writes. Only the C
// dialect does it (the SIMT GEMM writes row-major).
func (r *renderer) foldTransposedGEMMs() {
	if r.d.GlobalIdx != "" {
		return
	}
	readers, outputs := r.readersAndOutputs()
	var kept []*loopir.Kernel
	for _, k := range r.kernels {
		if ext, st, ok := r.transposingCopy(k, readers, outputs); ok {
			r.folded[ext] = &st
			r.elide(ext.Name, "the GEMM writes "+st.buf+" directly, transposed (gemm_fold.go)")
			r.writer[st.buf] = ext
			continue
		}
		kept = append(kept, k)
	}
	r.kernels = kept
	for ki, k := range r.kernels {
		for _, n := range k.Nodes {
			r.kindOf[n] = ki
		}
	}
}

// transposingCopy matches a kernel that is exactly out[...] = X[...] over
// two static dimensions, where X is the whole result of a lone mm kernel,
// read by nothing else, and out a graph output of the same dtype.
func (r *renderer) transposingCopy(k *loopir.Kernel, readers map[string]int, outputs map[string]bool) (*loopir.Node, gemmStore, bool) {
	var no gemmStore
	if len(k.Nodes) != 1 {
		return nil, no, false
	}
	c := k.Nodes[0]
	if c.Kind != loopir.Pointwise || len(c.Ranges) != 2 || len(c.Body) != 2 || len(c.Writes) != 1 {
		return nil, no, false
	}
	ld, stv := c.Body[0], c.Body[1]
	if ld.Op != "load" || stv.Op != "store" || len(stv.Args) != 1 || stv.Args[0] != ld.Dst {
		return nil, no, false
	}
	x, out := r.p.Buffers[ld.Buffer], r.p.Buffers[stv.Buffer]
	ext := r.writer[ld.Buffer]
	if x == nil || out == nil || ext == nil || ext.Kind != loopir.Extern || ext.Op != "mm" ||
		readers[x.Name] != 1 || outputs[x.Name] || !outputs[out.Name] || x.DType != out.DType ||
		r.folded[ext] != nil || len(x.Sizes) != 2 {
		return nil, no, false
	}
	if ek := r.kernelOf(ext); ek == nil || len(ek.Nodes) != 1 {
		return nil, no, false // an epilogue reads the product in place
	}
	rng, ok1 := constList(c.Ranges)
	xs, ok2 := constList(x.Sizes)
	osz, ok3 := constList(out.Sizes)
	if !ok1 || !ok2 || !ok3 || rng[0] < 2 || rng[1] < 2 {
		return nil, no, false
	}
	on := int64(1)
	for _, s := range osz {
		on *= s
	}
	if on != xs[0]*xs[1] || !isContiguousStore(stv.Index, osz, rng) {
		return nil, no, false
	}
	if rs, cs, ok := productStore(ld.Index, stv.Index, rng, xs[0], xs[1]); ok {
		return ext, gemmStore{buf: out.Name, rowStride: rs, colStride: cs, origins: c.Origins}, true
	}
	return nil, no, false
}

// productStore reads, for a loop over the two static ranges rng that loads
// the whole M x N product at index ld and stores at index st, where
// element (i, j) lands: at i*rs + j*cs of the stored buffer, laid out
// row-major as the product or as its transpose.
func productStore(ld, st loopir.Expr, rng []int64, M, N int64) (rs, cs int64, ok bool) {
	lc, ok4 := linearCoeffs(ld)
	sc, ok5 := linearCoeffs(st)
	if !ok4 || !ok5 || lc[""] != 0 || sc[""] != 0 {
		return 0, 0, false
	}
	// Loop variable a walks the product's rows (load coefficient N), b its
	// columns (coefficient 1); the store's coefficients are then where
	// element (i, j) lands in out.
	for _, ab := range [2][2]string{{"x0", "x1"}, {"x1", "x0"}} {
		a, b := ab[0], ab[1]
		if lc[a] != N || lc[b] != 1 || rangeOf(a, rng) != M || rangeOf(b, rng) != N {
			continue
		}
		rs, cs := sc[a], sc[b]
		if (rs == 1 && cs == M) || (cs == 1 && rs == N) {
			return rs, cs, true
		}
	}
	return 0, 0, false
}

func rangeOf(v string, rng []int64) int64 {
	if v == "x0" {
		return rng[0]
	}
	return rng[1]
}

// isContiguousStore reports whether idx is the row-major index of the
// nest's points (x0*R1 + x1), so the copy writes all of out exactly once.
func isContiguousStore(idx loopir.Expr, osz, rng []int64) bool {
	c, ok := linearCoeffs(idx)
	return ok && c[""] == 0 && c["x0"] == rng[1] && c["x1"] == 1
}

// linearCoeffs reads an affine index over loop variables as coefficient
// per variable ("" for the constant); false for anything else (symbols,
// floor division, modulo, products of variables).
func linearCoeffs(e loopir.Expr) (map[string]int64, bool) {
	out := map[string]int64{}
	switch x := e.(type) {
	case loopir.Const:
		out[""] = x.V
		return out, true
	case loopir.Var:
		out[x.Name] = 1
		return out, true
	case *loopir.Sum:
		out[""] = x.C
		for _, t := range x.Terms {
			if len(t.Factors) != 1 {
				return nil, false
			}
			v, ok := t.Factors[0].(loopir.Var)
			if !ok {
				return nil, false
			}
			out[v.Name] += t.K
		}
		return out, true
	}
	return nil, false
}

func (r *renderer) kernelOf(n *loopir.Node) *loopir.Kernel {
	if ki, ok := r.kindOf[n]; ok && ki < len(r.kernels) {
		return r.kernels[ki]
	}
	return nil
}

// readersAndOutputs counts the nodes reading each buffer (over r.kernels)
// and lists the program's outputs.
func (r *renderer) readersAndOutputs() (map[string]int, map[string]bool) {
	readers := map[string]int{}
	for _, k := range r.kernels {
		for _, n := range k.Nodes {
			for _, d := range n.Reads {
				readers[d.Buffer]++
			}
		}
	}
	return readers, r.outputSet()
}

// outputSet is the set of the program's outputs.
func (r *renderer) outputSet() map[string]bool {
	outputs := map[string]bool{}
	for _, o := range r.p.Outputs {
		outputs[o] = true
	}
	return outputs
}
