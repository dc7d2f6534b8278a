package stages

import (
	"fmt"

	"gcdbg/ir"
)

// moduleRule turns one nn.Module call into canonical functional calls, as
// torch.nn's own forward methods do. params are get_attr nodes for the
// module's parameters and buffers (nil when the module has none of that name).
type moduleRule func(m *ir.Module, x ir.Arg, params map[string]*ir.Node) (op string, args []ir.Arg, err error)

func attr(m *ir.Module, name string, def ir.Arg) ir.Arg {
	if v, ok := m.Attrs[name]; ok {
		if l, isList := v.(ir.List); isList {
			return ir.Tuple(l)
		}
		return v
	}
	return def
}

func paramArg(p map[string]*ir.Node, name string) ir.Arg {
	if n := p[name]; n != nil {
		return n
	}
	return nil
}

var moduleRules = map[string]moduleRule{
	"torch.nn.Linear": func(m *ir.Module, x ir.Arg, p map[string]*ir.Node) (string, []ir.Arg, error) {
		return "linear", []ir.Arg{x, paramArg(p, "weight"), paramArg(p, "bias")}, nil
	},
	"torch.nn.Conv2d": func(m *ir.Module, x ir.Arg, p map[string]*ir.Node) (string, []ir.Arg, error) {
		if pm := attr(m, "padding_mode", "zeros"); pm != "zeros" {
			return "", nil, fmt.Errorf("module.attrs.padding_mode: %v is not supported (only 'zeros')", pm)
		}
		return "conv2d", []ir.Arg{x, paramArg(p, "weight"), paramArg(p, "bias"),
			attr(m, "stride", int64(1)), attr(m, "padding", int64(0)), attr(m, "dilation", int64(1)), attr(m, "groups", int64(1))}, nil
	},
	// BatchNorm1d/2d/3d: see modules_train.go (batchNormModule).
	"torch.nn.BatchNorm1d": nil,
	"torch.nn.BatchNorm2d": nil,
	"torch.nn.BatchNorm3d": nil,
	// GroupNorm, InstanceNorm1d/2d/3d: see modules_norm.go (composedNorm).
	"torch.nn.GroupNorm":      nil,
	"torch.nn.InstanceNorm1d": nil,
	"torch.nn.InstanceNorm2d": nil,
	"torch.nn.InstanceNorm3d": nil,
	"torch.nn.LayerNorm": func(m *ir.Module, x ir.Arg, p map[string]*ir.Node) (string, []ir.Arg, error) {
		return "layer_norm", []ir.Arg{x, attr(m, "normalized_shape", nil), paramArg(p, "weight"), paramArg(p, "bias"), attr(m, "eps", 1e-5)}, nil
	},
	"torch.nn.Embedding": func(m *ir.Module, x ir.Arg, p map[string]*ir.Node) (string, []ir.Arg, error) {
		mn := attr(m, "max_norm", nil)
		if _, ok := m.Attrs["norm_type"]; mn != nil && !ok {
			return "", nil, fmt.Errorf("module.attrs.norm_type: Embedding(max_norm=%s) without its norm_type in the trace; re-export with exporter/gcdbg_export.py", argText(mn))
		}
		if sg, _ := attr(m, "scale_grad_by_freq", false).(bool); sg {
			return "", nil, fmt.Errorf("module.attrs.scale_grad_by_freq: Embedding(scale_grad_by_freq=True) scales gradients by index frequency; gcdbg's derivative does not")
		}
		return "embedding", []ir.Arg{x, paramArg(p, "weight"), attr(m, "padding_idx", nil), mn, attr(m, "norm_type", 2.0)}, nil
	},
	"torch.nn.ReLU":    unaryModule("relu"),
	"torch.nn.SiLU":    unaryModule("silu"),
	"torch.nn.Tanh":    unaryModule("tanh"),
	"torch.nn.Sigmoid": unaryModule("sigmoid"),
	"torch.nn.GELU": func(m *ir.Module, x ir.Arg, p map[string]*ir.Node) (string, []ir.Arg, error) {
		return "gelu", []ir.Arg{x, attr(m, "approximate", "none")}, nil
	},
	"torch.nn.Softmax": func(m *ir.Module, x ir.Arg, p map[string]*ir.Node) (string, []ir.Arg, error) {
		d := attr(m, "dim", nil)
		if d == nil {
			return "", nil, fmt.Errorf("module.attrs.dim: Softmax without dim (implicit dim) is not supported")
		}
		return "softmax", []ir.Arg{x, d}, nil
	},
	"torch.nn.LogSoftmax": func(m *ir.Module, x ir.Arg, p map[string]*ir.Node) (string, []ir.Arg, error) {
		d := attr(m, "dim", nil)
		if d == nil {
			return "", nil, fmt.Errorf("module.attrs.dim: LogSoftmax without dim (implicit dim) is not supported")
		}
		return "log_softmax", []ir.Arg{x, d}, nil
	},
	"torch.nn.Dropout": func(m *ir.Module, x ir.Arg, p map[string]*ir.Node) (string, []ir.Arg, error) {
		tr, err := trainingFlag(m, "Dropout")
		if err != nil {
			return "", nil, err
		}
		return "dropout", []ir.Arg{x, attr(m, "p", 0.5), tr, attr(m, "inplace", false)}, nil
	},
	"torch.nn.AlphaDropout": func(m *ir.Module, x ir.Arg, p map[string]*ir.Node) (string, []ir.Arg, error) {
		tr, err := trainingFlag(m, "AlphaDropout")
		if err != nil {
			return "", nil, err
		}
		return "alpha_dropout", []ir.Arg{x, attr(m, "p", 0.5), tr, attr(m, "inplace", false)}, nil
	},
	"torch.nn.FeatureAlphaDropout": func(m *ir.Module, x ir.Arg, p map[string]*ir.Node) (string, []ir.Arg, error) {
		tr, err := trainingFlag(m, "FeatureAlphaDropout")
		if err != nil {
			return "", nil, err
		}
		return "feature_alpha_dropout", []ir.Arg{x, attr(m, "p", 0.5), tr, attr(m, "inplace", false)}, nil
	},
	"torch.nn.Dropout1d": featureDropoutModule("Dropout1d", 3),
	"torch.nn.Dropout2d": featureDropoutModule("Dropout2d", 4),
	"torch.nn.Dropout3d": featureDropoutModule("Dropout3d", 5),
	"torch.nn.Flatten": func(m *ir.Module, x ir.Arg, p map[string]*ir.Node) (string, []ir.Arg, error) {
		return "flatten", []ir.Arg{x, attr(m, "start_dim", int64(1)), attr(m, "end_dim", int64(-1))}, nil
	},
	"torch.nn.MaxPool2d": func(m *ir.Module, x ir.Arg, p map[string]*ir.Node) (string, []ir.Arg, error) {
		return "max_pool2d", []ir.Arg{x, attr(m, "kernel_size", nil), attr(m, "stride", nil), attr(m, "padding", int64(0)),
			attr(m, "dilation", int64(1)), attr(m, "ceil_mode", false), attr(m, "return_indices", false)}, nil
	},
	"torch.nn.AvgPool2d": func(m *ir.Module, x ir.Arg, p map[string]*ir.Node) (string, []ir.Arg, error) {
		return "avg_pool2d", []ir.Arg{x, attr(m, "kernel_size", nil), attr(m, "stride", nil), attr(m, "padding", int64(0)),
			attr(m, "ceil_mode", false), attr(m, "count_include_pad", true), attr(m, "divisor_override", nil)}, nil
	},
	"torch.nn.AdaptiveAvgPool2d": func(m *ir.Module, x ir.Arg, p map[string]*ir.Node) (string, []ir.Arg, error) {
		return "adaptive_avg_pool2d", []ir.Arg{x, attr(m, "output_size", nil)}, nil
	},
	"torch.nn.Identity": func(m *ir.Module, x ir.Arg, p map[string]*ir.Node) (string, []ir.Arg, error) {
		return "", []ir.Arg{x}, nil // no op: uses of the module read its input
	},
}

func unaryModule(op string) moduleRule {
	return func(m *ir.Module, x ir.Arg, p map[string]*ir.Node) (string, []ir.Arg, error) {
		if ip, _ := attr(m, "inplace", false).(bool); ip {
			return op + "_", []ir.Arg{x}, nil
		}
		return op, []ir.Arg{x}, nil
	}
}

// moduleAliases accepts the long type names (torch.nn.modules.linear.Linear).
func moduleType(t string) string {
	if _, ok := moduleRules[t]; ok {
		return t
	}
	for k := range moduleRules {
		short := k[len("torch.nn."):]
		if len(t) > len(short) && t[len(t)-len(short)-1:] == "."+short {
			return k
		}
	}
	return t
}

// module rewrites a call_module node: get_attr nodes for its parameters,
// then the functional call, all with the module node as provenance.
func (nz *normalizer) module(n *ir.Node) error {
	if n.Module == nil {
		return fmt.Errorf("module: call_module without its module")
	}
	typ := moduleType(n.Module.Type)
	if kind, ok := rnnModuleType(n.Module.Type); ok { // modules_rnn.go: LSTM, GRU, RNN unrolled into cells
		return nz.rnnModule(n, kind)
	}
	if t, ok := moduleTypeN(n.Module.Type); ok { // modules_ext.go: losses and other several-input modules
		return nz.moduleN(n, t)
	}
	rule, ok := moduleRules[typ]
	if !ok {
		return fmt.Errorf("module.type: unsupported module %q: gcdbg cannot run it, not even through its eager fallback (supported: %s)", n.Module.Type, supportedModules())
	}
	if len(n.Args) != 1 || len(n.Kwargs) != 0 {
		return fmt.Errorf("args: %s takes one input, got %d args and %d kwargs", typ, len(n.Args), len(n.Kwargs))
	}
	params := map[string]*ir.Node{}
	for _, local := range []string{"weight", "bias", "running_mean", "running_var"} {
		ga, err := nz.paramNode(n, local)
		if err != nil {
			return err
		}
		if ga != nil {
			params[local] = ga
		}
	}
	if isBatchNorm(typ) { // modules_train.go: the training flag, num_batches_tracked, momentum=None
		return nz.batchNormModule(n, typ, params)
	}
	if isComposedNorm(typ) { // modules_norm.go: GroupNorm, InstanceNorm1d/2d/3d
		return nz.composedNorm(n, typ, params)
	}
	x, mod, err := nz.convPadMode(n, typ, n.Args[0]) // modules_padmode.go: padding_mode reflect/replicate/circular
	if err != nil {
		return err
	}
	if pn, ok := x.(*ir.Node); ok && x != n.Args[0] {
		params["\x00padded input"] = pn // a new-graph node: mapArg must leave it
	}
	op, args, err := rule(mod, x, params)
	if err != nil {
		return err
	}
	if op == "" { // Identity
		nz.mapped[n] = nz.mapArg(args[0])
		return nil
	}
	d := ir.Lookup("aten." + op)
	bound, err := d.Schema.Bind(args, nil)
	if err != nil {
		return fmt.Errorf("module: %w", err)
	}
	// The get_attr nodes are already new-graph nodes; mapArg must leave them.
	for i, b := range bound {
		if pn, ok := b.(*ir.Node); ok && isNew(params, pn) {
			continue
		}
		bound[i] = nz.mapArg(b)
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

// paramNode adds a get_attr node for the module's parameter or buffer
// called local; nil when the module has none of that name.
func (nz *normalizer) paramNode(n *ir.Node, local string) (*ir.Node, error) {
	q, ok := n.Module.Params[local]
	if !ok || q == "" {
		return nil, nil
	}
	td := nz.src.Tensors[q]
	if td == nil {
		return nil, fmt.Errorf("module.params.%s: %q has no tensor", local, q)
	}
	// A module called more than once in a step (a GAN's discriminator on the
	// real and the fake batch, a siamese tower) updates its running stats
	// once per call, each update from the previous one's result: every call
	// reads and writes the same buffer node, so the in-place updates chain.
	stat := local == "running_mean" || local == "running_var" || local == "num_batches_tracked"
	if prev := nz.statNodes[q]; stat && prev != nil {
		return prev, nil
	}
	ga := &ir.Node{Name: nz.fresh(q), Op: ir.GetAttr, Target: q}
	if stat {
		if nz.statNodes == nil {
			nz.statNodes = map[string]*ir.Node{}
		}
		nz.statNodes[q] = ga
	}
	tm := &ir.TensorMeta{DType: td.T.DType, Shape: ir.ShapeOf(td.T.Shape), Stride: td.T.Strides, RequiresGrad: td.RequiresGrad}
	ga.Meta.Tensor = tm
	nz.metas[ga] = tm
	if err := nz.add(ga, n); err != nil {
		return nil, err
	}
	return ga, nil
}

func isNew(params map[string]*ir.Node, n *ir.Node) bool {
	for _, p := range params {
		if p == n {
			return true
		}
	}
	return false
}
