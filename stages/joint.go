package stages

import (
	"fmt"
	"strconv"
	"strings"

	"gcdbg/ir"
	"gcdbg/tensor"
)

// The joint graph (AOTAutograd's aot_joint_graph): the decomposed forward
// followed by its reverse-mode derivative, as one graph from (primals,
// tangents) to (outputs, grads). Each op's derivative comes from the table
// in derivatives.go; this file walks the graph:
//
//  1. primals_1..n are the input graph's tensor placeholders, then its
//     get_attr tensors (Target kept, so interp finds their values). Python
//     number placeholders (clamp_min's `b = 0`) are specialised as Dynamo
//     does: their value is folded into every use, so the joint graph's
//     inputs are tensors only, as in the slides' `primals_1, tangents_1`.
//  2. The forward nodes are copied (From = the original node).
//  3. tangents_1..k: one per floating tensor output.
//  4. Backward: nodes in reverse order; each node with an incoming gradient
//     emits its derivative (From = that forward node). Gradients reaching
//     a value twice are added; gradients of broadcasting ops are summed
//     back to the input's shape.
//  5. The output returns (outputs..., grads...), one grad per primal that
//     requires grad; backward nodes that reach no output are dropped.
func buildJoint(u *Unit) (err error) {
	src := u.Decomposed
	if src == nil {
		return fmt.Errorf("joint: no decomposed graph")
	}
	b := newJointBuilder(src)
	defer CatchPanic(&err, func() string { // a panic names the node being differentiated
		if b.cur != nil {
			return b.cur.Name
		}
		return ""
	})
	j, err := b.build()
	if err != nil {
		return err
	}
	u.Joint = j
	return nil
}

type jointBuilder struct {
	src   *ir.Graph
	g     *ir.Graph
	names map[string]bool
	// suffix remembers, per base, the last suffix fresh handed out: names
	// are never freed, so the search resumes there (probing from 1 made a
	// 10k-node joint graph quadratic).
	suffix map[string]int
	fwd    map[*ir.Node]ir.Arg // source node -> its joint node or folded constant
	req    map[*ir.Node]bool   // joint nodes whose value depends on a primal requiring grad
	grad   map[*ir.Node]*ir.Node
	items  map[*ir.Node][]*ir.Node // per-item gradients of tuple-valued nodes
	bwd    map[*ir.Node]bool       // nodes emitted by the backward pass
	cur    *ir.Node                // the forward node being differentiated
	err    error
}

func newJointBuilder(src *ir.Graph) *jointBuilder {
	b := &jointBuilder{src: src, names: map[string]bool{}, suffix: map[string]int{}, fwd: map[*ir.Node]ir.Arg{}, req: map[*ir.Node]bool{},
		grad: map[*ir.Node]*ir.Node{}, items: map[*ir.Node][]*ir.Node{}, bwd: map[*ir.Node]bool{}}
	tensors := make(map[string]*ir.TensorData, len(src.Tensors))
	for k, v := range src.Tensors {
		tensors[k] = v
	}
	b.g = &ir.Graph{Name: src.Name, Break: src.Break, Guards: src.Guards, Tensors: tensors, Expected: src.Expected, Timing: src.Timing}
	return b
}

func (b *jointBuilder) errf(n *ir.Node, format string, args ...any) error {
	return fmt.Errorf("graph %q: node %q: %s", b.src.Name, n.Name, fmt.Sprintf(format, args...))
}

func (b *jointBuilder) build() (*Joint, error) {
	primals, gradTargets, err := b.primals()
	if err != nil || len(gradTargets) == 0 {
		return nil, err // nothing requires grad: an inference graph has no joint
	}
	var fwdNodes []*ir.Node
	var outArgs []ir.Arg
	for _, n := range b.src.Nodes {
		switch n.Op {
		case ir.Placeholder, ir.GetAttr:
			continue
		case ir.Output:
			outArgs = b.src.Outputs()
		case ir.CallFunction:
			c, err := b.copyForward(n)
			if err != nil {
				return nil, err
			}
			fwdNodes = append(fwdNodes, c)
		default:
			return nil, b.errf(n, "op: %s nodes cannot be differentiated; the joint graph takes the decomposed graph", n.Op)
		}
	}
	// Tangents: one per floating tensor output, seeding that output's gradient.
	var outs []ir.Arg
	var tangents []string
	for _, a := range outArgs {
		m := ir.MapArg(a, func(x *ir.Node) ir.Arg { return b.fwd[x] })
		outs = append(outs, m)
		on, ok := m.(*ir.Node)
		if !ok || on.Meta.Tensor == nil || !on.Meta.Tensor.DType.IsFloat() {
			continue
		}
		// fresh: a module of the user's may be named tangents_1 (or output)
		name := b.fresh(fmt.Sprintf("tangents_%d", len(tangents)+1))
		t := b.placeholder(name, name, on.Meta.Tensor, []string{b.src.OutputNode().Name})
		t.Meta.Tensor = &ir.TensorMeta{DType: on.Meta.Tensor.DType, Shape: on.Meta.Tensor.Shape,
			Stride: tensor.ContiguousStrides(on.Meta.Tensor.Shape.Sizes())}
		b.addTangentData(name, len(tangents), on.Meta.Tensor)
		tangents = append(tangents, name)
		if b.req[on] {
			b.cur = on
			b.accumulate(on, t)
		}
	}
	// The placeholders go first, as fx requires: primals, tangents, then the forward.
	b.g.Nodes = append(b.g.Nodes, fwdNodes...)
	for i := len(fwdNodes) - 1; i >= 0 && b.err == nil; i-- {
		n := fwdNodes[i]
		if b.req[n] && (b.grad[n] != nil || b.items[n] != nil) {
			b.differentiate(n)
		}
	}
	if b.err != nil {
		return nil, b.err
	}
	for _, p := range primals {
		if !b.req[p] {
			continue
		}
		b.cur = p
		gp := b.grad[p]
		if gp == nil { // no path from this primal to an output: its gradient is zero
			gp = b.zeros(p.Meta.Tensor)
		}
		if b.err == nil && !gp.Meta.Tensor.Shape.Equal(p.Meta.Tensor.Shape) {
			return nil, b.errf(p, "gradient has shape %s, want %s", gp.Meta.Tensor.Shape, p.Meta.Tensor.Shape)
		}
		outs = append(outs, gp)
	}
	if b.err != nil {
		return nil, b.err
	}
	b.g.Nodes = append(b.g.Nodes, &ir.Node{Name: b.fresh("output"), Op: ir.Output, Target: "output", Args: []ir.Arg{ir.Tuple(outs)}, From: []string{"output"}})
	b.foldGradientSums() // joint_sums.go
	b.dropDeadBackward()
	if err := b.g.Validate(); err != nil {
		return nil, err
	}
	return &Joint{Graph: b.g, NumOutputs: len(outArgs), GradTargets: gradTargets, Tangents: tangents}, nil
}

// primals makes primals_1..n and returns those that require grad's targets.
//
// A parameter read by several get_attr nodes (a module called twice, an
// RNN cell over time steps, tied weights) is one primal: every read maps to
// it, so its gradient is the sum over all uses, as PyTorch accumulates
// into the one tensor, and it appears once in gradTargets.
func (b *jointBuilder) primals() (all []*ir.Node, gradTargets []string, err error) {
	attrs := map[string]*ir.Node{}
	for _, pass := range []string{ir.Placeholder, ir.GetAttr} {
		for _, n := range b.src.Nodes {
			if n.Op != pass {
				continue
			}
			if p := attrs[n.Target]; p != nil && n.Op == ir.GetAttr && n.Meta.Tensor != nil {
				b.fwd[n] = p
				p.From = append(p.From, n.Name)
				continue
			}
			if n.Meta.Tensor == nil {
				if n.Op == ir.Placeholder && n.Meta.HasValue {
					b.fwd[n] = n.Meta.Value // specialised Python number
					continue
				}
				return nil, nil, b.errf(n, "meta: input is neither a tensor nor a known Python value")
			}
			p := b.placeholder(fmt.Sprintf("primals_%d", len(all)+1), n.Target, n.Meta.Tensor, []string{n.Name})
			p.Meta.Stack = n.Meta.Stack
			b.fwd[n] = p
			if n.Op == ir.GetAttr {
				attrs[n.Target] = p
			}
			all = append(all, p)
			if inputRequiresGrad(b.src, n) {
				b.req[p] = true
				gradTargets = append(gradTargets, n.Target)
			}
		}
	}
	return all, gradTargets, nil
}

func (b *jointBuilder) placeholder(name, target string, m *ir.TensorMeta, from []string) *ir.Node {
	b.names[name] = true
	mc := *m
	p := &ir.Node{Name: name, Op: ir.Placeholder, Target: target, Meta: ir.Meta{Tensor: &mc}, From: from}
	b.g.Nodes = append(b.g.Nodes, p)
	return p
}

// addTangentData makes the joint graph runnable on its own: the tangent is
// the producer's grad_output for that output when recorded, else ones (the
// gradient of out.sum()), as the fixtures' expected grads assume.
func (b *jointBuilder) addTangentData(name string, i int, m *ir.TensorMeta) {
	if e := b.src.Expected; e != nil && i < len(e.GradOutputs) && e.GradOutputs[i] != nil {
		b.g.Tensors[name] = &ir.TensorData{T: e.GradOutputs[i], Origin: "data"}
		return
	}
	if t, err := tensor.Full(m.Shape.Sizes(), 1, m.DType); err == nil {
		b.g.Tensors[name] = &ir.TensorData{T: t, Origin: "init:ones"}
	}
}

func (b *jointBuilder) copyForward(n *ir.Node) (*ir.Node, error) {
	mapArg := func(a ir.Arg) ir.Arg { return ir.MapArg(a, func(x *ir.Node) ir.Arg { return b.fwd[x] }) }
	c := &ir.Node{Name: b.fresh(n.Name), Op: ir.CallFunction, Target: n.Target, Meta: n.Meta, From: []string{n.Name}}
	for _, a := range n.Args {
		c.Args = append(c.Args, mapArg(a))
	}
	for _, kv := range n.Kwargs {
		c.Kwargs = append(c.Kwargs, ir.Kwarg{Name: kv.Name, Value: mapArg(kv.Value)})
	}
	b.fwd[n] = c
	b.req[c] = b.requiresGrad(c)
	return c, nil
}

// jointNonDiff ops produce values that never carry a gradient, even
// when floating and computed from inputs that require grad.
var jointNonDiff = map[string]bool{"aten.detach": true, "aten.zeros_like": true, "aten.ones_like": true, "aten.empty_like": true,
	"aten.full_like": true, "aten.size": true, "aten.dtype": true, "aten.dim": true, "aten.numel": true}

func (b *jointBuilder) requiresGrad(c *ir.Node) bool {
	if jointNonDiff[c.Target] {
		return false
	}
	floating := c.Meta.Tensor != nil && c.Meta.Tensor.DType.IsFloat()
	for _, it := range c.Meta.Items {
		floating = floating || it.DType.IsFloat()
	}
	if !floating {
		return false
	}
	dep := false
	c.EachInput(func(in *ir.Node) { dep = dep || b.req[in] })
	return dep
}

func (b *jointBuilder) fresh(base string) string {
	base = strings.NewReplacer(".", "_", "-", "_").Replace(base)
	name := base
	for i := max(b.suffix[base], 1); b.names[name]; i++ {
		name = base + "_" + strconv.Itoa(i)
		b.suffix[base] = i
	}
	b.names[name] = true
	return name
}

// dropDeadBackward removes backward nodes whose value reaches no output
// (a derivative computed for an input that turned out not to need it).
func (b *jointBuilder) dropDeadBackward() {
	live := map[*ir.Node]bool{}
	for i := len(b.g.Nodes) - 1; i >= 0; i-- {
		n := b.g.Nodes[i]
		if n.Op == ir.Output || live[n] || !b.bwd[n] {
			live[n] = true
			n.EachInput(func(in *ir.Node) { live[in] = true })
		}
	}
	kept := b.g.Nodes[:0]
	for _, n := range b.g.Nodes {
		if live[n] {
			kept = append(kept, n)
		}
	}
	b.g.Nodes = kept
}

// printJoint prints the joint graph as TORCH_LOGS=aot_joint_graph does.
func printJoint(u *Unit) string {
	if u.Joint == nil {
		return "(no joint graph: nothing in this graph requires grad, so there is no backward)\n"
	}
	g := u.Joint.Graph
	var sb strings.Builder
	var ins []string
	for _, n := range g.Placeholders() {
		ins = append(ins, n.Name)
	}
	sb.WriteString("def forward(self, primals, tangents):\n")
	fmt.Fprintf(&sb, "    %s, = fx_pytree.tree_flatten_spec([primals, tangents], self._in_spec)\n", strings.Join(ins, ", "))
	for _, n := range g.Placeholders() {
		what := "the gradient of the output it matches"
		if strings.HasPrefix(n.Name, "primals_") {
			what = n.Target
			if td := g.Tensors[n.Target]; n.Meta.Tensor.RequiresGrad || (td != nil && td.RequiresGrad) {
				what += ", requires grad"
			}
		}
		fmt.Fprintf(&sb, "    # %s: %q is %s\n", n.Name, n.Meta.Tensor.String(), what)
	}
	// A backward node shares its From with the forward node it differentiates,
	// which comes first.
	first := map[string]*ir.Node{}
	for _, n := range g.Nodes {
		if len(n.From) > 0 && first[n.From[0]] == nil {
			first[n.From[0]] = n
		}
	}
	var lastNote string
	for _, n := range g.Nodes {
		switch n.Op {
		case ir.Placeholder:
			continue
		case ir.Output:
			fmt.Fprintf(&sb, "    return pytree.tree_unflatten(%s, self._out_spec)\n", ir.FormatArg(ir.List(n.Args[0].(ir.Tuple)), func(x *ir.Node) string { return x.Name }))
			continue
		}
		note := ""
		if st := n.Meta.Stack; len(st) > 0 {
			f := st[len(st)-1]
			note = fmt.Sprintf("# File: %s:%d, code: %s", f.File, f.Line, strings.TrimSpace(f.Code))
		}
		if f := first[n.From[0]]; f != n {
			note = "# backward of " + f.Name
			if d, ok := derivatives[strings.TrimPrefix(f.Target, "aten.")]; ok && f.Op == ir.CallFunction {
				note += " (" + strings.TrimPrefix(f.Target, "aten.") + "): " + d.Formula
			}
		}
		if note != "" && note != lastNote {
			sb.WriteString("    " + note + "\n")
			lastNote = note
		}
		sb.WriteString("    " + ir.ReadableNode(n) + "\n")
	}
	return sb.String()
}

// emit appends a backward call to aten.<op>, inferring its meta. Errors are
// sticky (the first one is kept and later emits return nil), so derivative
// formulas read as straight-line code.
func (b *jointBuilder) emit(op string, args ...ir.Arg) *ir.Node {
	if b.err != nil {
		return nil
	}
	for i, a := range args {
		if x, ok := a.(*ir.Node); ok && x == nil {
			b.err = b.errf(b.cur, "derivative of %s: aten.%s: args[%d] is missing", b.cur.Target, op, i)
			return nil
		}
	}
	n, err := b.emitRaw(op, args...)
	if err != nil {
		b.err = b.errf(b.cur, "derivative of %s: aten.%s: %v", b.cur.Target, op, err)
	}
	return n
}

func (b *jointBuilder) emitRaw(op string, args ...ir.Arg) (*ir.Node, error) {
	d := ir.Lookup("aten." + op)
	if d == nil {
		return nil, fmt.Errorf("not a registered op")
	}
	bound, err := d.Schema.Bind(args, nil)
	if err != nil {
		return nil, err
	}
	vals := make([]ir.Value, len(bound))
	for i, a := range bound {
		vals[i] = jointMeta(a)
	}
	v, err := ir.InferMeta(d, vals)
	if err != nil {
		return nil, fmt.Errorf("shape inference: %w", err)
	}
	n := &ir.Node{Name: b.fresh(op), Op: ir.CallFunction, Target: d.Name, Args: d.Schema.Trim(bound),
		From: b.cur.From, Meta: ir.Meta{Stack: b.cur.Meta.Stack}}
	switch x := v.(type) {
	case *ir.TensorMeta:
		n.Meta.Tensor = x
	case ir.Tuple:
		for _, it := range x {
			if m, ok := it.(*ir.TensorMeta); ok {
				n.Meta.Items = append(n.Meta.Items, m)
			}
		}
	default:
		n.Meta.Value, n.Meta.HasValue = v, true
	}
	b.g.Nodes = append(b.g.Nodes, n)
	b.bwd[n] = true
	return n, nil
}

// jointMeta is what shape inference sees for an arg: node references
// become their tensor meta (or tuple of metas, or Python value).
func jointMeta(a ir.Arg) ir.Value {
	switch v := a.(type) {
	case *ir.Node:
		switch {
		case v.Meta.Tensor != nil:
			return v.Meta.Tensor
		case v.Meta.Items != nil:
			t := make(ir.Tuple, len(v.Meta.Items))
			for i, m := range v.Meta.Items {
				t[i] = m
			}
			return t
		}
		return v.Meta.Value
	case ir.Tuple:
		out := make(ir.Tuple, len(v))
		for i, x := range v {
			out[i] = jointMeta(x)
		}
		return out
	case ir.List:
		out := make(ir.List, len(v))
		for i, x := range v {
			out[i] = jointMeta(x)
		}
		return out
	case ir.Slice:
		return ir.Slice{Start: jointMeta(v.Start), Stop: jointMeta(v.Stop), Step: jointMeta(v.Step)}
	}
	return a
}

// differentiate emits the derivative of forward node n from the table.
func (b *jointBuilder) differentiate(n *ir.Node) {
	b.cur = n
	d, ok := derivatives[strings.TrimPrefix(n.Target, "aten.")]
	if !ok {
		b.err = b.errf(n, "target: %s has no entry in the derivative table (stages/derivatives.go), but a gradient flows through it", n.Target)
		return
	}
	def := ir.Lookup(n.Target)
	if def == nil {
		b.err = b.errf(n, "target: %s is not a canonical op", n.Target)
		return
	}
	bound, err := def.Schema.Bind(n.Args, n.Kwargs)
	if err != nil {
		b.err = b.errf(n, "%v", err)
		return
	}
	d.Grad(&dctx{jointBuilder: b, n: n, a: bound, g: b.grad[n], items: b.items[n]})
}

// accumulate adds g to x's gradient, first summing it back to x's shape
// (broadcasting) and dtype.
func (b *jointBuilder) accumulate(x, g *ir.Node) {
	if g == nil || b.err != nil || !b.req[x] {
		return
	}
	if xm := x.Meta.Tensor; xm != nil {
		g = b.sumTo(g, xm.Shape.Sizes())
		if g != nil && g.Meta.Tensor != nil && g.Meta.Tensor.DType != xm.DType {
			g = b.emit("to_dtype", g, xm.DType)
		}
	}
	if prev := b.grad[x]; prev != nil {
		g = b.emit("add", prev, g)
	}
	b.grad[x] = g
}

// accumulateItem adds g to the gradient of item i of tuple-valued x.
func (b *jointBuilder) accumulateItem(x *ir.Node, i int, g *ir.Node) {
	if g == nil || b.err != nil || !b.req[x] {
		return
	}
	if i < 0 || i >= len(x.Meta.Items) {
		b.err = b.errf(b.cur, "args[1]: item %d of %q out of range", i, x.Name)
		return
	}
	if b.items[x] == nil {
		b.items[x] = make([]*ir.Node, len(x.Meta.Items))
	}
	if prev := b.items[x][i]; prev != nil {
		g = b.emit("add", prev, g)
	}
	b.items[x][i] = g
}

// sumTo reduces a broadcast gradient to shape: sum over the leading dims
// and over dims where shape has 1, then view.
func (b *jointBuilder) sumTo(g *ir.Node, shape []int) *ir.Node {
	if g == nil || g.Meta.Tensor == nil {
		return g
	}
	gs := g.Meta.Tensor.Shape.Sizes()
	if jointSameSizes(gs, shape) {
		return g
	}
	lead := len(gs) - len(shape)
	if lead < 0 {
		b.err = b.errf(b.cur, "gradient of shape %v cannot be reduced to %v", gs, shape)
		return nil
	}
	var dims ir.Tuple
	for i := range gs {
		if i < lead || (shape[i-lead] == 1 && gs[i] != 1) {
			dims = append(dims, int64(i))
		}
	}
	if len(dims) > 0 {
		g = b.emit("sum", g, dims, true)
	}
	return b.viewAs(g, shape)
}

// viewAs views g with shape; a gradient that is not viewable (a permuted
// one) is copied contiguous first, as reshape would.
func (b *jointBuilder) viewAs(g *ir.Node, shape []int) *ir.Node {
	if b.err != nil || g == nil {
		return nil
	}
	if jointSameSizes(g.Meta.Tensor.Shape.Sizes(), shape) {
		return g
	}
	if !contiguous(g) {
		g = b.emit("clone", g)
	}
	return b.emit("view", g, jointSizes(shape))
}

// contiguous reports whether a node's value is surely row-major, so that
// any view of it is valid. Shape inference runs on contiguous examples and
// cannot tell, so this follows the ops: everything but a view makes a fresh
// contiguous tensor; views keep contiguity only when they keep the order.
func contiguous(n *ir.Node) bool {
	if n.Op == ir.Placeholder || n.Op == ir.GetAttr {
		m := n.Meta.Tensor
		return m == nil || m.Stride == nil || jointSameSizes(m.Stride, tensor.ContiguousStrides(m.Shape.Sizes()))
	}
	in, _ := firstNodeArg(n)
	switch strings.TrimPrefix(n.Target, "aten.") {
	case "view", "unsqueeze", "squeeze", "alias", "reshape", "flatten", "to_dtype", "type_as", "detach":
		return in != nil && contiguous(in)
	case "permute":
		if in == nil || !contiguous(in) || len(n.Args) < 2 {
			return false
		}
		perm, _ := n.Args[1].(ir.Tuple)
		last := -1
		for _, p := range perm { // the dims of size > 1 must keep their order
			d, ok := p.(int64)
			if !ok || int(d) < 0 || int(d) >= len(in.Meta.Tensor.Shape) {
				return false
			}
			if in.Meta.Tensor.Shape[d].Size > 1 {
				if int(d) < last {
					return false
				}
				last = int(d)
			}
		}
		return true
	case "expand", "slice", "select", "transpose", "t", "numpy_T", "narrow", "expand_as", "diagonal", "getitem":
		return false
	}
	return true
}

func firstNodeArg(n *ir.Node) (*ir.Node, bool) {
	if len(n.Args) == 0 {
		return nil, false
	}
	x, ok := n.Args[0].(*ir.Node)
	return x, ok && x.Meta.Tensor != nil
}

func (b *jointBuilder) zeros(m *ir.TensorMeta) *ir.Node {
	return b.emit("full", jointSizes(m.Shape.Sizes()), 0.0, m.DType)
}

func jointSizes(s []int) ir.Tuple {
	t := make(ir.Tuple, len(s))
	for i, v := range s {
		t[i] = int64(v)
	}
	return t
}

func jointSameSizes(a, b []int) bool {
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
