package trace

import (
	"strconv"

	"gcdbg/ir"
)

// expectedNoGrad reads expected.no_grad (the exporter's, optional): the
// placeholders and parameters requiring grad that PyTorch gave no
// gradient (None: nothing from them reaches an output that needs grad,
// e.g. a teacher run under torch.no_grad()). PyTorch's gradient there is
// zero by structure; the trace does not claim it with a zero tensor.
func (d *decoder) expectedNoGrad(o *object, g *ir.Graph, params map[string]bool, ex *ir.Expected) *Error {
	v, ok := o.get("no_grad")
	if !ok || v == nil {
		return nil
	}
	arr, ok := v.([]any)
	if !ok {
		return d.errf("expected.no_grad", "no_grad is %s, want a list of names", kind(v))
	}
	ex.NoGrad = map[string]bool{}
	for i, x := range arr {
		f := "expected.no_grad[" + strconv.Itoa(i) + "]"
		k, ok := x.(string)
		if !ok {
			return d.errf(f, "is %s, want a placeholder or parameter name", kind(x))
		}
		if !params[k] && !isPlaceholder(g, k) {
			return d.errf(f, "%q names no placeholder or parameter of this graph", k)
		}
		if ex.Grads[k] != nil {
			return d.errf(f, "%q has a gradient in expected.grads too", k)
		}
		ex.NoGrad[k] = true
	}
	return nil
}
