package stages

import (
	"gcdbg/ir"
	"gcdbg/tensor"
)

// Helpers the decomposition table uses: reading constant arguments (after
// the driver's folding every size is a plain int) and a few composite
// emitters (reshape, permute, expand) that skip no-op nodes.

func (b *builder) int(a ir.Arg) int {
	switch v := a.(type) {
	case int64:
		return int(v)
	case bool:
		if v {
			return 1
		}
		return 0
	}
	b.failf("expected an int, got %s", argText(a))
	return 0
}

func (b *builder) float(a ir.Arg) float64 {
	switch v := a.(type) {
	case int64:
		return float64(v)
	case float64:
		return v
	case bool:
		if v {
			return 1
		}
		return 0
	}
	b.failf("expected a number, got %s", argText(a))
	return 0
}

func (b *builder) bool(a ir.Arg) bool {
	switch v := a.(type) {
	case bool:
		return v
	case int64:
		return v != 0
	}
	b.failf("expected a bool, got %s", argText(a))
	return false
}

func (b *builder) str(a ir.Arg) string {
	if s, ok := a.(string); ok {
		return s
	}
	b.failf("expected a string, got %s", argText(a))
	return ""
}

// ints reads an int or a sequence of ints (a torch.Size arrives nested).
func (b *builder) ints(a ir.Arg) []int {
	var items []ir.Arg
	switch v := a.(type) {
	case int64:
		return []int{int(v)}
	case ir.Tuple:
		items = v
	case ir.List:
		items = v
	default:
		b.failf("expected a list of ints, got %s", argText(a))
		return nil
	}
	if len(items) == 1 {
		if inner, ok := items[0].(ir.Tuple); ok {
			items = inner
		}
	}
	out := make([]int, len(items))
	for i, it := range items {
		out[i] = b.int(it)
	}
	return out
}

// tensors reads a list of tensor nodes (cat, stack).
func (b *builder) tensors(a ir.Arg) []ir.Arg {
	switch v := a.(type) {
	case ir.Tuple:
		return v
	case ir.List:
		return v
	}
	b.failf("expected a sequence of tensors, got %s", argText(a))
	return nil
}

// dim normalizes a possibly negative dim against n dims.
func (b *builder) dim(a ir.Arg, n int) int {
	d, err := tensor.NormDim(b.int(a), n)
	if err != nil {
		b.failf("%v", err)
	}
	return d
}

// reducedCount is how many elements each output of a reduction over dims
// (None or () meaning all) sums.
func (b *builder) reducedCount(x, dims ir.Arg) int {
	xs := b.shape(x)
	if dims == nil {
		return numelOf(xs)
	}
	ds := b.ints(dims)
	if len(ds) == 0 {
		return numelOf(xs)
	}
	n := 1
	for _, d := range ds {
		if len(xs) == 0 {
			continue
		}
		n *= xs[b.dim(int64(d), len(xs))]
	}
	return n
}

// inferSize resolves one -1 in a requested shape.
func (b *builder) inferSize(x ir.Arg, shape []int) []int {
	total := numelOf(b.shape(x))
	out := append([]int{}, shape...)
	known, neg := 1, -1
	for i, s := range out {
		if s == -1 {
			neg = i
		} else {
			known *= s
		}
	}
	if neg >= 0 && known != 0 {
		out[neg] = total / known
	}
	return out
}

// reshape is view when x's strides allow it, else a contiguous clone then
// view, which is exactly when torch.reshape copies.
func (b *builder) reshape(x ir.Arg, shape []int) ir.Arg {
	xs := b.shape(x)
	if sameInts(xs, shape) {
		return x
	}
	if !b.viewable(x, shape) {
		x = b.call("aten.clone", x)
	}
	return b.call("aten.view", x, sizesArg(shape))
}

// viewable asks the tensor library whether a tensor with x's inferred
// strides can be viewed as shape (on a dummy storage of the right extent).
func (b *builder) viewable(x ir.Arg, shape []int) bool {
	m := b.meta(x)
	if m == nil || m.Stride == nil {
		return false
	}
	sizes := m.Shape.Sizes()
	ext := 1
	for i, s := range sizes {
		if s == 0 {
			return true
		}
		ext += (s - 1) * m.Stride[i]
	}
	if ext > 1<<26 {
		return false
	}
	t := tensor.New(m.DType, ext).View(sizes, m.Stride, 0)
	_, err := tensor.ViewAs(t, shape)
	return err == nil
}

func (b *builder) isContiguous(x ir.Arg) bool {
	m := b.meta(x)
	if m == nil || m.Stride == nil {
		return false
	}
	want := tensor.ContiguousStrides(m.Shape.Sizes())
	for i, s := range m.Shape.Sizes() {
		if s != 1 && m.Stride[i] != want[i] {
			return false
		}
	}
	return true
}

// permute skips the identity permutation.
func (b *builder) permute(x ir.Arg, perm []int) ir.Arg {
	identity := true
	for i, p := range perm {
		if p != i {
			identity = false
		}
	}
	if identity {
		return x
	}
	return b.call("aten.permute", x, sizesArg(perm))
}

// expand skips a no-op expand.
func (b *builder) expand(x ir.Arg, from, to []int) ir.Arg {
	if sameInts(from, to) {
		return x
	}
	return b.call("aten.expand", x, sizesArg(to))
}

func sizesArg(xs []int) ir.Tuple {
	out := make(ir.Tuple, len(xs))
	for i, x := range xs {
		out[i] = int64(x)
	}
	return out
}

func numelOf(shape []int) int {
	n := 1
	for _, s := range shape {
		n *= s
	}
	return n
}

func sameInts(a, b []int) bool {
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
