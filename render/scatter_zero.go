package render

import (
	"gcdbg/ir"
	"gcdbg/loopir"
)

// Zero tables consumed only by a generated scatter_add: an embedding's
// gradient is scatter_add(full(size, 0.0), 0, index, src), and the
// generated scatter_add writes the zeros of an all-zero self itself
// (scatter_extern.go) instead of reading them. The full's kernel then
// writes a buffer nobody reads (64 MB for a 32,000 x 512 table, 2.7 of
// embedding_train's 9.6 ms backward): when that scatter_add is the
// buffer's only reader and the buffer is no output, the full's kernel is
// dropped and its buffer gets no memory. Only the C dialect does it (as
// foldTransposedGEMMs: the SIMT dialect keeps its own extern paths).
func (r *renderer) elideZeroFulls() {
	if r.d.GlobalIdx != "" || r.p.Graph == nil {
		return
	}
	readers, outputs := r.readerSets(), r.outputSet()
	var kept []*loopir.Kernel
	for _, k := range r.kernels {
		if buf, ok := r.deadZeroFull(k, readers, outputs); ok {
			r.elide(buf, "all zeros, written by the scatter_add itself (scatter_zero.go)")
			delete(r.writer, buf)
			continue
		}
		kept = append(kept, k)
	}
	if len(kept) == len(r.kernels) {
		return
	}
	r.kernels = kept
	for ki, k := range r.kernels {
		for _, n := range k.Nodes {
			r.kindOf[n] = ki
		}
	}
}

// deadZeroFull matches a kernel that is exactly one pointwise node
// computing a full(size, +0.0) graph node into an intermediate buffer
// that is no output and whose only reader is a long-index scatter_add
// taking that full, unviewed, as its self (and as nothing else).
func (r *renderer) deadZeroFull(k *loopir.Kernel, readers map[string]map[*loopir.Node]bool, outputs map[string]bool) (string, bool) {
	if len(k.Nodes) != 1 {
		return "", false
	}
	n := k.Nodes[0]
	if n.Kind != loopir.Pointwise || len(n.Writes) != 1 || len(n.Reads) != 0 || len(n.Origins) != 1 {
		return "", false
	}
	buf := n.Writes[0].Buffer
	b := r.p.Buffers[buf]
	full := r.irNode(n.Origins[0])
	if b == nil || b.Kind != loopir.Intermediate || outputs[buf] || r.writer[buf] != n || full == nil || !zeroFull(full) {
		return "", false
	}
	if v := r.p.Values[full.Name]; v == nil || v.Buffer != buf {
		return "", false
	}
	if len(readers[buf]) != 1 {
		return "", false
	}
	for sc := range readers[buf] {
		if sc.Kind != loopir.Extern || sc.Op != "scatter_add" {
			return "", false
		}
		args, err := r.externArgs(sc)
		if err != nil || len(args) < 4 {
			return "", false
		}
		if self, ok := args[0].(*ir.Node); !ok || self.Name != full.Name {
			return "", false
		}
		for _, a := range args[1:] {
			if an, ok := a.(*ir.Node); ok {
				if v := r.p.Values[an.Name]; v == nil || v.Buffer == buf {
					return "", false
				}
			}
		}
	}
	return buf, true
}
