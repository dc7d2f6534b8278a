package tensor

import "fmt"

// Gather-style indexing kernels: the core indexing ops the decomposition
// stage lowers embedding, losses and advanced indexing to.

// IndexSelect is torch.index_select: the slices of x at the positions in a
// 1-D (or 0-D) integer index along dim; the result replaces x's dim by the
// index's length.
func IndexSelect(x *Tensor, dim int, index *Tensor) (*Tensor, error) {
	if err := checkT(x, index); err != nil {
		return nil, err
	}
	if index.DType != Int64 && index.DType != Int32 {
		return nil, fmt.Errorf("index_select(): Expected dtype int32/int64 for index, got %s", torchName(index.DType))
	}
	if index.Dim() > 1 {
		return nil, fmt.Errorf("index_select(): Index is supposed to be a vector, got %d dims", index.Dim())
	}
	nd := max(x.Dim(), 1)
	d, err := NormDim(dim, nd)
	if err != nil {
		return nil, err
	}
	if x.Dim() == 0 {
		// PyTorch (index_select_out_cpu_): a 0-d self gives a 0-d result,
		// self's value, for an index of any length whose elements are all 0.
		if err := IndexSelect0dCheck(index.Numel()); err != nil {
			return nil, err
		}
		for i := 0; i < index.Numel(); i++ {
			if j := index.FlatInt(i); j != 0 {
				return nil, fmt.Errorf("index_select(): index %d is out of range in self (a 0-dim tensor)", j)
			}
		}
		return x.Clone(), nil
	}
	shape := cp(x.Shape)
	shape[d] = index.Numel()
	if err := checkSizes(shape); err != nil {
		return nil, err
	}
	out := New(x.DType, shape...)
	n := x.Shape[d]
	idx := make([]int, len(shape))
	for i := 0; i < out.Numel(); i++ {
		gatherUnravel(i, shape, idx)
		j := int(index.FlatInt(idx[d]))
		if j < -n || j >= n {
			return nil, fmt.Errorf("index_select(): index %d is out of bounds for dimension %d with size %d", j, d, n)
		}
		if j < 0 {
			j += n
		}
		idx[d] = j
		gatherCopy(out, i, x, x.Pos(idx))
	}
	return out, nil
}

// IndexSelect0dCheck refuses index_select of a 0-d self with an empty index:
// PyTorch 1.13 returns a 0-d tensor it never writes (uninitialized memory).
func IndexSelect0dCheck(indexNumel int) error {
	if indexNumel == 0 {
		return fmt.Errorf("index_select(): a 0-dim self with an empty index is not supported by gcdbg: PyTorch returns a 0-dim tensor it never writes (uninitialized memory), so there is no value to compute")
	}
	return nil
}

// Gather is torch.gather: out[i][j][k] = x[index[i][j][k]][j][k] (dim 0),
// and so on; index has x's number of dims and is no larger than x outside dim.
func Gather(x *Tensor, dim int, index *Tensor) (*Tensor, error) {
	if err := checkT(x, index); err != nil {
		return nil, err
	}
	if index.DType != Int64 && index.Numel() != 0 { // PyTorch takes an empty index of any dtype
		return nil, fmt.Errorf("gather(): Expected dtype int64 for index, got %s", torchName(index.DType))
	}
	nd := max(x.Dim(), 1)
	d, err := NormDim(dim, nd)
	if err != nil {
		return nil, err
	}
	if max(index.Dim(), 1) != nd {
		return nil, fmt.Errorf("Index tensor must have the same number of dimensions as input tensor")
	}
	if x.Dim() == 0 {
		x = x.View([]int{1}, []int{1}, x.Offset)
	}
	ishape := cp(index.Shape)
	if index.Dim() == 0 {
		ishape = []int{1}
	}
	for k := range ishape {
		if k != d && ishape[k] > x.Shape[k] {
			return nil, fmt.Errorf("Size does not match at dimension %d expected index %v to be smaller than self %v apart from dimension %d", k, index.Shape, x.Shape, d)
		}
	}
	out := New(x.DType, index.Shape...)
	n := x.Shape[d]
	idx := make([]int, len(ishape))
	for i := 0; i < out.Numel(); i++ {
		gatherUnravel(i, ishape, idx)
		j := int(index.FlatInt(i))
		if j < -n || j >= n {
			return nil, fmt.Errorf("gather(): index %d is out of bounds for dimension %d with size %d", j, d, n)
		}
		if j < 0 {
			j += n
		}
		idx[d] = j
		gatherCopy(out, i, x, x.Pos(idx))
	}
	return out, nil
}

// gatherUnravel writes the row-major multi-index of flat position i into idx.
func gatherUnravel(i int, shape, idx []int) {
	for d := len(shape) - 1; d >= 0; d-- {
		idx[d] = i % shape[d]
		i /= shape[d]
	}
}

// gatherCopy copies x's element at storage position p to out's i-th element
// (out is contiguous and of x's dtype, so no rounding is needed).
func gatherCopy(out *Tensor, i int, x *Tensor, p int) {
	if x.S.F != nil {
		out.S.F[i] = x.S.F[p]
	} else {
		out.S.I[i] = x.S.I[p]
	}
}
