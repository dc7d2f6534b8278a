package loopir

import (
	"fmt"

	"gcdbg/ir"
	"gcdbg/tensor"
)

// applyOp computes one pointwise statement on whole vectors of values (one
// element per loop point). Arithmetic goes through the eager op registry,
// so a fused kernel computes exactly what the eager interpreter computes;
// the lowering has already cast operands to the promoted dtype.
func applyOp(s Stmt, args []*tensor.Tensor) (*tensor.Tensor, error) {
	switch s.Op {
	case "to_dtype":
		if len(args) != 1 {
			return nil, fmt.Errorf("to_dtype takes 1 value, got %d", len(args))
		}
		if args[0].DType == s.DType {
			return args[0], nil
		}
		return args[0].To(s.DType), nil
	case "clone":
		if len(args) != 1 {
			return nil, fmt.Errorf("clone takes 1 value, got %d", len(args))
		}
		return args[0], nil
	}
	d := ir.Lookup("aten." + s.Op)
	if d == nil || d.Kind != ir.KindPointwise {
		return nil, fmt.Errorf("%s is not a pointwise op", s.Op)
	}
	vals := make([]ir.Arg, len(args))
	for i, a := range args {
		vals[i] = a
	}
	bound, err := d.Schema.Bind(vals, nil)
	if err != nil {
		return nil, err
	}
	out, err := ir.Call(d, bound)
	if err != nil {
		return nil, err
	}
	t, ok := out.(*tensor.Tensor)
	if !ok {
		return nil, fmt.Errorf("%s returned %T, not a tensor", s.Op, out)
	}
	return t, nil
}

// reduce applies a reduction to v viewed as [outer, inner]: one result per
// outer point.
func reduce(op string, v *tensor.Tensor, outer, inner int) (*tensor.Tensor, error) {
	c := v.Contiguous()
	m := c.View([]int{outer, inner}, []int{inner, 1}, c.Offset)
	switch op {
	case "sum", "prod", "amax", "amin":
		return tensor.Reduce(op, m, []int{1}, false)
	case "argmax":
		d := 1
		return tensor.Argmax(m, &d, false)
	case "argmin":
		d := 1
		return tensor.Argmin(m, &d, false)
	}
	return nil, fmt.Errorf("unknown reduction %q", op)
}

// probe returns the dtype a statement yields for operands of the given
// dtypes, by running it on one element: the lowering and the interpreter
// share one definition of every op's type rules.
func probe(s Stmt, dts []tensor.DType) (tensor.DType, error) {
	args := make([]*tensor.Tensor, len(dts))
	for i, dt := range dts {
		args[i] = tensor.New(dt, 1)
		args[i].SetFlat(0, 1)
	}
	if s.Op == "reduction" {
		r, err := reduce(s.ReduceOp, args[0], 1, 1)
		if err != nil {
			return 0, err
		}
		return r.DType, nil
	}
	r, err := applyOp(s, args)
	if err != nil {
		return 0, err
	}
	return r.DType, nil
}
