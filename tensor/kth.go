package tensor

import (
	"fmt"
	"math"
	"sort"
)

// Kthvalue is torch.kthvalue(x, k, dim, keepdim): the k-th smallest
// element along dim (1-based) and its index. NaN counts as larger than every
// number, as ATen's quickselect compares; among equal values the lowest
// index is returned (PyTorch's choice among ties is unspecified).
func Kthvalue(x *Tensor, k, dim int, keepdim bool) (*Tensor, *Tensor, error) {
	if err := checkT(x); err != nil {
		return nil, nil, err
	}
	d, err := NormDim(dim, max(x.Dim(), 1))
	if err != nil {
		return nil, nil, err
	}
	n := 1
	if x.Dim() > 0 {
		n = x.Shape[d]
	}
	if k < 1 || k > n {
		return nil, nil, fmt.Errorf("kthvalue(): selected number k out of range for dimension %d", d)
	}
	return selectAlong(x, d, keepdim, func(v []float64, idx []int) int {
		sortNaNLast(v, idx)
		return idx[k-1]
	})
}

// MedianDim is torch.median(x, dim, keepdim): the lower median along dim
// (the element at sorted position (n-1)/2) and its index; a slice holding a
// NaN gives its first NaN and that NaN's index, as ATen's
// median_with_indices_impl does.
func MedianDim(x *Tensor, dim int, keepdim bool) (*Tensor, *Tensor, error) {
	if err := checkT(x); err != nil {
		return nil, nil, err
	}
	d, err := NormDim(dim, max(x.Dim(), 1))
	if err != nil {
		return nil, nil, err
	}
	if x.Dim() > 0 && x.Shape[d] == 0 {
		return nil, nil, fmt.Errorf("median(): Expected reduction dim %d to have non-zero size.", d)
	}
	return selectAlong(x, d, keepdim, func(v []float64, idx []int) int {
		for i, e := range v {
			if math.IsNaN(e) {
				return idx[i]
			}
		}
		sortNaNLast(v, idx)
		return idx[(len(v)-1)/2]
	})
}

// MedianAll is torch.median(x) without dim: the lower median of every
// element, NaN when any element is NaN or x is empty; a 0-d tensor.
func MedianAll(x *Tensor) (*Tensor, error) {
	if err := checkT(x); err != nil {
		return nil, err
	}
	if x.DType == Bool {
		return nil, fmt.Errorf("\"median_cpu\" not implemented for 'Bool'")
	}
	out := New(x.DType)
	n := x.Numel()
	if n == 0 {
		out.SetFlat(0, math.NaN())
		return out, nil
	}
	flat, err := Reshape(x.Contiguous(), []int{n})
	if err != nil {
		return nil, err
	}
	v, _, err := MedianDim(flat, 0, false)
	if err != nil {
		return nil, err
	}
	return v, nil
}

func sortNaNLast(v []float64, idx []int) {
	sort.Stable(byValueNaNLast{v, idx})
}

type byValueNaNLast struct {
	v   []float64
	idx []int
}

func (s byValueNaNLast) Len() int { return len(s.v) }
func (s byValueNaNLast) Less(i, j int) bool {
	a, b := s.v[i], s.v[j]
	return !math.IsNaN(a) && (math.IsNaN(b) || a < b)
}
func (s byValueNaNLast) Swap(i, j int) {
	s.v[i], s.v[j] = s.v[j], s.v[i]
	s.idx[i], s.idx[j] = s.idx[j], s.idx[i]
}

// selectAlong picks, for every slice of x along dim d, one element by its
// index along d (pick gets the slice's values and their indices in order
// and may reorder both), returning the picked values and indices.
func selectAlong(x *Tensor, d int, keepdim bool, pick func(v []float64, idx []int) int) (*Tensor, *Tensor, error) {
	if x.DType == Bool {
		return nil, nil, fmt.Errorf("not implemented for 'Bool'")
	}
	if x.Dim() == 0 {
		i := New(Int64)
		return x.Contiguous(), i, nil
	}
	perm := make([]int, 0, x.Dim())
	for i := range x.Shape {
		if i != d {
			perm = append(perm, i)
		}
	}
	perm = append(perm, d)
	pv, err := Permute(x, perm)
	if err != nil {
		return nil, nil, err
	}
	xp := pv.Contiguous()
	n := x.Shape[d]
	var oshape []int
	for i, s := range x.Shape {
		if i != d {
			oshape = append(oshape, s)
		}
	}
	vals, idxs := New(x.DType, oshape...), New(Int64, oshape...)
	isInt := !x.DType.IsFloat()
	v, ix := make([]float64, n), make([]int, n)
	for r := 0; r < vals.Numel(); r++ {
		for j := 0; j < n; j++ {
			v[j], ix[j] = xp.Flat(r*n+j), j
		}
		k := pick(v, ix)
		if isInt {
			vals.SetFlatInt(r, xp.FlatInt(r*n+k))
		} else {
			vals.SetFlat(r, xp.Flat(r*n+k))
		}
		idxs.SetFlatInt(r, int64(k))
	}
	if keepdim {
		if vals, err = Unsqueeze(vals, d); err != nil {
			return nil, nil, err
		}
		if idxs, err = Unsqueeze(idxs, d); err != nil {
			return nil, nil, err
		}
	}
	return vals, idxs, nil
}
