package render

import (
	"slices"
	"strconv"

	"gcdbg/loopir"
)

// Outputs that are inputs: the forward of a training graph returns the
// primals it saves for the backward (x, the weights), and the lowering
// gives each such output a buffer of its own, filled by a copy kernel (a
// whole weight matrix copied on every forward). Compiled kernels never
// write an input slot, so the manifest can name the input's slot as that
// output instead, and the copy kernel disappears.

// aliasInputOutputs drops the copies of a whole input, unchanged, into an
// output, and records the input each such output reads from: a kernel that
// is only that copy goes, and a copy the scheduler fused into a kernel
// reading the same input (a cross-entropy's saved logits, copied in the
// pass that takes their row max: 10 MB written per forward) leaves that
// kernel. Only the C dialect does it (its manifest outputs are slot
// numbers). A copy that another kernel reads too (a buffer's clone fed to
// a bmm and saved for the backward: MoCo's `self.queue.clone()`) stays:
// its readers name the copy's buffer, which would have no memory.
func (r *renderer) aliasInputOutputs() {
	if r.d.GlobalIdx != "" {
		return
	}
	readers := r.readerSets() // slice_scatter_fold.go
	var kept []*loopir.Kernel
	for _, k := range r.kernels {
		var nodes []*loopir.Node
		for _, c := range k.Nodes {
			if in, out, ok := r.inputCopy(c); ok && !readInKernel(k, out) && !readOutside(readers[out], k) {
				r.aliasOf[out] = in
				r.elide(out, "the input "+in+"'s slot is this output (alias.go)")
				delete(r.writer, out)
				continue
			}
			nodes = append(nodes, c)
		}
		switch {
		case len(nodes) == 0:
			continue
		case len(nodes) < len(k.Nodes):
			nk := *k
			nk.Nodes = nodes
			k = &nk
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

// readInKernel reports whether a node of k reads buf.
func readInKernel(k *loopir.Kernel, buf string) bool {
	for _, n := range k.Nodes {
		for _, d := range n.Reads {
			if d.Buffer == buf {
				return true
			}
		}
	}
	return false
}

// readOutside reports whether a node of a kernel other than k is among
// readers.
func readOutside(readers map[*loopir.Node]bool, k *loopir.Kernel) bool {
	for n := range readers {
		if !slices.Contains(k.Nodes, n) {
			return true
		}
	}
	return false
}

// inputCopy matches a node that is exactly out[i] = in[i] over the whole
// row-major extent of both, in an input and out an output of the same
// dtype and sizes (an input or a constant: neither is ever written).
func (r *renderer) inputCopy(c *loopir.Node) (string, string, bool) {
	if c.Kind != loopir.Pointwise || len(c.Body) != 2 || len(c.Writes) != 1 {
		return "", "", false
	}
	ld, st := c.Body[0], c.Body[1]
	if ld.Op != "load" || st.Op != "store" || len(st.Args) != 1 || st.Args[0] != ld.Dst {
		return "", "", false
	}
	in, out := r.p.Buffers[ld.Buffer], r.p.Buffers[st.Buffer]
	if in == nil || out == nil || (in.Kind != loopir.Input && in.Kind != loopir.Constant) || in.DType != out.DType ||
		!sameRanges(in.Sizes, out.Sizes) || !sameRanges(c.Ranges, out.Sizes) || ld.Index.String() != st.Index.String() {
		return "", "", false
	}
	isOut := false
	for _, o := range r.p.Outputs {
		isOut = isOut || o == out.Name
	}
	if !isOut || r.aliasOf[out.Name] != "" || !rowMajorIndex(st.Index, c.Ranges) {
		return "", "", false
	}
	return in.Name, out.Name, true
}

// rowMajorIndex reports whether idx is x0*(R1*R2...) + x1*(R2...) + ...
// over static ranges (a dimension of size 1 has no variable).
func rowMajorIndex(idx loopir.Expr, ranges []loopir.Expr) bool {
	rng, ok := constList(ranges)
	co, ok2 := linearCoeffs(idx)
	if !ok || !ok2 || co[""] != 0 {
		return false
	}
	stride, vars := int64(1), 0
	for i := len(rng) - 1; i >= 0; i-- {
		v := "x" + strconv.Itoa(i)
		if rng[i] != 1 {
			if co[v] != stride {
				return false
			}
			vars++
		}
		stride *= rng[i]
	}
	delete(co, "") // a lone variable's coefficients have no constant entry
	return len(co) == vars
}
