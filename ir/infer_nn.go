package ir

import (
	"fmt"

	"gcdbg/tensor"
)

// Shape inference of matmul-like ops, convolution, pooling and embedding.

// inferMatmul: shapes by the matmul rules; the dtype (and the reference's
// dtype checks) from a probe with every dim shrunk to 1.
func inferMatmul(a Args) (Value, error) {
	var ms []*TensorMeta
	n := 2
	switch a.Op.Schema.Name {
	case "addmm", "baddbmm":
		n = 3
	case "linear":
		if a.V[2] != nil {
			n = 3
		}
	}
	for i := 0; i < n; i++ {
		m, err := a.meta(i)
		if err != nil {
			return nil, err
		}
		ms = append(ms, m)
	}
	sizes, err := matmulShape(a.Op.Schema.Name, ms)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", a.Op.Name, err)
	}
	dts, _, err := probeDTypes(a, nil)
	if err != nil {
		return nil, err
	}
	return contig(dts[0], sizes), nil
}

func matmulShape(op string, ms []*TensorMeta) ([]int, error) {
	s := make([][]int, len(ms))
	for i, m := range ms {
		s[i] = m.Shape.Sizes()
	}
	mismatch := func(a, b []int) error {
		return fmt.Errorf("mat1 and mat2 shapes cannot be multiplied (%dx%d and %dx%d)", a[0], a[1], b[0], b[1])
	}
	switch op {
	case "mm", "addmm":
		x, y := s[0], s[1]
		if op == "addmm" {
			x, y = s[1], s[2]
		}
		if len(x) != 2 {
			return nil, fmt.Errorf("self must be a matrix")
		}
		if len(y) != 2 {
			return nil, fmt.Errorf("mat2 must be a matrix")
		}
		if x[1] != y[0] {
			return nil, mismatch(x, y)
		}
		out := []int{x[0], y[1]}
		if op == "addmm" {
			if _, err := broadcastTo(s[0], out); err != nil {
				return nil, err
			}
		}
		return out, nil
	case "bmm", "baddbmm":
		x, y := s[0], s[1]
		if op == "baddbmm" {
			x, y = s[1], s[2]
		}
		if len(x) != 3 || len(y) != 3 {
			return nil, fmt.Errorf("batch1 and batch2 must be 3D tensors")
		}
		if x[0] != y[0] {
			return nil, fmt.Errorf("batch1 and batch2 must have same number of batches, got %d and %d", x[0], y[0])
		}
		if x[2] != y[1] {
			return nil, fmt.Errorf("Expected size for first two dimensions of batch2 tensor to be: [%d, %d] but got: [%d, %d].", x[0], x[2], y[0], y[1])
		}
		out := []int{x[0], x[1], y[2]}
		if op == "baddbmm" {
			if _, err := broadcastTo(s[0], out); err != nil {
				return nil, err
			}
		}
		return out, nil
	case "linear":
		x, w := s[0], s[1]
		if len(x) == 0 {
			return nil, fmt.Errorf("linear: input must be at least 1-D, got a 0-D tensor")
		}
		if len(w) != 2 {
			return nil, fmt.Errorf("linear: weight must be 2-D [out_features, in_features], got shape %v", w)
		}
		if x[len(x)-1] != w[1] {
			return nil, fmt.Errorf("mat1 and mat2 shapes cannot be multiplied (%dx%d and %dx%d)", tensor.Numel(x[:len(x)-1]), x[len(x)-1], w[1], w[0])
		}
		out := append(append([]int{}, x[:len(x)-1]...), w[0])
		if len(s) == 3 {
			if _, err := broadcastTo(s[2], out); err != nil {
				return nil, err
			}
		}
		return out, nil
	}
	// matmul: 1-D operands gain a dim that the result drops again; the
	// batch dims broadcast.
	x, y := s[0], s[1]
	if len(x) == 0 || len(y) == 0 {
		return nil, fmt.Errorf("both arguments to matmul need to be at least 1D, but they are %dD and %dD", len(x), len(y))
	}
	if len(x) == 1 && len(y) == 1 {
		if x[0] != y[0] {
			return nil, fmt.Errorf("inconsistent tensor size, expected tensor [%d] and src [%d] to have the same number of elements, but got %d and %d elements respectively", x[0], y[0], x[0], y[0])
		}
		return []int{}, nil
	}
	xv, yv := x, y
	if len(x) == 1 {
		xv = []int{1, x[0]}
	}
	if len(y) == 1 {
		yv = []int{y[0], 1}
	}
	if xv[len(xv)-1] != yv[len(yv)-2] {
		return nil, fmt.Errorf("mat1 and mat2 shapes cannot be multiplied (%dx%d and %dx%d)", tensor.Numel(xv[:len(xv)-1]), xv[len(xv)-1], yv[len(yv)-2], yv[len(yv)-1])
	}
	batch, err := tensor.BroadcastShapes(xv[:len(xv)-2], yv[:len(yv)-2])
	if err != nil {
		return nil, err
	}
	out := append(batch, xv[len(xv)-2], yv[len(yv)-1])
	switch {
	case len(x) == 1:
		out = append(out[:len(out)-2], out[len(out)-1])
	case len(y) == 1:
		out = out[:len(out)-1]
	}
	return out, nil
}

// broadcastTo checks that shape s broadcasts to out.
func broadcastTo(s, out []int) ([]int, error) {
	b, err := tensor.BroadcastShapes(s, out)
	if err != nil {
		return nil, err
	}
	if !ShapeOf(b).Equal(ShapeOf(out)) {
		return nil, fmt.Errorf("expand: the shape %v cannot broadcast to %v", s, out)
	}
	return b, nil
}

// batchSpec describes an op whose batch dim (dim 0 of 4-D operands) is an
// independent loop: its result has the same shape with a batch of 1,
// except for the batch dim itself.
type batchSpec struct {
	args    []int // tensor arguments whose dim 0 is the batch
	sizeArg int   // an int-list argument whose item 0 is the batch (-1: none)
	outN    bool  // the result's dim 0 is the batch
}

var batchOps = map[string]batchSpec{
	"conv2d":                       {args: []int{0}, sizeArg: -1, outN: true},
	"max_pool2d":                   {args: []int{0}, sizeArg: -1, outN: true},
	"avg_pool2d":                   {args: []int{0}, sizeArg: -1, outN: true},
	"adaptive_avg_pool2d":          {args: []int{0}, sizeArg: -1, outN: true},
	"conv2d_backward_input":        {args: []int{0}, sizeArg: 2, outN: true},
	"conv2d_backward_weight":       {args: []int{0, 1}, sizeArg: -1},
	"max_pool2d_backward":          {args: []int{0, 1}, sizeArg: -1, outN: true},
	"avg_pool2d_backward":          {args: []int{0, 1}, sizeArg: -1, outN: true},
	"adaptive_avg_pool2d_backward": {args: []int{0, 1}, sizeArg: -1, outN: true},
}

// inferBatched evaluates convolution and pooling (forward and backward)
// on a batch of one and puts the batch back: the spatial arithmetic,
// padding modes and checks are the reference's own, at 1/N of the cost.
// Unbatched (3-D) operands or disagreeing batches are evaluated whole.
func inferBatched(spec batchSpec) EvalFunc {
	return func(a Args) (Value, error) {
		n := -1
		ok := true
		for _, i := range spec.args {
			m, isMeta := a.V[i].(*TensorMeta)
			if !isMeta || len(m.Shape) != 4 || (n >= 0 && m.Shape[0].Size != n) {
				ok = false
				break
			}
			n = m.Shape[0].Size
		}
		vals := append([]Value{}, a.V...)
		if ok && spec.sizeArg >= 0 {
			sz, err := a.Ints(spec.sizeArg)
			if err != nil || len(sz) != 4 || sz[0] != n {
				ok = false
			} else {
				t := Tuple{int64(min(n, 1)), int64(sz[1]), int64(sz[2]), int64(sz[3])}
				vals[spec.sizeArg] = t
			}
		}
		if !ok || n < 1 {
			return inferByExample(a.Op, a.V)
		}
		for _, i := range spec.args {
			m := a.V[i].(*TensorMeta)
			s := m.Shape.Sizes()
			s[0] = 1
			vals[i] = &TensorMeta{DType: m.DType, Shape: ShapeOf(s), Stride: tensor.ContiguousStrides(s)}
		}
		out, err := inferByExample(a.Op, vals)
		if err != nil {
			return nil, err
		}
		r, isMeta := out.(*TensorMeta)
		if !isMeta || !spec.outN {
			return out, nil
		}
		s := r.Shape.Sizes()
		if len(s) != 4 {
			return nil, fmt.Errorf("%s: shape inference: expected a 4-D result, got %v", a.Op.Name, s)
		}
		s[0] = n
		return contig(r.DType, s), nil
	}
}

func inferEmbedding(a Args) (Value, error) {
	idx, err := a.meta(0)
	if err != nil {
		return nil, err
	}
	w, err := a.meta(1)
	if err != nil {
		return nil, err
	}
	if len(w.Shape) != 2 {
		return nil, fmt.Errorf("%s: 'weight' must be 2-D", a.Op.Name)
	}
	if idx.DType != tensor.Int64 && idx.DType != tensor.Int32 {
		return nil, fmt.Errorf("%s: Expected tensor for argument #1 'indices' to have one of the following scalar types: Long, Int; but got %s instead", a.Op.Name, idx.DType)
	}
	num := w.Shape[0].Size
	if a.V[2] != nil {
		p, err := a.Int(2)
		if err != nil {
			return nil, err
		}
		if p >= num || p < -num {
			return nil, fmt.Errorf("%s: Padding_idx must be within num_embeddings (padding_idx %d, num_embeddings %d)", a.Op.Name, p, num)
		}
	}
	return contig(w.DType, append(idx.Shape.Sizes(), w.Shape[1].Size)), nil
}
