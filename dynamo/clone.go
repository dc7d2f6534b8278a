package dynamo

import (
	"fmt"

	"gcdbg/ir"
	"gcdbg/trace"
)

// TraceWith returns a trace holding only graph `name` of tr, rewritten to
// read the frame's values, ready for stages.Run. The loaded trace is not
// touched: graphs, nodes and the tensor map are copied.
func TraceWith(tr *trace.Trace, name string, f Frame) (*trace.Trace, error) {
	var g *ir.Graph
	for _, x := range tr.Graphs {
		if x.Name == name {
			g = x
		}
	}
	if g == nil {
		return nil, fmt.Errorf("%s: no graph %q", tr.Name, name)
	}
	ng, err := GraphWith(g, f)
	if err != nil {
		return nil, err
	}
	out := *tr
	out.Graphs = []*ir.Graph{ng}
	return &out, nil
}

// GraphWith copies g so that it reads the frame's values. Placeholders
// take the new metadata; when any input's shape, dtype or constant
// changed, the producer's recorded metadata of the other nodes (and its
// expected outputs) described the old inputs, so it is dropped and
// normalization infers it afresh instead of checking against it.
func GraphWith(g *ir.Graph, f Frame) (*ir.Graph, error) {
	out := *g
	out.Tensors = make(map[string]*ir.TensorData, len(g.Tensors))
	for k, v := range g.Tensors {
		out.Tensors[k] = v
	}
	changed := false
	for name, v := range f {
		old, isTensor := g.Tensors[name]
		switch {
		case v.T != nil && isTensor:
			out.Tensors[name] = v.T
			if !sameMeta(old, v.T) {
				changed = true
			}
			if old.T != v.T.T {
				out.Expected, out.Timing = nil, nil // no reference for other data
			}
		case v.T == nil && !isTensor:
			n := placeholder(g, name)
			if n == nil {
				return nil, fmt.Errorf("graph %q: input %q: no such placeholder", g.Name, name)
			}
			if !ir.ArgEqual(n.Meta.Value, v.Const) {
				changed = true
				out.Expected, out.Timing = nil, nil
			}
		default:
			return nil, fmt.Errorf("graph %q: input %q: a tensor input cannot take a constant, nor the other way round", g.Name, name)
		}
	}
	mapped := make(map[*ir.Node]*ir.Node, len(g.Nodes))
	out.Nodes = make([]*ir.Node, len(g.Nodes))
	for i, n := range g.Nodes {
		c := *n
		c.Args = make([]ir.Arg, len(n.Args))
		for j, a := range n.Args {
			c.Args[j] = ir.MapArg(a, func(x *ir.Node) ir.Arg { return mapped[x] })
		}
		c.Kwargs = make([]ir.Kwarg, len(n.Kwargs))
		for j, kv := range n.Kwargs {
			c.Kwargs[j] = ir.Kwarg{Name: kv.Name, Value: ir.MapArg(kv.Value, func(x *ir.Node) ir.Arg { return mapped[x] })}
		}
		switch {
		case n.Op == ir.Placeholder && n.Meta.HasValue && n.Meta.Tensor == nil:
			if v, ok := f[n.Target]; ok {
				c.Meta.Value = v.Const
			}
		case n.Op == ir.Placeholder || n.Op == ir.GetAttr:
			if td := out.Tensors[n.Target]; td != nil && n.Meta.Tensor != nil {
				c.Meta.Tensor = &ir.TensorMeta{DType: td.T.DType, Shape: ir.ShapeOf(td.T.Shape),
					Stride: append([]int{}, td.T.Strides...), RequiresGrad: td.RequiresGrad}
			}
		case changed:
			c.Meta.Tensor, c.Meta.Items = nil, nil
			if n.Op != ir.Output {
				c.Meta.Value, c.Meta.HasValue = nil, false
			}
		}
		mapped[n] = &c
		out.Nodes[i] = &c
	}
	return &out, nil
}

func placeholder(g *ir.Graph, target string) *ir.Node {
	for _, n := range g.Placeholders() {
		if n.Target == target {
			return n
		}
	}
	return nil
}

func sameMeta(a, b *ir.TensorData) bool {
	return a.T.DType == b.T.DType && a.RequiresGrad == b.RequiresGrad &&
		intsEqual(a.T.Shape, b.T.Shape) && intsEqual(a.T.Strides, b.T.Strides)
}

func intsEqual(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// overrides turns a frame into the interpreter's input overrides.
func overrides(f Frame) map[string]ir.Value {
	m := make(map[string]ir.Value, len(f))
	for k, v := range f {
		if v.T != nil {
			m[k] = v.T.T
		} else {
			m[k] = v.Const
		}
	}
	return m
}
