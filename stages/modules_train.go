package stages

import (
	"fmt"
	"strings"

	"gcdbg/ir"
	"gcdbg/tensor"
	"gcdbg/trace"
)

// Modules whose forward depends on their training flag. The trace records
// each module's own flag (module.training); without it such a module is
// refused, naming the node: guessing eval or training gives wrong numbers
// silently.

// trainingFlag is the module's recorded training flag.
func trainingFlag(m *ir.Module, what string) (bool, error) {
	v, ok := m.Attrs[trace.TrainingAttr]
	if !ok {
		return false, fmt.Errorf("module.training: %s behaves differently in training and in eval mode, and the trace does not record which mode this module ran in; re-export with exporter/gcdbg_export.py, which records each module's training flag", what)
	}
	b, ok := v.(bool)
	if !ok {
		return false, fmt.Errorf("module.training: want true or false, got %s", argText(v))
	}
	return b, nil
}

func isBatchNorm(typ string) bool {
	switch typ {
	case "torch.nn.BatchNorm1d", "torch.nn.BatchNorm2d", "torch.nn.BatchNorm3d":
		return true
	}
	return false
}

// batchNormModule is torch.nn.modules.batchnorm._BatchNorm.forward:
//
//	if training and track_running_stats:
//	    num_batches_tracked.add_(1)
//	    factor = 1 / num_batches_tracked if momentum is None else momentum
//	batch_norm(x, running_mean, running_var, weight, bias,
//	           training or running stats are None, factor, eps)
//
// In training with running stats the batch_norm mutates them; the
// normalized stage's training pass (training.go) makes that explicit.
func (nz *normalizer) batchNormModule(n *ir.Node, typ string, p map[string]*ir.Node) error {
	m := n.Module
	short := strings.TrimPrefix(typ, "torch.nn.")
	training, err := trainingFlag(m, short)
	if err != nil {
		return err
	}
	x := nz.mapArg(n.Args[0])
	if xn, ok := x.(*ir.Node); ok && xn.Meta.Tensor != nil {
		want := map[string][]int{"BatchNorm1d": {2, 3}, "BatchNorm2d": {4}, "BatchNorm3d": {5}}[short]
		got := len(xn.Meta.Tensor.Shape)
		if !containsInt(want, got) {
			return fmt.Errorf("args[0]: %s expects a %s input, got %dD input", short, dimsText(want), got)
		}
	}
	rm, rv := p["running_mean"], p["running_var"]
	if (rm == nil) != (rv == nil) {
		return fmt.Errorf("module.params: running_mean and running_var must both be given or both be absent")
	}
	momentum := attr(m, "momentum", 0.1)
	if training && rm != nil {
		if nbt, err := nz.paramNode(n, "num_batches_tracked"); err != nil {
			return err
		} else if nbt != nil {
			inc, err := nz.moduleCall(n, "aten.add_", nbt, int64(1))
			if err != nil {
				return err
			}
			if momentum == nil { // cumulative moving average: 1 / num_batches_tracked
				f, err := nz.moduleCall(n, "aten.to_dtype", inc, tensor.Float64)
				if err != nil {
					return err
				}
				if momentum, err = nz.moduleCall(n, "aten.reciprocal", f); err != nil {
					return err
				}
			}
		}
	}
	if momentum == nil {
		momentum = 0.0 // PyTorch: exponential_average_factor = 0.0 when nothing is tracked
	}
	bnTraining := training || rm == nil
	args := []ir.Arg{x, paramArg(p, "running_mean"), paramArg(p, "running_var"), paramArg(p, "weight"), paramArg(p, "bias"),
		bnTraining, momentum, attr(m, "eps", 1e-5)}
	d := ir.Lookup("aten.batch_norm")
	bound, err := d.Schema.Bind(args, nil)
	if err != nil {
		return fmt.Errorf("module: %w", err)
	}
	c := &ir.Node{Name: n.Name, Op: ir.CallFunction, Target: d.Name, Args: d.Schema.Trim(bound), Meta: ir.Meta{Stack: n.Meta.Stack}}
	if err := nz.add(c, n); err != nil {
		return err
	}
	nz.mapped[n] = c
	if n.Meta.Tensor != nil && c.Meta.Tensor != nil {
		return checkMeta(n, c.Meta.Tensor)
	}
	return nil
}

// moduleCall appends op(args...) standing for captured module node n.
func (nz *normalizer) moduleCall(n *ir.Node, op string, args ...ir.Arg) (*ir.Node, error) {
	d := ir.Lookup(op)
	bound, err := d.Schema.Bind(args, nil)
	if err != nil {
		return nil, fmt.Errorf("module: %s: %w", op, err)
	}
	c := &ir.Node{Name: nz.fresh(n.Name + "_" + strings.TrimPrefix(op, "aten.")), Op: ir.CallFunction, Target: op,
		Args: d.Schema.Trim(bound), Meta: ir.Meta{Stack: n.Meta.Stack}}
	if err := nz.add(c, n); err != nil {
		return nil, err
	}
	return c, nil
}

func containsInt(xs []int, v int) bool {
	for _, x := range xs {
		if x == v {
			return true
		}
	}
	return false
}

func dimsText(xs []int) string {
	parts := make([]string, len(xs))
	for i, x := range xs {
		parts[i] = fmt.Sprintf("%dD", x)
	}
	return strings.Join(parts, " or ")
}

// featureDropoutModule is nn.Dropout1d/2d/3d on a batched input of rank
// dims: whole channels are zeroed (F.dropout1d/2d/3d, ATen's
// feature_dropout).
func featureDropoutModule(what string, dims int) moduleRule {
	return func(m *ir.Module, x ir.Arg, p map[string]*ir.Node) (string, []ir.Arg, error) {
		tr, err := trainingFlag(m, what)
		if err != nil {
			return "", nil, err
		}
		if xn, ok := x.(*ir.Node); ok && xn.Meta.Tensor != nil && len(xn.Meta.Tensor.Shape) != dims {
			return "", nil, fmt.Errorf("args[0]: %s on a %dD input: gcdbg takes batched %dD inputs only", what, len(xn.Meta.Tensor.Shape), dims)
		}
		return "feature_dropout", []ir.Arg{x, attr(m, "p", 0.5), tr, attr(m, "inplace", false)}, nil
	}
}
