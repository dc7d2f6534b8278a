package stages

import (
	"fmt"

	"gcdbg/ir"
)

// composedFns normalize captured calls that become several canonical ops
// or rebind a name rather than map to one op (F.dropout1d/3d:
// normalize_dropout.go, F.instance_norm: modules_norm.go, the in-place view
// methods x.unsqueeze_: normalize_inplace_view.go), keyed by the captured
// target ("method:" and the name for a Tensor method); each maps n to the
// node standing for its result. normalizer.call tries them first.
var composedFns = map[string]func(nz *normalizer, n *ir.Node) error{}

// composedCall normalizes n when its target is one of composedFns.
func (nz *normalizer) composedCall(n *ir.Node) (bool, error) {
	key := n.Target
	switch n.Op {
	case ir.CallMethod:
		key = "method:" + n.Target
	case ir.CallFunction:
	default:
		return false, nil
	}
	f, ok := composedFns[key]
	if !ok {
		return false, nil
	}
	return true, f(nz, n)
}

func init() {
	// F.triplet_margin_with_distance_loss with its default distance
	// (distance_function=None: pairwise_distance, p = 2, eps = 1e-6) is
	// triplet_margin_loss; a callable distance is out of scope (gcdbg ops
	// --coverage), so this is no alias of the op.
	composedFns["torch.nn.functional.triplet_margin_with_distance_loss"] = func(nz *normalizer, n *ir.Node) error {
		al := alias{Op: "triplet_margin_loss",
			Schema: "triplet_margin_with_distance_loss(anchor, positive, negative, distance_function=None, margin=1.0, swap=False, reduction='mean')"}
		d, args, err := bindAlias(n, ir.Lookup("aten.triplet_margin_loss"), al)
		if err != nil {
			return fmt.Errorf("%w (a callable distance_function is out of scope: `gcdbg ops --coverage`)", err)
		}
		return nz.emit(n, d, args)
	}
}

// composedResult makes out stand for captured node n: it takes n's name and
// its meta is checked against the trace's.
func (nz *normalizer) composedResult(n, out *ir.Node) error {
	delete(nz.names, out.Name)
	out.Name = n.Name
	nz.mapped[n] = out
	if n.Meta.Tensor != nil && out.Meta.Tensor != nil {
		return checkMeta(n, out.Meta.Tensor)
	}
	return nil
}
