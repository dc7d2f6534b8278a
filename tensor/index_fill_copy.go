package tensor

import "fmt"

// IndexFillCheck is torch.index_fill's check (PyTorch 1.13's messages): the
// wrapped dim, or the error. The index is a vector or a scalar of int64; a
// tensor value must be 0-dim (valueDims < 0: a number).
func IndexFillCheck(self, index []int, idt DType, dim, valueDims int) (int, error) {
	d, err := NormDim(dim, len(self))
	if err != nil {
		return 0, err
	}
	if len(index) > 1 {
		return 0, fmt.Errorf("Index has to be a vector/scalar")
	}
	if idt != Int64 {
		return 0, fmt.Errorf("index_fill_(): Expected dtype int64 for index.")
	}
	if valueDims > 0 {
		return 0, fmt.Errorf("index_fill_ only supports a 0-dimensional value tensor, but got tensor with %d dimension(s).", valueDims)
	}
	return d, nil
}

// IndexFill is torch.index_fill(self, dim, index, value): a copy of self
// whose slices index[i] along dim (negative indices wrapped) hold value,
// converted to self's dtype.
func IndexFill(self *Tensor, dim int, index *Tensor, value float64, valueDims int) (*Tensor, error) {
	if err := checkT(self, index); err != nil {
		return nil, err
	}
	d, err := IndexFillCheck(self.Shape, index.Shape, index.DType, dim, valueDims)
	if err != nil {
		return nil, err
	}
	size := 1
	if self.Dim() > 0 {
		size = self.Shape[d]
	}
	hit := make([]bool, size)
	for i := 0; i < index.Numel(); i++ {
		j := int(index.FlatInt(i))
		if j < -size || j >= size {
			return nil, fmt.Errorf("index %d is out of bounds for dimension %d with size %d", j, d, size)
		}
		hit[(j+size)%size] = true
	}
	out := self.Clone()
	inner := Numel(self.Shape[min(d+1, len(self.Shape)):])
	for p := 0; p < out.Numel(); p++ {
		if hit[p/inner%size] {
			out.SetFlat(p, value)
		}
	}
	return out, nil
}

// IndexCopyCheck is torch.index_copy's check (PyTorch 1.13's messages).
func IndexCopyCheck(self, index, source []int, sdt, idt, srcdt DType, dim int) (int, error) {
	d, err := NormDim(dim, len(self))
	if err != nil {
		return 0, err
	}
	if len(index) > 1 {
		return 0, fmt.Errorf("index_copy_(): Index should have dimension 1 or 0 (got %d)", len(index))
	}
	if idt != Int64 {
		return 0, fmt.Errorf("index_copy_(): Expected a long tensor for index, but got %s", idt)
	}
	if sdt != srcdt {
		return 0, fmt.Errorf("index_copy_(): self and source expected to have the same dtype, but got (self) %s and (source) %s", sdt, srcdt)
	}
	n, want := 1, 1
	if len(index) == 1 {
		n = index[0]
	}
	if len(source) > 0 {
		if d >= len(source) {
			return 0, fmt.Errorf("index_copy_(): When source is scalar, index should have one element (got %d)", n)
		}
		want = source[d]
	}
	if n != want {
		return 0, fmt.Errorf("index_copy_(): Number of indices (%d) should be equal to source.size(dim) (%d)", n, want)
	}
	if !sameApartFrom(self, source, d) { // index_add.go
		return 0, fmt.Errorf("index_copy_(): Source/destination tensor must have same slice shapes: source %v, self %v apart from dimension %d", source, self, d)
	}
	return d, nil
}

// IndexCopy is torch.index_copy(self, dim, index, source): a copy of self
// whose slice index[i] along dim is source's slice i; with a repeated
// index the last slice wins, as PyTorch's CPU kernel.
func IndexCopy(self *Tensor, dim int, index, source *Tensor) (*Tensor, error) {
	if err := checkT(self, index, source); err != nil {
		return nil, err
	}
	d, err := IndexCopyCheck(self.Shape, index.Shape, source.Shape, self.DType, index.DType, source.DType, dim)
	if err != nil {
		return nil, err
	}
	size := 1
	if self.Dim() > 0 {
		size = self.Shape[d]
	}
	out := self.Clone()
	inner := Numel(self.Shape[min(d+1, len(self.Shape)):])
	k := index.Numel()
	for i := 0; i < k; i++ {
		j := int(index.FlatInt(i))
		if j < 0 || j >= size {
			return nil, fmt.Errorf("index_copy_(): index %d is out of bounds for dimension %d with size %d", j, d, size)
		}
	}
	// source viewed as [outer, k, inner], out as [outer, size, inner]
	src := source.Clone() // row-major, offset 0, as out
	outer := src.Numel() / max(k*inner, 1)
	for o := 0; o < outer; o++ {
		for i := 0; i < k; i++ {
			j := int(index.FlatInt(i))
			at, from := (o*size+j)*inner, (o*k+i)*inner
			if out.S.F != nil {
				copy(out.S.F[at:at+inner], src.S.F[from:from+inner])
			} else {
				copy(out.S.I[at:at+inner], src.S.I[from:from+inner])
			}
		}
	}
	return out, nil
}
