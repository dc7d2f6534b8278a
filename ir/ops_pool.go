package ir

import (
	"fmt"

	"gcdbg/tensor"
)

// Max pooling with indices and its inverse (tensor/pool_nd.go), by
// torch.nn.functional's signatures. The 3-D forms are core ops (the loop
// IR writes them as generated C, render/pool_nd.go); the 1-D and 2-D forms
// are them over unit dims (stages/decomp_pool.go), as PyTorch runs
// max_pool1d as max_pool2d. return_indices is accepted and ignored: the
// *_with_indices functions always return (values, indices).

// spatialInts reads an int or a list of nd ints (one int repeats; nil or
// an empty list gives def, which may be nil).
func spatialInts(a Args, i, nd int, def []int) ([]int, error) {
	if a.V[i] == nil {
		return def, nil
	}
	if t, ok := a.V[i].(Tuple); ok && len(t) == 0 {
		return def, nil
	}
	if l, ok := a.V[i].(List); ok && len(l) == 0 {
		return def, nil
	}
	v, err := a.IntsN(i, nd)
	if err != nil {
		return nil, err
	}
	if len(v) == 1 && nd > 1 {
		v = repeatInt(v[0], nd)
	}
	if len(v) != nd {
		return nil, a.errf(i, "expected %d values, got %v", nd, v)
	}
	return v, nil
}

func repeatInt(v, n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = v
	}
	return out
}

// outputSizes reads an adaptive pool's output_size: an int, or nd ints or
// None (None keeps the input's size: -1 here).
func outputSizes(a Args, i, nd int) ([]int, error) {
	if v, ok := a.V[i].(int64); ok {
		return repeatInt(int(v), nd), nil
	}
	var items []Value
	switch v := a.V[i].(type) {
	case Tuple:
		items = v
	case List:
		items = v
	default:
		return nil, a.errf(i, "expected an int or a list of ints or None, got %s", typeName(a.V[i]))
	}
	if len(items) == 1 && nd > 1 {
		items = []Value{items[0], items[0], items[0]}[:nd]
	}
	if len(items) != nd {
		return nil, a.errf(i, "expected %d output sizes, got %d", nd, len(items))
	}
	out := make([]int, nd)
	for k, it := range items {
		switch x := it.(type) {
		case nil:
			out[k] = -1
		case int64:
			if x < 0 {
				return nil, a.errf(i, "elements of output_size must be greater than or equal to 0, got %d", x)
			}
			out[k] = int(x)
		default:
			return nil, a.errf(i, "expected an int or None in the list, got %s", typeName(it))
		}
	}
	return out, nil
}

// maxPoolIndices evaluates max_pool{nd}d_with_indices's arguments 1..5.
func maxPoolIndices(a Args, nd int) (Value, error) {
	x, err := a.Tensor(0)
	if err != nil {
		return nil, err
	}
	k, err := spatialInts(a, 1, nd, nil)
	if err != nil {
		return nil, err
	}
	if k == nil {
		return nil, a.errf(1, "kernel_size is required")
	}
	s, err := spatialInts(a, 2, nd, k)
	if err != nil {
		return nil, err
	}
	p, err := spatialInts(a, 3, nd, repeatInt(0, nd))
	if err != nil {
		return nil, err
	}
	d, err := spatialInts(a, 4, nd, repeatInt(1, nd))
	if err != nil {
		return nil, err
	}
	ceil, err := a.Bool(5)
	if err != nil {
		return nil, err
	}
	v, i, err := tensor.MaxPoolWithIndices(x, nd, k, s, p, d, ceil)
	if err != nil {
		return nil, err
	}
	return Tuple{v, i}, nil
}

func adaptiveMaxIndices(a Args, nd int) (*tensor.Tensor, *tensor.Tensor, error) {
	x, err := a.Tensor(0)
	if err != nil {
		return nil, nil, err
	}
	out, err := outputSizes(a, 1, nd)
	if err != nil {
		return nil, nil, err
	}
	return tensor.AdaptiveMaxPoolWithIndices(x, nd, out)
}

// MaxUnpoolSize is max_unpool{nd}d's output spatial size from its
// arguments (input, indices, kernel_size, stride, padding, output_size):
// torch.nn.functional's _unpool_output_size, or output_size as given
// without kernel_size (aten's max_unpool2d/3d, stages/normalize_pool.go).
func MaxUnpoolSize(a Args, nd int) ([]int, error) {
	x, err := a.Tensor(0)
	if err != nil {
		return nil, err
	}
	if x.Dim() != nd+1 && x.Dim() != nd+2 {
		return nil, a.errf(0, "expected a %dD or %dD input, got shape %v", nd+1, nd+2, x.Shape)
	}
	k, err := spatialInts(a, 2, nd, nil)
	if err != nil {
		return nil, err
	}
	if k == nil { // aten's max_unpool2d(self, indices, output_size): the size as given
		if a.V[5] == nil {
			return nil, a.errf(2, "kernel_size or output_size is required")
		}
		os, err := a.Ints(5)
		if err != nil {
			return nil, err
		}
		if len(os) == nd+2 {
			os = os[2:]
		}
		if len(os) != nd {
			return nil, a.errf(5, "expected %d output sizes, got %v", nd, os)
		}
		return os, nil
	}
	s, err := spatialInts(a, 3, nd, k)
	if err != nil {
		return nil, err
	}
	p, err := spatialInts(a, 4, nd, repeatInt(0, nd))
	if err != nil {
		return nil, err
	}
	var os []int
	if a.V[5] != nil {
		if os, err = a.Ints(5); err != nil {
			return nil, err
		}
	}
	out, err := tensor.MaxUnpoolOutputSize(x.Shape[x.Dim()-nd:], k, s, p, os)
	if err != nil {
		return nil, a.errf(5, "%v", err)
	}
	return out, nil
}

func init() {
	for nd := 1; nd <= 3; nd++ {
		nd := nd
		Register(fmt.Sprintf("max_pool%dd_with_indices(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False)", nd), KindPool, func(a Args) (Value, error) {
			return maxPoolIndices(a, nd)
		})
		Register(fmt.Sprintf("adaptive_max_pool%dd_with_indices(input, output_size, return_indices=False)", nd), KindPool, func(a Args) (Value, error) {
			v, i, err := adaptiveMaxIndices(a, nd)
			if err != nil {
				return nil, err
			}
			return Tuple{v, i}, nil
		})
		Register(fmt.Sprintf("max_unpool%dd(input, indices, kernel_size=None, stride=None, padding=0, output_size=None)", nd), KindPool, func(a Args) (Value, error) {
			out, err := MaxUnpoolSize(a, nd)
			if err != nil {
				return nil, err
			}
			x, err := a.Tensor(0)
			if err != nil {
				return nil, err
			}
			idx, err := a.Tensor(1)
			if err != nil {
				return nil, err
			}
			return tensor.MaxUnpool(x, idx, nd, out)
		})
	}
	// adaptive_max_pool{1,2,3}d are their _with_indices forms' values (or
	// both, with return_indices), as ATen computes them
	for nd := 1; nd <= 3; nd++ {
		nd := nd
		Register(fmt.Sprintf("adaptive_max_pool%dd(input, output_size, return_indices=False)", nd), KindPool, func(a Args) (Value, error) {
			v, i, err := adaptiveMaxIndices(a, nd)
			if err != nil {
				return nil, err
			}
			if a.V[2] == true {
				return Tuple{v, i}, nil
			}
			return v, nil
		})
	}
	// The gradient of both 3-D pools with indices (PyTorch's
	// max_pool3d_with_indices_backward computes the same from its indices).
	Register("adaptive_max_pool3d_backward(grad_output, self, indices)", KindPool, func(a Args) (Value, error) {
		r := &ar{a: a}
		g, x, idx := r.t(0), r.t(1), r.t(2)
		if r.err != nil {
			return nil, r.err
		}
		return r.done(tensor.MaxPoolIndicesBackward(g, x, idx, 3))
	})
	for _, n := range []string{"aten.max_pool3d_with_indices", "aten.adaptive_max_pool3d_with_indices", "aten.max_unpool3d", "aten.adaptive_max_pool3d_backward"} {
		MarkCore(n)
	}
}
