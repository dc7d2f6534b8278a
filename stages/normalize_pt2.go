package stages

import (
	"fmt"
	"strings"

	"gcdbg/ir"
)

// Aten-level graphs (AOTAutograd's, as PyTorch 2's torch.compile hands
// them to Inductor) call the fused normalizations that return their
// statistics beside the output: _native_batch_norm_legit_no_training →
// (out, save_mean, save_invstd). (native_layer_norm → (out, mean, rstd)
// is a canonical op of its own, ir/ops_loss.go, statistics included.)
// An inference graph reads item 0 only. normalize turns such a node into
// the canonical layer_norm / batch_norm (eval) and each getitem(node, 0)
// into that value; a graph reading a statistic (a training graph's
// backward does) is refused with the node named, never guessed.

type nativeTupleOp struct {
	op     string // the canonical op of item 0 (args bound by name; batch_norm gets training=False)
	schema string // the aten schema the node's args are written against
}

var nativeTupleOps = map[string]nativeTupleOp{
	"_native_batch_norm_legit_no_training": {op: "batch_norm",
		schema: "_native_batch_norm_legit_no_training(input, weight, bias, running_mean, running_var, momentum, eps)"},
}

// nativeTuple stands, in normalizer.mapped, for a native_* node: only its
// item 0 (first) exists in the canonical graph.
type nativeTuple struct {
	op    string
	first *ir.Node
}

// nativeTupleCall handles the aten native_* ops above and the getitems of
// them; handled is false for every other node.
func (nz *normalizer) nativeTupleCall(n *ir.Node) (handled bool, err error) {
	if n.Op != ir.CallFunction {
		return false, nil
	}
	if n.Target == "operator.getitem" && len(n.Args) == 2 {
		src, _ := n.Args[0].(*ir.Node)
		nt, ok := nz.mapped[src].(nativeTuple)
		if !ok {
			return false, nil
		}
		if i, isInt := n.Args[1].(int64); !isInt || i != 0 {
			return true, fmt.Errorf("args[1]: reads item %v of %s (its saved statistics, a training graph's): gcdbg reads only item 0, the output", n.Args[1], nt.op)
		}
		nz.mapped[n] = nt.first
		return true, nil
	}
	base, ok := strings.CutPrefix(n.Target, "torch.ops.aten.")
	if !ok {
		return false, nil
	}
	base, _, _ = strings.Cut(base, ".")
	spec, ok := nativeTupleOps[base]
	if !ok {
		return false, nil
	}
	d := ir.Lookup("aten." + spec.op)
	if d == nil {
		return true, fmt.Errorf("target: %s: no canonical %s", n.Target, spec.op)
	}
	src := sourceSchema(spec.schema)
	bound, err := src.Bind(n.Args, n.Kwargs)
	if err != nil {
		return true, fmt.Errorf("args: %s: %w", n.Target, err)
	}
	byName := map[string]ir.Arg{}
	for i, p := range src.Params {
		byName[p.Name] = bound[i]
	}
	args := make([]ir.Arg, len(d.Schema.Params))
	for i, p := range d.Schema.Params {
		if v, ok := byName[p.Name]; ok {
			args[i] = v
		} else {
			args[i] = p.Default
		}
	}
	if spec.op == "batch_norm" {
		args[paramIndex(d.Schema, "training", true)] = false
	}
	for i := range args {
		args[i] = nz.mapArg(args[i])
	}
	c := &ir.Node{Name: n.Name, Op: ir.CallFunction, Target: d.Name, Args: d.Schema.Trim(args), Meta: ir.Meta{Stack: n.Meta.Stack}}
	if err := nz.add(c, n); err != nil {
		return true, err
	}
	if len(n.Meta.Items) > 0 && n.Meta.Items[0] != nil && c.Meta.Tensor != nil {
		if err := checkMeta(&ir.Node{Name: n.Name, Meta: ir.Meta{Tensor: n.Meta.Items[0]}}, c.Meta.Tensor); err != nil {
			return true, err
		}
	}
	nz.mapped[n] = nativeTuple{op: base, first: c}
	return true, nil
}

func init() {
	// AOTAutograd writes the reshape of a matmul's result as _unsafe_view:
	// a view that skips the aliasing checks, the same values.
	aliases["aten:_unsafe_view"] = alias{Op: "view"}
}
