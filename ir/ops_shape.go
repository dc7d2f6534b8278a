package ir

import (
	"fmt"
	"gcdbg/tensor"
)

// Views (which alias their input), indexing, joining and splitting,
// creation, sorting, dtype conversion and the Python-valued meta ops.

func init() {
	view := func(schema string, f func(x *tensor.Tensor, a Args) (*tensor.Tensor, error)) {
		Register(schema, KindView, func(a Args) (Value, error) {
			x, err := a.Tensor(0)
			if err != nil {
				return nil, err
			}
			return f(x, a)
		})
	}
	view("view(self, *size)", func(x *tensor.Tensor, a Args) (*tensor.Tensor, error) {
		if dt, ok := a.V[1].(Tuple); ok && len(dt) == 1 {
			if d, ok := dt[0].(tensor.DType); ok { // x.view(torch.int32) reinterprets bytes
				if d.Size() != x.DType.Size() {
					return nil, a.errf(1, "view as %s changes the element size; not supported", d)
				}
				return tensor.FromBytes(d, x.Shape, x.Contiguous().Bytes())
			}
		}
		s, err := a.Ints(1)
		if err != nil {
			return nil, err
		}
		return tensor.ViewAs(x, s)
	})
	view("reshape(self, *shape)", func(x *tensor.Tensor, a Args) (*tensor.Tensor, error) {
		s, err := a.Ints(1)
		if err != nil {
			return nil, err
		}
		return tensor.Reshape(x, s)
	})
	view("permute(self, *dims)", func(x *tensor.Tensor, a Args) (*tensor.Tensor, error) {
		s, err := a.Ints(1)
		if err != nil {
			return nil, err
		}
		return tensor.Permute(x, s)
	})
	view("expand(self, *size)", func(x *tensor.Tensor, a Args) (*tensor.Tensor, error) {
		s, err := a.Ints(1)
		if err != nil {
			return nil, err
		}
		return tensor.Expand(x, s)
	})
	view("transpose(self, dim0, dim1)", func(x *tensor.Tensor, a Args) (*tensor.Tensor, error) {
		n, err := a.IntsAt(1, 2)
		if err != nil {
			return nil, err
		}
		return tensor.Transpose(x, n[0], n[1])
	})
	view("t(self)", func(x *tensor.Tensor, a Args) (*tensor.Tensor, error) { return tensor.T(x) })
	// numpy_T is x.T: all dimensions reversed.
	view("numpy_T(self)", func(x *tensor.Tensor, a Args) (*tensor.Tensor, error) {
		dims := make([]int, x.Dim())
		for i := range dims {
			dims[i] = x.Dim() - 1 - i
		}
		return tensor.Permute(x, dims)
	})
	view("unsqueeze(self, dim)", func(x *tensor.Tensor, a Args) (*tensor.Tensor, error) {
		d, err := a.Int(1)
		if err != nil {
			return nil, err
		}
		return tensor.Unsqueeze(x, d)
	})
	view("squeeze(self, dim=None)", func(x *tensor.Tensor, a Args) (*tensor.Tensor, error) {
		dims, err := a.OptInts(1)
		if err != nil {
			return nil, err
		}
		return tensor.Squeeze(x, dims)
	})
	view("flatten(self, start_dim=0, end_dim=-1)", func(x *tensor.Tensor, a Args) (*tensor.Tensor, error) {
		n, err := a.IntsAt(1, 2)
		if err != nil {
			return nil, err
		}
		return tensor.Flatten(x, n[0], n[1])
	})
	view("select(self, dim, index)", func(x *tensor.Tensor, a Args) (*tensor.Tensor, error) {
		n, err := a.IntsAt(1, 2)
		if err != nil {
			return nil, err
		}
		return tensor.Select(x, n[0], n[1])
	})
	view("narrow(self, dim, start, length)", func(x *tensor.Tensor, a Args) (*tensor.Tensor, error) {
		n, err := a.IntsAt(1, 2, 3)
		if err != nil {
			return nil, err
		}
		return tensor.Narrow(x, n[0], n[1], n[2])
	})
	view("slice(self, dim=0, start=None, end=None, step=1)", func(x *tensor.Tensor, a Args) (*tensor.Tensor, error) {
		d, err := a.Int(1)
		if err != nil {
			return nil, err
		}
		s, err := a.OptInt(2)
		if err != nil {
			return nil, err
		}
		e, err := a.OptInt(3)
		if err != nil {
			return nil, err
		}
		st, err := a.OptInt(4)
		if err != nil {
			return nil, err
		}
		return tensor.Slice(x, d, s, e, st)
	})
	view("expand_as(self, other)", func(x *tensor.Tensor, a Args) (*tensor.Tensor, error) {
		o, err := a.Tensor(1)
		if err != nil {
			return nil, err
		}
		return tensor.Expand(x, o.Shape)
	})
	view("view_as(self, other)", func(x *tensor.Tensor, a Args) (*tensor.Tensor, error) {
		o, err := a.Tensor(1)
		if err != nil {
			return nil, err
		}
		return tensor.ViewAs(x, o.Shape)
	})
	view("reshape_as(self, other)", func(x *tensor.Tensor, a Args) (*tensor.Tensor, error) {
		o, err := a.Tensor(1)
		if err != nil {
			return nil, err
		}
		return tensor.Reshape(x, o.Shape)
	})
	view("detach(self)", func(x *tensor.Tensor, a Args) (*tensor.Tensor, error) { return x, nil })
	view("alias(self)", func(x *tensor.Tensor, a Args) (*tensor.Tensor, error) { return x, nil })
	// contiguous and clone copy (contiguous only when needed, like PyTorch).
	Register("contiguous(self, memory_format=None)", KindView, func(a Args) (Value, error) {
		x, err := a.Tensor(0)
		if err != nil {
			return nil, err
		}
		return x.Contiguous(), nil
	})
	Register("clone(self, memory_format=None)", KindPointwise, func(a Args) (Value, error) {
		x, err := a.Tensor(0)
		if err != nil {
			return nil, err
		}
		return x.Clone(), nil
	})
	Register("to_dtype(self, dtype)", KindPointwise, func(a Args) (Value, error) {
		x, err := a.Tensor(0)
		if err != nil {
			return nil, err
		}
		dt, err := a.DType(1, x.DType)
		if err != nil {
			return nil, err
		}
		if dt == x.DType {
			return x, nil
		}
		return x.To(dt), nil
	})
	Register("type_as(self, other)", KindPointwise, func(a Args) (Value, error) {
		x, err := a.Tensor(0)
		if err != nil {
			return nil, err
		}
		o, err := a.Tensor(1)
		if err != nil {
			return nil, err
		}
		if o.DType == x.DType {
			return x, nil
		}
		return x.To(o.DType), nil
	})

	Register("getitem(self, index)", KindIndex, evalGetitem)
	Register("setitem(self, index, value)", KindIndex, func(a Args) (Value, error) {
		x, err := a.Tensor(0)
		if err != nil {
			return nil, err
		}
		items, err := indexItems(a, a.V[1])
		if err != nil {
			return nil, err
		}
		v, err := a.Tensor(2)
		if err != nil {
			return nil, err
		}
		return x, tensor.IndexPut(x, items, v)
	}).Inplace = true

	Register("cat(tensors, dim=0)", KindOther, func(a Args) (Value, error) {
		ts, err := tensorList(a, 0)
		if err != nil {
			return nil, err
		}
		d, err := a.Int(1)
		if err != nil {
			return nil, err
		}
		return tensor.Cat(ts, d)
	})
	Register("stack(tensors, dim=0)", KindOther, func(a Args) (Value, error) {
		ts, err := tensorList(a, 0)
		if err != nil {
			return nil, err
		}
		d, err := a.Int(1)
		if err != nil {
			return nil, err
		}
		return tensor.Stack(ts, d)
	})
	Register("split(self, split_size_or_sections, dim=0)", KindView, func(a Args) (Value, error) {
		x, err := a.Tensor(0)
		if err != nil {
			return nil, err
		}
		sizes, err := a.Ints(1)
		if err != nil {
			return nil, err
		}
		d, err := a.Int(2)
		if err != nil {
			return nil, err
		}
		// tensor.Split reads one size as split_size; a one-element LIST is
		// split_with_sizes, whose sizes must cover the whole dimension.
		if _, single := a.V[1].(int64); !single && len(sizes) == 1 {
			dd, err := tensor.NormDim(d, x.Dim())
			if err != nil {
				return nil, err
			}
			if x.Dim() > 0 && sizes[0] != x.Shape[dd] {
				return nil, fmt.Errorf("split_with_sizes expects split_sizes to sum exactly to %d (input tensor's size at dimension %d), but got split_sizes=%v", x.Shape[dd], d, sizes)
			}
		}
		parts, err := tensor.Split(x, sizes, d)
		if err != nil {
			return nil, err
		}
		return tensorTuple(parts), nil
	})
	Register("chunk(self, chunks, dim=0)", KindView, func(a Args) (Value, error) {
		x, err := a.Tensor(0)
		if err != nil {
			return nil, err
		}
		n, err := a.Int(1)
		if err != nil {
			return nil, err
		}
		d, err := a.Int(2)
		if err != nil {
			return nil, err
		}
		parts, err := tensor.Chunk(x, n, d)
		if err != nil {
			return nil, err
		}
		return tensorTuple(parts), nil
	})
	Register("sort(self, dim=-1, descending=False, stable=False)", KindSort, func(a Args) (Value, error) {
		x, err := a.Tensor(0)
		if err != nil {
			return nil, err
		}
		d, err := a.Int(1)
		if err != nil {
			return nil, err
		}
		desc, err := a.Bool(2)
		if err != nil {
			return nil, err
		}
		stable := false
		if a.V[3] != nil {
			if stable, err = a.Bool(3); err != nil {
				return nil, err
			}
		}
		v, i, err := tensor.Sort(x, d, desc, stable)
		return Tuple{v, i}, err
	})
	Register("topk(self, k, dim=-1, largest=True, sorted=True)", KindSort, func(a Args) (Value, error) {
		x, err := a.Tensor(0)
		if err != nil {
			return nil, err
		}
		k, err := a.Int(1)
		if err != nil {
			return nil, err
		}
		d, err := a.Int(2)
		if err != nil {
			return nil, err
		}
		lg, err := a.Bool(3)
		if err != nil {
			return nil, err
		}
		so, err := a.Bool(4)
		if err != nil {
			return nil, err
		}
		v, i, err := tensor.Topk(x, k, d, lg, so)
		return Tuple{v, i}, err
	})
	for _, name := range []string{"triu", "tril"} {
		op := name
		Register(op+"(self, diagonal=0)", KindPointwise, func(a Args) (Value, error) {
			x, err := a.Tensor(0)
			if err != nil {
				return nil, err
			}
			d, err := a.Int(1)
			if err != nil {
				return nil, err
			}
			if op == "triu" {
				return tensor.Triu(x, d)
			}
			return tensor.Tril(x, d)
		})
	}

	// Creation. device/layout/pin_memory are accepted and ignored: gcdbg's
	// reference runs on the CPU.
	Register("full(size, fill_value, dtype=None, layout=None, device=None, pin_memory=None, requires_grad=False)", KindCreation, func(a Args) (Value, error) {
		s, err := a.Ints(0)
		if err != nil {
			return nil, err
		}
		v, err := a.Float(1)
		if err != nil {
			return nil, err
		}
		def := tensor.Float32
		switch a.V[1].(type) {
		case int64:
			def = tensor.Int64
		case bool:
			def = tensor.Bool
		}
		dt, err := a.DType(2, def)
		if err != nil {
			return nil, err
		}
		return tensor.Full(s, v, dt)
	})
	for _, name := range []string{"zeros", "ones"} {
		fill := map[string]float64{"zeros": 0, "ones": 1}[name]
		Register(name+"(*size, dtype=None, layout=None, device=None, pin_memory=None, requires_grad=False)", KindCreation, func(a Args) (Value, error) {
			s, err := a.Ints(0)
			if err != nil {
				return nil, err
			}
			dt, err := a.DType(1, tensor.Float32)
			if err != nil {
				return nil, err
			}
			return tensor.Full(s, fill, dt)
		})
	}
	// empty_like's contents are uninitialized memory in PyTorch: zeros is one
	// valid content, as for empty (ops_ext_nn.go).
	for _, name := range []string{"zeros_like", "ones_like", "empty_like"} {
		fill := map[string]float64{"zeros_like": 0, "ones_like": 1, "empty_like": 0}[name]
		Register(name+"(self, dtype=None, layout=None, device=None, pin_memory=None, memory_format=None, requires_grad=False)", KindCreation, func(a Args) (Value, error) {
			x, err := a.Tensor(0)
			if err != nil {
				return nil, err
			}
			dt, err := a.DType(1, x.DType)
			if err != nil {
				return nil, err
			}
			return tensor.Full(x.Shape, fill, dt)
		})
	}
	Register("full_like(self, fill_value, dtype=None, layout=None, device=None, pin_memory=None, memory_format=None, requires_grad=False)", KindCreation, func(a Args) (Value, error) {
		x, err := a.Tensor(0)
		if err != nil {
			return nil, err
		}
		v, err := a.Float(1)
		if err != nil {
			return nil, err
		}
		dt, err := a.DType(2, x.DType)
		if err != nil {
			return nil, err
		}
		return tensor.Full(x.Shape, v, dt)
	})
	Register("scalar_tensor(s, dtype=None, layout=None, device=None, pin_memory=None)", KindCreation, func(a Args) (Value, error) {
		v, err := a.Float(0)
		if err != nil {
			return nil, err
		}
		dt, err := a.DType(1, tensor.Float32)
		if err != nil {
			return nil, err
		}
		return tensor.Full(nil, v, dt)
	})
	Register("arange(start, end=None, step=1, dtype=None, layout=None, device=None, pin_memory=None, requires_grad=False)", KindCreation, func(a Args) (Value, error) {
		start, end := a.V[0], a.V[1]
		if end == nil {
			start, end = int64(0), a.V[0]
		}
		allInt := true
		for _, v := range []Value{start, end, a.V[2]} {
			if _, ok := v.(int64); !ok {
				allInt = false
			}
		}
		f := func(v Value) (float64, error) {
			return Args{Op: a.Op, V: []Value{v}}.Float(0)
		}
		s, err := f(start)
		if err != nil {
			return nil, err
		}
		e, err := f(end)
		if err != nil {
			return nil, err
		}
		st, err := a.Float(2)
		if err != nil {
			return nil, err
		}
		def := tensor.Float32
		if allInt {
			def = tensor.Int64
		}
		dt, err := a.DType(3, def)
		if err != nil {
			return nil, err
		}
		return tensor.Arange(s, e, st, dt)
	})

	// Meta ops give Python values, not tensors.
	Register("size(self, dim=None)", KindMeta, func(a Args) (Value, error) {
		x, err := a.Tensor(0)
		if err != nil {
			return nil, err
		}
		if a.V[1] == nil {
			t := make(Tuple, len(x.Shape))
			for i, s := range x.Shape {
				t[i] = int64(s)
			}
			return t, nil
		}
		d, err := a.Int(1)
		if err != nil {
			return nil, err
		}
		if d, err = tensor.NormDim(d, x.Dim()); err != nil {
			return nil, err
		}
		if x.Dim() == 0 {
			return nil, a.errf(1, "dimension specified as %d but tensor has no dimensions", d)
		}
		return int64(x.Shape[d]), nil
	})
	Register("dim(self)", KindMeta, func(a Args) (Value, error) {
		x, err := a.Tensor(0)
		if err != nil {
			return nil, err
		}
		return int64(x.Dim()), nil
	})
	Register("numel(self)", KindMeta, func(a Args) (Value, error) {
		x, err := a.Tensor(0)
		if err != nil {
			return nil, err
		}
		return int64(x.Numel()), nil
	})
	Register("dtype(self)", KindMeta, func(a Args) (Value, error) {
		x, err := a.Tensor(0)
		if err != nil {
			return nil, err
		}
		return x.DType, nil
	})
}

func tensorTuple(ts []*tensor.Tensor) Tuple {
	out := make(Tuple, len(ts))
	for i, t := range ts {
		out[i] = t
	}
	return out
}

func tensorList(a Args, i int) ([]*tensor.Tensor, error) {
	var items []Value
	switch v := a.V[i].(type) {
	case Tuple:
		items = v
	case List:
		items = v
	default:
		return nil, a.errf(i, "expected a sequence of tensors, got %s", typeName(a.V[i]))
	}
	out := make([]*tensor.Tensor, len(items))
	for k, it := range items {
		t, ok := it.(*tensor.Tensor)
		if !ok {
			return nil, a.errf(i, "item %d: expected a tensor, got %s", k, typeName(it))
		}
		out[k] = t
	}
	return out, nil
}

// evalGetitem is operator.getitem: indexing into a Python sequence (a
// torch.Size, the outputs of split or sort) or into a tensor.
func evalGetitem(a Args) (Value, error) {
	switch seq := a.V[0].(type) {
	case Tuple, List:
		var items []Value
		if t, ok := seq.(Tuple); ok {
			items = t
		} else {
			items = seq.(List)
		}
		switch idx := a.V[1].(type) {
		case int64:
			i := int(idx)
			if i < 0 {
				i += len(items)
			}
			if i < 0 || i >= len(items) {
				return nil, a.errf(1, "tuple index %d out of range (length %d)", idx, len(items))
			}
			return items[i], nil
		case Slice:
			start, stop, step, err := pySliceBounds(a, idx, len(items))
			if err != nil {
				return nil, err
			}
			var out Tuple
			for i := start; (step > 0 && i < stop) || (step < 0 && i > stop); i += step {
				out = append(out, items[i])
			}
			return out, nil
		}
		return nil, a.errf(1, "sequence index must be an int or slice, got %s", typeName(a.V[1]))
	}
	x, err := a.Tensor(0)
	if err != nil {
		return nil, err
	}
	items, err := indexItems(a, a.V[1])
	if err != nil {
		return nil, err
	}
	return tensor.Index(x, items)
}

func pySliceBounds(a Args, s Slice, n int) (int, int, int, error) {
	get := func(v Value, def int) (int, error) {
		if v == nil {
			return def, nil
		}
		i, ok := v.(int64)
		if !ok {
			return 0, a.errf(1, "slice bounds must be ints, got %s", typeName(v))
		}
		return int(i), nil
	}
	step, err := get(s.Step, 1)
	if err != nil || step == 0 {
		return 0, 0, 0, a.errf(1, "slice step cannot be zero")
	}
	clamp := func(i, lo, hi int) int { return max(lo, min(hi, i)) }
	norm := func(v Value, def int) (int, error) {
		if v == nil {
			return def, nil
		}
		i, err := get(v, 0)
		if err != nil {
			return 0, err
		}
		if i < 0 {
			i += n
		}
		if step > 0 {
			return clamp(i, 0, n), nil
		}
		return clamp(i, -1, n-1), nil
	}
	var start, stop int
	if step > 0 {
		start, err = norm(s.Start, 0)
		if err == nil {
			stop, err = norm(s.Stop, n)
		}
	} else {
		start, err = norm(s.Start, n-1)
		if err == nil {
			stop, err = norm(s.Stop, -1)
		}
	}
	return start, stop, step, err
}

// indexItems converts a Python index (int, slice, None, Ellipsis, tensor,
// list, or a tuple of those) into tensor index items.
func indexItems(a Args, idx Value) ([]tensor.IndexItem, error) {
	var parts []Value
	if t, ok := idx.(Tuple); ok {
		parts = t
	} else {
		parts = []Value{idx}
	}
	items := make([]tensor.IndexItem, 0, len(parts))
	for _, p := range parts {
		switch v := p.(type) {
		case int64:
			items = append(items, tensor.IndexItem{Kind: tensor.IdxInt, Int: int(v)})
		case bool:
			items = append(items, tensor.IndexItem{Kind: tensor.IdxTensor, Tensor: tensor.PyNumber(v)})
		case nil:
			items = append(items, tensor.IndexItem{Kind: tensor.IdxNone})
		case Ellipsis:
			items = append(items, tensor.IndexItem{Kind: tensor.IdxEllipsis})
		case Slice:
			it := tensor.IndexItem{Kind: tensor.IdxSlice}
			for k, part := range []Value{v.Start, v.Stop, v.Step} {
				if part == nil {
					continue
				}
				n, ok := part.(int64)
				if !ok {
					return nil, a.errf(1, "slice bounds must be ints, got %s", typeName(part))
				}
				ni := int(n)
				switch k {
				case 0:
					it.Start = &ni
				case 1:
					it.Stop = &ni
				case 2:
					it.Step = &ni
				}
			}
			items = append(items, it)
		case *tensor.Tensor:
			items = append(items, tensor.IndexItem{Kind: tensor.IdxTensor, Tensor: v})
		case List:
			ints := make([]int64, len(v))
			for k, it := range v {
				n, ok := it.(int64)
				if !ok {
					return nil, a.errf(1, "list index must hold ints, got %s", typeName(it))
				}
				ints[k] = n
			}
			items = append(items, tensor.IndexItem{Kind: tensor.IdxTensor, Tensor: tensor.FromInts(tensor.Int64, []int{len(ints)}, ints)})
		default:
			return nil, a.errf(1, "unsupported index %s", typeName(p))
		}
	}
	return items, nil
}
