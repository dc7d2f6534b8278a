package ir

import (
	"fmt"

	"gcdbg/tensor"
)

// Shape inference of the N-d pools with indices, max_unpool,
// conv_transpose3d and the order statistics (kthvalue, median), as
// inferBatched does for the 2-D pools: the op is evaluated with the dims
// that are independent loops (batch and channels; for the order statistics
// every dim but the reduced one) shrunk to at most 1, so the spatial
// arithmetic, padding and range checks are the reference's own, and the
// shrunk dims are put back into the result.

// inferLeading covers ops whose tensor arguments args share nlead(rank)
// leading dims (the rest are spatial): the results carry the same leading
// dims. Arguments whose leading dims disagree, or ranks nlead rejects
// (-1), are evaluated whole (the op's own error, at full cost only there).
func inferLeading(args []int, nlead func(rank int) int) EvalFunc {
	return func(a Args) (Value, error) {
		var lead []int
		ok := true
		for _, i := range args {
			m, isMeta := a.V[i].(*TensorMeta)
			if !isMeta {
				ok = false
				break
			}
			n := nlead(len(m.Shape))
			if n < 0 {
				ok = false
				break
			}
			l := m.Shape.Sizes()[:n]
			if lead != nil && !ShapeOf(l).Equal(ShapeOf(lead)) {
				ok = false
				break
			}
			lead = l
		}
		if !ok {
			return inferByExample(a.Op, a.V)
		}
		shrunk := map[int]bool{}
		for _, i := range args {
			shrunk[i] = true
		}
		out, _, err := probe(a, func(i int, m *TensorMeta) []int {
			s := m.Shape.Sizes()
			if !shrunk[i] {
				return s
			}
			for k := range lead {
				s[k] = min(s[k], 1)
			}
			return s
		})
		if err != nil {
			return nil, err
		}
		return restoreLeading(a, out, lead)
	}
}

// restoreLeading gives each result tensor (the probe's, shrunk) the leading
// dims lead back.
func restoreLeading(a Args, out Value, lead []int) (Value, error) {
	switch x := out.(type) {
	case *tensor.Tensor:
		s := append([]int{}, x.Shape...)
		if len(s) < len(lead) {
			return nil, fmt.Errorf("%s: shape inference: result of rank %d, expected at least %d", a.Op.Name, len(s), len(lead))
		}
		copy(s, lead)
		return contig(x.DType, s), nil
	case Tuple:
		r := make(Tuple, len(x))
		for k, it := range x {
			v, err := restoreLeading(a, it, lead)
			if err != nil {
				return nil, err
			}
			r[k] = v
		}
		return r, nil
	}
	return nil, fmt.Errorf("%s: shape inference: result is %s, not a tensor", a.Op.Name, typeName(out))
}

// poolLead: batch and channels ([N,] C, spatial...) for nd spatial dims.
func poolLead(nd int) func(int) int {
	return func(rank int) int {
		if rank == nd+1 || rank == nd+2 {
			return rank - nd
		}
		return -1
	}
}

// inferOrderStat: kthvalue(x, k, dim, keepdim) and median(x, dim, keepdim)
// along one dim; median(x) over everything is a 0-d tensor of x's dtype.
func inferOrderStat(di, ki int) EvalFunc {
	return func(a Args) (Value, error) {
		x, err := a.meta(0)
		if err != nil {
			return nil, err
		}
		sizes := x.Shape.Sizes()
		if tensor.Numel(sizes) == 0 { // nothing to evaluate; its strides are the eager op's own
			return inferByExample(a.Op, a.V)
		}
		if a.V[di] == nil { // median(x)
			dts, _, err := probeDTypes(a, nil)
			if err != nil {
				return nil, err
			}
			return contig(dts[0], []int{}), nil
		}
		d0, err := a.Int(di)
		if err != nil {
			return nil, err
		}
		keep, err := a.Bool(ki)
		if err != nil {
			return nil, err
		}
		d, err := tensor.NormDim(d0, len(sizes))
		if err != nil {
			return nil, fmt.Errorf("%s: %v", a.Op.Name, err)
		}
		// The probe keeps the reduced dim (k's range check reads it).
		dts, _, err := probeDTypes(a, func(i int, m *TensorMeta) []int {
			s := shrinkAll(m)
			if i == 0 && len(s) > 0 {
				s[d] = sizes[d]
			}
			return s
		})
		if err != nil {
			return nil, err
		}
		out := append([]int{}, sizes...)
		switch {
		case len(out) == 0:
		case keep:
			out[d] = 1
		default:
			out = append(out[:d], out[d+1:]...)
		}
		return Tuple{contig(dts[0], out), contig(dts[1], out)}, nil
	}
}

func init() {
	for nd := 1; nd <= 3; nd++ {
		for _, n := range []string{"max_pool%dd_with_indices", "adaptive_max_pool%dd_with_indices"} {
			Lookup("aten." + fmt.Sprintf(n, nd)).Infer = inferLeading([]int{0}, poolLead(nd))
		}
		Lookup(fmt.Sprintf("aten.max_unpool%dd", nd)).Infer = inferLeading([]int{0, 1}, poolLead(nd))
	}
	Lookup("aten.adaptive_max_pool3d").Infer = inferLeading([]int{0}, poolLead(3))
	Lookup("aten.adaptive_max_pool3d_backward").Infer = inferLeading([]int{0, 1, 2}, poolLead(3))
	// conv_transpose3d: only the batch is independent (the weight's dim 0
	// is the input's channels).
	Lookup("aten.conv_transpose3d").Infer = inferLeading([]int{0}, func(rank int) int {
		if rank == 5 {
			return 1
		}
		return -1
	})
	Lookup("aten.kthvalue").Infer = inferOrderStat(2, 3)
	Lookup("aten.median").Infer = inferOrderStat(1, 2)
}
