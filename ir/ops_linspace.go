package ir

import (
	"fmt"

	"gcdbg/tensor"
)

// torch.linspace, torch.logspace and torch.eye: creation ops the exporter
// records as graph nodes (as Dynamo captures them), not constants fx froze
// while tracing. linspace and logspace are core ops that run as an eager
// fallback inside compiled code (tensor.Linspace and tensor.Logspace keep
// PyTorch 1.13's vectorized layout, FMA and truncation of integer results
// in one place, as tensor.Arange does for a floating arange); eye decomposes
// into an arange comparison (stages/decomp_linspace.go).
func init() {
	// start, end and steps of both: start and end keep whether they are
	// Python ints (an unsigned dtype takes the int -3, as 253)
	rangeArgs := func(a Args) (s, e tensor.Number, n int, err error) {
		for i, p := range []*tensor.Number{&s, &e} {
			if _, err = a.Float(i); err != nil {
				return
			}
			_, isInt := a.V[i].(int64)
			*p = tensor.Number{V: pyFloat(a.V[i]), Int: isInt}
		}
		n, err = a.Int(2)
		return
	}
	Register("linspace(start, end, steps, dtype=None, layout=None, device=None, pin_memory=None, requires_grad=False)", KindCreation, func(a Args) (Value, error) {
		s, e, n, err := rangeArgs(a)
		if err != nil {
			return nil, err
		}
		dt, err := a.DType(3, tensor.Float32)
		if err != nil {
			return nil, err
		}
		return tensor.Linspace(s, e, n, dt)
	})
	Register("logspace(start, end, steps, base=10.0, dtype=None, layout=None, device=None, pin_memory=None, requires_grad=False)", KindCreation, func(a Args) (Value, error) {
		s, e, n, err := rangeArgs(a)
		if err != nil {
			return nil, err
		}
		base, err := a.Float(3)
		if err != nil {
			return nil, err
		}
		dt, err := a.DType(4, tensor.Float32)
		if err != nil {
			return nil, err
		}
		return tensor.Logspace(s, e, n, base, dt)
	})
	Register("eye(n, m=None, dtype=None, layout=None, device=None, pin_memory=None, requires_grad=False)", KindCreation, func(a Args) (Value, error) {
		n, err := a.Int(0)
		if err != nil {
			return nil, err
		}
		m := n
		if a.V[1] != nil {
			if m, err = a.Int(1); err != nil {
				return nil, err
			}
		}
		dt, err := a.DType(2, tensor.Float32)
		if err != nil {
			return nil, err
		}
		return tensor.Eye(int(n), int(m), dt)
	})
	MarkCore("aten.linspace")
	MarkCore("aten.logspace")
	// shapes without running the op on the real sizes: the op at a size
	// of at most 2 (its argument checks, its dtype) and the real sizes
	for _, name := range []string{"linspace", "logspace", "eye"} {
		d := Lookup("aten." + name)
		eval := d.Eval
		d.Infer = func(a Args) (Value, error) {
			small := append([]Value{}, a.V...)
			var sizes []int
			for _, i := range map[string][]int{"linspace": {2}, "logspace": {2}, "eye": {0, 1}}[name] {
				if i == 1 && small[1] == nil {
					sizes = append(sizes, sizes[0])
					continue
				}
				n, err := a.Int(i)
				if err != nil {
					return nil, err
				}
				if n < 0 {
					return eval(a) // the op's own error
				}
				sizes = append(sizes, int(n))
				small[i] = int64(min(n, 2))
			}
			v, err := eval(Args{Op: a.Op, V: small})
			if err != nil {
				return nil, err
			}
			t, ok := v.(*tensor.Tensor)
			if !ok {
				return nil, fmt.Errorf("%s: expected a tensor result", a.Op.Name)
			}
			return contig(t.DType, sizes), nil
		}
	}
}
