package tensor

import (
	"fmt"
	"math"
	"sort"
)

// EmbeddingRenorm is what torch.embedding_renorm_ (Embedding(max_norm=...))
// leaves in weight, returned as a new tensor: every row that indices name,
// once each, whose norm_type-norm exceeds maxNorm is scaled by
// maxNorm / (norm + 1e-7) (ATen computes the norm in the weight's dtype and
// the scale in double, then multiplies the row by the scale rounded to the
// weight's dtype). Other rows are unchanged.
func EmbeddingRenorm(weight, indices *Tensor, maxNorm, normType float64) (*Tensor, error) {
	if err := nnNilCheck("embedding_renorm_", weight, indices); err != nil {
		return nil, err
	}
	if weight.Dim() != 2 {
		return nil, fmt.Errorf("'weight' must be 2-D")
	}
	if !weight.DType.IsFloat() {
		return nil, fmt.Errorf("embedding_renorm_: expected a floating-point weight, got %s", weight.DType)
	}
	if indices.DType != Int64 && indices.DType != Int32 {
		return nil, fmt.Errorf("Expected tensor for argument #1 'indices' to have one of the following scalar types: Long, Int; but got %s instead", indices.DType)
	}
	num, dim := weight.Shape[0], weight.Shape[1]
	idx := indices.Contiguous()
	ids := make([]int, idx.Numel())
	for i := range ids {
		v := idx.FlatInt(i)
		if v < 0 || v >= int64(num) {
			return nil, fmt.Errorf("embedding: index %d is out of range for %d embeddings (index out of range in self)", v, num)
		}
		ids[i] = int(v)
	}
	sort.Ints(ids)
	out := weight.Contiguous().Clone()
	for k, i := range ids {
		if k > 0 && ids[k-1] == i {
			continue
		}
		var acc float64
		switch {
		case math.IsInf(normType, 1):
			for j := 0; j < dim; j++ {
				acc = math.Max(acc, math.Abs(out.Flat(i*dim+j)))
			}
		case normType == 0:
			for j := 0; j < dim; j++ {
				if out.Flat(i*dim+j) != 0 {
					acc++
				}
			}
		default:
			for j := 0; j < dim; j++ {
				acc += math.Pow(math.Abs(out.Flat(i*dim+j)), normType)
			}
			acc = math.Pow(acc, 1/normType)
		}
		norm := Round(weight.DType, acc)
		if norm > maxNorm {
			s := Round(weight.DType, maxNorm/(norm+1e-7))
			for j := 0; j < dim; j++ {
				out.SetFlat(i*dim+j, Round(weight.DType, out.Flat(i*dim+j)*s))
			}
		}
	}
	return out, nil
}
