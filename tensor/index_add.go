package tensor

import (
	"fmt"
	"math"
)

// IndexAddCheck is torch.index_add's argument check on shapes and dtypes
// (ATen's index_func_meta_impl, PyTorch 1.13, its messages): the wrapped
// dim, or the error PyTorch raises. The ir op's shape inference and
// IndexAdd share it.
func IndexAddCheck(self, index, source []int, sdt, idt, srcdt DType, dim int) (int, error) {
	d, err := NormDim(dim, len(self))
	if err != nil {
		return 0, err
	}
	if len(index) > 1 {
		return 0, fmt.Errorf("index_add_(): Index is supposed to be a vector, but got dim: %d with type: %s and size: %v", len(index), idt, index)
	}
	if idt != Int64 && idt != Int32 {
		return 0, fmt.Errorf("index_add_(): Expected dtype int32/int64 for index but got: %s", idt)
	}
	if sdt != srcdt {
		return 0, fmt.Errorf("index_add_(): self (%s) and source (%s) must have the same scalar type", sdt, srcdt)
	}
	if len(source) > 0 && d >= len(source) {
		return 0, fmt.Errorf("index_add_(): Indexing dim %d is out of bounds of the source tensor with dim %d", d, len(source))
	}
	n, want := 1, 1
	if len(index) == 1 {
		n = index[0]
	}
	if len(source) > 0 {
		want = source[d]
	}
	if n != want {
		return 0, fmt.Errorf("index_add_(): Number of indices (%d) should be equal to source.size(dim): (%d), for dim: %d", n, want, d)
	}
	if !sameApartFrom(self, source, d) {
		return 0, fmt.Errorf("index_add_(): source %v must have self's shape %v apart from dimension %d", source, self, d)
	}
	return d, nil
}

// sameApartFrom says source has self's sizes except along dim d (or one of
// them is 0-dim): index_add's and index_copy's slices match.
func sameApartFrom(self, source []int, d int) bool {
	if len(self) == 0 || len(source) == 0 {
		return true
	}
	if len(self) != len(source) {
		return false
	}
	for i := range self {
		if i != d && self[i] != source[i] {
			return false
		}
	}
	return true
}

// IndexAdd is torch.index_add(self, dim, index, source, alpha): a copy of
// self where source's slice i along dim, times alpha, is added to self's
// slice index[i] (repeated indices accumulate, in the order of i). It is
// scatter_add with the index viewed along dim and expanded to source's
// shape; an integer self takes alpha truncated, as PyTorch.
func IndexAdd(self *Tensor, dim int, index, source *Tensor, alpha float64) (*Tensor, error) {
	if err := checkT(self, index, source); err != nil {
		return nil, err
	}
	d, err := IndexAddCheck(self.Shape, index.Shape, source.Shape, self.DType, index.DType, source.DType, dim)
	if err != nil {
		return nil, err
	}
	if alpha != 1 {
		if !self.DType.IsFloat() {
			alpha = math.Trunc(alpha)
		}
		if source, err = Binary("mul", source, Scalar(source.DType, alpha)); err != nil {
			return nil, err
		}
	}
	if source.Dim() == 0 {
		if index, err = Reshape(index, nil); err != nil {
			return nil, err
		}
	} else {
		shape := make([]int, source.Dim())
		for i := range shape {
			shape[i] = 1
		}
		shape[d] = index.Numel()
		if index, err = Reshape(index, shape); err != nil {
			return nil, err
		}
		if index, err = Expand(index, source.Shape); err != nil {
			return nil, err
		}
	}
	return ScatterAdd(self, d, index, source)
}
