package tensor

import "fmt"

// The functional (out-of-place) counterparts of writing through a view:
// each returns a fresh copy of x with the region a view would select
// replaced by src. Functionalization uses them to turn `x[...] op= v`
// into a new version of x without mutating anything.

// SliceScatter is torch.slice_scatter: a copy of x whose
// x[(:,)*dim start:stop:step] is src. src must have the slice's exact shape.
func SliceScatter(x, src *Tensor, dim int, start, stop, step *int) (*Tensor, error) {
	if err := checkT(x, src); err != nil {
		return nil, err
	}
	out := x.Clone()
	v, err := Slice(out, dim, start, stop, step)
	if err != nil {
		return nil, err
	}
	return out, scatterInto("slice_scatter", v, src)
}

// SelectScatter is torch.select_scatter: a copy of x whose x.select(dim,
// index) is src (src has the selected shape: x's without dim).
func SelectScatter(x, src *Tensor, dim, index int) (*Tensor, error) {
	if err := checkT(x, src); err != nil {
		return nil, err
	}
	out := x.Clone()
	v, err := Select(out, dim, index)
	if err != nil {
		return nil, err
	}
	return out, scatterInto("select_scatter", v, src)
}

// IndexPutCopy is the out-of-place x[items] = value: a copy of x with the
// indexed elements set (value broadcasts to the indexed shape, as in setitem).
func IndexPutCopy(x *Tensor, items []IndexItem, value *Tensor) (*Tensor, error) {
	if err := checkT(x, value); err != nil {
		return nil, err
	}
	out := x.Clone()
	if err := IndexPut(out, items, value); err != nil {
		return nil, err
	}
	return out, nil
}

// scatterInto writes src into the view v of a fresh copy. Unlike setitem,
// the scatter ops do not broadcast: PyTorch requires src to have the view's
// shape, and a mismatch means the graph is wrong, not that it broadcasts.
func scatterInto(op string, v, src *Tensor) error {
	if !equalInts(v.Shape, src.Shape) {
		return fmt.Errorf("%s: expected src to have a size equal to the slice of self. src size = %s, slice size = %s", op, fmtList(src.Shape), fmtList(v.Shape))
	}
	return v.CopyFrom(src)
}
