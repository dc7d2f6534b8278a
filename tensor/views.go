package tensor

import (
	"fmt"
	"math"
)

func cp(s []int) []int { return append([]int{}, s...) }

// inferSize resolves one -1 in shape against numel, as torch's infer_size.
func inferSize(shape []int, numel int) ([]int, error) {
	out := cp(shape)
	infer := -1
	n := 1
	for i, d := range shape {
		switch {
		case d == -1:
			if infer >= 0 {
				return nil, fmt.Errorf("only one dimension can be inferred")
			}
			infer = i
		case d < 0:
			return nil, fmt.Errorf("invalid shape dimension %d", d)
		default:
			if d != 0 && n > math.MaxInt64/2/d {
				return nil, fmt.Errorf("shape '%s' is invalid for input of size %d", fmtList(shape), numel)
			}
			n *= d
		}
	}
	if infer >= 0 {
		if n == 0 {
			return nil, fmt.Errorf("cannot reshape tensor of 0 elements into shape %s because the unspecified dimension size -1 can be any value and is ambiguous", fmtList(shape))
		}
		if numel%n == 0 {
			out[infer] = numel / n
			return out, nil
		}
	} else if n == numel {
		return out, nil
	}
	return nil, fmt.Errorf("shape '%s' is invalid for input of size %d", fmtList(shape), numel)
}

func fmtList(s []int) string {
	b := []byte{'['}
	for i, d := range s {
		if i > 0 {
			b = append(b, ", "...)
		}
		b = fmt.Append(b, d)
	}
	return string(append(b, ']'))
}

// computeStride is PyTorch's at::detail::computeStride: the strides that
// let a tensor of oldshape/oldstride be viewed as newshape, or nil.
func computeStride(oldshape, oldstride, newshape []int) []int {
	newstride := make([]int, len(newshape))
	if len(oldshape) == 0 {
		for i := range newstride {
			newstride[i] = 1
		}
		return newstride
	}
	numel := Numel(oldshape)
	if numel == 0 && equalInts(oldshape, newshape) {
		return cp(oldstride)
	}
	if numel == 0 {
		for d := len(newshape) - 1; d >= 0; d-- {
			if d == len(newshape)-1 {
				newstride[d] = 1
			} else {
				newstride[d] = max(newshape[d+1], 1) * newstride[d+1]
			}
		}
		return newstride
	}
	viewD := len(newshape) - 1
	chunkBase := oldstride[len(oldstride)-1]
	tensorNumel, viewNumel := 1, 1
	for td := len(oldshape) - 1; td >= 0; td-- {
		tensorNumel *= oldshape[td]
		if td == 0 || (oldshape[td-1] != 1 && oldstride[td-1] != tensorNumel*chunkBase) {
			for viewD >= 0 && (viewNumel < tensorNumel || newshape[viewD] == 1) {
				newstride[viewD] = viewNumel * chunkBase
				viewNumel *= newshape[viewD]
				viewD--
			}
			if viewNumel != tensorNumel {
				return nil
			}
			if td > 0 {
				chunkBase = oldstride[td-1]
				tensorNumel, viewNumel = 1, 1
			}
		}
	}
	if viewD != -1 {
		return nil
	}
	return newstride
}

func equalInts(a, b []int) bool {
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

// ViewAs is Tensor.view(shape): always aliases, errors when not viewable.
func ViewAs(x *Tensor, shape []int) (*Tensor, error) {
	if err := checkT(x); err != nil {
		return nil, err
	}
	s, err := inferSize(shape, x.Numel())
	if err != nil {
		return nil, err
	}
	st := computeStride(x.Shape, x.Strides, s)
	if st == nil {
		return nil, fmt.Errorf("view size is not compatible with input tensor's size and stride (at least one dimension spans across two contiguous subspaces). Use .reshape(...) instead.")
	}
	return x.View(s, st, x.Offset), nil
}

// Reshape is torch.reshape: a view when the strides allow, else a copy.
func Reshape(x *Tensor, shape []int) (*Tensor, error) {
	if err := checkT(x); err != nil {
		return nil, err
	}
	s, err := inferSize(shape, x.Numel())
	if err != nil {
		return nil, err
	}
	if st := computeStride(x.Shape, x.Strides, s); st != nil {
		return x.View(s, st, x.Offset), nil
	}
	c := x.Clone()
	return c.View(s, ContiguousStrides(s), 0), nil
}

// Permute is Tensor.permute(dims).
func Permute(x *Tensor, dims []int) (*Tensor, error) {
	if err := checkT(x); err != nil {
		return nil, err
	}
	nd := x.Dim()
	if len(dims) != nd {
		return nil, fmt.Errorf("permute(sparse_coo): number of dimensions in the tensor input does not match the length of the desired ordering of dimensions i.e. input.dim() = %d is not equal to len(dims) = %d", nd, len(dims))
	}
	seen := make([]bool, nd)
	sh, st := make([]int, nd), make([]int, nd)
	for i, d := range dims {
		d, err := NormDim(d, nd)
		if err != nil {
			return nil, err
		}
		if seen[d] {
			return nil, fmt.Errorf("permute(): duplicate dims are not allowed.")
		}
		seen[d] = true
		sh[i], st[i] = x.Shape[d], x.Strides[d]
	}
	return x.View(sh, st, x.Offset), nil
}

// Transpose is Tensor.transpose(d0, d1).
func Transpose(x *Tensor, d0, d1 int) (*Tensor, error) {
	if err := checkT(x); err != nil {
		return nil, err
	}
	a, err := NormDim(d0, x.Dim())
	if err != nil {
		return nil, err
	}
	b, err := NormDim(d1, x.Dim())
	if err != nil {
		return nil, err
	}
	sh, st := cp(x.Shape), cp(x.Strides)
	if len(sh) > 0 {
		sh[a], sh[b] = sh[b], sh[a]
		st[a], st[b] = st[b], st[a]
	}
	return x.View(sh, st, x.Offset), nil
}

// T is Tensor.t() (tensors of at most 2 dims).
func T(x *Tensor) (*Tensor, error) {
	if err := checkT(x); err != nil {
		return nil, err
	}
	if x.Dim() > 2 {
		return nil, fmt.Errorf("t() expects a tensor with <= 2 dimensions, but self is %dD", x.Dim())
	}
	if x.Dim() < 2 {
		return x.View(cp(x.Shape), cp(x.Strides), x.Offset), nil
	}
	return Transpose(x, 0, 1)
}

// Expand is Tensor.expand(sizes) (-1 keeps a size).
func Expand(x *Tensor, sizes []int) (*Tensor, error) {
	if err := checkT(x); err != nil {
		return nil, err
	}
	nd := x.Dim()
	if len(sizes) < nd {
		return nil, fmt.Errorf("expand(torch.%sTensor{%s}, size=%s): the number of sizes provided (%d) must be greater or equal to the number of dimensions in the tensor (%d)", torchName(x.DType), fmtList(x.Shape), fmtList(sizes), len(sizes), nd)
	}
	off := len(sizes) - nd
	sh, st := make([]int, len(sizes)), make([]int, len(sizes))
	for i, s := range sizes {
		if i < off {
			if s < 0 {
				return nil, fmt.Errorf("The expanded size of the tensor (%d) isn't allowed in a leading, non-existing dimension %d", s, i)
			}
			sh[i], st[i] = s, 0
			continue
		}
		d := x.Shape[i-off]
		if s == -1 {
			s = d
		}
		if s < 0 {
			return nil, fmt.Errorf("Trying to create tensor with negative dimension %d: %s", s, fmtList(sizes))
		}
		switch {
		case s == d:
			sh[i], st[i] = d, x.Strides[i-off]
		case d == 1:
			sh[i], st[i] = s, 0
		default:
			return nil, fmt.Errorf("The expanded size of the tensor (%d) must match the existing size (%d) at non-singleton dimension %d.  Target sizes: %s.  Tensor sizes: %s", s, d, i, fmtList(sizes), fmtList(x.Shape))
		}
	}
	if err := checkSizes(sh); err != nil {
		return nil, err
	}
	return x.View(sh, st, x.Offset), nil
}

// Unsqueeze is Tensor.unsqueeze(d).
func Unsqueeze(x *Tensor, d int) (*Tensor, error) {
	if err := checkT(x); err != nil {
		return nil, err
	}
	d, err := NormDim(d, x.Dim()+1)
	if err != nil {
		return nil, err
	}
	st := 1
	if d < x.Dim() {
		st = x.Shape[d] * x.Strides[d]
	}
	sh := append(cp(x.Shape[:d]), append([]int{1}, x.Shape[d:]...)...)
	sts := append(cp(x.Strides[:d]), append([]int{st}, x.Strides[d:]...)...)
	return x.View(sh, sts, x.Offset), nil
}

// Squeeze drops the given size-1 dims (nil = all size-1 dims); dims of
// another size are left alone, as torch.squeeze does.
func Squeeze(x *Tensor, dims []int) (*Tensor, error) {
	if err := checkT(x); err != nil {
		return nil, err
	}
	drop := make([]bool, x.Dim())
	if dims == nil {
		for i, s := range x.Shape {
			drop[i] = s == 1
		}
	} else {
		seen := make([]bool, max(x.Dim(), 1))
		for _, d := range dims {
			d, err := NormDim(d, x.Dim())
			if err != nil {
				return nil, err
			}
			if seen[d] {
				return nil, fmt.Errorf("dim %d appears multiple times in the list of dims", d)
			}
			seen[d] = true
			if x.Dim() > 0 && x.Shape[d] == 1 {
				drop[d] = true
			}
		}
	}
	var sh, st []int
	for i := range x.Shape {
		if !drop[i] {
			sh = append(sh, x.Shape[i])
			st = append(st, x.Strides[i])
		}
	}
	if sh == nil {
		sh, st = []int{}, []int{}
	}
	return x.View(sh, st, x.Offset), nil
}

// Flatten is torch.flatten(x, start, end) (reshape semantics).
func Flatten(x *Tensor, start, end int) (*Tensor, error) {
	if err := checkT(x); err != nil {
		return nil, err
	}
	s, err := NormDim(start, x.Dim())
	if err != nil {
		return nil, err
	}
	e, err := NormDim(end, x.Dim())
	if err != nil {
		return nil, err
	}
	if s > e {
		return nil, fmt.Errorf("flatten() has invalid args: start_dim cannot come after end_dim")
	}
	if x.Dim() == 0 {
		return Reshape(x, []int{1})
	}
	if s == e {
		return x.View(cp(x.Shape), cp(x.Strides), x.Offset), nil
	}
	sh := cp(x.Shape[:s])
	sh = append(sh, Numel(x.Shape[s:e+1]))
	sh = append(sh, x.Shape[e+1:]...)
	return Reshape(x, sh)
}

// Select is Tensor.select(dim, index) (negative index counts from the end).
func Select(x *Tensor, dim, index int) (*Tensor, error) {
	if err := checkT(x); err != nil {
		return nil, err
	}
	if x.Dim() == 0 {
		return nil, fmt.Errorf("select() cannot be applied to a 0-dim tensor.")
	}
	d, err := NormDim(dim, x.Dim())
	if err != nil {
		return nil, err
	}
	n := x.Shape[d]
	if index < -n || index >= n {
		return nil, fmt.Errorf("select(): index %d out of range for tensor of size %s at dimension %d", index, fmtList(x.Shape), d)
	}
	if index < 0 {
		index += n
	}
	sh := append(cp(x.Shape[:d]), x.Shape[d+1:]...)
	st := append(cp(x.Strides[:d]), x.Strides[d+1:]...)
	return x.View(sh, st, x.Offset+index*x.Strides[d]), nil
}

// Narrow is Tensor.narrow(dim, start, length).
func Narrow(x *Tensor, dim, start, length int) (*Tensor, error) {
	if err := checkT(x); err != nil {
		return nil, err
	}
	if x.Dim() == 0 {
		return nil, fmt.Errorf("narrow() cannot be applied to a 0-dim tensor.")
	}
	d, err := NormDim(dim, x.Dim())
	if err != nil {
		return nil, err
	}
	if length < 0 {
		return nil, fmt.Errorf("narrow(): length must be non-negative.")
	}
	n := x.Shape[d]
	if start < -n || start > n {
		return nil, fmt.Errorf("start out of range (expected to be in range of [%d, %d], but got %d)", -n, n, start)
	}
	if start < 0 {
		start += n
	}
	if start > n-length {
		return nil, fmt.Errorf("start (%d) + length (%d) exceeds dimension size (%d).", start, length, n)
	}
	sh := cp(x.Shape)
	sh[d] = length
	return x.View(sh, cp(x.Strides), x.Offset+start*x.Strides[d]), nil
}

// sliceBounds resolves Python slice semantics (clamping) for a dim of size n.
func sliceBounds(n int, start, stop, step *int) (int, int, int, error) {
	st := 1
	if step != nil {
		st = *step
	}
	if st <= 0 {
		return 0, 0, 0, fmt.Errorf("slice step must be positive")
	}
	b, e := 0, n
	if start != nil {
		b = *start
		if b < 0 {
			b += n
		}
		b = min(max(b, 0), n)
	}
	if stop != nil {
		e = *stop
		if e < 0 {
			e += n
		}
		e = min(max(e, 0), n)
	}
	if e < b {
		e = b
	}
	return b, ceilDiv(e-b, st), st, nil
}

// Slice is x[(:,)*dim start:stop:step] with Python clamping; nil = default.
func Slice(x *Tensor, dim int, start, stop, step *int) (*Tensor, error) {
	if err := checkT(x); err != nil {
		return nil, err
	}
	if x.Dim() == 0 {
		return nil, fmt.Errorf("slice() cannot be applied to a 0-dim tensor.")
	}
	d, err := NormDim(dim, x.Dim())
	if err != nil {
		return nil, err
	}
	b, n, st, err := sliceBounds(x.Shape[d], start, stop, step)
	if err != nil {
		return nil, err
	}
	sh, sts := cp(x.Shape), cp(x.Strides)
	sh[d] = n
	sts[d] *= st
	return x.View(sh, sts, x.Offset+b*x.Strides[d]), nil
}

// Diagonal is torch.diagonal(x, offset, d1, d2): a view.
func Diagonal(x *Tensor, offset, d1, d2 int) (*Tensor, error) {
	if err := checkT(x); err != nil {
		return nil, err
	}
	if x.Dim() < 2 {
		return nil, fmt.Errorf("diagonal dimensions requested, but tensor has only %d dimension(s)", x.Dim())
	}
	a, err := NormDim(d1, x.Dim())
	if err != nil {
		return nil, err
	}
	b, err := NormDim(d2, x.Dim())
	if err != nil {
		return nil, err
	}
	if a == b {
		return nil, fmt.Errorf("diagonal dimensions cannot be identical %d, %d", d1, d2)
	}
	off := x.Offset
	var n int
	if offset >= 0 {
		n = max(min(x.Shape[a], x.Shape[b]-offset), 0)
		if n > 0 {
			off += offset * x.Strides[b]
		}
	} else {
		n = max(min(x.Shape[a]+offset, x.Shape[b]), 0)
		if n > 0 {
			off -= offset * x.Strides[a]
		}
	}
	var sh, st []int
	for i := range x.Shape {
		if i != a && i != b {
			sh = append(sh, x.Shape[i])
			st = append(st, x.Strides[i])
		}
	}
	sh = append(sh, n)
	st = append(st, x.Strides[a]+x.Strides[b])
	return x.View(sh, st, off), nil
}
