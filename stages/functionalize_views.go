package stages

import (
	"fmt"

	"gcdbg/ir"
	"gcdbg/tensor"
)

// Aliasing and scatters for functionalization: which nodes are views of
// which, and how a new value of a view goes back into its base.

// layoutLimit caps the elements of a layout tensor (the same bound shape
// inference by example has).
const layoutLimit = 1 << 26

// aliasParent returns the node whose storage n's value shares, or nil.
// It runs n's op on a layout tensor of its input: the op is a view exactly
// when the result shares the layout's storage. That classifies reshape
// (a view only when strides allow), contiguous, to_dtype to the same
// dtype, and basic versus advanced indexing as PyTorch does.
func (f *functionalizer) aliasParent(n *ir.Node, d *ir.OpDef) (*ir.Node, error) {
	switch {
	case d.Kind == ir.KindView, d.Name == "aten.getitem", d.Name == "aten.to_dtype", d.Name == "aten.type_as":
	default:
		return nil, nil
	}
	if len(n.Args) == 0 {
		return nil, nil
	}
	first, ok := n.Args[0].(*ir.Node)
	if !ok {
		return nil, nil
	}
	parent := f.canon(first)
	switch {
	case parent.Meta.Tensor != nil:
	case parent.Meta.Items != nil && f.view[parent] != nil:
		// an item of split/chunk of a tensor; items of a fresh tuple
		// (sort's values and indices) are fresh values, not views
	default:
		return nil, nil
	}
	pl, err := f.layoutOf(parent)
	if err != nil {
		return nil, err
	}
	bound, err := d.Schema.Bind(n.Args, n.Kwargs)
	if err != nil {
		return nil, fmt.Errorf("args: %w", err)
	}
	vals := make([]ir.Value, len(bound))
	vals[0] = pl
	for i := 1; i < len(bound); i++ {
		vals[i] = ir.MapArg(bound[i], layoutExample)
	}
	out, err := ir.Call(d, vals)
	if err != nil {
		return nil, fmt.Errorf("deciding whether %s aliases its input: %w", d.Name, err)
	}
	if !sharesStorage(out, pl) {
		return nil, nil
	}
	f.layout[n] = out
	return parent, nil
}

// layoutOf is a tensor laid out as n's value (contiguous for a fresh value:
// graph inputs and op results are), or the replayed view for a view.
func (f *functionalizer) layoutOf(n *ir.Node) (ir.Value, error) {
	if l, ok := f.layout[n]; ok {
		return l, nil
	}
	mk := func(m *ir.TensorMeta) (*tensor.Tensor, error) {
		sizes := m.Shape.Sizes()
		if tensor.Numel(sizes) > layoutLimit {
			return nil, fmt.Errorf("node %q: tensor %s too large to track its views", n.Name, m)
		}
		return tensor.New(m.DType, sizes...), nil
	}
	var l ir.Value
	if n.Meta.Tensor != nil {
		t, err := mk(n.Meta.Tensor)
		if err != nil {
			return nil, err
		}
		l = t
	} else {
		items := make(ir.Tuple, len(n.Meta.Items))
		for i, m := range n.Meta.Items {
			t, err := mk(m)
			if err != nil {
				return nil, err
			}
			items[i] = t
		}
		l = items
	}
	f.layout[n] = l
	return l, nil
}

// layoutExample stands in for a node argument of a view op during the
// layout replay: zeros for a tensor (a valid index), the value otherwise.
func layoutExample(n *ir.Node) ir.Arg {
	if m := n.Meta.Tensor; m != nil {
		sizes := m.Shape.Sizes()
		if tensor.Numel(sizes) > layoutLimit {
			return nil
		}
		return tensor.New(m.DType, sizes...)
	}
	return n.Meta.Value
}

func sharesStorage(out, in ir.Value) bool {
	stores := map[*tensor.Storage]bool{}
	eachLayoutTensor(in, func(t *tensor.Tensor) { stores[t.S] = true })
	shared := false
	eachLayoutTensor(out, func(t *tensor.Tensor) { shared = shared || stores[t.S] })
	return shared
}

func eachLayoutTensor(v ir.Value, fn func(*tensor.Tensor)) {
	switch x := v.(type) {
	case *tensor.Tensor:
		fn(x)
	case ir.Tuple:
		for _, it := range x {
			eachLayoutTensor(it, fn)
		}
	}
}

// scatter puts val, the new value of view c, back into c's parent. It
// returns the node whose new value it computed (the parent, or for an
// item of split/chunk the tensor that was split) and that value.
func (f *functionalizer) scatter(c *ir.Node, val ir.Arg, mut *ir.Node) (*ir.Node, ir.Arg, error) {
	p := f.view[c].parent
	d := ir.Lookup(c.Target)
	bound, err := d.Schema.Bind(c.Args, c.Kwargs)
	if err != nil {
		return nil, nil, fmt.Errorf("view %q: args: %w", c.Name, err)
	}
	for i := 1; i < len(bound); i++ {
		if bound[i], err = f.read(bound[i]); err != nil {
			return nil, nil, err
		}
	}
	emitOn := func(target string, args ...ir.Arg) (*ir.Node, ir.Arg, error) {
		base, err := f.value(p)
		if err != nil {
			return nil, nil, err
		}
		n, err := f.emit(target, append([]ir.Arg{base, val}, args...), nil, mut)
		return p, n, err
	}
	reshaped := func(target string, args ...ir.Arg) (*ir.Node, ir.Arg, error) {
		n, err := f.emit(target, append([]ir.Arg{val}, args...), nil, mut)
		return p, n, err
	}
	switch c.Target {
	case "aten.slice":
		return emitOn("aten.slice_scatter", bound[1:]...)
	case "aten.select":
		return emitOn("aten.select_scatter", bound[1:]...)
	case "aten.narrow":
		return f.narrowScatter(c, p, bound, emitOn)
	case "aten.getitem":
		if p.Meta.Items != nil {
			return f.splitItemScatter(c, p, val, mut)
		}
		base, err := f.value(p)
		if err != nil {
			return nil, nil, err
		}
		if steps, ok := basicSteps(bound[1], len(p.Meta.Tensor.Shape)); ok {
			chain, err := f.viewChain(base, steps[:max(len(steps)-1, 0)], mut)
			if err != nil {
				return nil, nil, err
			}
			v, err := f.scatterChain(chain, steps, val, mut)
			return p, v, err
		}
		// other basic indexing (None, Ellipsis): index_put writes exactly
		// the view's elements
		n, err := f.emit("aten.index_put", []ir.Arg{base, bound[1], val}, nil, mut)
		return p, n, err
	case "aten.view", "aten.reshape", "aten.flatten", "aten.squeeze", "aten.unsqueeze", "aten.view_as", "aten.reshape_as":
		// same elements in the same order: reshaping back is the inverse
		return reshaped("aten.reshape", fzSizes(p.Meta.Tensor))
	case "aten.permute":
		dims, err := ir.Args{Op: d, V: bound}.Ints(1)
		if err != nil {
			return nil, nil, fmt.Errorf("view %q: %w", c.Name, err)
		}
		inv := make(ir.Tuple, len(dims))
		for i, dim := range dims {
			if dim, err = tensor.NormDim(dim, len(dims)); err != nil {
				return nil, nil, fmt.Errorf("view %q: %w", c.Name, err)
			}
			inv[dim] = int64(i)
		}
		return reshaped("aten.permute", inv)
	case "aten.transpose":
		return reshaped("aten.transpose", bound[1], bound[2])
	case "aten.t", "aten.numpy_T":
		return reshaped(c.Target)
	case "aten.alias", "aten.detach", "aten.contiguous", "aten.to_dtype", "aten.type_as":
		return p, val, nil // the same tensor under another name
	}
	return nil, nil, fmt.Errorf("writes through a view made by %s (node %q), which functionalization cannot scatter back", c.Target, c.Name)
}

// narrowScatter is slice_scatter with narrow's (start, length) as bounds.
func (f *functionalizer) narrowScatter(c, p *ir.Node, bound []ir.Arg, emitOn func(string, ...ir.Arg) (*ir.Node, ir.Arg, error)) (*ir.Node, ir.Arg, error) {
	a := ir.Args{Op: ir.Lookup(c.Target), V: bound}
	dim, err := a.Int(1)
	if err == nil {
		dim, err = tensor.NormDim(dim, len(p.Meta.Tensor.Shape))
	}
	start, err2 := a.Int(2)
	length, err3 := a.Int(3)
	for _, e := range []error{err, err2, err3} {
		if e != nil {
			return nil, nil, fmt.Errorf("view %q: %w", c.Name, e)
		}
	}
	if start < 0 {
		start += p.Meta.Tensor.Shape.Sizes()[dim]
	}
	return emitOn("aten.slice_scatter", int64(dim), int64(start), int64(start+length))
}

// splitItemScatter handles getitem(split(x) or chunk(x), i): the item is
// x sliced along the split dim, so its new value slice-scatters into x.
func (f *functionalizer) splitItemScatter(c, sp *ir.Node, val ir.Arg, mut *ir.Node) (*ir.Node, ir.Arg, error) {
	if sp.Target != "aten.split" && sp.Target != "aten.chunk" {
		return nil, nil, fmt.Errorf("writes through item of %s (node %q), which functionalization cannot scatter back", sp.Target, sp.Name)
	}
	x := f.view[sp].parent
	spd := ir.Lookup(sp.Target)
	bound, err := spd.Schema.Bind(sp.Args, sp.Kwargs)
	if err != nil {
		return nil, nil, fmt.Errorf("node %q: args: %w", sp.Name, err)
	}
	a := ir.Args{Op: spd, V: bound}
	dim, err := a.Int(2)
	if err == nil {
		dim, err = tensor.NormDim(dim, len(x.Meta.Tensor.Shape))
	}
	idx, ierr := ir.Args{Op: ir.Lookup(c.Target), V: []ir.Value{nil, c.Args[1]}}.Int(1)
	if err != nil || ierr != nil {
		return nil, nil, fmt.Errorf("view %q: cannot locate the item in %q: %v %v", c.Name, sp.Name, err, ierr)
	}
	items := sp.Meta.Items
	if idx < 0 {
		idx += len(items)
	}
	if idx < 0 || idx >= len(items) {
		return nil, nil, fmt.Errorf("view %q: item %d of %d", c.Name, idx, len(items))
	}
	start := 0
	for _, m := range items[:idx] {
		start += m.Shape.Sizes()[dim]
	}
	end := start + items[idx].Shape.Sizes()[dim]
	base, err := f.value(x)
	if err != nil {
		return nil, nil, err
	}
	n, err := f.emit("aten.slice_scatter", []ir.Arg{base, val, int64(dim), int64(start), int64(end)}, nil, mut)
	return x, n, err
}

func fzSizes(m *ir.TensorMeta) ir.Tuple {
	sizes := m.Shape.Sizes()
	t := make(ir.Tuple, len(sizes))
	for i, s := range sizes {
		t[i] = int64(s)
	}
	return t
}

// viewStep is one select or slice that a basic Python index performs.
type viewStep struct {
	op   string // "select" or "slice"
	args []ir.Arg
}

// basicSteps splits a basic index (ints and constant slices: x[0, 1:3])
// into select/slice steps, so writes through it become the select_scatter
// and slice_scatter chain PyTorch's functionalization emits. Full slices
// are no steps at all; an Ellipsis spans the dims the other items leave.
// ok is false for anything else (None, index tensors, bounds computed in
// the graph): index_put handles those.
func basicSteps(index ir.Arg, ndim int) (steps []viewStep, ok bool) {
	items := []ir.Arg{index}
	if t, isTuple := index.(ir.Tuple); isTuple {
		items = t
	}
	consuming, ellipses := 0, 0 // an Ellipsis spans the dims the other items leave
	for _, it := range items {
		if _, ok := it.(ir.Ellipsis); ok {
			ellipses++
		} else {
			consuming++
		}
	}
	if consuming > ndim || ellipses > 1 {
		return nil, false
	}
	dim := int64(0)
	for _, it := range items {
		switch v := it.(type) {
		case ir.Ellipsis: // y[..., 0] = v (Hugging Face's top-p: mask[..., 1:] = ...)
			dim += int64(ndim - consuming)
		case int64:
			steps = append(steps, viewStep{"select", []ir.Arg{dim, v}})
		case ir.Slice:
			v.Start, v.Stop, v.Step = knownInt(v.Start), knownInt(v.Stop), knownInt(v.Step)
			for _, part := range []ir.Arg{v.Start, v.Stop, v.Step} {
				if _, isInt := part.(int64); part != nil && !isInt {
					return nil, false
				}
			}
			if s, _ := v.Step.(int64); v.Step != nil && s <= 0 {
				return nil, false
			}
			if v.Start != nil || v.Stop != nil || (v.Step != nil && v.Step != int64(1)) {
				step := v.Step
				if step == nil {
					step = int64(1)
				}
				steps = append(steps, viewStep{"slice", []ir.Arg{dim, v.Start, v.Stop, step}})
			}
			dim++
		default:
			return nil, false
		}
	}
	return steps, true
}

// knownInt is a slice bound computed in the graph from sizes whose value
// the graph's metadata holds (MoCo's `self.queue[:, 0:keys.shape[0]] = ...`:
// a getitem of x.size() with value 32) as that int, as the decomposition
// resolves it anyway; anything else unchanged. The write then becomes a
// slice_scatter as with a constant bound: as an index_put its slice
// argument reached the compiled program's eager fallback, which cannot
// encode one.
func knownInt(a ir.Arg) ir.Arg {
	if n, ok := a.(*ir.Node); ok && n.Meta.Tensor == nil && n.Meta.HasValue {
		if v, isInt := n.Meta.Value.(int64); isInt {
			return v
		}
	}
	return a
}

// viewChain emits the views of base that steps describe; the result has
// len(steps)+1 entries, base first.
func (f *functionalizer) viewChain(base ir.Arg, steps []viewStep, from *ir.Node) ([]ir.Arg, error) {
	chain := []ir.Arg{base}
	for _, s := range steps {
		v, err := f.emit("aten."+s.op, append([]ir.Arg{chain[len(chain)-1]}, s.args...), nil, from)
		if err != nil {
			return nil, err
		}
		chain = append(chain, v)
	}
	return chain, nil
}

// scatterChain puts val, the new value of the last view of chain, back
// through every step: the new value of chain[0].
func (f *functionalizer) scatterChain(chain []ir.Arg, steps []viewStep, val ir.Arg, from *ir.Node) (ir.Arg, error) {
	for i := len(steps) - 1; i >= 0; i-- {
		n, err := f.emit("aten."+steps[i].op+"_scatter", append([]ir.Arg{chain[i], val}, steps[i].args...), nil, from)
		if err != nil {
			return nil, err
		}
		val = n
	}
	return val, nil
}
