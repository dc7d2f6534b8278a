package tensor

import (
	"fmt"
	"math"
	"sort"
)

// maxNumel bounds allocations made from caller-supplied sizes, so hostile
// graphs get an error instead of an out-of-memory crash.
const maxNumel = 1 << 28

func checkSizes(shape []int) error {
	n := 1
	for _, d := range shape {
		if d < 0 {
			return fmt.Errorf("Trying to create tensor with negative dimension %d: %s", d, fmtList(shape))
		}
		if d > 0 && n > maxNumel/d {
			return fmt.Errorf("tensor of shape %s is too large (more than %d elements)", fmtList(shape), maxNumel)
		}
		n *= d
	}
	if n > maxNumel {
		return fmt.Errorf("tensor of shape %s is too large (more than %d elements)", fmtList(shape), maxNumel)
	}
	return nil
}

// Full is torch.full(shape, value, dtype=dt).
func Full(shape []int, value float64, dt DType) (*Tensor, error) {
	if err := checkSizes(shape); err != nil {
		return nil, err
	}
	if dt == Invalid || int(dt) >= len(dtypeNames) {
		return nil, fmt.Errorf("unsupported dtype %s", dt)
	}
	if (dt == Float16 && math.Abs(value) > 65504 || dt == BFloat16 && math.Abs(value) > math.MaxFloat32) && !math.IsInf(value, 0) {
		return nil, fmt.Errorf("value cannot be converted to type at::%s without overflow", torchName(dt))
	}
	t := New(dt, shape...)
	if dt.IsFloat() {
		v := Round(dt, value)
		for i := range t.S.F {
			t.S.F[i] = v
		}
	} else {
		v := int64(Round(dt, value))
		for i := range t.S.I {
			t.S.I[i] = v
		}
	}
	return t, nil
}

// Zeros is torch.zeros(shape, dtype=dt).
func Zeros(shape []int, dt DType) (*Tensor, error) { return Full(shape, 0, dt) }

// Ones is torch.ones(shape, dtype=dt).
func Ones(shape []int, dt DType) (*Tensor, error) { return Full(shape, 1, dt) }

// Cat is torch.cat(ts, dim): promotes dtypes; 1-D empty tensors are skipped
// (PyTorch's legacy rule).
func Cat(ts []*Tensor, dim int) (*Tensor, error) {
	if len(ts) == 0 {
		return nil, fmt.Errorf("torch.cat(): expected a non-empty list of Tensors")
	}
	if err := checkT(ts...); err != nil {
		return nil, err
	}
	dt := ts[0].DType
	for _, t := range ts[1:] {
		dt = Promote(dt, t.DType)
	}
	var ref *Tensor
	refIdx := 0
	for i, t := range ts {
		if t.Dim() == 0 {
			return nil, fmt.Errorf("zero-dimensional tensor (at position %d) cannot be concatenated", i)
		}
		if ref == nil && !(t.Dim() == 1 && t.Shape[0] == 0) {
			ref, refIdx = t, i
		}
	}
	if ref == nil {
		if _, err := NormDim(dim, 1); err != nil {
			return nil, err
		}
		return New(dt, 0), nil
	}
	d, err := NormDim(dim, ref.Dim())
	if err != nil {
		return nil, err
	}
	shape := cp(ref.Shape)
	shape[d] = 0
	var parts []*Tensor
	for i, t := range ts {
		if t.Dim() == 1 && t.Shape[0] == 0 {
			continue
		}
		if t.Dim() != ref.Dim() {
			return nil, fmt.Errorf("Tensors must have same number of dimensions: got %d and %d", ref.Dim(), t.Dim())
		}
		for k := range t.Shape {
			if k != d && t.Shape[k] != ref.Shape[k] {
				return nil, fmt.Errorf("Sizes of tensors must match except in dimension %d. Expected size %d but got size %d for tensor number %d in the list.", d, ref.Shape[k], t.Shape[k], i)
			}
		}
		_ = refIdx
		shape[d] += t.Shape[d]
		parts = append(parts, t)
	}
	if err := checkSizes(shape); err != nil {
		return nil, err
	}
	out := New(dt, shape...)
	at := 0
	for _, t := range parts {
		sl := out.View(cp(t.Shape), out.Strides, at*out.Strides[d])
		if err := sl.CopyFrom(t); err != nil {
			return nil, err
		}
		at += t.Shape[d]
	}
	return out, nil
}

// Stack is torch.stack(ts, dim).
func Stack(ts []*Tensor, dim int) (*Tensor, error) {
	if len(ts) == 0 {
		return nil, fmt.Errorf("stack expects a non-empty TensorList")
	}
	if err := checkT(ts...); err != nil {
		return nil, err
	}
	d, err := NormDim(dim, ts[0].Dim()+1)
	if err != nil {
		return nil, err
	}
	us := make([]*Tensor, len(ts))
	for i, t := range ts {
		if !equalInts(t.Shape, ts[0].Shape) {
			return nil, fmt.Errorf("stack expects each tensor to be equal size, but got %s at entry 0 and %s at entry %d", fmtList(ts[0].Shape), fmtList(t.Shape), i)
		}
		if us[i], err = Unsqueeze(t, d); err != nil {
			return nil, err
		}
	}
	return Cat(us, d)
}

// Split is torch.split: one element = split_size, several = split_with_sizes.
// The results are views.
func Split(x *Tensor, sizes []int, dim int) ([]*Tensor, error) {
	if err := checkT(x); err != nil {
		return nil, err
	}
	if x.Dim() == 0 {
		return nil, fmt.Errorf("split expects at least a 1-dimensional tensor")
	}
	d, err := NormDim(dim, x.Dim())
	if err != nil {
		return nil, err
	}
	n := x.Shape[d]
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
			num = max(ceilDiv(n, s), 1)
		}
		sizes = make([]int, num)
		for i := range sizes {
			sizes[i] = s
		}
		sizes[num-1] = s - (s*num - n)
	} else {
		sum := 0
		for _, s := range sizes {
			if s < 0 {
				return nil, fmt.Errorf("split_with_sizes expects split_sizes have only non-negative entries, but got split_sizes=%s", fmtList(sizes))
			}
			sum += s
		}
		if sum != n {
			return nil, fmt.Errorf("split_with_sizes expects split_sizes to sum exactly to %d (input tensor's size at dimension %d), but got split_sizes=%s", n, d, fmtList(sizes))
		}
	}
	out := make([]*Tensor, len(sizes))
	at := 0
	for i, s := range sizes {
		if out[i], err = Narrow(x, d, at, s); err != nil {
			return nil, err
		}
		at += s
	}
	return out, nil
}

// Chunk is torch.chunk(x, chunks, dim) (views; may return fewer chunks).
func Chunk(x *Tensor, chunks, dim int) ([]*Tensor, error) {
	if err := checkT(x); err != nil {
		return nil, err
	}
	if x.Dim() == 0 {
		return nil, fmt.Errorf("chunk expects at least a 1-dimensional tensor")
	}
	if chunks <= 0 {
		return nil, fmt.Errorf("chunk expects `chunks` to be greater than 0, got: %d", chunks)
	}
	d, err := NormDim(dim, x.Dim())
	if err != nil {
		return nil, err
	}
	n := x.Shape[d]
	s := ceilDiv(n, chunks)
	if s == 0 && n == 0 {
		if chunks > maxNumel {
			return nil, fmt.Errorf("too many chunks: %d", chunks)
		}
		sizes := make([]int, chunks)
		return Split(x, sizes, d)
	}
	return Split(x, []int{s}, d)
}

func ceilDiv(a, b int) int {
	q := a / b
	if a%b != 0 {
		q++
	}
	return q
}

// Triu is torch.triu(x, diagonal) on the last two dims.
func Triu(x *Tensor, diagonal int) (*Tensor, error) { return tri(x, diagonal, true) }

// Tril is torch.tril(x, diagonal) on the last two dims.
func Tril(x *Tensor, diagonal int) (*Tensor, error) { return tri(x, diagonal, false) }

func tri(x *Tensor, k int, upper bool) (*Tensor, error) {
	if err := checkT(x); err != nil {
		return nil, err
	}
	name := "tril"
	if upper {
		name = "triu"
	}
	if x.Dim() < 2 {
		return nil, fmt.Errorf("%s: input tensor must have at least 2 dimensions", name)
	}
	out := x.Clone()
	r, c := x.Shape[x.Dim()-2], x.Shape[x.Dim()-1]
	n := out.Numel()
	for i := 0; i < n; i++ {
		col := i % c
		row := (i / c) % max(r, 1)
		zero := (upper && col-row < k) || (!upper && col-row > k)
		if zero {
			if out.S.F != nil {
				out.S.F[i] = 0
			} else {
				out.S.I[i] = 0
			}
		}
	}
	return out, nil
}

// Sort is torch.sort(x, dim, descending, stable): NaN sorts as the largest
// value; ties keep their original order.
func Sort(x *Tensor, dim int, descending, stable bool) (*Tensor, *Tensor, error) {
	if err := checkT(x); err != nil {
		return nil, nil, err
	}
	d, err := NormDim(dim, x.Dim())
	if err != nil {
		return nil, nil, err
	}
	return sortK(x, d, -1, descending, nil)
}

// sortK sorts along dim d and keeps the first k (k < 0 = all): stably, or
// with topk's order (ATen's, topk_order.go) when topkSorted is not nil
// (its value is topk's sorted).
func sortK(x *Tensor, d, k int, descending bool, topkSorted *bool) (*Tensor, *Tensor, error) {
	mask := make([]bool, x.Dim())
	if x.Dim() > 0 {
		mask[d] = true
	}
	_, pos, r := reduceLayout(x, mask, false)
	if k < 0 {
		k = r
	}
	oshape := cp(x.Shape)
	if x.Dim() > 0 {
		oshape[d] = k
	}
	// Result laid out with dim d last, then permuted back.
	perm := make([]int, 0, x.Dim())
	for i := range x.Shape {
		if i != d {
			perm = append(perm, i)
		}
	}
	if x.Dim() > 0 {
		perm = append(perm, d)
	}
	pshape := make([]int, len(perm))
	for i, p := range perm {
		pshape[i] = oshape[p]
	}
	vals := New(x.DType, pshape...)
	idxs := New(Int64, pshape...)
	rows := 0
	if r > 0 {
		rows = len(pos) / r
	}
	ord := make([]int, r)
	isF := x.S.F != nil
	less := func(a, b int) bool { // a strictly before b in ascending order
		if isF {
			va, vb := x.S.F[a], x.S.F[b]
			if math.IsNaN(vb) {
				return !math.IsNaN(va)
			}
			return va < vb
		}
		return x.S.I[a] < x.S.I[b]
	}
	for row := 0; row < rows; row++ {
		run := pos[row*r : row*r+r]
		for i := range ord {
			ord[i] = i
		}
		if topkSorted != nil {
			stdTopk(ord, k, *topkSorted, func(a, b int) bool { // ATen's comparator: NaN ranks first when largest
				if descending {
					return less(run[b], run[a])
				}
				return less(run[a], run[b])
			})
		} else {
			sort.SliceStable(ord, func(i, j int) bool {
				if descending {
					return less(run[ord[j]], run[ord[i]])
				}
				return less(run[ord[i]], run[ord[j]])
			})
		}
		for j := 0; j < k; j++ {
			o := row*k + j
			idxs.S.I[o] = int64(ord[j])
			if isF {
				vals.S.F[o] = x.S.F[run[ord[j]]]
			} else {
				vals.S.I[o] = x.S.I[run[ord[j]]]
			}
		}
	}
	inv := make([]int, len(perm))
	for i, p := range perm {
		inv[p] = i
	}
	v, err := Permute(vals, inv)
	if err != nil {
		return nil, nil, err
	}
	ix, err := Permute(idxs, inv)
	if err != nil {
		return nil, nil, err
	}
	return v.Contiguous(), ix.Contiguous(), nil
}

// Topk is torch.topk(x, k, dim, largest, sorted) on the CPU: its order,
// among equal values too (and unsorted when sorted is false), is ATen's
// (topk_order.go).
func Topk(x *Tensor, k, dim int, largest, sorted bool) (*Tensor, *Tensor, error) {
	if err := checkT(x); err != nil {
		return nil, nil, err
	}
	d, err := NormDim(dim, x.Dim())
	if err != nil {
		return nil, nil, err
	}
	n := 1
	if x.Dim() > 0 {
		n = x.Shape[d]
	}
	if k < 0 || k > n {
		return nil, nil, fmt.Errorf("selected index k out of range")
	}
	return sortK(x, d, k, largest, &sorted)
}

// Flip is torch.flip(x, dims) (a copy, as in PyTorch).
func Flip(x *Tensor, dims []int) (*Tensor, error) {
	if err := checkT(x); err != nil {
		return nil, err
	}
	seen := make([]bool, max(x.Dim(), 1))
	sh, st, off := cp(x.Shape), cp(x.Strides), x.Offset
	for _, d := range dims {
		n, err := NormDim(d, x.Dim())
		if err != nil {
			return nil, err
		}
		if seen[n] {
			return nil, fmt.Errorf("dim %d appears multiple times in the list of dims", n)
		}
		seen[n] = true
		if x.Dim() == 0 {
			continue
		}
		if sh[n] > 0 {
			off += (sh[n] - 1) * st[n]
		}
		st[n] = -st[n]
	}
	return x.View(sh, st, off).Clone(), nil
}

// Repeat is Tensor.repeat(repeats).
func Repeat(x *Tensor, repeats []int) (*Tensor, error) {
	if err := checkT(x); err != nil {
		return nil, err
	}
	if len(repeats) < x.Dim() {
		return nil, fmt.Errorf("Number of dimensions of repeat dims can not be smaller than number of dimensions of tensor")
	}
	off := len(repeats) - x.Dim()
	// view as [r0, (r1, s1), ...] with zero strides for the repeats
	var sh, st, outShape []int
	for i, r := range repeats {
		if r < 0 {
			return nil, fmt.Errorf("Trying to create tensor with negative dimension %d: %s", r, fmtList(repeats))
		}
		s, stride := 1, 0
		if i >= off {
			s, stride = x.Shape[i-off], x.Strides[i-off]
		}
		sh = append(sh, r, s)
		st = append(st, 0, stride)
		outShape = append(outShape, r*s)
	}
	if err := checkSizes(outShape); err != nil {
		return nil, err
	}
	c := x.View(sh, st, x.Offset).Clone()
	return c.View(outShape, ContiguousStrides(outShape), 0), nil
}
