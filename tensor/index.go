package tensor

import "fmt"

// IndexKind is the kind of one item of a Python subscript.
type IndexKind uint8

const (
	IdxInt      IndexKind = iota // x[3]
	IdxSlice                     // x[a:b:c]
	IdxNone                      // x[None]
	IdxEllipsis                  // x[...]
	IdxTensor                    // x[idx] with an integer index tensor or a bool mask
)

// IndexItem is one item of a subscript. A Python list of ints arrives as an
// Int64 Tensor; nil Start/Stop/Step are the slice defaults.
type IndexItem struct {
	Kind              IndexKind
	Int               int
	Start, Stop, Step *int
	Tensor            *Tensor
}

type advIndex struct {
	dim int     // dim of the basic-indexed view
	idx *Tensor // int64 index tensor
}

// applyIndex performs the basic part of x[items] (a view) and collects the
// advanced indices, as PyTorch's applySlicing does.
func applyIndex(x *Tensor, items []IndexItem) (*Tensor, []advIndex, error) {
	if err := checkT(x); err != nil {
		return nil, nil, err
	}
	consumed := 0
	for _, it := range items {
		switch it.Kind {
		case IdxInt, IdxSlice:
			consumed++
		case IdxEllipsis, IdxNone:
		case IdxTensor:
			if err := checkT(it.Tensor); err != nil {
				return nil, nil, err
			}
			if it.Tensor.DType == Bool || it.Tensor.DType == Uint8 {
				consumed += max(it.Tensor.Dim(), 0)
			} else {
				consumed++
			}
		default:
			return nil, nil, fmt.Errorf("unsupported index kind %d", it.Kind)
		}
	}
	if consumed > x.Dim() {
		return nil, nil, fmt.Errorf("too many indices for tensor of dimension %d", x.Dim())
	}
	v := x
	dim := 0
	var adv []advIndex
	var err error
	for _, it := range items {
		if (it.Kind == IdxInt || it.Kind == IdxSlice || it.Kind == IdxTensor) && dim >= v.Dim() {
			return nil, nil, fmt.Errorf("too many indices for tensor of dimension %d", x.Dim())
		}
		switch it.Kind {
		case IdxInt:
			n := v.Shape[dim]
			if it.Int < -n || it.Int >= n {
				return nil, nil, fmt.Errorf("index %d is out of bounds for dimension %d with size %d", it.Int, dim, n)
			}
			if v, err = Select(v, dim, it.Int); err != nil {
				return nil, nil, err
			}
		case IdxSlice:
			if v, err = Slice(v, dim, it.Start, it.Stop, it.Step); err != nil {
				return nil, nil, err
			}
			dim++
		case IdxNone:
			if v, err = Unsqueeze(v, dim); err != nil {
				return nil, nil, err
			}
			dim++
		case IdxEllipsis:
			dim += x.Dim() - consumed
		case IdxTensor:
			t := it.Tensor
			switch {
			case t.Dim() == 0 && t.DType != Bool && t.DType != Uint8 && !t.DType.IsFloat():
				// A 0-dim integer tensor indexes like a Python int.
				i := int(t.FlatInt(0))
				n := v.Shape[dim]
				if i < -n || i >= n {
					return nil, nil, fmt.Errorf("index %d is out of bounds for dimension %d with size %d", i, dim, n)
				}
				if v, err = Select(v, dim, i); err != nil {
					return nil, nil, err
				}
			case t.DType == Bool || t.DType == Uint8:
				if t.Dim() == 0 {
					if v, err = Unsqueeze(v, dim); err != nil {
						return nil, nil, err
					}
					idx := New(Int64, int(t.FlatInt(0)&1))
					adv = append(adv, advIndex{dim, idx})
					dim++
					continue
				}
				for k := 0; k < t.Dim(); k++ {
					if dim+k >= v.Dim() {
						return nil, nil, fmt.Errorf("too many indices for tensor of dimension %d", x.Dim())
					}
					if t.Shape[k] != v.Shape[dim+k] {
						return nil, nil, fmt.Errorf("The shape of the mask %s at index %d does not match the shape of the indexed tensor %s at index %d", fmtList(t.Shape), k, fmtList(v.Shape), dim+k)
					}
				}
				for k, idx := range nonzeroCols(t) {
					adv = append(adv, advIndex{dim + k, idx})
				}
				dim += t.Dim()
			case t.DType != Int64:
				return nil, nil, fmt.Errorf("tensors used as indices must be long, byte or bool tensors")
			default:
				adv = append(adv, advIndex{dim, t})
				dim++
			}
		}
	}
	return v, adv, nil
}

// nonzeroCols returns, for each dim of a mask, the int64 indices of its true elements.
func nonzeroCols(m *Tensor) []*Tensor {
	vals := m.Ints()
	nd := m.Dim()
	cnt := 0
	for _, b := range vals {
		if b != 0 {
			cnt++
		}
	}
	cols := make([]*Tensor, nd)
	for k := range cols {
		cols[k] = New(Int64, cnt)
	}
	idx := make([]int, nd)
	j := 0
	for _, b := range vals {
		if b != 0 {
			for k := range cols {
				cols[k].S.I[j] = int64(idx[k])
			}
			j++
		}
		for d := nd - 1; d >= 0; d-- {
			idx[d]++
			if idx[d] < m.Shape[d] {
				break
			}
			idx[d] = 0
		}
	}
	return cols
}

// advPositions resolves advanced indices on the view v: the result shape and,
// for every result element in row-major order, its storage position in v.
func advPositions(v *Tensor, adv []advIndex) ([]int, []int, error) {
	shapes := make([][]int, len(adv))
	for i, a := range adv {
		shapes[i] = a.idx.Shape
	}
	bshape, err := BroadcastShapes(shapes...)
	if err != nil {
		return nil, nil, fmt.Errorf("shape mismatch: indexing tensors could not be broadcast together with shapes %s", fmtShapesList(shapes))
	}
	if err := checkSizes(bshape); err != nil {
		return nil, nil, err
	}
	nb := Numel(bshape)
	// storage offset contributed by the advanced dims for each broadcast element
	advOff := make([]int, nb)
	isAdv := make([]bool, v.Dim())
	for _, a := range adv {
		isAdv[a.dim] = true
		vals, _ := loadI(a.idx, bshape, Int64)
		n := v.Shape[a.dim]
		for j, i := range vals {
			if i < -int64(n) || i >= int64(n) {
				return nil, nil, fmt.Errorf("index %d is out of bounds for dimension %d with size %d", i, a.dim, n)
			}
			if i < 0 {
				i += int64(n)
			}
			advOff[j] += int(i) * v.Strides[a.dim]
		}
	}
	adjacent := true
	for i := 1; i < len(adv); i++ {
		if adv[i].dim != adv[i-1].dim+1 {
			adjacent = false
		}
	}
	// Remaining (sliced) dims before and after the block.
	var pre, post []int
	first := adv[0].dim
	for d := 0; d < v.Dim(); d++ {
		if isAdv[d] {
			continue
		}
		if adjacent && d < first {
			pre = append(pre, d)
		} else {
			post = append(post, d)
		}
	}
	shape := []int{}
	for _, d := range pre {
		shape = append(shape, v.Shape[d])
	}
	shape = append(shape, bshape...)
	for _, d := range post {
		shape = append(shape, v.Shape[d])
	}
	sub := func(ds []int) []int {
		sh, st := make([]int, len(ds)), make([]int, len(ds))
		for i, d := range ds {
			sh[i], st[i] = v.Shape[d], v.Strides[d]
		}
		return positions(v.View(sh, st, v.Offset))
	}
	if err := checkSizes(shape); err != nil {
		return nil, nil, err
	}
	prePos, postPos := sub(pre), sub(post)
	pos := make([]int, 0, Numel(shape))
	for _, p := range prePos {
		for _, a := range advOff {
			for _, q := range postPos {
				pos = append(pos, p+a+q-v.Offset)
			}
		}
	}
	return shape, pos, nil
}

func fmtShapesList(s [][]int) string {
	out := ""
	for i, x := range s {
		if i > 0 {
			out += ", "
		}
		out += fmtList(x)
	}
	return out
}

// Index is x[items...] with PyTorch's rules: basic indexing (ints, slices,
// None, ...) returns a view; advanced indexing (index tensors, bool masks)
// returns a copy, its broadcast dims placed where the (adjacent) indices
// were, or first when they are separated.
func Index(x *Tensor, items []IndexItem) (*Tensor, error) {
	v, adv, err := applyIndex(x, items)
	if err != nil {
		return nil, err
	}
	if len(adv) == 0 {
		if v == x {
			return x.View(cp(x.Shape), cp(x.Strides), x.Offset), nil
		}
		return v, nil
	}
	shape, pos, err := advPositions(v, adv)
	if err != nil {
		return nil, err
	}
	out := New(x.DType, shape...)
	if x.S.F != nil {
		for i, p := range pos {
			out.S.F[i] = x.S.F[p]
		}
	} else {
		for i, p := range pos {
			out.S.I[i] = x.S.I[p]
		}
	}
	return out, nil
}

// IndexPut is the in-place x[items] = value, written through x's strides
// (so views sharing x's storage see it). value broadcasts to the indexed shape.
func IndexPut(x *Tensor, items []IndexItem, value *Tensor) error {
	if err := checkT(value); err != nil {
		return err
	}
	v, adv, err := applyIndex(x, items)
	if err != nil {
		return err
	}
	if len(adv) == 0 {
		if _, err := value.BroadcastTo(v.Shape); err != nil {
			return fmt.Errorf("expand(torch.%sTensor{%s}, size=%s): %v", torchName(value.DType), fmtList(value.Shape), fmtList(v.Shape), err)
		}
		return v.CopyFrom(value)
	}
	if !value.Wrapped && value.DType != x.DType {
		return fmt.Errorf("Index put requires the source and destination dtypes match, got %s for the destination and %s for the source.", torchName(x.DType), torchName(value.DType))
	}
	shape, pos, err := advPositions(v, adv)
	if err != nil {
		return err
	}
	if _, err := value.BroadcastTo(shape); err != nil {
		return fmt.Errorf("shape mismatch: value tensor of shape %s cannot be broadcast to indexing result of shape %s", fmtList(value.Shape), fmtList(shape))
	}
	if x.S.F != nil {
		vals, _ := loadF(value, shape, x.DType)
		for i, p := range pos {
			x.S.F[p] = vals[i]
		}
	} else {
		vals, _ := loadI(value, shape, x.DType)
		if value.S.F != nil {
			for i := range vals {
				vals[i] = int64(Round(x.DType, float64(vals[i])))
			}
		}
		for i, p := range pos {
			x.S.I[p] = vals[i]
		}
	}
	return nil
}
