package stages

import (
	"fmt"

	"gcdbg/ir"
)

// In-place view methods (x.unsqueeze_(0), x.squeeze_(), x.squeeze_(1))
// change the shape and strides of x itself, not its data: every later use
// of x sees the view. So the call becomes the out-of-place view, and the
// captured x is rebound to it for the nodes after it (what PyTorch's
// functionalization does with a metadata mutation); views of x taken before
// keep their shape, writes through the rebound x reach x's storage as
// through any view. On a graph input (or a view of one) the caller's own
// tensor would change shape, which a compiled graph cannot hand back:
// refused, unless the view has self's shape and strides (x.squeeze_(d) of a
// dim that is not 1 changes nothing).

var inplaceViewMethods = map[string]string{"unsqueeze_": "unsqueeze", "squeeze_": "squeeze"}

func init() {
	for m := range inplaceViewMethods {
		composedFns["method:"+m] = (*normalizer).inplaceViewCall
	}
}

func (nz *normalizer) inplaceViewCall(n *ir.Node) error {
	if len(n.Args) == 0 {
		return fmt.Errorf("args: in-place %s needs a tensor", n.Target)
	}
	selfSrc, ok := n.Args[0].(*ir.Node)
	if !ok {
		return fmt.Errorf("args[0]: in-place %s needs a tensor", n.Target)
	}
	self, ok := nz.mapped[selfSrc].(*ir.Node)
	if !ok || self.Meta.Tensor == nil {
		return fmt.Errorf("args[0]: in-place %s changes %q, which is not a tensor", n.Target, selfSrc.Name)
	}
	plain := *n
	plain.Target = inplaceViewMethods[n.Target]
	d, al, ok := canonicalFor(&plain)
	if !ok {
		return unsupported(n)
	}
	d, args, err := bindAlias(&plain, d, al)
	if err != nil {
		return err
	}
	if err := nz.emit(n, d, args); err != nil {
		return err
	}
	v, _ := nz.mapped[n].(*ir.Node)
	if in := graphInputOf(self); in != nil && (v == nil || v.Meta.Tensor == nil ||
		!v.Meta.Tensor.Shape.Equal(self.Meta.Tensor.Shape) || !sameInts(v.Meta.Tensor.Stride, self.Meta.Tensor.Stride)) {
		return fmt.Errorf("args[0]: in-place %s on a graph input is not supported (out of scope, `gcdbg ops --coverage`): it changes the shape of graph input %q (an input metadata mutation), which gcdbg's compiled graph cannot hand back to the caller; apply it to a clone, or use the out-of-place x.%s(...)", n.Target, in.Name, inplaceViewMethods[n.Target])
	}
	nz.mapped[selfSrc] = v // later uses of x see the view
	return nil
}

// graphInputOf is the placeholder or get_attr x is (a view of), nil when x
// is computed in the graph.
func graphInputOf(x *ir.Node) *ir.Node {
	for x != nil {
		if x.Op == ir.Placeholder || x.Op == ir.GetAttr {
			return x
		}
		d := ir.Lookup(x.Target)
		if x.Op != ir.CallFunction || d == nil || d.Kind != ir.KindView || len(x.Args) == 0 {
			return nil
		}
		x, _ = x.Args[0].(*ir.Node)
	}
	return nil
}
