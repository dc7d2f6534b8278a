package compiler

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strings"

	"gcdbg/ir"
	"gcdbg/tensor"
)

// Fallback steps run in the parent with the eager interpreter's op (ir.Call)
// on tensors copied out of the shared memory; results are written back to
// their slots for the compiled kernels that follow.

func (x *execution) fallback(st *Step) error {
	d := ir.Lookup(st.Op)
	if d == nil {
		return fmt.Errorf("op %q is not a canonical op", st.Op)
	}
	// Each slot is copied out once so that two views of one buffer share
	// a storage, as they would in the eager graph.
	slots := map[int]*tensor.Tensor{}
	vals := make([]ir.Value, len(st.Args))
	for i, a := range st.Args {
		v, err := x.argValue(a, slots)
		if err != nil {
			return fmt.Errorf("arg %d: %w", i, err)
		}
		vals[i] = v
	}
	res, err := ir.Call(d, vals)
	if err != nil {
		return err
	}
	items := []ir.Value{res}
	if tup, ok := res.(ir.Tuple); ok {
		items = tup
	}
	if len(items) != len(st.Writes) {
		return fmt.Errorf("returned %d values for %d slots", len(items), len(st.Writes))
	}
	for i, s := range st.Writes {
		if s < 0 || s >= len(x.m.Buffers) {
			return fmt.Errorf("writes: slot %d of %d", s, len(x.m.Buffers))
		}
		t, ok := items[i].(*tensor.Tensor)
		if !ok {
			return fmt.Errorf("result %d is %T, not a tensor", i, items[i])
		}
		if t.DType != x.lay.dtypes[s] {
			return fmt.Errorf("result %d is %s, slot %d (%s) holds %s", i, t.DType, s, x.m.Buffers[s].Name, x.lay.dtypes[s])
		}
		data := t.Bytes()
		dst := x.sh.slot(x.lay, s)
		if len(data) != len(dst) {
			return fmt.Errorf("result %d has shape %v (%d bytes), slot %d (%s) has %d bytes", i, t.Shape, len(data), s, x.m.Buffers[s].Name, len(dst))
		}
		copy(dst, data)
	}
	return nil
}

func (x *execution) argValue(a ArgSpec, slots map[int]*tensor.Tensor) (ir.Value, error) {
	if a.Items != nil {
		// A list or tuple holding tensors (cat's tensors): each item is
		// its own view or constant.
		vals := make([]ir.Value, len(a.Items))
		for i, it := range a.Items {
			v, err := x.argValue(it, slots)
			if err != nil {
				return nil, fmt.Errorf("item %d: %w", i, err)
			}
			vals[i] = v
		}
		if a.IsList {
			return ir.List(vals), nil
		}
		return ir.Tuple(vals), nil
	}
	if a.IsConst || a.Slot == nil {
		return decodeConst(a.Const, 0)
	}
	if a.SymSizes != nil {
		var err error
		if a, err = x.bindView(a); err != nil {
			return nil, err
		}
	}
	s := *a.Slot
	if s < 0 || s >= len(x.m.Buffers) {
		return nil, fmt.Errorf("slot %d of %d", s, len(x.m.Buffers))
	}
	base := slots[s]
	if base == nil {
		var err error
		if base, err = x.view(s); err != nil {
			return nil, err
		}
		slots[s] = base
	}
	if a.Sizes == nil {
		return base, nil
	}
	if len(a.Strides) != len(a.Sizes) {
		return nil, fmt.Errorf("slot %d: %d sizes but %d strides", s, len(a.Sizes), len(a.Strides))
	}
	shape, strides := make([]int, len(a.Sizes)), make([]int, len(a.Sizes))
	last := a.Offset // the furthest element the view reaches
	for d := range a.Sizes {
		shape[d], strides[d] = int(a.Sizes[d]), int(a.Strides[d])
		if a.Sizes[d] < 0 || a.Strides[d] < 0 {
			return nil, fmt.Errorf("slot %d: negative size or stride in %v/%v", s, a.Sizes, a.Strides)
		}
		if a.Sizes[d] > 0 {
			last += (a.Sizes[d] - 1) * a.Strides[d]
		}
	}
	if n := int64(base.Numel()); a.Offset < 0 || (tensor.Numel(shape) > 0 && last >= n) {
		return nil, fmt.Errorf("slot %d: view %v strides %v offset %d reaches past its %d elements", s, a.Sizes, a.Strides, a.Offset, n)
	}
	return base.View(shape, strides, int(a.Offset)), nil
}

// decodeConst turns a constant argument, in the trace format's ARG
// encoding (docs/trace-format.md), into a runtime value.
func decodeConst(v any, depth int) (ir.Value, error) {
	if depth > 32 {
		return nil, fmt.Errorf("constant nested too deep")
	}
	switch c := v.(type) {
	case nil, bool, string, int64, float64:
		// A manifest built in this process keeps Go's int64/float64; one
		// read from JSON (with UseNumber) keeps the text's int/float.
		return c, nil
	case int:
		return int64(c), nil
	case json.Number:
		if strings.ContainsAny(string(c), ".eE") {
			return c.Float64()
		}
		return c.Int64()
	case ir.Tuple, ir.List, tensor.DType, ir.Device:
		return c, nil
	case json.RawMessage:
		// The renderer stores constants as their JSON encoding; decode with
		// UseNumber so that 2 and 2.0 stay an int and a float.
		dec := json.NewDecoder(bytes.NewReader(c))
		dec.UseNumber()
		var x any
		if err := dec.Decode(&x); err != nil {
			return nil, fmt.Errorf("constant %s: %v", c, err)
		}
		return decodeConst(x, depth+1)
	case []any:
		out := make(ir.Tuple, len(c))
		for i, e := range c {
			x, err := decodeConst(e, depth+1)
			if err != nil {
				return nil, err
			}
			out[i] = x
		}
		return out, nil
	case map[string]any:
		if len(c) != 1 {
			return nil, fmt.Errorf("constant object with %d keys (want one of list, dtype, device, float, ellipsis, slice)", len(c))
		}
		for k, val := range c {
			switch k {
			case "list":
				t, err := decodeConst(val, depth+1)
				if err != nil {
					return nil, err
				}
				tup, ok := t.(ir.Tuple)
				if !ok {
					return nil, fmt.Errorf("list is %T, want an array", val)
				}
				return ir.List(tup), nil
			case "dtype":
				s, _ := val.(string)
				dt, ok := tensor.ParseDType(s)
				if !ok {
					return nil, fmt.Errorf("unknown dtype %v", val)
				}
				return dt, nil
			case "device":
				s, _ := val.(string)
				return ir.Device(s), nil
			case "float":
				switch val {
				case "inf":
					return math.Inf(1), nil
				case "-inf":
					return math.Inf(-1), nil
				case "nan":
					return math.NaN(), nil
				}
				return nil, fmt.Errorf("unknown float %v (want inf, -inf or nan)", val)
			case "ellipsis":
				if val != true {
					return nil, fmt.Errorf("ellipsis is %v, want true", val)
				}
				return ir.Ellipsis{}, nil
			case "slice": // constant bounds (render.encodeArg)
				parts, ok := val.([]any)
				if !ok || len(parts) != 3 {
					return nil, fmt.Errorf("slice is %v, want [start, stop, step]", val)
				}
				var sl [3]ir.Arg
				for i, p := range parts {
					if p == nil {
						continue
					}
					n, ok := p.(json.Number)
					if !ok {
						return nil, fmt.Errorf("slice part %v is not an int", p)
					}
					iv, err := n.Int64()
					if err != nil {
						return nil, fmt.Errorf("slice part %v is not an int", p)
					}
					sl[i] = iv
				}
				return ir.Slice{Start: sl[0], Stop: sl[1], Step: sl[2]}, nil
			}
			return nil, fmt.Errorf("unknown constant object key %q", k)
		}
	}
	return nil, fmt.Errorf("unsupported constant %v (%T)", v, v)
}

// bindView evaluates a view's symbolic sizes, strides and offset with this
// run's symbol values.
func (x *execution) bindView(a ArgSpec) (ArgSpec, error) {
	if len(a.SymStrides) != len(a.SymSizes) {
		return a, fmt.Errorf("%d symbolic sizes but %d strides", len(a.SymSizes), len(a.SymStrides))
	}
	out := ArgSpec{Slot: a.Slot, Sizes: make([]int64, len(a.SymSizes)), Strides: make([]int64, len(a.SymSizes))}
	for d := range a.SymSizes {
		var err error
		if out.Sizes[d], err = EvalSize(a.SymSizes[d], x.lay.syms); err != nil {
			return a, err
		}
		if out.Strides[d], err = EvalSize(a.SymStrides[d], x.lay.syms); err != nil {
			return a, err
		}
	}
	if a.SymOffset != "" {
		var err error
		if out.Offset, err = EvalSize(a.SymOffset, x.lay.syms); err != nil {
			return a, err
		}
	}
	return out, nil
}
