// Package interp is gcdbg's eager reference interpreter: it runs a
// canonical (normalized) graph node by node on the tensor library. Its
// results are the ground truth every compiled kernel is compared with.
package interp

import (
	"fmt"

	"gcdbg/ir"
	"gcdbg/tensor"
)

// Inputs overrides a graph's example values by placeholder or attribute
// name (used by `run --input` and by the guard tests).
type Inputs map[string]ir.Value

// Run executes g and returns the values of its output node, flattened one
// level (a returned tuple becomes its items). Input tensors are copied
// first, so in-place ops in the graph never change the trace's data.
func Run(g *ir.Graph, override Inputs) ([]ir.Value, error) {
	return RunWith(g, override, Options{})
}

// RunWith is Run under opt (the float64 reference runs).
func RunWith(g *ir.Graph, override Inputs, opt Options) ([]ir.Value, error) {
	p := newPrecision(opt)
	if p != nil {
		p.pin = opt.Pin
	}
	env, err := evalWith(g, override, p, true, opt.Keep)
	if err != nil {
		return nil, err
	}
	if opt.Kept != nil {
		for n := range opt.Keep {
			if v, ok := env[n]; ok {
				opt.Kept[n] = v
			}
		}
	}
	out := g.OutputNode()
	if out == nil || len(out.Args) == 0 {
		return nil, nil
	}
	v := resolve(out.Args[0], env)
	if t, ok := v.(ir.Tuple); ok {
		return []ir.Value(t), nil
	}
	if l, ok := v.(ir.List); ok {
		return []ir.Value(l), nil
	}
	return []ir.Value{v}, nil
}

// Eval executes g and returns every node's value.
func Eval(g *ir.Graph, override Inputs) (map[*ir.Node]ir.Value, error) {
	return evalWith(g, override, nil, false, nil)
}

// EvalWith is Eval under opt.
func EvalWith(g *ir.Graph, override Inputs, opt Options) (map[*ir.Node]ir.Value, error) {
	return evalWith(g, override, newPrecision(opt), false, nil)
}

// EvalKeeping is EvalWith that drops each value after its last reader, as
// Run does, except the values of the nodes in keep: the returned env holds
// those and the output node's arguments only (the float64 reference runs
// read the outputs and the mutated inputs, not the temporaries).
func EvalKeeping(g *ir.Graph, override Inputs, opt Options, keep map[*ir.Node]bool) (map[*ir.Node]ir.Value, error) {
	return evalWith(g, override, newPrecision(opt), true, keep)
}

// evalWith runs g node by node. With free (Run, RunWith: only the outputs
// are wanted) a value leaves env after the last node that reads it, so a
// training graph's forward activations and backward temporaries are not all
// held at once (a WaveNet at B8 x T4096 held 11 GB in float64); a value
// aliased by a later view stays alive through that view's own entry. The
// nodes in keep are never dropped.
func evalWith(g *ir.Graph, override Inputs, p *precision, free bool, keep map[*ir.Node]bool) (map[*ir.Node]ir.Value, error) {
	env := make(map[*ir.Node]ir.Value, len(g.Nodes))
	var last map[*ir.Node]int
	if free {
		last = make(map[*ir.Node]int, len(g.Nodes))
		for i, n := range g.Nodes {
			n.EachInput(func(in *ir.Node) { last[in] = i })
		}
	}
	exact := p.exactNodes(g)
	for i, n := range g.Nodes {
		pn := p
		if exact != nil && exact.before(n) {
			pn = p.quiet()
		}
		v, err := evalNode(g, n, env, override, pn)
		if err != nil {
			return env, fmt.Errorf("graph %q: node %q: %w", g.Name, n.Name, err)
		}
		if p != nil && p.pin[n] != nil {
			v = pinned(v, p.pin[n])
		}
		if p != nil && p.flip[n] != nil {
			v = flipped(v, p.flip[n])
		}
		env[n] = v
		if exact != nil {
			exact.after(n, v)
		}
		if !free || n.Op == ir.Output {
			continue
		}
		n.EachInput(func(in *ir.Node) {
			if last[in] == i && !keep[in] {
				delete(env, in)
			}
		})
		if _, used := last[n]; !used && !keep[n] {
			delete(env, n)
		}
	}
	return env, nil
}

func evalNode(g *ir.Graph, n *ir.Node, env map[*ir.Node]ir.Value, override Inputs, p *precision) (ir.Value, error) {
	switch n.Op {
	case ir.Placeholder, ir.GetAttr:
		if v, ok := override[n.Target]; ok {
			if t, isT := v.(*tensor.Tensor); isT {
				return p.input(t), nil
			}
			return v, nil
		}
		if n.Op == ir.Placeholder && n.Meta.HasValue && n.Meta.Tensor == nil {
			return n.Meta.Value, nil
		}
		td := g.Tensors[n.Target]
		if td == nil {
			return nil, fmt.Errorf("target: %q has no tensor", n.Target)
		}
		return p.input(td.T), nil
	case ir.Output:
		return nil, nil
	case ir.CallFunction:
		d := ir.Lookup(n.Target)
		if d == nil {
			return nil, fmt.Errorf("target: %q is not a canonical op (run the normalized graph)", n.Target)
		}
		bound, err := d.Schema.Bind(n.Args, n.Kwargs)
		if err != nil {
			return nil, err
		}
		vals := make([]ir.Value, len(bound))
		for i, b := range bound {
			vals[i] = p.arg(resolve(b, env))
		}
		out, err := ir.Call(d, vals)
		if err != nil {
			return nil, err
		}
		return p.result(d, vals, out), nil
	}
	return nil, fmt.Errorf("op: the interpreter runs canonical graphs; %s nodes are normalized away first", n.Op)
}

// resolve replaces node references in an arg by their computed values.
func resolve(a ir.Arg, env map[*ir.Node]ir.Value) ir.Value {
	return ir.MapArg(a, func(n *ir.Node) ir.Arg { return env[n] })
}

// AsTensor turns an output value into a tensor: Python numbers and bools
// become 0-dim tensors (the exporter stores them that way in expected).
func AsTensor(v ir.Value) (*tensor.Tensor, error) {
	switch x := v.(type) {
	case *tensor.Tensor:
		return x, nil
	case int64:
		return tensor.FromInts(tensor.Int64, nil, []int64{x}), nil
	case bool:
		b := int64(0)
		if x {
			b = 1
		}
		return tensor.FromInts(tensor.Bool, nil, []int64{b}), nil
	case float64:
		return tensor.FromFloats(tensor.Float64, nil, []float64{x}), nil
	}
	return nil, fmt.Errorf("output is %T, not a tensor", v)
}
