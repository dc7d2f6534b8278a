package tensor

// CumMaxMin is torch.cummax (isMax) or torch.cummin along dim: the running
// extremum and the int64 index where it was attained. ATen's CPU kernel
// (cummax_cummin_helper, ReduceOps.cpp) moves to element i when it is NaN,
// or when the running value is not NaN and x[i] >= it (cummin: <=): ties
// take the latest index, a NaN sticks in the values and each later NaN takes
// its index. A 0-d tensor is one lane of length 1, whatever dim says (PyTorch
// 1.13 fills a 0-d result before it looks at dim); float16 is refused as
// PyTorch 1.13's CPU kernel refuses it.
func CumMaxMin(x *Tensor, dim int, isMax bool) (*Tensor, *Tensor, error) {
	if err := checkT(x); err != nil {
		return nil, nil, err
	}
	d := 0
	if x.Dim() > 0 {
		var err error
		if d, err = NormDim(dim, x.Dim()); err != nil {
			return nil, nil, err
		}
	}
	kernel := map[bool]string{true: "cummax_cpu", false: "cummin_cpu"}[isMax]
	if x.DType == Float16 {
		return nil, nil, notImpl(kernel, x.DType)
	}
	idx := make([]int64, x.Numel())
	take := func(cur, out float64) bool { // the helper's condition, NaN included
		if isMax {
			return cur != cur || (out == out && cur >= out)
		}
		return cur != cur || (out == out && cur <= out)
	}
	if x.DType.IsFloat() {
		v, _ := loadF(x, nil, Float64)
		lanes(x.Shape, d, func(b, s, n int) {
			out, at := v[b], int64(0)
			for k := 0; k < n; k++ {
				if take(v[b+k*s], out) {
					out, at = v[b+k*s], int64(k)
				}
				v[b+k*s], idx[b+k*s] = out, at
			}
		})
		return fromF(x.DType, x.Shape, v), FromInts(Int64, x.Shape, idx), nil
	}
	v, _ := loadI(x, nil, Int64)
	lanes(x.Shape, d, func(b, s, n int) {
		out, at := v[b], int64(0)
		for k := 0; k < n; k++ {
			if c := v[b+k*s]; (isMax && c >= out) || (!isMax && c <= out) {
				out, at = c, int64(k)
			}
			v[b+k*s], idx[b+k*s] = out, at
		}
	})
	return fromI(x.DType, x.Shape, v), FromInts(Int64, x.Shape, idx), nil
}
