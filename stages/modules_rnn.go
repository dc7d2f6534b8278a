package stages

import (
	"errors"
	"fmt"
	"strings"

	"gcdbg/exporter"
	"gcdbg/ir"
)

// nn.LSTM, nn.GRU and nn.RNN, unrolled over the (recorded, static) sequence
// length, as ATen's _rnn_impl runs them on the CPU: per layer and
// direction, the input projection of all steps in one linear, then each
// step's cell from it (rnnStep: the gates of lstm_cell, gru_cell, RNN's
// tanh/relu, with the hidden projection per step); layer by
// layer, each direction over the time steps, the reverse direction from the
// last step, the layer's output the cat of both directions' per-step h;
// h_n (and c_n) the stack of every (layer, direction)'s final state, in
// PyTorch's order l0, l0_reverse, l1, ...  The module node becomes the
// tuple (output, h_n) or (output, (h_n, c_n)), so getitem on it resolves
// to the nodes themselves.

// rnnModules are the recurrent module types rnnModule unrolls.
var rnnModules = []string{"LSTM", "GRU", "RNN"}

func rnnModuleType(t string) (string, bool) {
	for _, k := range rnnModules {
		if t == "torch.nn."+k || t == "torch.nn.modules.rnn."+k {
			return k, true
		}
	}
	return "", false
}

func (nz *normalizer) rnnModule(n *ir.Node, kind string) error {
	m := n.Module
	for _, a := range []string{"hidden_size", "num_layers", "bidirectional", "batch_first"} {
		if _, ok := m.Attrs[a]; !ok {
			return fmt.Errorf("module.attrs.%s: the trace does not record nn.%s's %q; re-export with exporter/gcdbg_export.py, which records it", a, kind, a)
		}
	}
	hidden, _ := attr(m, "hidden_size", nil).(int64)
	layers, _ := attr(m, "num_layers", nil).(int64)
	bidir, _ := attr(m, "bidirectional", nil).(bool)
	batchFirst, _ := attr(m, "batch_first", nil).(bool)
	if hidden <= 0 || layers <= 0 {
		return fmt.Errorf("module.attrs: nn.%s needs a positive hidden_size and num_layers, got %s and %s", kind, argText(attr(m, "hidden_size", nil)), argText(attr(m, "num_layers", nil)))
	}
	if ps, _ := attr(m, "proj_size", int64(0)).(int64); ps != 0 {
		return errors.New(exporter.Refusal("lstm_proj_size", "proj_size", fmt.Sprint(ps)))
	}
	cell := map[string]string{"LSTM": "lstm_cell", "GRU": "gru_cell"}[kind]
	if kind == "RNN" {
		switch nl := attr(m, "nonlinearity", "tanh"); nl {
		case "tanh", "relu":
			cell = nl.(string)
		default:
			return fmt.Errorf("module.attrs.nonlinearity: %s is not 'tanh' or 'relu'", argText(nl))
		}
	}
	if d, _ := attr(m, "dropout", 0.0).(float64); d > 0 && layers > 1 {
		tr, err := trainingFlag(m, fmt.Sprintf("nn.%s(dropout=%g)", kind, d))
		if err != nil {
			return err
		}
		if tr {
			return errors.New(exporter.Refusal("rnn_dropout", "kind", kind, "dropout", fmt.Sprintf("%g", d)))
		}
	}
	if len(n.Args) < 1 || len(n.Args) > 2 {
		return fmt.Errorf("args: nn.%s takes (input, hx=None), got %d args", kind, len(n.Args))
	}
	var hxArg ir.Arg
	if len(n.Args) == 2 {
		hxArg = nz.mapArg(n.Args[1])
	}
	for _, kv := range n.Kwargs {
		if kv.Name != "hx" {
			return fmt.Errorf("kwargs.%s: nn.%s takes (input, hx=None)", kv.Name, kind)
		}
		hxArg = nz.mapArg(kv.Value)
	}
	x, ok := nz.mapArg(n.Args[0]).(*ir.Node)
	if !ok || x.Meta.Tensor == nil {
		return fmt.Errorf("args[0]: nn.%s needs a tensor input (a PackedSequence is not supported by gcdbg)", kind)
	}
	call := func(op string, args ...ir.Arg) (*ir.Node, error) { return nz.moduleCall(n, "aten."+op, args...) }
	rank := len(x.Meta.Tensor.Shape)
	if rank != 2 && rank != 3 {
		return fmt.Errorf("args[0]: nn.%s expects a 2-D (unbatched) or 3-D input, got %d-D", kind, rank)
	}
	batched := rank == 3
	td, bd := int64(0), int64(1) // time and batch dims
	if batchFirst {
		td, bd = 1, 0
	}
	var err error
	if !batched { // PyTorch: input.unsqueeze(batch_dim), hx.unsqueeze(1)
		if x, err = call("unsqueeze", x, bd); err != nil {
			return err
		}
	}
	sizes := x.Meta.Tensor.Shape.Sizes()
	L, N := sizes[td], sizes[bd]
	if L == 0 {
		return fmt.Errorf("args[0]: nn.%s over an empty sequence is not supported", kind)
	}
	dirs := 1
	if bidir {
		dirs = 2
	}
	// hx: one node per state ([D*layers, N, H]), nil for zeros.
	var h0, c0 ir.Arg
	switch v := hxArg.(type) {
	case nil:
	case ir.Tuple:
		if kind != "LSTM" || len(v) != 2 {
			return fmt.Errorf("args[1]: nn.%s's hx must be %s", kind, map[bool]string{true: "a tuple (h_0, c_0)", false: "one tensor"}[kind == "LSTM"])
		}
		h0, c0 = v[0], v[1]
	case ir.List:
		if kind != "LSTM" || len(v) != 2 {
			return fmt.Errorf("args[1]: nn.%s's hx must be one tensor", kind)
		}
		h0, c0 = v[0], v[1]
	default:
		if kind == "LSTM" {
			g0, err := call("getitem", v, int64(0))
			if err != nil {
				return err
			}
			g1, err := call("getitem", v, int64(1))
			if err != nil {
				return err
			}
			h0, c0 = g0, g1
		} else {
			h0 = v
		}
	}
	if !batched {
		for _, s := range []*ir.Arg{&h0, &c0} {
			if *s != nil {
				if *s, err = call("unsqueeze", *s, int64(1)); err != nil {
					return err
				}
			}
		}
	}
	initial := func(s ir.Arg, idx int) (ir.Arg, error) {
		if s == nil {
			return call("new_zeros", x, sizesArg([]int{N, int(hidden)}))
		}
		return call("select", s, int64(0), int64(idx))
	}
	in := ir.Arg(x)
	var hn, cn []ir.Arg
	for l := 0; l < int(layers); l++ {
		var outs []ir.Arg
		for d := 0; d < dirs; d++ {
			sfx := fmt.Sprintf("_l%d", l)
			if d == 1 {
				sfx += "_reverse"
			}
			p := map[string]ir.Arg{}
			for _, w := range []string{"weight_ih", "weight_hh", "bias_ih", "bias_hh"} {
				ga, err := nz.paramNode(n, w+sfx)
				if err != nil {
					return err
				}
				if ga == nil && strings.HasPrefix(w, "weight") {
					return fmt.Errorf("module.params.%s: nn.%s's parameter is not in the trace; re-export with exporter/gcdbg_export.py", w+sfx, kind)
				}
				if ga != nil {
					p[w] = ga
				} else {
					p[w] = nil
				}
			}
			idx := l*dirs + d
			h, err := initial(h0, idx)
			if err != nil {
				return err
			}
			var c ir.Arg
			if kind == "LSTM" {
				if c, err = initial(c0, idx); err != nil {
					return err
				}
			}
			// The input projection of every step at once, as ATen's FullLayer
			// on the CPU (RNN.cpp: inputs_w = params.linear_ih(inputs), then
			// each cell with pre_compute_input): one GEMM forward, one for the
			// weight's and one for the input's gradient, instead of one per
			// step and an L-way sum of the weight's per-step gradients.
			xw, err := call("linear", in, p["weight_ih"], p["bias_ih"])
			if err != nil {
				return err
			}
			steps := make([]ir.Arg, L)
			for s := 0; s < L; s++ {
				t := s
				if d == 1 {
					t = L - 1 - s
				}
				xt, err := call("select", xw, td, int64(t))
				if err != nil {
					return err
				}
				if h, c, err = rnnStep(call, cell, xt, h, c, p["weight_hh"], p["bias_hh"], hidden); err != nil {
					return err
				}
				steps[t] = h
			}
			st, err := call("stack", ir.List(steps), td)
			if err != nil {
				return err
			}
			outs = append(outs, st)
			hn = append(hn, h)
			cn = append(cn, c)
		}
		if dirs == 1 {
			in = outs[0]
		} else {
			cat, err := call("cat", ir.List(outs), int64(-1))
			if err != nil {
				return err
			}
			in = cat
		}
	}
	finals := func(hs []ir.Arg) (*ir.Node, error) {
		st, err := call("stack", ir.List(hs), int64(0))
		if err != nil || batched {
			return st, err
		}
		return call("squeeze", st, int64(1))
	}
	out := in.(*ir.Node)
	if !batched {
		if out, err = call("squeeze", out, bd); err != nil {
			return err
		}
	}
	hN, err := finals(hn)
	if err != nil {
		return err
	}
	delete(nz.names, out.Name)
	out.Name = n.Name
	if kind != "LSTM" {
		nz.mapped[n] = ir.Tuple{out, hN}
		return nil
	}
	cN, err := finals(cn)
	if err != nil {
		return err
	}
	nz.mapped[n] = ir.Tuple{out, ir.Tuple{hN, cN}}
	return nil
}

// rnnStep is one cell step from its precomputed input projection xw
// (linear(x, w_ih, b_ih)), as ATen's cells with pre_compute_input compute
// it (RNN.cpp): the hidden projection first, the input's added to it, the
// gates its chunks of H.
//   - lstm_cell: i, f, g, o = sigmoid, sigmoid, tanh, sigmoid of the
//     chunks of linear(h, w_hh, b_hh) + xw; c' = f*c + i*g; h' = o*tanh(c')
//   - gru_cell: r = sigmoid(xr + hr), z = sigmoid(xz + hz),
//     n = tanh(xn + r*hn) (x* the chunks of xw, h* of linear(h, w_hh,
//     b_hh)); h' = n + z*(h - n)
//   - tanh, relu (nn.RNN): act(linear(h, w_hh, b_hh) + xw)
func rnnStep(call func(string, ...ir.Arg) (*ir.Node, error), cell string, xw, h, c, whh, bhh ir.Arg, hidden int64) (ir.Arg, ir.Arg, error) {
	var err error // the first failure; later ops are skipped
	op := func(name string, args ...ir.Arg) ir.Arg {
		if err != nil {
			return nil
		}
		r, e := call(name, args...)
		if e != nil {
			err = e
			return nil
		}
		return r
	}
	chunk := func(t ir.Arg, k int64) ir.Arg { return op("slice", t, int64(-1), k*hidden, (k+1)*hidden) }
	hw := op("linear", h, whh, bhh)
	switch cell {
	case "lstm_cell":
		g := op("add", hw, xw)
		i, f := op("sigmoid", chunk(g, 0)), op("sigmoid", chunk(g, 1))
		gg, o := op("tanh", chunk(g, 2)), op("sigmoid", chunk(g, 3))
		c = op("add", op("mul", f, c), op("mul", i, gg))
		h = op("mul", o, op("tanh", c))
	case "gru_cell":
		r := op("sigmoid", op("add", chunk(xw, 0), chunk(hw, 0)))
		z := op("sigmoid", op("add", chunk(xw, 1), chunk(hw, 1)))
		n := op("tanh", op("add", chunk(xw, 2), op("mul", r, chunk(hw, 2))))
		h = op("add", n, op("mul", z, op("sub", h, n)))
	default:
		h = op(cell, op("add", hw, xw))
	}
	return h, c, err
}
