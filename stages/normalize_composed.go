package stages

import "gcdbg/ir"

// composedFns normalize captured functions that become several canonical
// ops rather than one (F.dropout1d/3d: normalize_dropout.go,
// F.instance_norm: modules_norm.go), keyed by the captured target; each
// maps n to the node standing for its result. normalizer.call tries them
// before the one-op aliases.
var composedFns = map[string]func(nz *normalizer, n *ir.Node) error{}

// composedCall normalizes n when its target is one of composedFns.
func (nz *normalizer) composedCall(n *ir.Node) (bool, error) {
	f, ok := composedFns[n.Target]
	if n.Op != ir.CallFunction || !ok {
		return false, nil
	}
	return true, f(nz, n)
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
