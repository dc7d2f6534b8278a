package stages

import (
	"fmt"
	"strings"

	"gcdbg/ir"
)

// out= arguments, as user code inside a compiled function writes them:
// `torch.abs(x, out=buf)` computes abs(x) and writes it into buf, whose
// value the call returns. Normalization makes that the functional op and a
// copy_ of its result into the buffer (for a tuple of buffers, one copy_ per
// item); functionalization then turns each copy_ into a new version of the
// buffer, a write-back when the buffer is a graph input — as Dynamo's
// functionalization does with out= ops.
//
// PyTorch resizes an out buffer of another shape (deprecated for a
// non-empty one) and computes some ops in the buffer's dtype (outDTypeOps,
// which gcdbg follows); otherwise gcdbg takes only buffers of the result's
// shape and dtype and refuses the others.

// outVariant handles a call with an out= keyword, and an in-place call
// gcdbg has only the out-of-place op for (inplaceByCopy); handled is false
// for any other call.
func (nz *normalizer) outVariant(n *ir.Node) (handled bool, err error) {
	if handled, err := nz.inplaceByCopy(n); handled {
		return true, err
	}
	at := -1
	for i, kv := range n.Kwargs {
		if kv.Name == "out" {
			at = i
		}
	}
	if at < 0 || (n.Op != ir.CallFunction && n.Op != ir.CallMethod) {
		return false, nil
	}
	var bufs []*ir.Node
	single := false
	switch b := n.Kwargs[at].Value.(type) {
	case *ir.Node:
		bufs, single = []*ir.Node{b}, true
	case ir.Tuple, ir.List:
		items, _ := b.(ir.Tuple)
		if l, ok := b.(ir.List); ok {
			items = ir.Tuple(l)
		}
		for i, it := range items {
			bn, ok := it.(*ir.Node)
			if !ok {
				return true, fmt.Errorf("kwargs.out[%d]: an out= buffer must be a tensor, not %s", i, ir.FormatArg(it, func(m *ir.Node) string { return m.Name }))
			}
			bufs = append(bufs, bn)
		}
	case nil:
		return false, nil // out=None: the plain call
	default:
		return true, fmt.Errorf("kwargs.out: an out= buffer must be a tensor or a tuple of tensors")
	}
	if len(bufs) == 0 {
		return true, fmt.Errorf("kwargs.out: an empty tuple of out= buffers")
	}
	// The functional call: the same node without out=, normalized as any.
	plain := *n
	plain.Kwargs = append(append([]ir.Kwarg(nil), n.Kwargs[:at]...), n.Kwargs[at+1:]...)
	plain.Meta.Tensor, plain.Meta.Items = nil, nil // the captured meta is the buffer's
	if single {
		plain.Kwargs = nz.outBufferDType(&plain, bufs[0])
	}
	if err := nz.call(&plain); err != nil {
		return true, err
	}
	res, ok := nz.mapped[&plain].(*ir.Node)
	if !ok {
		return true, fmt.Errorf("kwargs.out: %s does not compute a tensor node to write into the out= buffer", n.Target)
	}
	var results []*ir.TensorMeta
	switch {
	case single && res.Meta.Tensor != nil:
		results = []*ir.TensorMeta{res.Meta.Tensor}
	case !single && len(res.Meta.Items) == len(bufs):
		results = res.Meta.Items
	default:
		return true, fmt.Errorf("kwargs.out: %d out= buffer(s) for a call with %d tensor result(s)", len(bufs), max(len(res.Meta.Items), boolInt(res.Meta.Tensor != nil)))
	}
	var written ir.Tuple
	for i, b := range bufs {
		buf, ok := nz.mapped[b].(*ir.Node)
		if !ok || buf.Meta.Tensor == nil {
			return true, fmt.Errorf("kwargs.out[%d]: the out= buffer %q is not a tensor", i, b.Name)
		}
		bm, rm := buf.Meta.Tensor, results[i]
		if bm.DType != rm.DType || !bm.Shape.Equal(rm.Shape) {
			return true, fmt.Errorf("kwargs.out[%d]: an out= buffer %s%v for a result %s%v is not supported (PyTorch would resize or cast it; gcdbg takes buffers of the result's shape and dtype)",
				i, bm.DType, bm.Shape, rm.DType, rm.Shape)
		}
		src := res
		if !single {
			if src, err = nz.callFor(res, "aten.getitem", res, int64(i)); err != nil {
				return true, err
			}
		}
		cp, err := nz.callFor(res, "aten.copy_", buf, src)
		if err != nil {
			return true, err
		}
		written = append(written, cp)
	}
	if single {
		nz.mapped[n] = written[0]
	} else {
		nz.mapped[n] = written
	}
	return true, nil
}

// outDTypeOps are the reductions and scans whose result, without dtype=, has
// the out= buffer's dtype: their ATen meta functions take the result dtype
// from the out tensor (torch.cumsum(int8 x, 1, out=int8 buf) sums into int8,
// where torch.cumsum(x, 1) is int64).
var outDTypeOps = map[string]bool{"aten.cumsum": true, "aten.cumprod": true, "aten.sum": true, "aten.prod": true}

// outBufferDType returns plain's keyword arguments with dtype= the buffer's
// dtype for an op of outDTypeOps called without a dtype (keyword or
// positional), else plain's own.
func (nz *normalizer) outBufferDType(plain *ir.Node, buf *ir.Node) []ir.Kwarg {
	d, _, ok := canonicalFor(plain)
	if !ok || !outDTypeOps[d.Name] {
		return plain.Kwargs
	}
	bn, ok := nz.mapped[buf].(*ir.Node)
	if !ok || bn.Meta.Tensor == nil {
		return plain.Kwargs
	}
	for _, kv := range plain.Kwargs {
		if kv.Name == "dtype" {
			return plain.Kwargs
		}
	}
	for i, p := range d.Schema.Params {
		if p.Name == "dtype" && len(plain.Args) > i {
			return plain.Kwargs
		}
	}
	return append(append([]ir.Kwarg(nil), plain.Kwargs...), ir.Kwarg{Name: "dtype", Value: bn.Meta.Tensor.DType})
}

// inplaceByCopy handles an in-place call gcdbg has no in-place op for
// (`x.cos_()`, `torch.atan2_(x, y)`, where it has cos and atan2): the
// out-of-place op, then a copy_ of its result into self, which
// functionalization makes the new version of self. PyTorch computes an
// in-place op in the promoted dtype and casts the result to self's (it
// refuses the casts that lose a kind, float into int), as copy_ does; the
// result must have self's shape. Random ops are left to the canonical set,
// but for x.bernoulli_(p) (timm's drop_path: x.new_empty(shape).bernoulli_(keep)):
// ATen's bernoulli.p is empty_like(self).bernoulli_(p), so the in-place draw is
// bernoulli(x, p) copied into x, p defaulting to bernoulli_'s 0.5 (not x's
// values, which torch.bernoulli(x) without p would use); its draw replays as
// any bernoulli's (training.go).
func (nz *normalizer) inplaceByCopy(n *ir.Node) (handled bool, err error) {
	if (n.Op != ir.CallMethod && n.Op != ir.CallFunction) || !strings.HasSuffix(n.Target, "_") ||
		strings.HasSuffix(n.Target, "__") || len(n.Args) == 0 {
		return false, nil
	}
	if _, _, ok := canonicalFor(n); ok {
		return false, nil // gcdbg has the in-place op itself
	}
	plain := *n
	plain.Target = strings.TrimSuffix(n.Target, "_")
	d, _, ok := canonicalFor(&plain)
	if !ok || randomOps[d.Name] && d.Name != "aten.bernoulli" || d.Inplace {
		return false, nil // unsupported, as any unknown target
	}
	if d.Name == "aten.bernoulli" && len(n.Args) < 2 {
		if _, ok := n.Kwarg("p"); !ok {
			plain.Args = append(append([]ir.Arg(nil), n.Args...), 0.5)
		}
	}
	selfSrc, ok := n.Args[0].(*ir.Node)
	if !ok {
		return true, fmt.Errorf("args[0]: in-place %s mutates a constant, not a tensor", n.Target)
	}
	self, ok := nz.mapped[selfSrc].(*ir.Node)
	if !ok || self.Meta.Tensor == nil {
		return true, fmt.Errorf("args[0]: in-place %s mutates %q, which is not a tensor", n.Target, selfSrc.Name)
	}
	plain.Meta.Tensor, plain.Meta.Items = nil, nil
	if err := nz.call(&plain); err != nil {
		return true, err
	}
	res, ok := nz.mapped[&plain].(*ir.Node)
	if !ok || res.Meta.Tensor == nil {
		return true, fmt.Errorf("target: %s does not compute one tensor to write into self", plain.Target)
	}
	if !res.Meta.Tensor.Shape.Equal(self.Meta.Tensor.Shape) {
		return true, fmt.Errorf("args[0]: in-place %s of a %v tensor computes a %v result: PyTorch does not broadcast self", n.Target, self.Meta.Tensor.Shape, res.Meta.Tensor.Shape)
	}
	cp, err := nz.callFor(res, "aten.copy_", self, res)
	if err != nil {
		return true, err
	}
	nz.mapped[n] = cp
	if n.Meta.Tensor != nil {
		return true, checkMeta(n, cp.Meta.Tensor)
	}
	return true, nil
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
