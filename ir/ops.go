package ir

import (
	"fmt"
	"sort"

	"gcdbg/tensor"
)

// Kind groups canonical ops by how a compiler treats them.
type Kind string

const (
	KindPointwise Kind = "pointwise"
	KindReduction Kind = "reduction"
	KindView      Kind = "view"
	KindMatmul    Kind = "matmul"
	KindConv      Kind = "conv"
	KindPool      Kind = "pool"
	KindNorm      Kind = "norm"
	KindCreation  Kind = "creation"
	KindIndex     Kind = "index"
	KindSort      Kind = "sort"
	KindMeta      Kind = "meta" // size, dtype: Python values, no tensor data
	KindLoss      Kind = "loss"
	KindOther     Kind = "other"
)

// Value is a runtime value flowing through a graph: *tensor.Tensor,
// int64, float64, bool, string, nil, tensor.DType, Device, Slice, Ellipsis,
// Tuple or List of values. During shape inference tensors are *TensorMeta.
type Value = any

// EvalFunc computes an op on bound arguments (one per schema parameter).
type EvalFunc func(a Args) (Value, error)

// OpDef is one canonical op: its schema, kind and reference semantics.
type OpDef struct {
	Name    string // "aten.add"
	Schema  Schema
	Kind    Kind
	Inplace bool // mutates its first argument and returns it
	Eval    EvalFunc
	// Infer computes the result's metadata from argument metadata (the
	// hand-written rules of infer*.go). When nil, shape inference evaluates
	// the op on example tensors of the argument shapes and strides (filled
	// with ones): exact for every op whose output shape does not depend on
	// data, which is every op in the canonical set, but it runs the op.
	Infer EvalFunc
}

var registry = map[string]*OpDef{}

// Register adds a canonical op; the name is "aten." + the schema's name.
func Register(schema string, kind Kind, eval EvalFunc) *OpDef {
	sc := ParseSchema(schema)
	d := &OpDef{Name: "aten." + sc.Name, Schema: sc, Kind: kind, Eval: eval}
	d.Infer = inferFor(d)
	if _, dup := registry[d.Name]; dup {
		panic("ir: op registered twice: " + d.Name)
	}
	registry[d.Name] = d
	return d
}

// Lookup finds a canonical op by name ("aten.add").
func Lookup(name string) *OpDef { return registry[name] }

// Ops lists every canonical op, sorted by name.
func Ops() []*OpDef {
	out := make([]*OpDef, 0, len(registry))
	for _, d := range registry {
		out = append(out, d)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Args are an op's bound argument values, one per schema parameter.
type Args struct {
	Op *OpDef
	V  []Value
}

func (a Args) errf(i int, format string, args ...any) error {
	name := fmt.Sprint(i)
	if i < len(a.Op.Schema.Params) {
		name = a.Op.Schema.Params[i].Name
	}
	return fmt.Errorf("%s: argument %q: %s", a.Op.Name, name, fmt.Sprintf(format, args...))
}

// Tensor returns argument i as a tensor; a Python number becomes a
// wrapped 0-dim tensor (so `2 * x` promotes as PyTorch does).
func (a Args) Tensor(i int) (*tensor.Tensor, error) {
	switch v := a.V[i].(type) {
	case *tensor.Tensor:
		return v, nil
	case bool, int64, float64:
		return tensor.PyNumber(v), nil
	case nil:
		return nil, a.errf(i, "expected a tensor, got None")
	}
	return nil, a.errf(i, "expected a tensor, got %s", typeName(a.V[i]))
}

// OptTensor is Tensor that allows None.
func (a Args) OptTensor(i int) (*tensor.Tensor, error) {
	if a.V[i] == nil {
		return nil, nil
	}
	return a.Tensor(i)
}

// IsTensor reports whether argument i is a tensor.
func (a Args) IsTensor(i int) bool {
	_, ok := a.V[i].(*tensor.Tensor)
	return ok
}

// Int returns argument i as an int (bools and integral floats are refused).
func (a Args) Int(i int) (int, error) {
	switch v := a.V[i].(type) {
	case int64:
		return int(v), nil
	case *tensor.Tensor:
		if v.Numel() == 1 && !v.DType.IsFloat() {
			return int(v.FlatInt(0)), nil
		}
	}
	return 0, a.errf(i, "expected an int, got %s", typeName(a.V[i]))
}

// IntsAt reads several int arguments at once (transpose's dim0, dim1).
func (a Args) IntsAt(idx ...int) ([]int, error) {
	out := make([]int, len(idx))
	for k, i := range idx {
		n, err := a.Int(i)
		if err != nil {
			return nil, err
		}
		out[k] = n
	}
	return out, nil
}

// OptInt returns nil for None.
func (a Args) OptInt(i int) (*int, error) {
	if a.V[i] == nil {
		return nil, nil
	}
	n, err := a.Int(i)
	return &n, err
}

// Float returns argument i as a float (ints and bools convert).
func (a Args) Float(i int) (float64, error) {
	switch v := a.V[i].(type) {
	case float64:
		return v, nil
	case int64:
		return float64(v), nil
	case bool:
		if v {
			return 1, nil
		}
		return 0, nil
	case *tensor.Tensor:
		if v.Numel() == 1 {
			return v.Flat(0), nil
		}
	}
	return 0, a.errf(i, "expected a number, got %s", typeName(a.V[i]))
}

// Bool returns argument i as a bool.
func (a Args) Bool(i int) (bool, error) {
	switch v := a.V[i].(type) {
	case bool:
		return v, nil
	case int64:
		return v != 0, nil
	}
	return false, a.errf(i, "expected a bool, got %s", typeName(a.V[i]))
}

// Str returns argument i as a string.
func (a Args) Str(i int) (string, error) {
	if s, ok := a.V[i].(string); ok {
		return s, nil
	}
	return "", a.errf(i, "expected a string, got %s", typeName(a.V[i]))
}

// Ints returns argument i as a list of ints; a single int becomes [n].
// torch.Size values, tuples, lists and 1-element int tensors are accepted.
func (a Args) Ints(i int) ([]int, error) {
	return a.intsN(i, 0)
}

// IntsN is Ints where a single int is repeated n times (kernel_size=3 → [3, 3]).
func (a Args) IntsN(i, n int) ([]int, error) { return a.intsN(i, n) }

func (a Args) intsN(i, n int) ([]int, error) {
	var items []Value
	switch v := a.V[i].(type) {
	case Tuple:
		items = v
	case List:
		items = v
	case int64:
		if n == 0 {
			n = 1
		}
		out := make([]int, n)
		for k := range out {
			out[k] = int(v)
		}
		return out, nil
	default:
		return nil, a.errf(i, "expected a list of ints, got %s", typeName(a.V[i]))
	}
	out := make([]int, 0, len(items))
	for _, it := range items {
		switch x := it.(type) {
		case int64:
			out = append(out, int(x))
		case Tuple: // x.view(x.size()) arrives as one nested torch.Size
			if len(items) != 1 {
				return nil, a.errf(i, "expected a list of ints, got a nested tuple")
			}
			return a.intsFrom(x, i)
		case *tensor.Tensor:
			if x.Numel() != 1 || x.DType.IsFloat() {
				return nil, a.errf(i, "expected an int, got a tensor")
			}
			out = append(out, int(x.FlatInt(0)))
		default:
			return nil, a.errf(i, "expected an int in the list, got %s", typeName(it))
		}
	}
	return out, nil
}

func (a Args) intsFrom(t Tuple, i int) ([]int, error) {
	out := make([]int, 0, len(t))
	for _, it := range t {
		x, ok := it.(int64)
		if !ok {
			return nil, a.errf(i, "expected an int in the list, got %s", typeName(it))
		}
		out = append(out, int(x))
	}
	return out, nil
}

// OptInts is Ints that allows None (returns nil).
func (a Args) OptInts(i int) ([]int, error) {
	if a.V[i] == nil {
		return nil, nil
	}
	return a.Ints(i)
}

// DType returns argument i as a dtype; None gives def.
func (a Args) DType(i int, def tensor.DType) (tensor.DType, error) {
	switch v := a.V[i].(type) {
	case nil:
		return def, nil
	case tensor.DType:
		return v, nil
	}
	return 0, a.errf(i, "expected a dtype, got %s", typeName(a.V[i]))
}

func typeName(v Value) string {
	switch x := v.(type) {
	case nil:
		return "None"
	case *tensor.Tensor:
		return "a tensor " + x.DType.Short() + fmt.Sprint(x.Shape)
	case int64:
		return "int " + fmt.Sprint(x)
	case float64:
		return "float " + PyFloat(x)
	case bool:
		return "bool"
	case string:
		return "str " + x
	case Tuple:
		return "a tuple"
	case List:
		return "a list"
	case *TensorMeta:
		return "a tensor " + x.String()
	}
	return fmt.Sprintf("%T", v)
}

// Call evaluates op on runtime values, converting a panic inside a kernel
// into an error: hostile input must never take gcdbg down.
func Call(d *OpDef, vals []Value) (out Value, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%s: internal error: %v", d.Name, r)
		}
	}()
	return d.Eval(Args{Op: d, V: vals})
}

// InferMeta computes result metadata for op from argument metadata.
func InferMeta(d *OpDef, vals []Value) (Value, error) {
	if d.Infer != nil {
		return d.Infer(Args{Op: d, V: vals})
	}
	return inferByExample(d, vals)
}

// InferByExample is shape inference by evaluating op on example tensors
// filled with ones that have the arguments' shapes, dtypes and strides:
// the reference every hand-written Infer is tested against.
func InferByExample(d *OpDef, vals []Value) (Value, error) { return inferByExample(d, vals) }

func inferByExample(d *OpDef, vals []Value) (Value, error) {
	ex := make([]Value, len(vals))
	for i, v := range vals {
		e, err := exampleOf(v)
		if err != nil {
			return nil, fmt.Errorf("%s: argument %d: %v", d.Name, i, err)
		}
		ex[i] = e
	}
	out, err := Call(d, ex)
	if err != nil {
		return nil, err
	}
	return MetaOf(out), nil
}

// exampleLimit caps the size of example tensors used for inference.
const exampleLimit = 1 << 26

func exampleOf(v Value) (Value, error) {
	switch x := v.(type) {
	case *TensorMeta:
		sizes := x.Shape.Sizes()
		n := 1
		for _, s := range sizes {
			if s < 0 {
				return nil, fmt.Errorf("negative dimension %d", s)
			}
			n *= s
			if n > exampleLimit {
				return nil, fmt.Errorf("tensor %s too large for shape inference by example", x)
			}
		}
		// With known strides the example is a view of a storage spanning
		// them, so that views of it alias as the real value's would.
		ext, strided := 1, x.Stride != nil && len(x.Stride) == len(sizes) && n > 0
		for i, s := range sizes {
			if strided && x.Stride[i] < 0 {
				strided = false
			}
			if strided {
				ext += (s - 1) * x.Stride[i]
			}
		}
		if strided && ext > exampleLimit {
			strided = false
		}
		if !strided {
			ext = n
		}
		t := tensor.New(x.DType, ext)
		for i := range t.S.F {
			t.S.F[i] = 1
		}
		for i := range t.S.I {
			t.S.I[i] = 1
		}
		if strided {
			return t.View(sizes, append([]int{}, x.Stride...), 0), nil
		}
		return t.View(sizes, tensor.ContiguousStrides(sizes), 0), nil
	case Tuple:
		out := make(Tuple, len(x))
		for i, it := range x {
			e, err := exampleOf(it)
			if err != nil {
				return nil, err
			}
			out[i] = e
		}
		return out, nil
	case List:
		out := make(List, len(x))
		for i, it := range x {
			e, err := exampleOf(it)
			if err != nil {
				return nil, err
			}
			out[i] = e
		}
		return out, nil
	}
	return v, nil
}

// MetaOf replaces every tensor in a value by its metadata.
func MetaOf(v Value) Value {
	switch x := v.(type) {
	case *tensor.Tensor:
		return &TensorMeta{DType: x.DType, Shape: ShapeOf(x.Shape), Stride: append([]int{}, x.Strides...)}
	case Tuple:
		out := make(Tuple, len(x))
		for i, it := range x {
			out[i] = MetaOf(it)
		}
		return out
	}
	return v
}
