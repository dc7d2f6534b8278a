package ir

import "fmt"

// Python's sequence arithmetic on the tuples and torch.Size values a traced
// graph computes with: HF's `x.size()[:-1] + (heads, head_dim)` (concatenation)
// and timm's drop_path shape `(x.shape[0],) + (1,) * (x.ndim - 1)`
// (repetition). operator.add and operator.mul reach aten.add and aten.mul, so
// those ops take them here before any tensor rule. Python's rules: a tuple
// concatenates only with a tuple and a list only with a list (TypeError
// otherwise), a sequence repeats by an int or bool (a non-positive count gives
// the empty sequence; a float is a TypeError).
func pySequence(op string, x, y Value) (Value, bool, error) {
	xs, xSeq := seqItems(x)
	ys, ySeq := seqItems(y)
	if !xSeq && !ySeq {
		return nil, false, nil
	}
	switch op {
	case "add":
		if xSeq && ySeq && fmt.Sprintf("%T", x) == fmt.Sprintf("%T", y) {
			out := make([]Value, 0, len(xs)+len(ys))
			out = append(append(out, xs...), ys...)
			return sameSeq(x, out), true, nil
		}
		return nil, true, fmt.Errorf("can only concatenate %s (not %s) to %s", pyTypeName(x), pyTypeName(y), pyTypeName(x))
	case "mul":
		seq, items, count := x, xs, y
		if !xSeq {
			seq, items, count = y, ys, x
		}
		var n int64
		switch c := count.(type) {
		case int64:
			n = c
		case bool:
			n = int64(b2i(c))
		default:
			return nil, true, fmt.Errorf("can't multiply sequence by non-int of type '%s'", pyTypeName(count))
		}
		if n > 0 && int64(len(items))*n > 1<<20 {
			return nil, true, fmt.Errorf("sequence repetition of %d items by %d is too long", len(items), n)
		}
		out := []Value{}
		for k := int64(0); k < n; k++ {
			out = append(out, items...)
		}
		return sameSeq(seq, out), true, nil
	}
	return nil, true, fmt.Errorf("unsupported operand type(s) for %s: '%s' and '%s'", op, pyTypeName(x), pyTypeName(y))
}

func seqItems(v Value) ([]Value, bool) {
	switch s := v.(type) {
	case Tuple:
		return s, true
	case List:
		return s, true
	}
	return nil, false
}

func sameSeq(like Value, items []Value) Value {
	if _, ok := like.(List); ok {
		return List(items)
	}
	return Tuple(items)
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

func pyTypeName(v Value) string {
	switch v.(type) {
	case Tuple:
		return "tuple"
	case List:
		return "list"
	case int64:
		return "int"
	case float64:
		return "float"
	case bool:
		return "bool"
	case nil:
		return "NoneType"
	}
	return "Tensor"
}
