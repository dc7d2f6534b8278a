package stages

import (
	"fmt"
	"strings"

	"gcdbg/ir"
	"gcdbg/tensor"
)

// The decomposition stage rewrites the functional graph into the core op set
// (ir.CoreOps) so the autodiff, the partitioner and the loop IR only need to
// understand a few dozen ops. Rules, in order, for each call:
//
//  1. a call whose result holds no tensor (size, dim, numel, dtype, int
//     arithmetic on sizes, getitem on a Python tuple) is evaluated now: the
//     graph is specialized to its example shapes, as Dynamo's is, so these
//     are constants and their users receive plain ints;
//  2. getitem on a decomposed tuple (split, chunk, max(x, dim)) resolves to
//     the node that holds that item;
//  3. a core op is copied as it is;
//  4. anything else is rewritten by its entry in the decomposition table
//     (decompositions.go), which emits core ops only.
//
// Every new node has From = [the functional node it came from] and its
// dtype/shape/stride inferred by ir.InferMeta.

// decomposer carries the graph being built.
type decomposer struct {
	src, out *ir.Graph
	names    map[string]bool
	mapped   map[*ir.Node]ir.Arg      // functional node -> new node, tuple of nodes, or constant
	metas    map[*ir.Node]ir.Value    // new node -> inferred value (TensorMeta or Python value)
	table    map[string]decomposition // op name -> entry
	// noGrad: no input requires grad, so the joint graph has no backward
	// and nothing differentiates this graph (silu's decomposition).
	noGrad bool
}

func decompose(u *Unit) error {
	g := u.Functional
	if g == nil {
		return fmt.Errorf("decompose: no functional graph")
	}
	out, err := decomposeGraph(g)
	if err != nil {
		return err
	}
	u.Decomposed = out
	return nil
}

func printDecomposed(u *Unit) string { return ir.Readable(u.Decomposed) }

// decomposeGraph lowers g to core ops.
func decomposeGraph(g *ir.Graph) (_ *ir.Graph, err error) {
	var cur *ir.Node
	defer CatchPanic(&err, func() string { // a panic names the node being decomposed
		if cur != nil {
			return cur.Name
		}
		return ""
	})
	d := &decomposer{
		src:    g,
		out:    &ir.Graph{Name: g.Name, Break: g.Break, Guards: g.Guards, Tensors: g.Tensors, Expected: g.Expected, Timing: g.Timing},
		names:  map[string]bool{},
		mapped: map[*ir.Node]ir.Arg{},
		metas:  map[*ir.Node]ir.Value{},
		table:  decompositionTable(),
		noGrad: !anyInputRequiresGrad(g),
	}
	// Every functional name is reserved: a node keeps its name when it is
	// copied or when it is the result of its own decomposition.
	for _, n := range g.Nodes {
		d.names[n.Name] = true
	}
	for _, n := range g.Nodes {
		cur = n
		if err := d.node(n); err != nil {
			return nil, fmt.Errorf("graph %q: node %q: %w", g.Name, n.Name, err)
		}
	}
	cur = nil
	if err := d.out.Validate(); err != nil {
		return nil, err
	}
	return d.out, nil
}

func (d *decomposer) fresh(base string) string {
	base = strings.NewReplacer(".", "_", "-", "_").Replace(base)
	name := base
	for i := 1; d.names[name]; i++ {
		name = fmt.Sprintf("%s_%d", base, i)
	}
	d.names[name] = true
	return name
}

func (d *decomposer) mapArg(a ir.Arg) ir.Arg {
	return ir.MapArg(a, func(n *ir.Node) ir.Arg { return d.mapped[n] })
}

// metaArg replaces node references by their inferred values.
func (d *decomposer) metaArg(a ir.Arg) ir.Value {
	return ir.MapArg(a, func(n *ir.Node) ir.Arg { return d.metas[n] })
}

func (d *decomposer) node(n *ir.Node) error {
	switch n.Op {
	case ir.Placeholder, ir.GetAttr:
		c := &ir.Node{Name: n.Name, Op: n.Op, Target: n.Target, Meta: n.Meta, From: []string{n.Name}}
		switch {
		case n.Meta.Tensor != nil:
			d.metas[c] = n.Meta.Tensor
		case n.Meta.HasValue:
			d.metas[c] = n.Meta.Value
		default:
			td := d.src.Tensors[n.Target]
			if td == nil {
				return fmt.Errorf("target: %q has no tensor and the node no meta", n.Target)
			}
			c.Meta.Tensor = &ir.TensorMeta{DType: td.T.DType, Shape: ir.ShapeOf(td.T.Shape), Stride: td.T.Strides, RequiresGrad: td.RequiresGrad}
			d.metas[c] = c.Meta.Tensor
		}
		d.out.Nodes = append(d.out.Nodes, c)
		d.mapped[n] = c
		return nil
	case ir.Output:
		c := &ir.Node{Name: n.Name, Op: ir.Output, Target: "output", From: []string{n.Name}}
		if len(n.Args) > 0 {
			c.Args = []ir.Arg{d.mapArg(n.Args[0])}
		}
		d.out.Nodes = append(d.out.Nodes, c)
		return nil
	case ir.CallFunction:
		return d.call(n)
	}
	return fmt.Errorf("op: %s nodes cannot be decomposed (only canonical call_function nodes)", n.Op)
}

func (d *decomposer) call(n *ir.Node) error {
	def := ir.Lookup(n.Target)
	if def == nil {
		return fmt.Errorf("target: %q is not a canonical op", n.Target)
	}
	bound, err := def.Schema.Bind(n.Args, n.Kwargs)
	if err != nil {
		return err
	}
	for i := range bound {
		bound[i] = d.mapArg(bound[i])
	}
	// getitem on a Python sequence: a size tuple or a decomposed split.
	if def.Name == "aten.getitem" {
		switch bound[0].(type) {
		case ir.Tuple, ir.List:
			v, err := ir.Call(def, []ir.Value{bound[0], bound[1]})
			if err != nil {
				return err
			}
			d.mapped[n] = v
			return nil
		}
	}
	vals := make([]ir.Value, len(bound))
	for i, b := range bound {
		vals[i] = d.metaArg(b)
	}
	v, err := ir.InferMeta(def, vals)
	if err != nil {
		return fmt.Errorf("shape inference: %w", err)
	}
	if !holdsTensor(v) {
		d.mapped[n] = v // rule 1: a Python value, known now
		return nil
	}
	b := &builder{d: d, src: n}
	if def.Inplace {
		return fmt.Errorf("target: %s mutates its input; functionalization should have removed it", def.Name)
	}
	// getitem on a tensor is indexing (decomposed); on a sort/topk result it is core.
	tensorGetitem := def.Name == "aten.getitem" && !isTupleMeta(vals[0])
	if ir.IsCore(def.Name) && !tensorGetitem {
		if def.Name == "aten.conv2d" {
			b.made = map[*ir.Node]bool{}
			if b.explicitConvPadding(bound); b.err != nil { // decomp_convpad.go: padding="same"
				return fmt.Errorf("decomposing %s: %w", def.Name, b.err)
			}
		}
		if def.Name == "aten.index_put" { // decomp_index_put_mask.go: a bool mask and one value
			b.made = map[*ir.Node]bool{}
			if r := indexPutMask(b, bound); r != nil && b.err == nil {
				if rn, ok := r.(*ir.Node); ok && b.made[rn] {
					delete(d.names, rn.Name)
					rn.Name = n.Name
				}
				d.mapped[n] = r
				return nil
			} else if b.err != nil {
				return fmt.Errorf("decomposing %s: %w", def.Name, b.err)
			}
		}
		c, err := d.emit(n, n.Name, def, bound)
		if err != nil {
			return err
		}
		d.mapped[n] = c
		return nil
	}
	entry, ok := d.table[def.Name]
	if !ok {
		return fmt.Errorf("target: %s has no decomposition into core ops", def.Name)
	}
	res, err := b.run(entry, bound)
	if err != nil {
		return fmt.Errorf("decomposing %s: %w", def.Name, err)
	}
	// The node holding the result takes the functional node's name, so a
	// reader finds `softmax` in both graphs.
	if r, ok := res.(*ir.Node); ok && b.made[r] {
		delete(d.names, r.Name)
		r.Name = n.Name
	}
	d.mapped[n] = res
	return nil
}

// emit appends a call of def with bound args, inferring its meta.
func (d *decomposer) emit(src *ir.Node, name string, def *ir.OpDef, bound []ir.Arg) (*ir.Node, error) {
	vals := make([]ir.Value, len(bound))
	for i, b := range bound {
		vals[i] = d.metaArg(b)
	}
	v, err := ir.InferMeta(def, vals) // stride-aware: views alias as evaluated ones do
	if err != nil {
		return nil, fmt.Errorf("shape inference of %s: %w", def.Name, err)
	}
	c := &ir.Node{Name: name, Op: ir.CallFunction, Target: def.Name, Args: def.Schema.Trim(bound),
		Meta: ir.Meta{Stack: src.Meta.Stack}, From: []string{src.Name}}
	d.metas[c] = v
	setNodeMeta(c, v)
	d.out.Nodes = append(d.out.Nodes, c)
	return c, nil
}

// setNodeMeta records an inferred value on a node as the printers read it.
func setNodeMeta(n *ir.Node, v ir.Value) {
	switch x := v.(type) {
	case *ir.TensorMeta:
		n.Meta.Tensor = x
	case ir.Tuple:
		if isTupleMeta(x) {
			n.Meta.Items = make([]*ir.TensorMeta, len(x))
			for i, it := range x {
				n.Meta.Items[i] = it.(*ir.TensorMeta)
			}
			return
		}
		n.Meta.Value, n.Meta.HasValue = x, true
	default:
		n.Meta.Value, n.Meta.HasValue = v, true
	}
}

func isTupleMeta(v ir.Value) bool {
	t, ok := v.(ir.Tuple)
	if !ok || len(t) == 0 {
		return false
	}
	for _, it := range t {
		if _, ok := it.(*ir.TensorMeta); !ok {
			return false
		}
	}
	return true
}

func holdsTensor(v ir.Value) bool {
	switch x := v.(type) {
	case *ir.TensorMeta, *tensor.Tensor:
		return true
	case ir.Tuple:
		for _, it := range x {
			if holdsTensor(it) {
				return true
			}
		}
	case ir.List:
		for _, it := range x {
			if holdsTensor(it) {
				return true
			}
		}
	}
	return false
}

// builder emits the core ops of one decomposition. Errors are sticky: the
// first one stops the decomposition and is reported (a panic in a table
// function, say on a malformed shape, becomes an error too).
type builder struct {
	d    *decomposer
	src  *ir.Node
	err  error
	made map[*ir.Node]bool
}

func (b *builder) run(e decomposition, args []ir.Arg) (res ir.Arg, err error) {
	b.made = map[*ir.Node]bool{}
	defer func() {
		if r := recover(); r != nil {
			res, err = nil, fmt.Errorf("internal error: %v", r)
		}
		if b.err != nil {
			res, err = nil, b.err
		}
	}()
	return e.fn(b, args), nil
}

func (b *builder) failf(format string, args ...any) {
	if b.err == nil {
		b.err = fmt.Errorf(format, args...)
	}
}

// call appends op(args...) (positional, schema order) and returns the node.
func (b *builder) call(op string, args ...ir.Arg) *ir.Node {
	if b.err != nil {
		return nil
	}
	def := ir.Lookup(op)
	if def == nil || !ir.IsCore(op) {
		b.failf("internal error: %s is not a core op", op)
		return nil
	}
	bound, err := def.Schema.Bind(args, nil)
	if err != nil {
		b.failf("%s: %v", op, err)
		return nil
	}
	c, err := b.d.emit(b.src, b.d.fresh(b.src.Name+"_"+strings.TrimPrefix(op, "aten.")), def, bound)
	if err != nil {
		b.failf("%v", err)
		return nil
	}
	b.made[c] = true
	return c
}

// meta is the tensor metadata of an arg (nil for a Python value).
func (b *builder) meta(a ir.Arg) *ir.TensorMeta {
	if n, ok := a.(*ir.Node); ok {
		if m, ok := b.d.metas[n].(*ir.TensorMeta); ok {
			return m
		}
	}
	return nil
}

// shape is an arg's sizes; a Python number is 0-dim.
func (b *builder) shape(a ir.Arg) []int {
	if m := b.meta(a); m != nil {
		return m.Shape.Sizes()
	}
	if _, ok := a.(*ir.Node); ok || a == nil {
		b.failf("expected a tensor argument, got %s", argText(a))
	}
	return []int{}
}

func (b *builder) dtype(a ir.Arg) tensor.DType {
	if m := b.meta(a); m != nil {
		return m.DType
	}
	b.failf("expected a tensor argument, got %s", argText(a))
	return tensor.Float32
}

func argText(a ir.Arg) string {
	return ir.FormatArg(a, func(n *ir.Node) string { return n.Name })
}
