package stages

import (
	"fmt"

	"gcdbg/ir"
)

// The functional feature dropouts F.dropout1d and F.dropout3d. Both are
// ATen's feature_dropout (one draw per (sample, channel)) on a batched
// input of rank 3 and 5; an input of another rank is unsqueezed to a batch
// of one first and squeezed after (PyTorch 1.13's F.dropout3d does so for
// any rank but 5, F.dropout1d takes ranks 2 and 3 only), so its draw is one
// value per channel of dim 0. The training pass (training.go) replaces the
// feature_dropout by the recorded draw, which the trace holds in the
// captured node's (output) shape. F.dropout2d never unsqueezes: it is an
// alias of feature_dropout (normalize.go's table), as F.feature_alpha_dropout
// is of feature_alpha_dropout.

func init() {
	aliases["torch.nn.functional.dropout2d"] = alias{Op: "feature_dropout"}
	aliases["torch.nn.functional.feature_alpha_dropout"] = alias{Op: "feature_alpha_dropout"}
	for target := range featureDropoutFns {
		composedFns[target] = (*normalizer).featureDropoutCall
	}
}

var featureDropoutFns = map[string]struct {
	name    string
	batched int   // the rank of a batched input
	ranks   []int // the ranks PyTorch takes; nil: any
}{
	"torch.nn.functional.dropout1d": {"dropout1d", 3, []int{2, 3}},
	"torch.nn.functional.dropout3d": {"dropout3d", 5, nil},
}

// featureDropoutCall normalizes F.dropout1d and F.dropout3d.
func (nz *normalizer) featureDropoutCall(n *ir.Node) error {
	f := featureDropoutFns[n.Target]
	sc := sourceSchema(f.name + "(input, p=0.5, training=True, inplace=False)")
	vals, err := sc.Bind(n.Args, n.Kwargs)
	if err != nil {
		return err
	}
	x, ok := nz.mapArg(vals[0]).(*ir.Node)
	if !ok || x.Meta.Tensor == nil {
		return fmt.Errorf("args[0]: %s needs a tensor input", f.name)
	}
	rank := len(x.Meta.Tensor.Shape)
	if f.ranks != nil && !containsInt(f.ranks, rank) {
		return fmt.Errorf("args[0]: %s: Expected %s input, but received a %dD input", f.name, dimsText(f.ranks), rank)
	}
	fd := ir.Lookup("aten.feature_dropout")
	if rank == f.batched {
		return nz.emit(n, fd, []ir.Arg{vals[0], vals[1], vals[2], vals[3]})
	}
	u, err := nz.moduleCall(n, "aten.unsqueeze", x, int64(0))
	if err != nil {
		return err
	}
	d, err := nz.moduleCall(n, "aten.feature_dropout", u, nz.mapArg(vals[1]), nz.mapArg(vals[2]), false)
	if err != nil {
		return err
	}
	out, err := nz.moduleCall(n, "aten.squeeze", d, int64(0))
	if err != nil {
		return err
	}
	if inplace, _ := vals[3].(bool); inplace {
		if out, err = nz.moduleCall(n, "aten.copy_", x, out); err != nil {
			return err
		}
	}
	return nz.composedResult(n, out)
}
