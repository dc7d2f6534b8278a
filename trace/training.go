package trace

import (
	"gcdbg/ir"
	"gcdbg/tensor"
)

// Training-mode fields of the contract: a module's own `training` flag,
// the buffers a graph mutates (expected.buffers) and what PyTorch drew for
// each random node (expected.random).

// TrainingAttr is the key under which a module's `training` flag is kept in
// ir.Module.Attrs (the module rules of the normalized stage read it there).
const TrainingAttr = "training"

// moduleTraining reads module.training into m.Attrs["training"]. It must be
// a bool; a producer that also wrote attrs.training must agree with it.
func (d *decoder) moduleTraining(o *object, m *ir.Module) *Error {
	v, ok := o.get("training")
	if !ok || v == nil {
		return nil
	}
	b, ok := v.(bool)
	if !ok {
		return d.errf("module.training", "training is %s, want true or false", kind(v))
	}
	if prev, had := m.Attrs[TrainingAttr]; had {
		if pb, isBool := prev.(bool); !isBool || pb != b {
			return d.errf("module.training", "module.training is %v but module.attrs.training says %s", b, show(prev))
		}
	}
	m.Attrs[TrainingAttr] = b
	return nil
}

// expectedBuffers reads expected.buffers: each key is the qualified name of
// a buffer (or parameter) the graph reads, each value a tensor of that
// buffer's dtype and shape.
func (d *decoder) expectedBuffers(o *object, g *ir.Graph, params map[string]bool, ex *ir.Expected) *Error {
	v, ok := o.get("buffers")
	if !ok || v == nil {
		return nil
	}
	bo, ok := v.(*object)
	if !ok {
		return d.errf("expected.buffers", "buffers is %s, want an object", kind(v))
	}
	ex.Buffers = map[string]*tensor.Tensor{}
	for _, k := range bo.keys {
		f := "expected.buffers" + key(k)
		if !params[k] {
			return d.errf(f, "%q names no buffer of this graph (a get_attr target or a module's params entry)", k)
		}
		td, e := d.tensor(bo.vals[k], f)
		if e != nil {
			return e
		}
		if cur := g.Tensors[k]; cur != nil && (cur.T.DType != td.T.DType || !sameShape(cur.T.Shape, td.T.Shape)) {
			return d.errf(f, "buffer after the step is %s%v, but %q is %s%v", td.T.DType, td.T.Shape, k, cur.T.DType, cur.T.Shape)
		}
		ex.Buffers[k] = td.T
		ex.BufferOrder = append(ex.BufferOrder, k)
	}
	return nil
}

// expectedRandom reads expected.random: each key names a call node of the
// graph; the tensor has that node's shape (when its meta says it) and, for
// a dropout, dtype bool (the keep mask).
func (d *decoder) expectedRandom(o *object, g *ir.Graph, ex *ir.Expected) *Error {
	v, ok := o.get("random")
	if !ok || v == nil {
		return nil
	}
	ro, ok := v.(*object)
	if !ok {
		return d.errf("expected.random", "random is %s, want an object", kind(v))
	}
	ex.Random = map[string]*tensor.Tensor{}
	defer func() { d.node = "" }()
	for _, k := range ro.keys {
		f := "expected.random" + key(k)
		n := g.Node(k)
		if n == nil || (n.Op != ir.CallFunction && n.Op != ir.CallMethod && n.Op != ir.CallModule) {
			return d.errf(f, "%q names no call node of this graph", k)
		}
		d.node = k
		td, e := d.tensor(ro.vals[k], f)
		if e != nil {
			return e
		}
		if m := n.Meta.Tensor; m != nil && !sameShape(m.Shape.Sizes(), td.T.Shape) {
			return d.errf(f, "draw has shape %v, but the node's meta says %v", td.T.Shape, m.Shape.Sizes())
		}
		if IsDropoutNode(n) && td.T.DType != tensor.Bool {
			return d.errf(f, "a dropout's draw is its keep mask, dtype bool; got %s", td.T.DType)
		}
		ex.Random[k] = td.T
		d.node = ""
	}
	return nil
}

// IsDropoutNode reports whether a captured node is a dropout (module,
// function or method form), whose recorded draw is a bool keep mask.
func IsDropoutNode(n *ir.Node) bool {
	switch n.Op {
	case ir.CallModule:
		if n.Module == nil {
			return false
		}
		t := n.Module.Type
		for _, d := range []string{"Dropout", "Dropout1d", "Dropout2d", "Dropout3d"} {
			if t == "torch.nn."+d || hasSuffix(t, "."+d) {
				return true
			}
		}
		return false
	case ir.CallFunction:
		switch n.Target {
		case "torch.nn.functional.dropout", "torch.dropout", "torch._C._nn.dropout", "torch.ops.aten.dropout.default",
			"torch.ops.aten.native_dropout.default", "aten.dropout", "aten.native_dropout.default":
			return true
		}
	case ir.CallMethod:
		return n.Target == "dropout"
	}
	return false
}

func hasSuffix(s, suf string) bool { return len(s) >= len(suf) && s[len(s)-len(suf):] == suf }
