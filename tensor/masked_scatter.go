package tensor

import "fmt"

// MaskedScatter is torch.masked_scatter(x, mask, source): x and mask
// broadcast together; the positions where mask is true, in row-major order,
// take source's elements in order (source needs at least as many).
func MaskedScatter(x, mask, source *Tensor) (*Tensor, error) {
	if err := checkT(x, mask, source); err != nil {
		return nil, err
	}
	if mask.DType != Bool && mask.DType != Uint8 {
		return nil, fmt.Errorf("masked_scatter_ only supports boolean masks, but got mask with dtype %s", torchName(mask.DType))
	}
	if source.DType != x.DType {
		return nil, fmt.Errorf("masked_scatter: expected self and source to have same dtypes but got %s and %s", torchName(x.DType), torchName(source.DType))
	}
	shape, err := BroadcastShapes(x.Shape, mask.Shape)
	if err != nil {
		return nil, err
	}
	xb, err := x.BroadcastTo(shape)
	if err != nil {
		return nil, err
	}
	mb, err := mask.BroadcastTo(shape)
	if err != nil {
		return nil, err
	}
	out := xb.Clone()
	src := source.Contiguous()
	k := 0
	for i := 0; i < out.Numel(); i++ {
		if mb.FlatInt(i) == 0 {
			continue
		}
		if k >= src.Numel() {
			return nil, fmt.Errorf("masked_scatter: expected source to have at least as many elements as ones in mask, got %d", src.Numel())
		}
		if out.S.F != nil {
			out.S.F[i] = src.Flat(k)
		} else {
			out.S.I[i] = src.FlatInt(k)
		}
		k++
	}
	return out, nil
}
