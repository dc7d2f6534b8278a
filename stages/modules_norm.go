package stages

import (
	"fmt"
	"strings"

	"gcdbg/ir"
)

// GroupNorm and InstanceNorm modules, written with the canonical ops their
// ATen implementations reduce to, so every later stage (decompositions,
// derivatives, kernels) already knows them:
//
//   - GroupNorm(G): reshape x [N, C, *] to [N, G, K], layer_norm over the
//     last dim without affine, reshape back, then x * weight + bias per
//     channel (ATen's native_group_norm computes the same statistics).
//   - InstanceNorm with input statistics: layer_norm over the spatial
//     dims, then the affine; in training with running stats, ATen's own
//     formulation: batch_norm(training) of x viewed [1, N*C, *] with the
//     running stats repeated N times, then each running stat is the mean
//     over N of the repeated ones (at::instance_norm), written back with
//     copy_ (the functional stage makes them write-backs).
//   - InstanceNorm in eval mode with running stats: the same formulation
//     with batch_norm in eval mode; at::instance_norm still copies the mean
//     of the repeated stats back (a write-back of equal values, which
//     PyTorch counts as a mutation too).

func isComposedNorm(typ string) bool {
	switch typ {
	case "torch.nn.GroupNorm", "torch.nn.InstanceNorm1d", "torch.nn.InstanceNorm2d", "torch.nn.InstanceNorm3d":
		return true
	}
	return false
}

func (nz *normalizer) composedNorm(n *ir.Node, typ string, p map[string]*ir.Node) error {
	x, ok := nz.mapArg(n.Args[0]).(*ir.Node)
	if !ok || x.Meta.Tensor == nil {
		return fmt.Errorf("args[0]: %s needs a tensor input", typ)
	}
	shape := x.Meta.Tensor.Shape.Sizes()
	short := strings.TrimPrefix(typ, "torch.nn.")
	var out *ir.Node
	var err error
	if short == "GroupNorm" {
		out, err = nz.groupNorm(n, x, shape, p)
	} else {
		out, err = nz.instanceNorm(n, short, x, shape, p)
	}
	if err != nil {
		return err
	}
	return nz.composedResult(n, out)
}

func (nz *normalizer) groupNorm(n *ir.Node, x *ir.Node, shape []int, p map[string]*ir.Node) (*ir.Node, error) {
	m := n.Module
	g, ok := attr(m, "num_groups", nil).(int64)
	if !ok || g <= 0 {
		return nil, fmt.Errorf("module.attrs.num_groups: want a positive int, got %s", argText(attr(m, "num_groups", nil)))
	}
	if len(shape) < 2 {
		return nil, fmt.Errorf("args[0]: GroupNorm expects an input of at least 2 dims [N, C, *], got %v", shape)
	}
	C := shape[1]
	if C%int(g) != 0 {
		return nil, fmt.Errorf("args[0]: Expected number of channels in input to be divisible by num_groups, but got input of shape %v and num_groups=%d", shape, g)
	}
	k := numelOf(shape[1:]) / int(g)
	r, err := nz.moduleCall(n, "aten.reshape", x, sizesArg([]int{shape[0], int(g), k}))
	if err != nil {
		return nil, err
	}
	if r, err = nz.moduleCall(n, "aten.layer_norm", r, sizesArg([]int{k}), nil, nil, attr(m, "eps", 1e-5)); err != nil {
		return nil, err
	}
	if r, err = nz.moduleCall(n, "aten.reshape", r, sizesArg(shape)); err != nil {
		return nil, err
	}
	return nz.channelAffine(n, r, shape, nodeArg(p["weight"]), nodeArg(p["bias"]))
}

// channelAffine is y * weight + bias with [C] parameters viewed [C, 1, ...]
// (either may be None).
func (nz *normalizer) channelAffine(n *ir.Node, y *ir.Node, shape []int, weight, bias ir.Arg) (*ir.Node, error) {
	pshape := make([]int, len(shape)-1)
	for i := range pshape {
		pshape[i] = 1
	}
	pshape[0] = shape[1]
	var err error
	for _, s := range []struct {
		w  ir.Arg
		op string
	}{{weight, "aten.mul"}, {bias, "aten.add"}} {
		w := s.w
		if w == nil {
			continue
		}
		pv := ir.Arg(w)
		if len(pshape) > 1 {
			if pv, err = nz.moduleCall(n, "aten.view", w, sizesArg(pshape)); err != nil {
				return nil, err
			}
		}
		if y, err = nz.moduleCall(n, s.op, y, pv); err != nil {
			return nil, err
		}
	}
	return y, nil
}

func (nz *normalizer) instanceNorm(n *ir.Node, short string, x *ir.Node, shape []int, p map[string]*ir.Node) (*ir.Node, error) {
	m := n.Module
	want := map[string]int{"InstanceNorm1d": 3, "InstanceNorm2d": 4, "InstanceNorm3d": 5}[short]
	if len(shape) != want {
		return nil, fmt.Errorf("args[0]: %s expects a %dD (batched) input, got %dD input", short, want, len(shape))
	}
	rm, rv := p["running_mean"], p["running_var"]
	if (rm == nil) != (rv == nil) {
		return nil, fmt.Errorf("module.params: running_mean and running_var must both be given or both be absent")
	}
	training := true
	if rm != nil { // with running stats the forward depends on the mode
		var err error
		if training, err = trainingFlag(m, short); err != nil {
			return nil, err
		}
	}
	momentum := attr(m, "momentum", 0.1)
	if rm != nil && momentum == nil {
		return nil, fmt.Errorf("module.attrs.momentum: %s with momentum=None is not supported", short)
	}
	return nz.instanceNormOf(n, x, shape, nodeArg(rm), nodeArg(rv), nodeArg(p["weight"]), nodeArg(p["bias"]), training, momentum, attr(m, "eps", 1e-5))
}

// nodeArg is n as an argument: None when n is nil.
func nodeArg(n *ir.Node) ir.Arg {
	if n == nil {
		return nil
	}
	return n
}

// instanceNormOf is at::instance_norm(x, w, b, rm, rv, useInputStats,
// momentum, eps) on x [N, C, *] standing for captured node n: without
// running stats, layer_norm over the spatial dims; with them, batch_norm of
// x viewed [1, N*C, *] with the stats repeated N times (in training mode
// when useInputStats), each running stat then overwritten with the mean
// over N of its repeated copy; then the per-channel affine.
func (nz *normalizer) instanceNormOf(n *ir.Node, x *ir.Node, shape []int, rm, rv, w, b ir.Arg, useInputStats bool, momentum, eps ir.Arg) (*ir.Node, error) {
	if len(shape) < 2 {
		return nil, fmt.Errorf("args[0]: instance_norm expects an input [N, C, *], got shape %v", shape)
	}
	N, C := shape[0], shape[1]
	rmn, _ := rm.(*ir.Node)
	rvn, _ := rv.(*ir.Node)
	if (rm != nil && rmn == nil) || (rv != nil && rvn == nil) {
		return nil, fmt.Errorf("args: running_mean and running_var must be tensors or None")
	}
	if rmn == nil || rvn == nil {
		if rmn != nil || rvn != nil {
			return nil, fmt.Errorf("args: running_mean and running_var must both be given or both be None")
		}
		if !useInputStats {
			return nil, fmt.Errorf("args: Expected running_mean and running_var to be defined when use_input_stats is false")
		}
		y, err := nz.moduleCall(n, "aten.layer_norm", x, sizesArg(shape[2:]), nil, nil, eps)
		if err != nil {
			return nil, err
		}
		return nz.channelAffine(n, y, shape, w, b)
	}
	call := func(op string, args ...ir.Arg) (*ir.Node, error) { return nz.moduleCall(n, op, args...) }
	rep := func(s *ir.Node) (*ir.Node, error) { // running stat [C] repeated N times: [N*C]
		u, err := call("aten.unsqueeze", s, int64(0))
		if err != nil {
			return nil, err
		}
		if u, err = call("aten.expand", u, sizesArg([]int{N, C})); err != nil {
			return nil, err
		}
		return call("aten.reshape", u, sizesArg([]int{N * C}))
	}
	rmr, err := rep(rmn)
	if err != nil {
		return nil, err
	}
	rvr, err := rep(rvn)
	if err != nil {
		return nil, err
	}
	flat := append([]int{1, N * C}, shape[2:]...)
	xr, err := call("aten.reshape", x, sizesArg(flat))
	if err != nil {
		return nil, err
	}
	y, err := call("aten.batch_norm", xr, rmr, rvr, nil, nil, useInputStats, momentum, eps)
	if err != nil {
		return nil, err
	}
	for _, s := range [][2]*ir.Node{{rmn, rmr}, {rvn, rvr}} {
		v, err := call("aten.view", s[1], sizesArg([]int{N, C}))
		if err != nil {
			return nil, err
		}
		if v, err = call("aten.mean", v, sizesArg([]int{0})); err != nil {
			return nil, err
		}
		if _, err = call("aten.copy_", s[0], v); err != nil {
			return nil, err
		}
	}
	if y, err = call("aten.reshape", y, sizesArg(shape)); err != nil {
		return nil, err
	}
	return nz.channelAffine(n, y, shape, w, b)
}

func init() {
	composedFns["torch.nn.functional.instance_norm"] = func(nz *normalizer, n *ir.Node) error {
		return nz.instanceNormCall(n, "instance_norm(input, running_mean=None, running_var=None, weight=None, bias=None, use_input_stats=True, momentum=0.1, eps=1e-05)")
	}
	composedFns["torch.instance_norm"] = func(nz *normalizer, n *ir.Node) error {
		return nz.instanceNormCall(n, "instance_norm(input, weight, bias, running_mean, running_var, use_input_stats, momentum, eps, cudnn_enabled)")
	}
}

// instanceNormCall normalizes F.instance_norm / torch.instance_norm, whose
// arguments schema names.
func (nz *normalizer) instanceNormCall(n *ir.Node, schema string) error {
	sc := sourceSchema(schema)
	vals, err := sc.Bind(n.Args, n.Kwargs)
	if err != nil {
		return err
	}
	arg := map[string]ir.Arg{}
	for i, p := range sc.Params {
		arg[p.Name] = nz.mapArg(vals[i])
	}
	x, ok := arg["input"].(*ir.Node)
	if !ok || x.Meta.Tensor == nil {
		return fmt.Errorf("args[0]: instance_norm needs a tensor input")
	}
	use, ok := arg["use_input_stats"].(bool)
	if !ok {
		return fmt.Errorf("args: use_input_stats must be a constant bool, got %s", argText(arg["use_input_stats"]))
	}
	shape := x.Meta.Tensor.Shape.Sizes()
	if use && len(shape) >= 2 && numelOf(shape[2:]) == 1 { // F.instance_norm's _verify_spatial_size
		return fmt.Errorf("args[0]: Expected more than 1 spatial element when training, got input size %v", shape)
	}
	out, err := nz.instanceNormOf(n, x, shape, arg["running_mean"], arg["running_var"], arg["weight"], arg["bias"], use, arg["momentum"], arg["eps"])
	if err != nil {
		return err
	}
	return nz.composedResult(n, out)
}
