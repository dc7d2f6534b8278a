package tensor

import "fmt"

// IndexPutAccumulate is the out-of-place index_put(x, items, value,
// accumulate=True): a copy of x with value (broadcast to the indexed shape)
// added to the indexed elements; an element an index names twice receives
// both values (bool: or), unlike IndexPutCopy's last write.
func IndexPutAccumulate(x *Tensor, items []IndexItem, value *Tensor) (*Tensor, error) {
	if err := checkT(x, value); err != nil {
		return nil, err
	}
	if !value.Wrapped && value.DType != x.DType {
		return nil, fmt.Errorf("Index put requires the source and destination dtypes match, got %s for the destination and %s for the source.", torchName(x.DType), torchName(value.DType))
	}
	out := x.Clone()
	v, adv, err := applyIndex(out, items)
	if err != nil {
		return nil, err
	}
	var shape, pos []int
	if len(adv) == 0 {
		shape = v.Shape
		pos = make([]int, v.Numel())
		for i := range pos {
			pos[i] = v.flatIndex(i)
		}
	} else if shape, pos, err = advPositions(v, adv); err != nil {
		return nil, err
	}
	if _, err := value.BroadcastTo(shape); err != nil {
		return nil, fmt.Errorf("shape mismatch: value tensor of shape %s cannot be broadcast to indexing result of shape %s", fmtList(value.Shape), fmtList(shape))
	}
	if out.S.F != nil {
		vals, _ := loadF(value, shape, out.DType)
		for i, p := range pos {
			out.S.F[p] = Round(out.DType, out.S.F[p]+vals[i])
		}
		return out, nil
	}
	vals, _ := loadI(value, shape, out.DType)
	for i, p := range pos {
		s := out.S.I[p] + vals[i]
		if out.DType == Bool && s != 0 {
			s = 1
		}
		out.S.I[p] = wrapInt(out.DType, s)
	}
	return out, nil
}
