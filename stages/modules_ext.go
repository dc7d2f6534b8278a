package stages

import (
	"fmt"
	"sort"

	"gcdbg/ir"
)

// torch.nn modules of the op families in ir/ops_ext*.go. One-input modules
// join moduleRules; modules with several inputs (the losses) have their own
// table, moduleRulesN, which module() consults first.

func init() {
	simple := func(op string, names ...string) moduleRule {
		defs := map[string]ir.Arg{"alpha": 1.0, "negative_slope": 0.01, "beta": int64(1), "threshold": int64(20), "lambd": 0.5, "dim": int64(-1)}
		return func(m *ir.Module, x ir.Arg, p map[string]*ir.Node) (string, []ir.Arg, error) {
			args := []ir.Arg{x}
			for _, n := range names {
				args = append(args, attr(m, n, defs[n]))
			}
			if ip, _ := attr(m, "inplace", false).(bool); ip {
				if ir.Lookup("aten."+op+"_") == nil {
					return "", nil, fmt.Errorf("module.attrs.inplace: %s has no in-place form in gcdbg", op)
				}
				return op + "_", args, nil
			}
			return op, args, nil
		}
	}
	for k, v := range map[string]moduleRule{
		"torch.nn.Hardswish":   simple("hardswish"),
		"torch.nn.Hardsigmoid": simple("hardsigmoid"),
		"torch.nn.Mish":        simple("mish"),
		"torch.nn.SELU":        simple("selu"),
		"torch.nn.ELU":         simple("elu", "alpha"),
		"torch.nn.CELU":        simple("celu", "alpha"),
		"torch.nn.LeakyReLU":   simple("leaky_relu", "negative_slope"),
		"torch.nn.Softplus":    simple("softplus", "beta", "threshold"),
		"torch.nn.LogSigmoid":  simple("log_sigmoid"),
		"torch.nn.Softsign":    simple("softsign"),
		"torch.nn.Tanhshrink":  simple("tanhshrink"),
		"torch.nn.Hardshrink":  simple("hardshrink", "lambd"),
		"torch.nn.Softshrink":  simple("softshrink", "lambd"),
		"torch.nn.GLU":         simple("glu", "dim"),
		"torch.nn.ReLU6": func(m *ir.Module, x ir.Arg, p map[string]*ir.Node) (string, []ir.Arg, error) {
			return moduleHardtanhOp(m, x), []ir.Arg{x, 0.0, 6.0}, nil
		},
		"torch.nn.Hardtanh": func(m *ir.Module, x ir.Arg, p map[string]*ir.Node) (string, []ir.Arg, error) {
			return moduleHardtanhOp(m, x), []ir.Arg{x, attr(m, "min_val", -1.0), attr(m, "max_val", 1.0)}, nil
		},
		"torch.nn.PReLU": func(m *ir.Module, x ir.Arg, p map[string]*ir.Node) (string, []ir.Arg, error) {
			return "prelu", []ir.Arg{x, paramArg(p, "weight")}, nil
		},
	} {
		moduleRules[k] = v
	}
}

// moduleRuleN turns a module call with several inputs into one canonical
// call; args are the module call's own args (already captured-graph nodes
// or constants), params the get_attr nodes of its parameters and buffers.
type moduleRuleN func(m *ir.Module, args []ir.Arg, kwargs map[string]ir.Arg, p map[string]*ir.Node) (string, []ir.Arg, error)

// lossModule binds (input, target) and the module's attributes.
func lossModule(op string, tail func(m *ir.Module, p map[string]*ir.Node) []ir.Arg) moduleRuleN {
	return func(m *ir.Module, args []ir.Arg, kw map[string]ir.Arg, p map[string]*ir.Node) (string, []ir.Arg, error) {
		in, tg := args0(args, kw, 0, "input"), args0(args, kw, 1, "target")
		if in == nil || tg == nil {
			return "", nil, fmt.Errorf("args: %s takes (input, target)", op)
		}
		for _, a := range lossAttrs[op] {
			if _, ok := m.Attrs[a]; !ok {
				return "", nil, fmt.Errorf("module.attrs.%s: the trace does not record this loss module's %q; re-export with exporter/gcdbg_export.py, which records it", a, a)
			}
		}
		return op, append([]ir.Arg{in, tg}, tail(m, p)...), nil
	}
}

func args0(args []ir.Arg, kw map[string]ir.Arg, i int, name string) ir.Arg {
	if i < len(args) {
		return args[i]
	}
	return kw[name]
}

func red(m *ir.Module) ir.Arg { return attr(m, "reduction", "mean") }

// lossAttrs are the attributes a loss module's result depends on: a trace
// that lacks one (an exporter older than these modules) is refused rather
// than run with a guessed default.
var lossAttrs = map[string][]string{
	"mse_loss": {"reduction"}, "l1_loss": {"reduction"}, "smooth_l1_loss": {"reduction", "beta"},
	"huber_loss": {"reduction", "delta"}, "binary_cross_entropy": {"reduction"},
	"binary_cross_entropy_with_logits": {"reduction"}, "kl_div": {"reduction", "log_target"},
	"soft_margin_loss": {"reduction"}, "nll_loss": {"reduction", "ignore_index"},
	"cross_entropy": {"reduction", "ignore_index", "label_smoothing"},
}

var moduleRulesN = map[string]moduleRuleN{
	"torch.nn.MSELoss": lossModule("mse_loss", func(m *ir.Module, p map[string]*ir.Node) []ir.Arg { return []ir.Arg{red(m)} }),
	"torch.nn.L1Loss":  lossModule("l1_loss", func(m *ir.Module, p map[string]*ir.Node) []ir.Arg { return []ir.Arg{red(m)} }),
	"torch.nn.SmoothL1Loss": lossModule("smooth_l1_loss", func(m *ir.Module, p map[string]*ir.Node) []ir.Arg {
		return []ir.Arg{red(m), attr(m, "beta", 1.0)}
	}),
	"torch.nn.HuberLoss": lossModule("huber_loss", func(m *ir.Module, p map[string]*ir.Node) []ir.Arg {
		return []ir.Arg{red(m), attr(m, "delta", 1.0)}
	}),
	"torch.nn.BCELoss": lossModule("binary_cross_entropy", func(m *ir.Module, p map[string]*ir.Node) []ir.Arg {
		return []ir.Arg{paramArg(p, "weight"), red(m)}
	}),
	"torch.nn.BCEWithLogitsLoss": lossModule("binary_cross_entropy_with_logits", func(m *ir.Module, p map[string]*ir.Node) []ir.Arg {
		return []ir.Arg{paramArg(p, "weight"), red(m), paramArg(p, "pos_weight")}
	}),
	"torch.nn.KLDivLoss": lossModule("kl_div", func(m *ir.Module, p map[string]*ir.Node) []ir.Arg {
		return []ir.Arg{red(m), attr(m, "log_target", false)}
	}),
	"torch.nn.SoftMarginLoss": lossModule("soft_margin_loss", func(m *ir.Module, p map[string]*ir.Node) []ir.Arg { return []ir.Arg{red(m)} }),
	"torch.nn.NLLLoss": lossModule("nll_loss", func(m *ir.Module, p map[string]*ir.Node) []ir.Arg {
		return []ir.Arg{paramArg(p, "weight"), nil, attr(m, "ignore_index", int64(-100)), nil, red(m)}
	}),
	"torch.nn.CrossEntropyLoss": lossModule("cross_entropy", func(m *ir.Module, p map[string]*ir.Node) []ir.Arg {
		return []ir.Arg{paramArg(p, "weight"), nil, attr(m, "ignore_index", int64(-100)), nil, red(m), attr(m, "label_smoothing", 0.0)}
	}),
}

// moduleTypeN resolves long module type names (torch.nn.modules.loss.MSELoss).
func moduleTypeN(t string) (string, bool) {
	if _, ok := moduleRulesN[t]; ok {
		return t, true
	}
	for k := range moduleRulesN {
		short := k[len("torch.nn."):]
		if len(t) > len(short) && t[len(t)-len(short)-1:] == "."+short {
			return k, true
		}
	}
	return t, false
}

// moduleN rewrites a call of a module with several inputs.
func (nz *normalizer) moduleN(n *ir.Node, typ string) error {
	rule := moduleRulesN[typ]
	params := map[string]*ir.Node{}
	var locals []string
	for local := range n.Module.Params {
		locals = append(locals, local)
	}
	sort.Strings(locals)
	for _, local := range locals {
		q := n.Module.Params[local]
		td := nz.src.Tensors[q]
		if q == "" || td == nil {
			return fmt.Errorf("module.params.%s: %q has no tensor", local, q)
		}
		ga := &ir.Node{Name: nz.fresh(q), Op: ir.GetAttr, Target: q}
		tm := &ir.TensorMeta{DType: td.T.DType, Shape: ir.ShapeOf(td.T.Shape), Stride: td.T.Strides, RequiresGrad: td.RequiresGrad}
		ga.Meta.Tensor = tm
		nz.metas[ga] = tm
		if err := nz.add(ga, n); err != nil {
			return err
		}
		params[local] = ga
	}
	args := make([]ir.Arg, len(n.Args))
	for i, a := range n.Args {
		args[i] = nz.mapArg(a)
	}
	kw := map[string]ir.Arg{}
	for _, kv := range n.Kwargs {
		kw[kv.Name] = nz.mapArg(kv.Value)
	}
	op, cargs, err := rule(n.Module, args, kw, params)
	if err != nil {
		return fmt.Errorf("module (%s): %w", typ, err)
	}
	d := ir.Lookup("aten." + op)
	bound, err := d.Schema.Bind(cargs, nil)
	if err != nil {
		return fmt.Errorf("module (%s): %w", typ, err)
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

// Convolution, pooling, resampling and padding modules.
func init() {
	conv := func(op string, transposed bool) moduleRule {
		return func(m *ir.Module, x ir.Arg, p map[string]*ir.Node) (string, []ir.Arg, error) {
			if pm := attr(m, "padding_mode", "zeros"); pm != "zeros" {
				return "", nil, fmt.Errorf("module.attrs.padding_mode: %v is not supported (only 'zeros'); pad with F.pad(x, ..., mode=%v) and use padding=0", pm, pm)
			}
			if transposed {
				return op, []ir.Arg{x, paramArg(p, "weight"), paramArg(p, "bias"), attr(m, "stride", int64(1)), attr(m, "padding", int64(0)),
					attr(m, "output_padding", int64(0)), attr(m, "groups", int64(1)), attr(m, "dilation", int64(1))}, nil
			}
			return op, []ir.Arg{x, paramArg(p, "weight"), paramArg(p, "bias"), attr(m, "stride", int64(1)), attr(m, "padding", int64(0)),
				attr(m, "dilation", int64(1)), attr(m, "groups", int64(1))}, nil
		}
	}
	pad := func(mode string) moduleRule {
		return func(m *ir.Module, x ir.Arg, p map[string]*ir.Node) (string, []ir.Arg, error) {
			pads, ok := attr(m, "padding", nil).(ir.Tuple)
			if !ok {
				return "", nil, fmt.Errorf("module.attrs.padding: the trace does not record the padding; re-export with exporter/gcdbg_export.py")
			}
			var v ir.Arg
			if mode == "constant" {
				v = attr(m, "value", 0.0)
			}
			return "pad", []ir.Arg{x, pads, mode, v}, nil
		}
	}
	for k, v := range map[string]moduleRule{
		"torch.nn.Conv1d":          conv("conv1d", false),
		"torch.nn.Conv3d":          conv("conv3d", false),
		"torch.nn.ConvTranspose1d": conv("conv_transpose1d", true),
		"torch.nn.ConvTranspose2d": conv("conv_transpose2d", true),
		"torch.nn.MaxPool1d": func(m *ir.Module, x ir.Arg, p map[string]*ir.Node) (string, []ir.Arg, error) {
			return "max_pool1d", []ir.Arg{x, attr(m, "kernel_size", nil), attr(m, "stride", nil), attr(m, "padding", int64(0)),
				attr(m, "dilation", int64(1)), attr(m, "ceil_mode", false), attr(m, "return_indices", false)}, nil
		},
		"torch.nn.AvgPool1d": func(m *ir.Module, x ir.Arg, p map[string]*ir.Node) (string, []ir.Arg, error) {
			return "avg_pool1d", []ir.Arg{x, attr(m, "kernel_size", nil), attr(m, "stride", nil), attr(m, "padding", int64(0)),
				attr(m, "ceil_mode", false), attr(m, "count_include_pad", true)}, nil
		},
		"torch.nn.AdaptiveAvgPool1d": func(m *ir.Module, x ir.Arg, p map[string]*ir.Node) (string, []ir.Arg, error) {
			return "adaptive_avg_pool1d", []ir.Arg{x, attr(m, "output_size", nil)}, nil
		},
		"torch.nn.AdaptiveMaxPool1d": func(m *ir.Module, x ir.Arg, p map[string]*ir.Node) (string, []ir.Arg, error) {
			return "adaptive_max_pool1d", []ir.Arg{x, attr(m, "output_size", nil), attr(m, "return_indices", false)}, nil
		},
		"torch.nn.AdaptiveMaxPool2d": func(m *ir.Module, x ir.Arg, p map[string]*ir.Node) (string, []ir.Arg, error) {
			return "adaptive_max_pool2d", []ir.Arg{x, attr(m, "output_size", nil), attr(m, "return_indices", false)}, nil
		},
		"torch.nn.Upsample": func(m *ir.Module, x ir.Arg, p map[string]*ir.Node) (string, []ir.Arg, error) {
			return "interpolate", []ir.Arg{x, attr(m, "size", nil), attr(m, "scale_factor", nil), attr(m, "mode", "nearest"),
				attr(m, "align_corners", nil), attr(m, "recompute_scale_factor", nil)}, nil
		},
		"torch.nn.UpsamplingNearest2d": func(m *ir.Module, x ir.Arg, p map[string]*ir.Node) (string, []ir.Arg, error) {
			return "interpolate", []ir.Arg{x, attr(m, "size", nil), attr(m, "scale_factor", nil), "nearest"}, nil
		},
		"torch.nn.UpsamplingBilinear2d": func(m *ir.Module, x ir.Arg, p map[string]*ir.Node) (string, []ir.Arg, error) {
			return "interpolate", []ir.Arg{x, attr(m, "size", nil), attr(m, "scale_factor", nil), "bilinear", true}, nil
		},
		"torch.nn.PixelShuffle": func(m *ir.Module, x ir.Arg, p map[string]*ir.Node) (string, []ir.Arg, error) {
			return "pixel_shuffle", []ir.Arg{x, attr(m, "upscale_factor", nil)}, nil
		},
		"torch.nn.PixelUnshuffle": func(m *ir.Module, x ir.Arg, p map[string]*ir.Node) (string, []ir.Arg, error) {
			return "pixel_unshuffle", []ir.Arg{x, attr(m, "downscale_factor", nil)}, nil
		},
		"torch.nn.LocalResponseNorm": func(m *ir.Module, x ir.Arg, p map[string]*ir.Node) (string, []ir.Arg, error) {
			return "local_response_norm", []ir.Arg{x, attr(m, "size", nil), attr(m, "alpha", 1e-4), attr(m, "beta", 0.75), attr(m, "k", 1.0)}, nil
		},
		"torch.nn.ReflectionPad1d":  pad("reflect"),
		"torch.nn.ReflectionPad2d":  pad("reflect"),
		"torch.nn.ReflectionPad3d":  pad("reflect"),
		"torch.nn.ReplicationPad1d": pad("replicate"),
		"torch.nn.ReplicationPad2d": pad("replicate"),
		"torch.nn.ReplicationPad3d": pad("replicate"),
		"torch.nn.ZeroPad2d":        pad("constant"),
		"torch.nn.ConstantPad1d":    pad("constant"),
		"torch.nn.ConstantPad2d":    pad("constant"),
		"torch.nn.ConstantPad3d":    pad("constant"),
	} {
		moduleRules[k] = v
	}
	cell := func(op string) moduleRuleN {
		return func(m *ir.Module, args []ir.Arg, kw map[string]ir.Arg, p map[string]*ir.Node) (string, []ir.Arg, error) {
			x, hx := args0(args, kw, 0, "input"), args0(args, kw, 1, "hx")
			if x == nil || hx == nil {
				return "", nil, fmt.Errorf("args: %s without hx (the initial state) is not supported by gcdbg; pass it explicitly (torch.zeros(batch, hidden_size))", op)
			}
			if b, ok := m.Attrs["nonlinearity"]; ok && b != "tanh" {
				return "", nil, fmt.Errorf("module.attrs.nonlinearity: %v is not supported", b)
			}
			return op, []ir.Arg{x, hx, paramArg(p, "weight_ih"), paramArg(p, "weight_hh"), paramArg(p, "bias_ih"), paramArg(p, "bias_hh")}, nil
		}
	}
	moduleRulesN["torch.nn.GRUCell"] = cell("gru_cell")
	moduleRulesN["torch.nn.LSTMCell"] = cell("lstm_cell")
	moduleRulesN["torch.nn.CosineSimilarity"] = func(m *ir.Module, args []ir.Arg, kw map[string]ir.Arg, p map[string]*ir.Node) (string, []ir.Arg, error) {
		a, b := args0(args, kw, 0, "x1"), args0(args, kw, 1, "x2")
		if a == nil || b == nil {
			return "", nil, fmt.Errorf("args: CosineSimilarity takes (x1, x2)")
		}
		return "cosine_similarity", []ir.Arg{a, b, attr(m, "dim", int64(1)), attr(m, "eps", 1e-8)}, nil
	}
}

func init() {
	moduleRulesN["torch.nn.MultiheadAttention"] = func(m *ir.Module, args []ir.Arg, kw map[string]ir.Arg, p map[string]*ir.Node) (string, []ir.Arg, error) {
		q, k, v := args0(args, kw, 0, "query"), args0(args, kw, 1, "key"), args0(args, kw, 2, "value")
		if q == nil || k == nil || v == nil {
			return "", nil, fmt.Errorf("args: MultiheadAttention takes (query, key, value)")
		}
		if p["in_proj_weight"] == nil || p["out_proj.weight"] == nil {
			return "", nil, fmt.Errorf("module.params: MultiheadAttention without a packed in_proj_weight (kdim/vdim differ from embed_dim) or without out_proj.weight in the trace is not supported; re-export with exporter/gcdbg_export.py")
		}
		if d, _ := attr(m, "dropout", 0.0).(float64); d != 0 {
			tr, err := trainingFlag(m, fmt.Sprintf("MultiheadAttention(dropout=%g)", d)) // modules_train.go: never guessed
			if err != nil {
				return "", nil, err
			}
			if tr {
				return "", nil, fmt.Errorf("module.attrs.dropout: MultiheadAttention with dropout=%g in training draws random numbers gcdbg does not replay; use dropout=0 or eval()", d)
			}
		}
		for _, a := range []string{"num_heads", "batch_first"} {
			if _, ok := m.Attrs[a]; !ok {
				return "", nil, fmt.Errorf("module.attrs.%s: the trace does not record it; re-export with exporter/gcdbg_export.py", a)
			}
		}
		get := func(i int, name string, def ir.Arg) ir.Arg {
			if v := args0(args, kw, i, name); v != nil {
				return v
			}
			return def
		}
		return "multi_head_attention", []ir.Arg{q, k, v, attr(m, "num_heads", nil), paramArg(p, "in_proj_weight"), paramArg(p, "in_proj_bias"),
			paramArg(p, "out_proj.weight"), paramArg(p, "out_proj.bias"), get(3, "key_padding_mask", nil), get(4, "need_weights", true),
			get(5, "attn_mask", nil), get(6, "average_attn_weights", true), attr(m, "batch_first", false)}, nil
	}
}

func init() {
	moduleRulesN["torch.nn.EmbeddingBag"] = func(m *ir.Module, args []ir.Arg, kw map[string]ir.Arg, p map[string]*ir.Node) (string, []ir.Arg, error) {
		x := args0(args, kw, 0, "input")
		if x == nil {
			return "", nil, fmt.Errorf("args: EmbeddingBag takes (input, offsets=None, per_sample_weights=None)")
		}
		if v := attr(m, "max_norm", nil); v != nil {
			return "", nil, fmt.Errorf("module.attrs.max_norm: EmbeddingBag with max_norm=%v is not supported by gcdbg", v)
		}
		if v, _ := attr(m, "scale_grad_by_freq", false).(bool); v {
			return "", nil, fmt.Errorf("module.attrs.scale_grad_by_freq: not supported by gcdbg")
		}
		if _, ok := m.Attrs["mode"]; !ok {
			return "", nil, fmt.Errorf("module.attrs.mode: the trace does not record EmbeddingBag's mode; re-export with exporter/gcdbg_export.py")
		}
		return "embedding_bag", []ir.Arg{x, paramArg(p, "weight"), args0(args, kw, 1, "offsets"), attr(m, "mode", "mean"),
			args0(args, kw, 2, "per_sample_weights"), attr(m, "include_last_offset", false), attr(m, "padding_idx", nil)}, nil
	}
}

func init() {
	moduleRules["torch.nn.MaxPool3d"] = func(m *ir.Module, x ir.Arg, p map[string]*ir.Node) (string, []ir.Arg, error) {
		return "max_pool3d", []ir.Arg{x, attr(m, "kernel_size", nil), attr(m, "stride", nil), attr(m, "padding", int64(0)),
			attr(m, "dilation", int64(1)), attr(m, "ceil_mode", false), attr(m, "return_indices", false)}, nil
	}
	moduleRules["torch.nn.AvgPool3d"] = func(m *ir.Module, x ir.Arg, p map[string]*ir.Node) (string, []ir.Arg, error) {
		return "avg_pool3d", []ir.Arg{x, attr(m, "kernel_size", nil), attr(m, "stride", nil), attr(m, "padding", int64(0)),
			attr(m, "ceil_mode", false), attr(m, "count_include_pad", true), attr(m, "divisor_override", nil)}, nil
	}
	moduleRules["torch.nn.AdaptiveAvgPool3d"] = func(m *ir.Module, x ir.Arg, p map[string]*ir.Node) (string, []ir.Arg, error) {
		return "adaptive_avg_pool3d", []ir.Arg{x, attr(m, "output_size", nil)}, nil
	}
}

// moduleHardtanhOp is nn.Hardtanh's and nn.ReLU6's op (hardtanhOp), in
// place as the module says.
func moduleHardtanhOp(m *ir.Module, x ir.Arg) string {
	ip, _ := attr(m, "inplace", false).(bool)
	return hardtanhOp(x, ip)
}
