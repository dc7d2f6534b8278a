package stages

import (
	"fmt"
	"strings"

	"gcdbg/ir"
)

// Functionalization, as AOTAutograd does it: the normalized graph may
// mutate (add_, relu_, setitem, copy_, writes through views); the
// functional graph computes the same values without mutating anything.
//
//   - `y = x.add_(z)` becomes `add = aten.add(x, z)`; every later read of x
//     (or y, which is x) reads add.
//   - a write through a view (`v = x[0]; v.mul_(2)`) becomes the
//     out-of-place op on the view, then scatters (select_scatter,
//     slice_scatter, index_put, an inverse permute or reshape) that put the
//     result back into each base up the view chain, giving a new version
//     of the root base. Views of that base read later are regenerated from
//     the new version by replaying their view ops.
//   - a mutated graph input (placeholder, get_attr buffer) is returned as an
//     extra output after the user's outputs and listed in FunctionalInfo's
//     Writebacks: the caller copies it back, the epilogue AOTAutograd runs
//     after the compiled graph. The graph itself stays free of copy_.
//
// Which nodes alias which is decided by running each view-like op on a
// layout tensor (functionalize_views.go), so every view op the canonical set
// has, including reshape (a view only when strides allow), is classified by
// its real semantics, not by a list.

// Writeback says that a mutated graph input's final value is output
// Output (an index into the flattened outputs) of the functional graph.
type Writeback struct {
	Target string // the placeholder's or get_attr's Target (its key in Graph.Tensors)
	Input  string // the input node's name
	Output int
}

// FunctionalInfo describes the extra outputs of a functional graph.
type FunctionalInfo struct {
	NumOutputs int // the user's outputs come first; write-backs follow
	Writebacks []Writeback
}

// FunctionalInfo returns the write-backs of the Unit's functional graph
// (kept on the Unit, so nothing outlives it); a graph with no input
// mutation has none.
func (u *Unit) FunctionalInfo() FunctionalInfo {
	if u.functional != nil {
		return *u.functional
	}
	if u.Functional == nil {
		return FunctionalInfo{}
	}
	return FunctionalInfo{NumOutputs: len(u.Functional.Outputs())}
}

// functionalizer holds the state of one pass over a normalized graph.
type functionalizer struct {
	src, out *ir.Graph
	info     *FunctionalInfo // the write-backs, when the output node gained any
	names    map[string]bool
	// cur is each source node's current value in the new graph. For a view
	// it is valid only while seen[n] equals its root's version.
	cur  map[*ir.Node]ir.Arg
	same map[*ir.Node]*ir.Node // an in-place op's result node -> the node it mutated
	view map[*ir.Node]*viewOf  // source view nodes
	ver  map[*ir.Node]int      // root -> number of mutations so far
	seen map[*ir.Node]int      // view -> root version cur was made at
	// layout holds, per source node, a tensor (or tuple) laid out as the
	// node's value: storage shared means aliasing (functionalize_views.go).
	layout  map[*ir.Node]ir.Value
	mutated []*ir.Node // mutated graph inputs, in order of first mutation
}

// viewOf says that a node's value aliases parent's (and so root's) storage.
type viewOf struct{ parent, root *ir.Node }

func functionalize(u *Unit) error {
	g := u.Normalized
	f := &functionalizer{
		src:    g,
		out:    &ir.Graph{Name: g.Name, Break: g.Break, Guards: g.Guards, Tensors: g.Tensors, Expected: g.Expected, Timing: g.Timing},
		names:  map[string]bool{},
		cur:    map[*ir.Node]ir.Arg{},
		same:   map[*ir.Node]*ir.Node{},
		view:   map[*ir.Node]*viewOf{},
		ver:    map[*ir.Node]int{},
		seen:   map[*ir.Node]int{},
		layout: map[*ir.Node]ir.Value{},
	}
	for _, n := range g.Nodes {
		f.names[n.Name] = true
	}
	for _, n := range g.Nodes {
		if err := f.node(n); err != nil {
			return fmt.Errorf("graph %q: node %q: %w", g.Name, n.Name, err)
		}
	}
	if err := f.out.Validate(); err != nil {
		return err
	}
	u.Functional = f.out
	u.functional = f.info
	return nil
}

func (f *functionalizer) node(n *ir.Node) error {
	switch n.Op {
	case ir.Placeholder, ir.GetAttr:
		c := &ir.Node{Name: n.Name, Op: n.Op, Target: n.Target, Meta: n.Meta, From: []string{n.Name}}
		f.out.Nodes = append(f.out.Nodes, c)
		f.cur[n] = c
		return nil
	case ir.Output:
		return f.output(n)
	case ir.CallFunction:
		d := ir.Lookup(n.Target)
		if d == nil {
			return fmt.Errorf("target: %q is not a canonical op (functionalization runs on the normalized graph)", n.Target)
		}
		if d.Inplace {
			return f.mutate(n, d)
		}
		return f.copyNode(n, d)
	}
	return fmt.Errorf("op: %s nodes are normalized away before functionalization", n.Op)
}

// copyNode carries a non-mutating node over unchanged except that its
// inputs read their current versions; it records whether it is a view.
func (f *functionalizer) copyNode(n *ir.Node, d *ir.OpDef) error {
	args, kwargs, err := f.readAll(n.Args, n.Kwargs)
	if err != nil {
		return err
	}
	target := n.Target
	if len(n.Args) > 0 && len(args) > 0 && !sameNode(n.Args[0], args[0]) {
		target = reshapeFor(target)
	}
	c := &ir.Node{Name: n.Name, Op: n.Op, Target: target, Args: args, Kwargs: kwargs, Meta: n.Meta, From: []string{n.Name}}
	f.out.Nodes = append(f.out.Nodes, c)
	f.cur[n] = c
	parent, err := f.aliasParent(n, d)
	if err != nil {
		return err
	}
	if parent != nil {
		root := parent
		if pv := f.view[parent]; pv != nil {
			root = pv.root
		}
		f.view[n] = &viewOf{parent: parent, root: root}
		f.seen[n] = f.ver[root]
	}
	return nil
}

// reshapeFor turns view into reshape for a view taken of a new version of
// its base: versions made by scatters and inverse permutes need not be
// contiguous, and in a graph without mutation only the values matter.
func reshapeFor(target string) string {
	switch target {
	case "aten.view":
		return "aten.reshape"
	case "aten.view_as":
		return "aten.reshape_as"
	}
	return target
}

// sameNode reports whether a copied arg still is the source node's own copy
// (the same name): the input was not replaced by a newer version.
func sameNode(src, copied ir.Arg) bool {
	a, ok1 := src.(*ir.Node)
	b, ok2 := copied.(*ir.Node)
	return ok1 && ok2 && a.Name == b.Name
}

// canon follows in-place results to the node they mutated: `y = x.add_(1)`
// makes y another name for x.
func (f *functionalizer) canon(n *ir.Node) *ir.Node {
	for f.same[n] != nil {
		n = f.same[n]
	}
	return n
}

// value is n's current value in the new graph, regenerating a stale view
// from its parent's current value.
func (f *functionalizer) value(n *ir.Node) (ir.Arg, error) {
	n = f.canon(n)
	v, ok := f.cur[n]
	if !ok {
		return nil, fmt.Errorf("args: reads %q, which has no value yet", n.Name)
	}
	vi := f.view[n]
	if vi == nil || f.seen[n] == f.ver[vi.root] {
		return v, nil
	}
	p, err := f.value(vi.parent)
	if err != nil {
		return nil, err
	}
	_, kwargs, err := f.readAll(nil, n.Kwargs)
	if err != nil {
		return nil, err
	}
	args := make([]ir.Arg, len(n.Args))
	args[0] = p
	for i := 1; i < len(n.Args); i++ {
		if args[i], err = f.read(n.Args[i]); err != nil {
			return nil, err
		}
	}
	c, err := f.emit(reshapeFor(n.Target), args, kwargs, n)
	if err != nil {
		return nil, fmt.Errorf("regenerating view %q after its base changed: %w", n.Name, err)
	}
	f.cur[n] = c
	f.seen[n] = f.ver[vi.root]
	return c, nil
}

// read maps an arg's node references to their current values.
func (f *functionalizer) read(a ir.Arg) (ir.Arg, error) {
	var err error
	out := ir.MapArg(a, func(n *ir.Node) ir.Arg {
		if err != nil {
			return nil
		}
		var v ir.Arg
		v, err = f.value(n)
		return v
	})
	return out, err
}

func (f *functionalizer) readAll(args []ir.Arg, kwargs []ir.Kwarg) ([]ir.Arg, []ir.Kwarg, error) {
	var outA []ir.Arg
	var outK []ir.Kwarg
	for _, a := range args {
		v, err := f.read(a)
		if err != nil {
			return nil, nil, err
		}
		outA = append(outA, v)
	}
	for _, kv := range kwargs {
		v, err := f.read(kv.Value)
		if err != nil {
			return nil, nil, err
		}
		outK = append(outK, ir.Kwarg{Name: kv.Name, Value: v})
	}
	return outA, outK, nil
}

// mutate replaces in-place node n by its out-of-place form and makes the
// result the new version of what n mutated.
func (f *functionalizer) mutate(n *ir.Node, d *ir.OpDef) error {
	if len(n.Args) == 0 {
		return fmt.Errorf("args: %s has no self argument", d.Name)
	}
	selfSrc, ok := n.Args[0].(*ir.Node)
	if !ok {
		return fmt.Errorf("args[0]: %s mutates a constant (%s), not a tensor node", d.Name, ir.FormatArg(n.Args[0], func(m *ir.Node) string { return m.Name }))
	}
	self := f.canon(selfSrc)
	sm := self.Meta.Tensor
	if sm == nil {
		return fmt.Errorf("args[0]: %s mutates %q, which is not a tensor", d.Name, self.Name)
	}
	args, kwargs, err := f.readAll(n.Args, n.Kwargs)
	if err != nil {
		return err
	}
	r, err := f.outOfPlace(n, d, args, kwargs)
	if err != nil {
		return err
	}
	// An in-place op keeps self's dtype and shape: the out-of-place result
	// is cast (add_ of a float32 into float16) and broadcast (fill_) to them.
	if r, err = f.conform(r, sm, n, false); err != nil {
		return err
	}
	f.same[n] = self
	return f.commit(self, r, n)
}

// outOfPlace emits the functional counterpart of in-place node n.
func (f *functionalizer) outOfPlace(n *ir.Node, d *ir.OpDef, args []ir.Arg, kwargs []ir.Kwarg) (*ir.Node, error) {
	switch d.Name {
	case "aten.setitem":
		return f.setitem(n, args, kwargs)
	case "aten.copy_", "aten.fill_":
		if len(args) < 2 {
			return nil, fmt.Errorf("args: %s needs a source", d.Name)
		}
		if src, ok := args[1].(*ir.Node); ok && src.Meta.Tensor != nil {
			// conform casts and broadcasts src; when it has nothing to do,
			// clone gives the copy a node of its own (aten.copy's role).
			c, err := f.conform(src, f.canon(n.Args[0].(*ir.Node)).Meta.Tensor, n, true)
			if err != nil || c != src {
				return c, err
			}
			return f.emit("aten.clone", []ir.Arg{src}, nil, n)
		}
		return f.emit("aten.full_like", []ir.Arg{args[0], args[1]}, nil, n)
	}
	base := ir.Lookup(strings.TrimSuffix(d.Name, "_"))
	if !strings.HasSuffix(d.Name, "_") || base == nil || base.Inplace {
		return nil, fmt.Errorf("target: in-place op %s has no out-of-place counterpart", d.Name)
	}
	return f.emit(base.Name, args, kwargs, n)
}

// setitem is `self[index] = value` without mutation. A basic index
// (ints, constant slices) becomes PyTorch's form: the view, the value
// broadcast to it, and select_scatter/slice_scatter back into self;
// anything else becomes one index_put.
func (f *functionalizer) setitem(n *ir.Node, args []ir.Arg, kwargs []ir.Kwarg) (*ir.Node, error) {
	self, ok := args[0].(*ir.Node)
	if len(args) != 3 || len(kwargs) != 0 || !ok || self.Meta.Tensor == nil {
		return f.emit("aten.index_put", args, kwargs, n)
	}
	steps, basic := basicSteps(args[1], len(self.Meta.Tensor.Shape))
	if !basic {
		return f.emit("aten.index_put", args, nil, n)
	}
	chain, err := f.viewChain(self, steps, n)
	if err != nil {
		return nil, err
	}
	target := chain[len(chain)-1].(*ir.Node)
	var val *ir.Node
	if v, isNode := args[2].(*ir.Node); isNode && v.Meta.Tensor != nil {
		val, err = f.conform(v, target.Meta.Tensor, n, true)
	} else {
		val, err = f.emit("aten.full_like", []ir.Arg{target, args[2]}, nil, n)
	}
	if err != nil {
		return nil, err
	}
	if val != target && len(steps) > 0 {
		f.dropUnused(target) // only its meta was needed
	}
	r, err := f.scatterChain(chain, steps, val, n)
	if err != nil {
		return nil, err
	}
	return r.(*ir.Node), nil
}

// dropUnused removes node n from the new graph when nothing reads it.
func (f *functionalizer) dropUnused(n *ir.Node) {
	at := -1
	for i, m := range f.out.Nodes {
		if m == n {
			at = i
			continue
		}
		used := false
		m.EachInput(func(in *ir.Node) { used = used || in == n })
		if used {
			return
		}
	}
	if at >= 0 {
		f.out.Nodes = append(f.out.Nodes[:at], f.out.Nodes[at+1:]...)
	}
}

// conform casts and broadcasts r to the mutated tensor's dtype and shape.
// Only copies (setitem, copy_, fill_) may cast floats into an integer
// tensor; an in-place op refuses, as PyTorch does.
func (f *functionalizer) conform(r *ir.Node, want *ir.TensorMeta, n *ir.Node, anyCast bool) (*ir.Node, error) {
	got := r.Meta.Tensor
	if got == nil {
		return nil, fmt.Errorf("the out-of-place form of %s returned no tensor", n.Target)
	}
	var err error
	if got.DType != want.DType {
		if !anyCast && got.DType.IsFloat() && !want.DType.IsFloat() {
			return nil, fmt.Errorf("result type %s can't be cast to the desired output type %s", got.DType, want.DType)
		}
		if r, err = f.emit("aten.to_dtype", []ir.Arg{r, want.DType}, nil, n); err != nil {
			return nil, err
		}
	}
	if !r.Meta.Tensor.Shape.Equal(want.Shape) {
		size := make(ir.Tuple, len(want.Shape))
		for i, s := range want.Shape.Sizes() {
			size[i] = int64(s)
		}
		if r, err = f.emit("aten.expand", []ir.Arg{r, size}, nil, n); err != nil {
			return nil, fmt.Errorf("in-place result does not fit %s: %w", want, err)
		}
	}
	return r, nil
}

// commit makes r the value of self after the mutation by n: a root simply
// gets a new version; a view's new value is scattered into each base up its
// chain, and the root gets the result.
func (f *functionalizer) commit(self *ir.Node, r *ir.Node, n *ir.Node) error {
	vi := f.view[self]
	if vi == nil {
		f.bump(self)
		f.cur[self] = r
		return nil
	}
	var cur ir.Arg = r
	for c := self; c != vi.root; {
		next, nv, err := f.scatter(c, cur, n)
		if err != nil {
			return err
		}
		c, cur = next, nv
	}
	f.bump(vi.root)
	f.cur[vi.root] = cur
	f.cur[self] = r
	f.seen[self] = f.ver[vi.root]
	return nil
}

func (f *functionalizer) bump(root *ir.Node) {
	if f.ver[root] == 0 && (root.Op == ir.Placeholder || root.Op == ir.GetAttr) {
		f.mutated = append(f.mutated, root)
	}
	f.ver[root]++
}

// emit appends a new call to the functional graph, inferring its meta.
// from is the source node it stands for (provenance and stack).
func (f *functionalizer) emit(target string, args []ir.Arg, kwargs []ir.Kwarg, from *ir.Node) (*ir.Node, error) {
	d := ir.Lookup(target)
	if d == nil {
		return nil, fmt.Errorf("target: %q is not a canonical op", target)
	}
	bound, err := d.Schema.Bind(args, kwargs)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", target, err)
	}
	vals := make([]ir.Value, len(bound))
	for i, b := range bound {
		vals[i] = ir.MapArg(b, fzMetaOf)
	}
	v, err := ir.InferMeta(d, vals)
	if err != nil {
		return nil, fmt.Errorf("shape inference: %w", err)
	}
	name := f.fresh(strings.TrimPrefix(target, "aten."))
	c := &ir.Node{Name: name, Op: ir.CallFunction, Target: target, Args: d.Schema.Trim(bound),
		Meta: ir.Meta{Stack: from.Meta.Stack}, From: []string{from.Name}}
	fzSetMeta(c, v)
	f.out.Nodes = append(f.out.Nodes, c)
	return c, nil
}

func (f *functionalizer) fresh(base string) string {
	name := base
	for i := 1; f.names[name]; i++ {
		name = fmt.Sprintf("%s_%d", base, i)
	}
	f.names[name] = true
	return name
}

// output returns the user's outputs at their final versions, then every
// mutated input's final value, recorded as a Writeback.
func (f *functionalizer) output(n *ir.Node) error {
	args, _, err := f.readAll(n.Args, nil)
	if err != nil {
		return err
	}
	c := &ir.Node{Name: n.Name, Op: ir.Output, Target: n.Target, Args: args, From: []string{n.Name}}
	f.out.Nodes = append(f.out.Nodes, c)
	if len(f.mutated) == 0 {
		return nil
	}
	var items []ir.Arg
	if len(args) > 0 {
		switch v := args[0].(type) {
		case ir.Tuple:
			items = append(items, v...)
		case ir.List:
			items = append(items, v...)
		default:
			items = append(items, v)
		}
	}
	info := FunctionalInfo{NumOutputs: len(items)}
	for _, in := range f.mutated {
		info.Writebacks = append(info.Writebacks, Writeback{Target: in.Target, Input: in.Name, Output: len(items)})
		items = append(items, f.cur[in])
	}
	c.Args = []ir.Arg{ir.Tuple(items)}
	f.info = &info
	return nil
}

// fzMetaOf is what shape inference knows about a new-graph node.
func fzMetaOf(n *ir.Node) ir.Arg {
	switch {
	case n.Meta.Tensor != nil:
		return n.Meta.Tensor
	case n.Meta.Items != nil:
		t := make(ir.Tuple, len(n.Meta.Items))
		for i, m := range n.Meta.Items {
			t[i] = m
		}
		return t
	}
	return n.Meta.Value
}

func fzSetMeta(n *ir.Node, v ir.Value) {
	switch x := v.(type) {
	case *ir.TensorMeta:
		n.Meta.Tensor = x
	case ir.Tuple:
		items := make([]*ir.TensorMeta, len(x))
		for i, it := range x {
			m, ok := it.(*ir.TensorMeta)
			if !ok {
				n.Meta.Value, n.Meta.HasValue = x, true
				return
			}
			items[i] = m
		}
		n.Meta.Items = items
	default:
		n.Meta.Value, n.Meta.HasValue = v, true
	}
}

// printFunctional prints the functional graph; a header lists the input
// write-backs, which are extra outputs rather than copy_ nodes so the graph
// stays free of mutation.
func printFunctional(u *Unit) string {
	g := u.Functional
	info := u.FunctionalInfo()
	var b strings.Builder
	b.WriteString("# Functional graph: no in-place ops, no writes through views.\n")
	if len(info.Writebacks) == 0 {
		b.WriteString("# No graph input is mutated: nothing to write back.\n")
	} else {
		fmt.Fprintf(&b, "# Mutated inputs are returned after the %d user outputs; the caller writes them back\n", info.NumOutputs)
		b.WriteString("# (AOTAutograd's epilogue), as if the graph ended with:\n")
		for _, w := range info.Writebacks {
			dst := w.Input
			if n := g.Node(w.Input); n != nil && n.Op == ir.GetAttr {
				dst = "self." + n.Target
			}
			fmt.Fprintf(&b, "#     %s.copy_(outputs[%d])\n", dst, w.Output)
		}
	}
	b.WriteString(ir.Readable(g))
	return b.String()
}
