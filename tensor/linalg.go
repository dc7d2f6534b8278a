package tensor

import (
	"fmt"
	"math"
	"strings"
)

// This file holds the matrix products: Matmul (torch.matmul), Mm, Bmm,
// Addmm, Baddbmm, Linear and Outer. Products accumulate in float64 and round
// once to the result dtype. Operands of different dtypes are promoted
// (PyTorch itself rejects mixed-dtype products; the reference is lenient).

// nnData returns t's elements in row-major order as a float64 slice. It
// aliases t's storage when t is a contiguous floating tensor (callers must
// treat it as read-only); otherwise it is a fresh copy.
func nnData(t *Tensor) []float64 {
	n := t.Numel()
	if t.S.F != nil && t.IsContiguous() {
		return t.S.F[t.Offset : t.Offset+n]
	}
	c := t.Contiguous()
	out := make([]float64, n)
	if c.S.F != nil {
		copy(out, c.S.F[c.Offset:c.Offset+n])
	} else {
		for i, v := range c.S.I[c.Offset : c.Offset+n] {
			out[i] = float64(v)
		}
	}
	return out
}

// nnFromData builds a contiguous tensor of dtype dt from float64 values,
// rounding each value once.
func nnFromData(dt DType, shape []int, data []float64) *Tensor {
	t := New(dt, shape...)
	if t.S.F != nil {
		if dt == Float64 {
			copy(t.S.F, data)
		} else {
			for i, v := range data {
				t.S.F[i] = Round(dt, v)
			}
		}
	} else {
		for i, v := range data {
			t.S.I[i] = int64(Round(dt, v))
		}
	}
	return t
}

func nnShapeX(s []int) string {
	parts := make([]string, len(s))
	for i, d := range s {
		parts[i] = fmt.Sprint(d)
	}
	return strings.Join(parts, "x")
}

func nnNilCheck(names string, ts ...*Tensor) error {
	for i, t := range ts {
		if t == nil || t.S == nil {
			return fmt.Errorf("%s: argument %d is undefined", names, i)
		}
	}
	return nil
}

// nnMatmulDType is the result dtype of a product; bool is rejected as PyTorch does.
func nnMatmulDType(op string, ts ...*Tensor) (DType, error) {
	dt := Invalid
	for _, t := range ts {
		if t == nil {
			continue
		}
		dt = promoteOrSet(dt, t.DType)
	}
	if dt == Bool || dt == Invalid {
		return Invalid, fmt.Errorf("\"%s\" not implemented for 'Bool'", op)
	}
	return dt, nil
}

// nnGemmAcc computes c[n×p] += a[n×k] · b[k×p] (row-major slices): through
// dgemm for a large floating product (blas.go), else in i-k-j order,
// splitting rows across the cores for large products.
func nnGemmAcc(a, b, c []float64, n, k, p int, float bool) {
	if float && gemmBLAS(a, b, c, n, k, p, false, false, 1) {
		return
	}
	nnGemmAccLoops(a, b, c, n, k, p)
}

// nnGemmAccLoops is nnGemmAcc's loops: each c element sums its k products
// in order, whatever the split.
func nnGemmAccLoops(a, b, c []float64, n, k, p int) {
	parallelRows(n, n*k*p, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			crow := c[i*p : (i+1)*p]
			arow := a[i*k : (i+1)*k]
			for kk, av := range arow {
				brow := b[kk*p : (kk+1)*p]
				for j, bv := range brow {
					crow[j] += av * bv
				}
			}
		}
	})
}

// nnLinearDots computes res[r, o] = x[r, :] · w[o, :] (both row-major):
// through dgemm for a large floating product, else as dot products with
// four partial sums, splitting the output features across the cores.
func nnLinearDots(x, w, res []float64, rows, in, out int, float bool) {
	if float && gemmBLAS(x, w, res, rows, in, out, false, true, 0) {
		return
	}
	nnLinearDotsLoops(x, w, res, rows, in, out)
}

func nnLinearDotsLoops(x, w, res []float64, rows, in, out int) {
	parallelRows(out, rows*in*out, func(lo, hi int) {
		for r := 0; r < rows; r++ {
			xr := x[r*in : (r+1)*in]
			for o := lo; o < hi; o++ {
				wr := w[o*in : (o+1)*in]
				wr = wr[:len(xr)]
				var s0, s1, s2, s3 float64
				i := 0
				for ; i+4 <= len(xr); i += 4 {
					s0 += xr[i] * wr[i]
					s1 += xr[i+1] * wr[i+1]
					s2 += xr[i+2] * wr[i+2]
					s3 += xr[i+3] * wr[i+3]
				}
				for ; i < len(xr); i++ {
					s0 += xr[i] * wr[i]
				}
				res[r*out+o] = (s0 + s1) + (s2 + s3)
			}
		}
	})
}

// nnBatchedProduct multiplies a[..., n, k] by b[..., k, p] with broadcast
// batch dims, returning float64 values and the output shape.
func nnBatchedProduct(a, b *Tensor) ([]float64, []int, error) {
	ar, br := a.Dim(), b.Dim()
	n, k := a.Shape[ar-2], a.Shape[ar-1]
	k2, p := b.Shape[br-2], b.Shape[br-1]
	if k != k2 {
		return nil, nil, fmt.Errorf("mat1 and mat2 shapes cannot be multiplied (%dx%d and %dx%d)", n, k, k2, p)
	}
	abatch, bbatch := a.Shape[:ar-2], b.Shape[:br-2]
	batch, err := BroadcastShapes(abatch, bbatch)
	if err != nil {
		return nil, nil, fmt.Errorf("matmul: batch dimensions %v and %v are not broadcastable", abatch, bbatch)
	}
	ad, bd := nnData(a), nnData(b)
	float := a.DType.IsFloat() || b.DType.IsFloat() // the product's dtype (nnMatmulDType)
	nb := Numel(batch)
	out := make([]float64, nb*n*p)
	idx := make([]int, len(batch))
	for bi := 0; bi < nb; bi++ {
		// decompose bi and map to each operand's (broadcast) batch index
		r := bi
		for d := len(batch) - 1; d >= 0; d-- {
			idx[d] = r % batch[d]
			r /= batch[d]
		}
		aoff, boff := 0, 0
		off := len(batch) - len(abatch)
		for d, sz := range abatch {
			i := idx[off+d]
			if sz == 1 {
				i = 0
			}
			aoff = aoff*sz + i
		}
		off = len(batch) - len(bbatch)
		for d, sz := range bbatch {
			i := idx[off+d]
			if sz == 1 {
				i = 0
			}
			boff = boff*sz + i
		}
		nnGemmAcc(ad[aoff*n*k:(aoff+1)*n*k], bd[boff*k*p:(boff+1)*k*p], out[bi*n*p:(bi+1)*n*p], n, k, p, float)
	}
	shape := append(append([]int{}, batch...), n, p)
	return out, shape, nil
}

// Matmul is torch.matmul: dot for 1-D·1-D, mv/vm for one 1-D operand (the
// added dimension is removed again), mm for 2-D·2-D and a batched product
// with broadcast batch dimensions otherwise.
func Matmul(a, b *Tensor) (*Tensor, error) {
	if err := nnNilCheck("matmul", a, b); err != nil {
		return nil, err
	}
	if a.Dim() == 0 || b.Dim() == 0 {
		return nil, fmt.Errorf("both arguments to matmul need to be at least 1D, but they are %dD and %dD", a.Dim(), b.Dim())
	}
	dt, err := nnMatmulDType("matmul", a, b)
	if err != nil {
		return nil, err
	}
	if a.Dim() == 1 && b.Dim() == 1 {
		if a.Shape[0] != b.Shape[0] {
			return nil, fmt.Errorf("inconsistent tensor size, expected tensor [%d] and src [%d] to have the same number of elements, but got %d and %d elements respectively", a.Shape[0], b.Shape[0], a.Shape[0], b.Shape[0])
		}
		ad, bd := nnData(a), nnData(b)
		s := 0.0
		for i := range ad {
			s += ad[i] * bd[i]
		}
		return nnFromData(dt, nil, []float64{s}), nil
	}
	av, bv := a, b
	if a.Dim() == 1 {
		av = a.View([]int{1, a.Shape[0]}, []int{0, a.Strides[0]}, a.Offset)
	}
	if b.Dim() == 1 {
		bv = b.View([]int{b.Shape[0], 1}, []int{b.Strides[0], 0}, b.Offset)
	}
	if a.Dim() == 1 && av.Shape[1] != bv.Shape[bv.Dim()-2] {
		return nil, fmt.Errorf("size mismatch, got %d, %s,%d", a.Shape[0], nnShapeX(b.Shape), a.Shape[0])
	}
	if b.Dim() == 1 && b.Shape[0] != av.Shape[av.Dim()-1] {
		return nil, fmt.Errorf("size mismatch, got %d, %s,%d", av.Shape[av.Dim()-2], nnShapeX(a.Shape), b.Shape[0])
	}
	data, shape, err := nnBatchedProduct(av, bv)
	if err != nil {
		return nil, err
	}
	switch {
	case a.Dim() == 1:
		shape = append(shape[:len(shape)-2], shape[len(shape)-1])
	case b.Dim() == 1:
		shape = shape[:len(shape)-1]
	}
	return nnFromData(dt, shape, data), nil
}

// Mm is torch.mm: strictly 2-D operands.
func Mm(a, b *Tensor) (*Tensor, error) {
	if err := nnNilCheck("mm", a, b); err != nil {
		return nil, err
	}
	if a.Dim() != 2 {
		return nil, fmt.Errorf("self must be a matrix")
	}
	if b.Dim() != 2 {
		return nil, fmt.Errorf("mat2 must be a matrix")
	}
	dt, err := nnMatmulDType("mm", a, b)
	if err != nil {
		return nil, err
	}
	data, shape, err := nnBatchedProduct(a, b)
	if err != nil {
		return nil, err
	}
	return nnFromData(dt, shape, data), nil
}

func nnBmmCheck(a, b *Tensor) error {
	if a.Dim() != 3 {
		return fmt.Errorf("batch1 must be a 3D tensor")
	}
	if b.Dim() != 3 {
		return fmt.Errorf("batch2 must be a 3D tensor")
	}
	if a.Shape[0] != b.Shape[0] || a.Shape[2] != b.Shape[1] {
		return fmt.Errorf("Expected size for first two dimensions of batch2 tensor to be: [%d, %d] but got: [%d, %d].", a.Shape[0], a.Shape[2], b.Shape[0], b.Shape[1])
	}
	return nil
}

// Bmm is torch.bmm: 3-D operands with equal batch size (no broadcasting).
func Bmm(a, b *Tensor) (*Tensor, error) {
	if err := nnNilCheck("bmm", a, b); err != nil {
		return nil, err
	}
	if err := nnBmmCheck(a, b); err != nil {
		return nil, err
	}
	dt, err := nnMatmulDType("bmm", a, b)
	if err != nil {
		return nil, err
	}
	data, shape, err := nnBatchedProduct(a, b)
	if err != nil {
		return nil, err
	}
	return nnFromData(dt, shape, data), nil
}

// nnScaleAdd computes beta*bias + alpha*prod in place on prod, with bias
// broadcast to shape. beta == 0 ignores bias (NaN/inf in it do not
// propagate), as PyTorch does.
func nnScaleAdd(op string, dt DType, prod []float64, shape []int, bias *Tensor, beta, alpha float64) error {
	if dt.IsInt() { // Scalar.to<int64_t>(): an integer addmm truncates beta and alpha (0.6 is 0)
		beta, alpha = math.Trunc(beta), math.Trunc(alpha)
	}
	bb, err := bias.BroadcastTo(shape)
	if err != nil {
		return fmt.Errorf("%s: the expanded size of the bias %v must match the result size %v", op, bias.Shape, shape)
	}
	if beta == 0 {
		if alpha != 1 {
			for i := range prod {
				prod[i] *= alpha
			}
		}
		return nil
	}
	bd := nnData(bb)
	for i := range prod {
		if alpha == 1 {
			prod[i] = beta*bd[i] + prod[i]
		} else {
			prod[i] = beta*bd[i] + alpha*prod[i]
		}
	}
	return nil
}

// Addmm is torch.addmm: beta*bias + alpha*(a @ b), bias broadcast to [n, p].
func Addmm(bias, a, b *Tensor, beta, alpha float64) (*Tensor, error) {
	if err := nnNilCheck("addmm", bias, a, b); err != nil {
		return nil, err
	}
	if a.Dim() != 2 {
		return nil, fmt.Errorf("mat1 must be a matrix, got %d-D tensor", a.Dim())
	}
	if b.Dim() != 2 {
		return nil, fmt.Errorf("mat2 must be a matrix, got %d-D tensor", b.Dim())
	}
	dt, err := nnMatmulDType("addmm_impl_cpu_", bias, a, b)
	if err != nil {
		return nil, err
	}
	data, shape, err := nnBatchedProduct(a, b)
	if err != nil {
		return nil, err
	}
	if err := nnScaleAdd("addmm", dt, data, shape, bias, beta, alpha); err != nil {
		return nil, err
	}
	return nnFromData(dt, shape, data), nil
}

// Baddbmm is torch.baddbmm: beta*bias + alpha*bmm(a, b), bias broadcast to [B, n, p].
func Baddbmm(bias, a, b *Tensor, beta, alpha float64) (*Tensor, error) {
	if err := nnNilCheck("baddbmm", bias, a, b); err != nil {
		return nil, err
	}
	if err := nnBmmCheck(a, b); err != nil {
		return nil, err
	}
	dt, err := nnMatmulDType("baddbmm", bias, a, b)
	if err != nil {
		return nil, err
	}
	data, shape, err := nnBatchedProduct(a, b)
	if err != nil {
		return nil, err
	}
	if err := nnScaleAdd("baddbmm", dt, data, shape, bias, beta, alpha); err != nil {
		return nil, err
	}
	return nnFromData(dt, shape, data), nil
}

// Linear is torch.nn.functional.linear: x[..., in] @ w[out, in]^T + b.
// b may be nil; x may have any rank >= 1 (a 1-D x gives a 1-D result).
func Linear(x, w, b *Tensor) (*Tensor, error) {
	if err := nnNilCheck("linear", x, w); err != nil {
		return nil, err
	}
	if x.Dim() == 0 {
		return nil, fmt.Errorf("linear: input must be at least 1-D, got a 0-D tensor")
	}
	if w.Dim() != 2 {
		return nil, fmt.Errorf("linear: weight must be 2-D [out_features, in_features], got shape %v", w.Shape)
	}
	dt, err := nnMatmulDType("addmm_impl_cpu_", x, w, b)
	if err != nil {
		return nil, err
	}
	in := x.Shape[x.Dim()-1]
	out, win := w.Shape[0], w.Shape[1]
	rows := Numel(x.Shape[:x.Dim()-1])
	if in != win {
		return nil, fmt.Errorf("mat1 and mat2 shapes cannot be multiplied (%dx%d and %dx%d)", rows, in, win, out)
	}
	res := make([]float64, rows*out)
	nnLinearDots(nnData(x), nnData(w), res, rows, in, out, dt.IsFloat())
	shape := append(append([]int{}, x.Shape[:x.Dim()-1]...), out)
	if b != nil {
		if err := nnScaleAdd("linear", dt, res, shape, b, 1, 1); err != nil {
			return nil, err
		}
	}
	return nnFromData(dt, shape, res), nil
}

// Outer is torch.outer: a[n] ⊗ b[m] -> [n, m].
func Outer(a, b *Tensor) (*Tensor, error) {
	if err := nnNilCheck("outer", a, b); err != nil {
		return nil, err
	}
	if a.Dim() != 1 || b.Dim() != 1 {
		return nil, fmt.Errorf("outer: Expected 1-D argument self, but got %d-D", max(a.Dim(), b.Dim()))
	}
	dt := Promote(a.DType, b.DType)
	ad, bd := nnData(a), nnData(b)
	out := New(dt, len(ad), len(bd))
	for i, av := range ad {
		for j, bv := range bd {
			out.SetFlat(i*len(bd)+j, av*bv)
		}
	}
	return out, nil
}
