package ir

import (
	"fmt"

	"gcdbg/tensor"
)

// Shape inference of views, joining and splitting, sorting and indexing.
// A view's strides are computed from the input's strides exactly as the
// tensor package's view functions compute them (the same formulas; the
// non-trivial ones, view/reshape and slicing, call the very same code
// through tensor/strides.go), so a view inferred here aliases as the
// evaluated one does.

var viewInfers = map[string]EvalFunc{
	"view":       inferView,
	"reshape":    inferView,
	"view_as":    inferView,
	"reshape_as": inferView,
	"flatten":    inferFlatten,
	"permute":    inferPermute,
	"transpose":  inferPermute,
	"t":          inferPermute,
	"numpy_T":    inferPermute,
	"expand":     inferExpand,
	"expand_as":  inferExpand,
	"unsqueeze":  inferUnsqueeze,
	"squeeze":    inferSqueeze,
	"select":     inferSelect,
	"narrow":     inferSlice,
	"slice":      inferSlice,
	"detach":     inferAlias,
	"alias":      inferAlias,
}

func inferAlias(a Args) (Value, error) {
	x, err := a.meta(0)
	if err != nil {
		return nil, err
	}
	return alias(x), nil
}

// reshapeMeta is view (copy=false) or reshape (copy=true) to sizes.
func reshapeMeta(a Args, x *TensorMeta, sizes []int, copyOK bool) (Value, error) {
	s, err := tensor.InferSize(sizes, tensor.Numel(x.Shape.Sizes()))
	if err != nil {
		return nil, fmt.Errorf("%s: %v", a.Op.Name, err)
	}
	if st := tensor.ComputeStride(x.Shape.Sizes(), x.strides(), s); st != nil {
		return viewMeta(x, s, st), nil
	}
	if !copyOK {
		return nil, fmt.Errorf("%s: view size is not compatible with input tensor's size and stride (at least one dimension spans across two contiguous subspaces). Use .reshape(...) instead.", a.Op.Name)
	}
	return contig(x.DType, s), nil
}

func inferView(a Args) (Value, error) {
	x, err := a.meta(0)
	if err != nil {
		return nil, err
	}
	name := a.Op.Schema.Name
	var sizes []int
	if name == "view_as" || name == "reshape_as" {
		o, err := a.meta(1)
		if err != nil {
			return nil, err
		}
		sizes = o.Shape.Sizes()
	} else {
		if dt, ok := a.V[1].(Tuple); ok && len(dt) == 1 {
			if d, ok := dt[0].(tensor.DType); ok { // x.view(torch.int32) reinterprets bytes
				if d.Size() != x.DType.Size() {
					return nil, a.errf(1, "view as %s changes the element size; not supported", d)
				}
				return contig(d, x.Shape.Sizes()), nil
			}
		}
		if sizes, err = a.Ints(1); err != nil {
			return nil, err
		}
	}
	return reshapeMeta(a, x, sizes, name == "reshape" || name == "reshape_as")
}

func inferFlatten(a Args) (Value, error) {
	x, err := a.meta(0)
	if err != nil {
		return nil, err
	}
	s0, err := a.Int(1)
	if err != nil {
		return nil, err
	}
	e0, err := a.Int(2)
	if err != nil {
		return nil, err
	}
	sizes := x.Shape.Sizes()
	s, err := tensor.NormDim(s0, len(sizes))
	if err != nil {
		return nil, fmt.Errorf("%s: %v", a.Op.Name, err)
	}
	e, err := tensor.NormDim(e0, len(sizes))
	if err != nil {
		return nil, fmt.Errorf("%s: %v", a.Op.Name, err)
	}
	if s > e {
		return nil, fmt.Errorf("flatten() has invalid args: start_dim cannot come after end_dim")
	}
	if len(sizes) == 0 {
		return reshapeMeta(a, x, []int{1}, true)
	}
	if s == e {
		return alias(x), nil
	}
	sh := append([]int{}, sizes[:s]...)
	sh = append(sh, tensor.Numel(sizes[s:e+1]))
	sh = append(sh, sizes[e+1:]...)
	return reshapeMeta(a, x, sh, true)
}

// inferPermute covers permute, transpose, t and numpy_T: a reordering of
// sizes and strides.
func inferPermute(a Args) (Value, error) {
	x, err := a.meta(0)
	if err != nil {
		return nil, err
	}
	sizes, strides := x.Shape.Sizes(), x.strides()
	nd := len(sizes)
	var dims []int
	switch a.Op.Schema.Name {
	case "permute":
		if dims, err = a.Ints(1); err != nil {
			return nil, err
		}
		if len(dims) != nd {
			return nil, fmt.Errorf("permute(sparse_coo): number of dimensions in the tensor input does not match the length of the desired ordering of dimensions i.e. input.dim() = %d is not equal to len(dims) = %d", nd, len(dims))
		}
	case "numpy_T":
		dims = make([]int, nd)
		for i := range dims {
			dims[i] = nd - 1 - i
		}
	case "t", "transpose":
		d0, d1 := 0, 1
		if a.Op.Schema.Name == "t" {
			if nd > 2 {
				return nil, fmt.Errorf("t() expects a tensor with <= 2 dimensions, but self is %dD", nd)
			}
			if nd < 2 {
				return alias(x), nil
			}
		} else {
			if d0, err = a.Int(1); err != nil {
				return nil, err
			}
			if d1, err = a.Int(2); err != nil {
				return nil, err
			}
		}
		p, err := tensor.NormDim(d0, nd)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", a.Op.Name, err)
		}
		q, err := tensor.NormDim(d1, nd)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", a.Op.Name, err)
		}
		sh, st := append([]int{}, sizes...), append([]int{}, strides...)
		if nd > 0 {
			sh[p], sh[q] = sh[q], sh[p]
			st[p], st[q] = st[q], st[p]
		}
		return viewMeta(x, sh, st), nil
	}
	seen := make([]bool, nd)
	sh, st := make([]int, nd), make([]int, nd)
	for i, d := range dims {
		d, err := tensor.NormDim(d, nd)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", a.Op.Name, err)
		}
		if seen[d] {
			return nil, fmt.Errorf("permute(): duplicate dims are not allowed.")
		}
		seen[d] = true
		sh[i], st[i] = sizes[d], strides[d]
	}
	return viewMeta(x, sh, st), nil
}

func inferExpand(a Args) (Value, error) {
	x, err := a.meta(0)
	if err != nil {
		return nil, err
	}
	var want []int
	if a.Op.Schema.Name == "expand_as" {
		o, err := a.meta(1)
		if err != nil {
			return nil, err
		}
		want = o.Shape.Sizes()
	} else if want, err = a.Ints(1); err != nil {
		return nil, err
	}
	sizes, strides := x.Shape.Sizes(), x.strides()
	nd := len(sizes)
	if len(want) < nd {
		return nil, fmt.Errorf("%s: the number of sizes provided (%d) must be greater or equal to the number of dimensions in the tensor (%d)", a.Op.Name, len(want), nd)
	}
	off := len(want) - nd
	sh, st := make([]int, len(want)), make([]int, len(want))
	for i, s := range want {
		if i < off {
			if s < 0 {
				return nil, fmt.Errorf("The expanded size of the tensor (%d) isn't allowed in a leading, non-existing dimension %d", s, i)
			}
			sh[i], st[i] = s, 0
			continue
		}
		d := sizes[i-off]
		if s == -1 {
			s = d
		}
		if s < 0 {
			return nil, fmt.Errorf("Trying to create tensor with negative dimension %d: %v", s, want)
		}
		switch {
		case s == d:
			sh[i], st[i] = d, strides[i-off]
		case d == 1:
			sh[i], st[i] = s, 0
		default:
			return nil, fmt.Errorf("The expanded size of the tensor (%d) must match the existing size (%d) at non-singleton dimension %d.  Target sizes: %v.  Tensor sizes: %v", s, d, i, want, sizes)
		}
	}
	if err := tensor.CheckSizes(sh); err != nil {
		return nil, fmt.Errorf("%s: %v", a.Op.Name, err)
	}
	return viewMeta(x, sh, st), nil
}

func inferUnsqueeze(a Args) (Value, error) {
	x, err := a.meta(0)
	if err != nil {
		return nil, err
	}
	d0, err := a.Int(1)
	if err != nil {
		return nil, err
	}
	sizes, strides := x.Shape.Sizes(), x.strides()
	d, err := tensor.NormDim(d0, len(sizes)+1)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", a.Op.Name, err)
	}
	st := 1
	if d < len(sizes) {
		st = sizes[d] * strides[d]
	}
	sh := append(append(append([]int{}, sizes[:d]...), 1), sizes[d:]...)
	sts := append(append(append([]int{}, strides[:d]...), st), strides[d:]...)
	return viewMeta(x, sh, sts), nil
}

func inferSqueeze(a Args) (Value, error) {
	x, err := a.meta(0)
	if err != nil {
		return nil, err
	}
	dims, err := a.OptInts(1)
	if err != nil {
		return nil, err
	}
	sizes, strides := x.Shape.Sizes(), x.strides()
	drop := make([]bool, len(sizes))
	if dims == nil {
		for i, s := range sizes {
			drop[i] = s == 1
		}
	} else {
		seen := make([]bool, max(len(sizes), 1))
		for _, d := range dims {
			d, err := tensor.NormDim(d, len(sizes))
			if err != nil {
				return nil, fmt.Errorf("%s: %v", a.Op.Name, err)
			}
			if seen[d] {
				return nil, fmt.Errorf("dim %d appears multiple times in the list of dims", d)
			}
			seen[d] = true
			if len(sizes) > 0 && sizes[d] == 1 {
				drop[d] = true
			}
		}
	}
	sh, st := []int{}, []int{}
	for i := range sizes {
		if !drop[i] {
			sh = append(sh, sizes[i])
			st = append(st, strides[i])
		}
	}
	return viewMeta(x, sh, st), nil
}

func inferSelect(a Args) (Value, error) {
	x, err := a.meta(0)
	if err != nil {
		return nil, err
	}
	d0, err := a.Int(1)
	if err != nil {
		return nil, err
	}
	index, err := a.Int(2)
	if err != nil {
		return nil, err
	}
	return selectMeta(x, d0, index)
}

func selectMeta(x *TensorMeta, dim, index int) (*TensorMeta, error) {
	sizes, strides := x.Shape.Sizes(), x.strides()
	if len(sizes) == 0 {
		return nil, fmt.Errorf("select() cannot be applied to a 0-dim tensor.")
	}
	d, err := tensor.NormDim(dim, len(sizes))
	if err != nil {
		return nil, err
	}
	if n := sizes[d]; index < -n || index >= n {
		return nil, fmt.Errorf("select(): index %d out of range for tensor of size %v at dimension %d", index, sizes, d)
	}
	sh := append(append([]int{}, sizes[:d]...), sizes[d+1:]...)
	st := append(append([]int{}, strides[:d]...), strides[d+1:]...)
	return viewMeta(x, sh, st), nil
}

// inferSlice covers slice(dim, start, end, step) and narrow(dim, start, length).
func inferSlice(a Args) (Value, error) {
	x, err := a.meta(0)
	if err != nil {
		return nil, err
	}
	d0, err := a.Int(1)
	if err != nil {
		return nil, err
	}
	if a.Op.Schema.Name == "narrow" {
		s, err := a.Int(2)
		if err != nil {
			return nil, err
		}
		l, err := a.Int(3)
		if err != nil {
			return nil, err
		}
		return narrowMeta(x, d0, s, l)
	}
	var b [3]*int
	for k := range b {
		if b[k], err = a.OptInt(2 + k); err != nil {
			return nil, err
		}
	}
	return sliceMeta(x, d0, b[0], b[1], b[2])
}

func sliceMeta(x *TensorMeta, dim int, start, stop, step *int) (*TensorMeta, error) {
	sizes, strides := x.Shape.Sizes(), x.strides()
	if len(sizes) == 0 {
		return nil, fmt.Errorf("slice() cannot be applied to a 0-dim tensor.")
	}
	d, err := tensor.NormDim(dim, len(sizes))
	if err != nil {
		return nil, err
	}
	_, n, st, err := tensor.SliceBounds(sizes[d], start, stop, step)
	if err != nil {
		return nil, err
	}
	sh, sts := append([]int{}, sizes...), append([]int{}, strides...)
	sh[d] = n
	sts[d] *= st
	return viewMeta(x, sh, sts), nil
}

func narrowMeta(x *TensorMeta, dim, start, length int) (*TensorMeta, error) {
	sizes := x.Shape.Sizes()
	if len(sizes) == 0 {
		return nil, fmt.Errorf("narrow() cannot be applied to a 0-dim tensor.")
	}
	d, err := tensor.NormDim(dim, len(sizes))
	if err != nil {
		return nil, err
	}
	if length < 0 {
		return nil, fmt.Errorf("narrow(): length must be non-negative.")
	}
	n := sizes[d]
	if start < -n || start > n {
		return nil, fmt.Errorf("start out of range (expected to be in range of [%d, %d], but got %d)", -n, n, start)
	}
	if start < 0 {
		start += n
	}
	if start > n-length {
		return nil, fmt.Errorf("start (%d) + length (%d) exceeds dimension size (%d).", start, length, n)
	}
	sh := append([]int{}, sizes...)
	sh[d] = length
	return viewMeta(x, sh, append([]int{}, x.strides()...)), nil
}

// inferSplit covers split and chunk: narrow views along dim (tensor.Split).
func inferSplit(a Args) (Value, error) {
	x, err := a.meta(0)
	if err != nil {
		return nil, err
	}
	sizes := x.Shape.Sizes()
	if len(sizes) == 0 {
		return nil, fmt.Errorf("%s expects at least a 1-dimensional tensor", a.Op.Schema.Name)
	}
	d0, err := a.Int(2)
	if err != nil {
		return nil, err
	}
	d, err := tensor.NormDim(d0, len(sizes))
	if err != nil {
		return nil, fmt.Errorf("%s: %v", a.Op.Name, err)
	}
	n := sizes[d]
	var parts []int
	if a.Op.Schema.Name == "chunk" {
		chunks, err := a.Int(1)
		if err != nil {
			return nil, err
		}
		if chunks <= 0 {
			return nil, fmt.Errorf("chunk expects `chunks` to be greater than 0, got: %d", chunks)
		}
		s := (n + chunks - 1) / chunks
		if s == 0 && n == 0 {
			if chunks > 1<<28 {
				return nil, fmt.Errorf("too many chunks: %d", chunks)
			}
			parts = make([]int, chunks)
		} else {
			parts = []int{s}
		}
	} else {
		if parts, err = a.Ints(1); err != nil {
			return nil, err
		}
		if _, single := a.V[1].(int64); !single && len(parts) == 1 {
			parts = append(parts, -1)[:1]
		}
	}
	if parts, err = splitSizes(parts, n, d); err != nil {
		return nil, fmt.Errorf("%s: %v", a.Op.Name, err)
	}
	out := make(Tuple, len(parts))
	at := 0
	for i, s := range parts {
		m, err := narrowMeta(x, d, at, s)
		if err != nil {
			return nil, err
		}
		out[i] = m
		at += s
	}
	return out, nil
}

// splitSizes is tensor.Split's reading of split_size_or_sections.
func splitSizes(sizes []int, n, d int) ([]int, error) {
	if len(sizes) == 0 {
		return nil, fmt.Errorf("split expects split_size or split_sizes")
	}
	if len(sizes) == 1 {
		s := sizes[0]
		if s < 0 {
			return nil, fmt.Errorf("split expects split_size be non-negative, but got split_size=%d", s)
		}
		if s == 0 && n != 0 {
			return nil, fmt.Errorf("split_size can only be 0 if dimension size is 0, but got dimension size of %d", n)
		}
		num := 1
		if s > 0 {
			num = max((n+s-1)/s, 1)
		}
		out := make([]int, num)
		for i := range out {
			out[i] = s
		}
		out[num-1] = s - (s*num - n)
		return out, nil
	}
	sum := 0
	for _, s := range sizes {
		if s < 0 {
			return nil, fmt.Errorf("split_with_sizes expects split_sizes have only non-negative entries, but got split_sizes=%v", sizes)
		}
		sum += s
	}
	if sum != n {
		return nil, fmt.Errorf("split_with_sizes expects split_sizes to sum exactly to %d (input tensor's size at dimension %d), but got split_sizes=%v", n, d, sizes)
	}
	return sizes, nil
}

// metaList reads a sequence of tensor metadata (cat, stack).
func metaList(a Args, i int) ([]*TensorMeta, error) {
	var items []Value
	switch v := a.V[i].(type) {
	case Tuple:
		items = v
	case List:
		items = v
	default:
		return nil, a.errf(i, "expected a sequence of tensors, got %s", typeName(a.V[i]))
	}
	out := make([]*TensorMeta, len(items))
	for k, it := range items {
		m, ok := it.(*TensorMeta)
		if !ok {
			return nil, a.errf(i, "item %d: expected a tensor, got %s", k, typeName(it))
		}
		out[k] = m
	}
	return out, nil
}

// inferCat covers cat and stack (tensor.Cat's rules: promoted dtype, 1-D
// empty tensors skipped; stack unsqueezes every input first).
func inferCat(a Args) (Value, error) {
	ts, err := metaList(a, 0)
	if err != nil {
		return nil, err
	}
	d0, err := a.Int(1)
	if err != nil {
		return nil, err
	}
	if len(ts) == 0 {
		return nil, fmt.Errorf("%s: expected a non-empty list of Tensors", a.Op.Name)
	}
	shapes := make([][]int, len(ts))
	for i, t := range ts {
		shapes[i] = t.Shape.Sizes()
	}
	if a.Op.Schema.Name == "stack" {
		d, err := tensor.NormDim(d0, len(shapes[0])+1)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", a.Op.Name, err)
		}
		first := shapes[0]
		for i, s := range shapes {
			if !ShapeOf(s).Equal(ShapeOf(first)) {
				return nil, fmt.Errorf("stack expects each tensor to be equal size, but got %v at entry 0 and %v at entry %d", first, s, i)
			}
			shapes[i] = append(append(append([]int{}, s[:d]...), 1), s[d:]...)
		}
		d0 = d
	}
	dt := ts[0].DType
	for _, t := range ts[1:] {
		dt = tensor.Promote(dt, t.DType)
	}
	var ref []int
	for i, s := range shapes {
		if len(s) == 0 {
			return nil, fmt.Errorf("zero-dimensional tensor (at position %d) cannot be concatenated", i)
		}
		if ref == nil && !(len(s) == 1 && s[0] == 0) {
			ref = s
		}
	}
	if ref == nil {
		if _, err := tensor.NormDim(d0, 1); err != nil {
			return nil, fmt.Errorf("%s: %v", a.Op.Name, err)
		}
		return contig(dt, []int{0}), nil
	}
	d, err := tensor.NormDim(d0, len(ref))
	if err != nil {
		return nil, fmt.Errorf("%s: %v", a.Op.Name, err)
	}
	out := append([]int{}, ref...)
	out[d] = 0
	for i, s := range shapes {
		if len(s) == 1 && s[0] == 0 {
			continue
		}
		if len(s) != len(ref) {
			return nil, fmt.Errorf("Tensors must have same number of dimensions: got %d and %d", len(ref), len(s))
		}
		for k := range s {
			if k != d && s[k] != ref[k] {
				return nil, fmt.Errorf("Sizes of tensors must match except in dimension %d. Expected size %d but got size %d for tensor number %d in the list.", d, ref[k], s[k], i)
			}
		}
		out[d] += s[d]
	}
	if err := tensor.CheckSizes(out); err != nil {
		return nil, fmt.Errorf("%s: %v", a.Op.Name, err)
	}
	return contig(dt, out), nil
}

// inferSort covers sort and topk: values and int64 indices.
func inferSort(a Args) (Value, error) {
	x, err := a.meta(0)
	if err != nil {
		return nil, err
	}
	sizes := x.Shape.Sizes()
	di := 1
	if a.Op.Schema.Name == "topk" {
		di = 2
	}
	d0, err := a.Int(di)
	if err != nil {
		return nil, err
	}
	d, err := tensor.NormDim(d0, len(sizes))
	if err != nil {
		return nil, fmt.Errorf("%s: %v", a.Op.Name, err)
	}
	if a.Op.Schema.Name == "topk" {
		k, err := a.Int(1)
		if err != nil {
			return nil, err
		}
		n := 1
		if len(sizes) > 0 {
			n = sizes[d]
		}
		if k < 0 || k > n {
			return nil, fmt.Errorf("selected index k out of range")
		}
		if len(sizes) > 0 {
			sizes[d] = k
		}
	}
	return Tuple{contig(x.DType, sizes), contig(tensor.Int64, sizes)}, nil
}

func inferIndexSelect(a Args) (Value, error) {
	x, err := a.meta(0)
	if err != nil {
		return nil, err
	}
	d0, err := a.Int(1)
	if err != nil {
		return nil, err
	}
	idx, err := a.meta(2)
	if err != nil {
		return nil, err
	}
	if idx.DType != tensor.Int64 && idx.DType != tensor.Int32 {
		return nil, fmt.Errorf("index_select(): Expected dtype int32/int64 for index, got %s", idx.DType)
	}
	if len(idx.Shape) > 1 {
		return nil, fmt.Errorf("index_select(): Index is supposed to be a vector, got %d dims", len(idx.Shape))
	}
	sizes := x.Shape.Sizes()
	d, err := tensor.NormDim(d0, max(len(sizes), 1))
	if err != nil {
		return nil, fmt.Errorf("%s: %v", a.Op.Name, err)
	}
	if len(sizes) == 0 {
		if err := tensor.IndexSelect0dCheck(tensor.Numel(idx.Shape.Sizes())); err != nil {
			return nil, err
		}
		return contig(x.DType, []int{}), nil // a 0-d self gives a 0-d result
	}
	sizes[d] = tensor.Numel(idx.Shape.Sizes())
	return contig(x.DType, sizes), nil
}

// inferGather: the index's shape; the probe (ones in a shrunk index, valid
// for any non-empty source) runs the reference's dtype and rank checks.
func inferGather(a Args) (Value, error) {
	x, err := a.meta(0)
	if err != nil {
		return nil, err
	}
	idx, err := a.meta(2)
	if err != nil {
		return nil, err
	}
	if idx.DType != tensor.Int64 && tensor.Numel(idx.Shape.Sizes()) != 0 { // PyTorch takes an empty index of any dtype
		return nil, fmt.Errorf("gather(): Expected dtype int64 for index, got %s", idx.DType)
	}
	if len(idx.Shape) != len(x.Shape) && !(len(idx.Shape) <= 1 && len(x.Shape) <= 1) {
		return nil, fmt.Errorf("gather(): Index tensor must have the same number of dimensions as input tensor")
	}
	return contig(x.DType, idx.Shape.Sizes()), nil
}

// inferScatterLike: slice_scatter and select_scatter return a copy of
// self; src must have the shape of the view it replaces.
func inferScatterLike(a Args) (Value, error) {
	x, err := a.meta(0)
	if err != nil {
		return nil, err
	}
	src, err := a.meta(1)
	if err != nil {
		return nil, err
	}
	d, err := a.Int(2)
	if err != nil {
		return nil, err
	}
	var v *TensorMeta
	if a.Op.Schema.Name == "select_scatter" {
		i, err := a.Int(3)
		if err != nil {
			return nil, err
		}
		v, err = selectMeta(x, d, i)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", a.Op.Name, err)
		}
	} else {
		var b [3]*int
		for k := range b {
			if b[k], err = a.OptInt(3 + k); err != nil {
				return nil, err
			}
		}
		if v, err = sliceMeta(x, d, b[0], b[1], b[2]); err != nil {
			return nil, fmt.Errorf("%s: %v", a.Op.Name, err)
		}
	}
	if !v.Shape.Equal(ShapeOf(src.Shape.Sizes())) {
		return nil, fmt.Errorf("%s: expected src to have a size equal to the slice of self. src size = %v, slice size = %v", a.Op.Name, src.Shape.Sizes(), v.Shape.Sizes())
	}
	return contig(x.DType, x.Shape.Sizes()), nil
}
