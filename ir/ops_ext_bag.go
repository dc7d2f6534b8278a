package ir

import (
	"fmt"
	"math"

	"gcdbg/tensor"
)

// EmbeddingBag (F.embedding_bag without max_norm): bags are the rows of a
// 2-D input, or the spans between offsets of a 1-D input; each bag is
// reduced by sum (optionally weighted per sample), mean or max; an empty bag
// gives zeros. Entries equal to padding_idx are left out of their bag (a
// mean divides by the other entries' count, a bag of padding only is zeros),
// so the padding row gets no gradient.

// EmbeddingBagPadding is F.embedding_bag's padding_idx as a row (-1: none):
// a negative one counts from the end of the weight's rows.
func EmbeddingBagPadding(pad Value, rows int) (int64, error) {
	if pad == nil {
		return -1, nil
	}
	p, ok := pad.(int64)
	if !ok {
		return 0, fmt.Errorf("embedding_bag: padding_idx must be an int or None, got %s", typeName(pad))
	}
	if p >= int64(rows) || p < -int64(rows) {
		return 0, fmt.Errorf("embedding_bag: Padding_idx must be within num_embeddings, got %d for %d rows", p, rows)
	}
	if p < 0 {
		p += int64(rows)
	}
	return p, nil
}

// EmbeddingBag computes the bags; pad is the padding row, -1 for none.
func EmbeddingBag(input, w, offsets *tensor.Tensor, mode string, psw *tensor.Tensor, includeLast bool, pad int64) (*tensor.Tensor, error) {
	if w.Dim() != 2 {
		return nil, fmt.Errorf("embedding_bag: weight must be 2-D, got %v", w.Shape)
	}
	if input.DType.IsFloat() {
		return nil, fmt.Errorf("embedding_bag: expected an integer input, got %s", input.DType)
	}
	if psw != nil && mode != "sum" {
		return nil, fmt.Errorf("embedding_bag: per_sample_weights was not None. per_sample_weights is only supported for mode='sum' (got mode='%s'). Please open a feature request on GitHub.", mode)
	}
	if mode != "sum" && mode != "mean" && mode != "max" {
		return nil, fmt.Errorf("embedding_bag: mode has to be one of sum, mean or max, got %q", mode)
	}
	idx := input.Contiguous().Ints()
	var starts, ends []int
	switch input.Dim() {
	case 2:
		if offsets != nil {
			return nil, fmt.Errorf("if input is 2D, then offsets has to be None, as input is treated is a mini-batch of fixed length sequences. However, found offsets of type Tensor")
		}
		for b := 0; b < input.Shape[0]; b++ {
			starts = append(starts, b*input.Shape[1])
			ends = append(ends, (b+1)*input.Shape[1])
		}
	case 1:
		if offsets == nil || offsets.Dim() != 1 {
			return nil, fmt.Errorf("offsets has to be a 1D Tensor but got null")
		}
		off := offsets.Contiguous().Ints()
		nb := len(off)
		if includeLast {
			nb--
		}
		if len(off) > 0 && off[0] != 0 {
			return nil, fmt.Errorf("offsets[0] has to be 0, i.e., the first sequence in the mini-batch has to start from position 0. However, got %d", off[0])
		}
		for b := 0; b < nb; b++ {
			e := int64(len(idx))
			if b+1 < len(off) {
				e = off[b+1]
			}
			starts = append(starts, int(off[b]))
			ends = append(ends, int(min(e, int64(len(idx)))))
		}
	default:
		return nil, fmt.Errorf("input has to be 1D or 2D Tensor, but got Tensor of dimension %d", input.Dim())
	}
	D := w.Shape[1]
	wd := w.Contiguous().Floats()
	var pw []float64
	if psw != nil {
		pw = psw.Contiguous().Floats()
	}
	out := make([]float64, len(starts)*D)
	for b := range starts {
		n := 0
		for j := starts[b]; j < ends[b]; j++ {
			if idx[j] != pad {
				n++
			}
		}
		for d := 0; d < D; d++ {
			acc := 0.0
			if mode == "max" {
				acc = math.Inf(-1)
			}
			for j := starts[b]; j < ends[b]; j++ {
				row := int(idx[j])
				if row < 0 || row >= w.Shape[0] {
					return nil, fmt.Errorf("embedding_bag: index %d out of range for %d rows", row, w.Shape[0])
				}
				if idx[j] == pad {
					continue
				}
				v := wd[row*D+d]
				switch {
				case mode == "max":
					if v > acc || math.IsNaN(v) {
						acc = v
					}
				case pw != nil:
					acc += v * pw[j]
				default:
					acc += v
				}
			}
			if n == 0 {
				acc = 0
			} else if mode == "mean" {
				acc /= float64(n)
			}
			out[b*D+d] = acc
		}
	}
	res := tensor.New(w.DType, len(starts), D)
	for i, v := range out {
		res.SetFlat(i, v)
	}
	return res, nil
}

func init() {
	Register("embedding_bag(input, weight, offsets=None, mode='mean', per_sample_weights=None, include_last_offset=False, padding_idx=None)", KindIndex, func(a Args) (Value, error) {
		r := &ar{a: a}
		x, w, off, mode, psw, inc := r.t(0), r.t(1), r.ot(2), r.s(3), r.ot(4), r.b(5)
		if r.err != nil {
			return nil, r.err
		}
		if w.Dim() != 2 {
			return nil, fmt.Errorf("embedding_bag: weight must be 2-D, got %v", w.Shape)
		}
		pad, err := EmbeddingBagPadding(a.V[6], w.Shape[0])
		if err != nil {
			return nil, err
		}
		return r.done(EmbeddingBag(x, w, off, mode, psw, inc, pad))
	})
}

func init() {
	// Shape from metadata alone: evaluating on tensors of ones would fail
	// the offsets[0] == 0 check.
	Lookup("aten.embedding_bag").Infer = func(a Args) (Value, error) {
		if !holdsMeta(Tuple(a.V)) {
			return Call(a.Op, a.V)
		}
		x, err := a.meta(0)
		if err != nil {
			return nil, err
		}
		w, err := a.meta(1)
		if err != nil {
			return nil, err
		}
		if len(w.Shape) != 2 {
			return nil, fmt.Errorf("embedding_bag: weight must be 2-D, got %s", w)
		}
		if _, err := EmbeddingBagPadding(a.V[6], w.Shape[0].Size); err != nil {
			return nil, err
		}
		if x.DType.IsFloat() {
			return nil, fmt.Errorf("embedding_bag: expected an integer input, got %s", x.DType)
		}
		var nb int
		switch len(x.Shape) {
		case 2:
			nb = x.Shape[0].Size
		case 1:
			off, ok := a.V[2].(*TensorMeta)
			if !ok || len(off.Shape) != 1 {
				return nil, fmt.Errorf("embedding_bag: a 1-D input needs 1-D offsets")
			}
			nb = off.Shape[0].Size
			if inc, _ := a.V[5].(bool); inc {
				nb--
			}
		default:
			return nil, fmt.Errorf("input has to be 1D or 2D Tensor, but got Tensor of dimension %d", len(x.Shape))
		}
		return contig(w.DType, []int{max(nb, 0), w.Shape[1].Size}), nil
	}
}
