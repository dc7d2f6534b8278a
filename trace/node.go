package trace

import (
	"encoding/json"
	"math"

	"gcdbg/ir"
	"gcdbg/tensor"
)

// nodeExtra is what decoding a node learns that ir.Node has no place for.
type nodeExtra struct {
	metaRG     bool     // meta.requires_grad, even without dtype/shape
	paramOrder []string // module.params keys in file order
}

func (d *decoder) decodeNode(v any, j int, byName map[string]*ir.Node) (*ir.Node, nodeExtra, *Error) {
	var ex nodeExtra
	d.node = ""
	nfield := "nodes" + idx(j)
	o, ok := v.(*object)
	if !ok {
		return nil, ex, d.errf(nfield, "node is %s, want an object", kind(v))
	}
	name, ok := o.vals["name"].(string)
	if !ok || name == "" {
		return nil, ex, d.errf(nfield+".name", "missing, empty or not a string (found %s)", show(o.vals["name"]))
	}
	d.node = name
	if byName[name] != nil {
		return nil, ex, d.errf("name", "node name %q is used twice", name)
	}
	n := &ir.Node{Name: name}
	op, ok := o.vals["op"].(string)
	if !ok {
		return nil, ex, d.errf("op", "missing or not a string (found %s)", show(o.vals["op"]))
	}
	if !ir.ValidOp(op) {
		return nil, ex, d.errf("op", "unknown op %q (want placeholder, get_attr, call_function, call_method, call_module or output)", op)
	}
	n.Op = op
	target, ok := o.vals["target"].(string)
	if !ok {
		return nil, ex, d.errf("target", "missing or not a string (found %s)", show(o.vals["target"]))
	}
	n.Target = target
	if av, ok := o.get("args"); ok && av != nil {
		arr, ok := av.([]any)
		if !ok {
			return nil, ex, d.errf("args", "args is %s, want an array", kind(av))
		}
		n.Args = make([]ir.Arg, len(arr))
		for i, a := range arr {
			x, e := d.arg(a, "args"+idx(i), byName, 0)
			if e != nil {
				return nil, ex, e
			}
			n.Args[i] = x
		}
	}
	if kv, ok := o.get("kwargs"); ok && kv != nil {
		ko, ok := kv.(*object)
		if !ok {
			return nil, ex, d.errf("kwargs", "kwargs is %s, want an object", kind(kv))
		}
		for _, k := range ko.keys {
			x, e := d.arg(ko.vals[k], "kwargs"+key(k), byName, 0)
			if e != nil {
				return nil, ex, e
			}
			n.Kwargs = append(n.Kwargs, ir.Kwarg{Name: k, Value: x})
		}
	}
	if mv, ok := o.get("meta"); ok && mv != nil {
		mo, ok := mv.(*object)
		if !ok {
			return nil, ex, d.errf("meta", "meta is %s, want an object", kind(mv))
		}
		m, rg, e := d.meta(mo)
		if e != nil {
			return nil, ex, e
		}
		n.Meta, ex.metaRG = m, rg
	}
	if mv, ok := o.get("module"); ok && mv != nil {
		mod, order, e := d.module(mv)
		if e != nil {
			return nil, ex, e
		}
		n.Module, ex.paramOrder = mod, order
	}
	if n.Op == ir.CallModule && n.Module == nil {
		return nil, ex, d.errf("module", "a call_module node needs its module (type, attrs, params)")
	}
	return n, ex, nil
}

// arg decodes an ARG. nodes is nil where node references are not allowed.
func (d *decoder) arg(v any, field string, nodes map[string]*ir.Node, depth int) (ir.Arg, *Error) {
	if depth > maxArgDepth {
		return nil, d.errf(field, "value nested deeper than %d levels", maxArgDepth)
	}
	switch x := v.(type) {
	case nil:
		return nil, nil
	case bool:
		return x, nil
	case string:
		return x, nil
	case json.Number:
		n, err := number(x)
		if err != nil {
			return nil, d.errf(field, "%v", err)
		}
		return n, nil
	case []any:
		out := make(ir.Tuple, len(x))
		for i, e := range x {
			a, err := d.arg(e, field+idx(i), nodes, depth+1)
			if err != nil {
				return nil, err
			}
			out[i] = a
		}
		return out, nil
	case *object:
		if len(x.keys) != 1 {
			return nil, d.errf(field, "unknown value: an object with keys %q (want exactly one of list, node, dtype, device, slice, ellipsis, float)", x.keys)
		}
		k := x.keys[0]
		val := x.vals[k]
		f := field + "." + k
		switch k {
		case "list":
			arr, ok := val.([]any)
			if !ok {
				return nil, d.errf(f, "list is %s, want an array", kind(val))
			}
			out := make(ir.List, len(arr))
			for i, e := range arr {
				a, err := d.arg(e, f+idx(i), nodes, depth+1)
				if err != nil {
					return nil, err
				}
				out[i] = a
			}
			return out, nil
		case "node":
			s, ok := val.(string)
			if !ok {
				return nil, d.errf(f, "node is %s, want a node name", kind(val))
			}
			if nodes == nil {
				return nil, d.errf(field, "a node reference (%q) is not allowed here", s)
			}
			n := nodes[s]
			if n == nil {
				return nil, d.errf(field, "node %q is not defined before this node", s)
			}
			return n, nil
		case "dtype":
			s, ok := val.(string)
			if !ok {
				return nil, d.errf(f, "dtype is %s, want a string", kind(val))
			}
			dt, ok := tensor.ParseDType(s)
			if !ok {
				return nil, d.errf(f, "unknown dtype %q", s)
			}
			return dt, nil
		case "device":
			s, ok := val.(string)
			if !ok {
				return nil, d.errf(f, "device is %s, want a string", kind(val))
			}
			return ir.Device(s), nil
		case "slice":
			arr, ok := val.([]any)
			if !ok || len(arr) != 3 {
				return nil, d.errf(f, "want [start, stop, step]")
			}
			var parts [3]ir.Arg
			for i, p := range arr {
				pf := f + idx(i)
				switch px := p.(type) {
				case nil:
				case json.Number:
					nv, err := number(px)
					if err != nil {
						return nil, d.errf(pf, "%v", err)
					}
					iv, ok := nv.(int64)
					if !ok {
						return nil, d.errf(pf, "slice part %s is a float, want null, an int or a node", px)
					}
					parts[i] = iv
				case *object:
					a, err := d.arg(px, pf, nodes, depth+1)
					if err != nil {
						return nil, err
					}
					if _, ok := a.(*ir.Node); !ok {
						return nil, d.errf(pf, "slice part is %s, want null, an int or a node", kind(p))
					}
					parts[i] = a
				default:
					return nil, d.errf(pf, "slice part is %s, want null, an int or a node", kind(p))
				}
			}
			return ir.Slice{Start: parts[0], Stop: parts[1], Step: parts[2]}, nil
		case "ellipsis":
			if b, ok := val.(bool); !ok || !b {
				return nil, d.errf(f, "want true")
			}
			return ir.Ellipsis{}, nil
		case "float":
			s, _ := val.(string)
			switch s {
			case "inf":
				return math.Inf(1), nil
			case "-inf":
				return math.Inf(-1), nil
			case "nan":
				return math.NaN(), nil
			}
			return nil, d.errf(f, "unknown float %s (want \"inf\", \"-inf\" or \"nan\")", show(val))
		}
		return nil, d.errf(field, "unknown value: an object with key %q (want one of list, node, dtype, device, slice, ellipsis, float)", k)
	}
	return nil, d.errf(field, "unexpected %s", kind(v))
}

// tensorMeta reads dtype/shape/stride/requires_grad; nil when dtype or
// shape is absent.
func (d *decoder) tensorMeta(o *object, field string) (*ir.TensorMeta, bool, *Error) {
	rg, e := d.optBool(o, "requires_grad", field+"requires_grad")
	if e != nil {
		return nil, false, e
	}
	dv, hasD := o.get("dtype")
	sv, hasS := o.get("shape")
	var tm *ir.TensorMeta
	if hasD && hasS && dv != nil && sv != nil {
		s, ok := dv.(string)
		if !ok {
			return nil, false, d.errf(field+"dtype", "dtype is %s, want a string", kind(dv))
		}
		dt, ok := tensor.ParseDType(s)
		if !ok {
			return nil, false, d.errf(field+"dtype", "unknown dtype %q", s)
		}
		shape, err := checkShape(sv)
		if err != nil {
			return nil, false, d.errf(field+"shape", "%v", err)
		}
		tm = &ir.TensorMeta{DType: dt, Shape: ir.ShapeOf(shape), RequiresGrad: rg}
	}
	if st, ok := o.get("stride"); ok && st != nil {
		arr, ok := st.([]any)
		if !ok {
			return nil, false, d.errf(field+"stride", "stride is %s, want an array of ints", kind(st))
		}
		stride := make([]int, len(arr))
		for i, x := range arr {
			iv, e := d.intValue(x, field+"stride"+idx(i))
			if e != nil {
				return nil, false, e
			}
			if iv < -maxElements || iv > maxElements {
				return nil, false, d.errf(field+"stride"+idx(i), "stride %d is out of range", iv)
			}
			stride[i] = int(iv)
		}
		if tm != nil {
			if len(stride) != len(tm.Shape) {
				return nil, false, d.errf(field+"stride", "%d strides for a shape of %d dimensions", len(stride), len(tm.Shape))
			}
			tm.Stride = stride
		}
	}
	return tm, rg, nil
}

func (d *decoder) meta(o *object) (ir.Meta, bool, *Error) {
	var m ir.Meta
	tm, rg, e := d.tensorMeta(o, "meta.")
	if e != nil {
		return m, false, e
	}
	m.Tensor = tm
	if iv, ok := o.get("items"); ok && iv != nil {
		arr, ok := iv.([]any)
		if !ok {
			return m, false, d.errf("meta.items", "items is %s, want an array", kind(iv))
		}
		m.Items = make([]*ir.TensorMeta, len(arr))
		for i, x := range arr {
			xo, ok := x.(*object)
			if !ok {
				if x == nil {
					continue
				}
				return m, false, d.errf("meta.items"+idx(i), "item is %s, want an object", kind(x))
			}
			// A non-tensor item ({"value": ...}, nested {"items": ...}) stays nil.
			it, _, e := d.tensorMeta(xo, "meta.items"+idx(i)+".")
			if e != nil {
				return m, false, e
			}
			m.Items[i] = it
		}
	}
	if vv, ok := o.get("value"); ok {
		a, e := d.arg(vv, "meta.value", nil, 0)
		if e != nil {
			return m, false, e
		}
		m.Value, m.HasValue = a, true
	}
	st, e := d.frames(o, "stack", "meta.stack")
	if e != nil {
		return m, false, e
	}
	m.Stack = st
	return m, rg, nil
}

func (d *decoder) module(v any) (*ir.Module, []string, *Error) {
	o, ok := v.(*object)
	if !ok {
		return nil, nil, d.errf("module", "module is %s, want an object", kind(v))
	}
	typ, ok := o.vals["type"].(string)
	if !ok || typ == "" {
		return nil, nil, d.errf("module.type", "missing or not a string (found %s)", show(o.vals["type"]))
	}
	m := &ir.Module{Type: typ, Attrs: map[string]ir.Arg{}, Params: map[string]string{}}
	if av, ok := o.get("attrs"); ok && av != nil {
		ao, ok := av.(*object)
		if !ok {
			return nil, nil, d.errf("module.attrs", "attrs is %s, want an object", kind(av))
		}
		for _, k := range ao.keys {
			a, e := d.arg(ao.vals[k], "module.attrs"+key(k), nil, 0)
			if e != nil {
				return nil, nil, e
			}
			m.Attrs[k] = a
		}
	}
	if e := d.moduleTraining(o, m); e != nil {
		return nil, nil, e
	}
	var order []string
	if pv, ok := o.get("params"); ok && pv != nil {
		po, ok := pv.(*object)
		if !ok {
			return nil, nil, d.errf("module.params", "params is %s, want an object", kind(pv))
		}
		for _, k := range po.keys {
			switch q := po.vals[k].(type) {
			case nil: // an absent parameter (e.g. bias=False)
			case string:
				if q == "" {
					return nil, nil, d.errf("module.params"+key(k), "empty parameter name")
				}
				m.Params[k] = q
				order = append(order, k)
			default:
				return nil, nil, d.errf("module.params"+key(k), "parameter is %s, want its qualified name", kind(q))
			}
		}
	}
	return m, order, nil
}

func (d *decoder) frames(o *object, k, field string) ([]ir.Frame, *Error) {
	v, ok := o.get(k)
	if !ok || v == nil {
		return nil, nil
	}
	arr, ok := v.([]any)
	if !ok {
		return nil, d.errf(field, "stack is %s, want an array of frames", kind(v))
	}
	out := make([]ir.Frame, 0, len(arr))
	for i, x := range arr {
		f := field + idx(i)
		xo, ok := x.(*object)
		if !ok {
			return nil, d.errf(f, "frame is %s, want an object", kind(x))
		}
		var fr ir.Frame
		var e *Error
		if fr.File, e = d.optString(xo, "file", f+".file"); e != nil {
			return nil, e
		}
		if fr.Func, e = d.optString(xo, "func", f+".func"); e != nil {
			return nil, e
		}
		if fr.Code, e = d.optString(xo, "code", f+".code"); e != nil {
			return nil, e
		}
		line, e := d.optInt(xo, "line", f+".line", 0)
		if e != nil {
			return nil, e
		}
		if line < 0 || line > math.MaxInt32 {
			return nil, d.errf(f+".line", "line %d is out of range", line)
		}
		fr.Line = int(line)
		out = append(out, fr)
	}
	return out, nil
}

func (d *decoder) optString(o *object, k, field string) (string, *Error) {
	v, ok := o.get(k)
	if !ok || v == nil {
		return "", nil
	}
	s, ok := v.(string)
	if !ok {
		return "", d.errf(field, "%s is %s, want a string", k, kind(v))
	}
	return s, nil
}

func (d *decoder) optBool(o *object, k, field string) (bool, *Error) {
	v, ok := o.get(k)
	if !ok || v == nil {
		return false, nil
	}
	b, ok := v.(bool)
	if !ok {
		return false, d.errf(field, "%s is %s, want a bool", k, kind(v))
	}
	return b, nil
}

func (d *decoder) intValue(v any, field string) (int64, *Error) {
	num, ok := v.(json.Number)
	if !ok {
		return 0, d.errf(field, "found %s, want an int", kind(v))
	}
	nv, err := number(num)
	if err != nil {
		return 0, d.errf(field, "%v", err)
	}
	iv, ok := nv.(int64)
	if !ok {
		return 0, d.errf(field, "found a float (%s), want an int", num)
	}
	return iv, nil
}

func (d *decoder) optInt(o *object, k, field string, def int64) (int64, *Error) {
	v, ok := o.get(k)
	if !ok || v == nil {
		return def, nil
	}
	return d.intValue(v, field)
}

// optFloat reads a number (int or float, or {"float": "inf"}) as float64.
func (d *decoder) optFloat(o *object, k, field string, def float64) (float64, *Error) {
	v, ok := o.get(k)
	if !ok || v == nil {
		return def, nil
	}
	a, e := d.arg(v, field, nil, 0)
	if e != nil {
		return 0, e
	}
	switch x := a.(type) {
	case int64:
		return float64(x), nil
	case float64:
		return x, nil
	}
	return 0, d.errf(field, "%s is %s, want a number", k, kind(v))
}
