package render

import (
	"fmt"

	"gcdbg/loopir"
	"gcdbg/tensor"
)

// noTypeHint says what to do about a dtype a dialect has no type for
// (float16, bfloat16 on the GPU dialects: only C stores them, narrow.go),
// while gcdbg's eager interpreter computes every dtype of the trace format
// as PyTorch does.
func noTypeHint(dt tensor.DType) string {
	return ": the GPU dialects compile bool, integer, float32 and float64 buffers only (--device cpu compiles " +
		dt.String() + " too); run this trace with --device cpu or --device eager " +
		"(gcdbg's interpreter computes " + dt.String() + ", rounding every op's result to it)"
}

// bufferOrigin names the graph value behind a buffer, " (node \"x\",
// target \"0.weight\")", or "" when the buffer has none.
func (r *renderer) bufferOrigin(b *loopir.Buffer) string {
	if b == nil || b.Node == "" || r.p.Graph == nil {
		return ""
	}
	n := r.irNode(b.Node)
	if n == nil || n.Target == "" || n.Target == n.Name {
		return fmt.Sprintf(" (graph node %q)", b.Node)
	}
	return fmt.Sprintf(" (graph node %q, target %q)", b.Node, n.Target)
}
