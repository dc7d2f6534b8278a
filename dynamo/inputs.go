// Package dynamo is gcdbg's model of what torch._dynamo does around a
// compiled graph at call time: evaluate the graph's guards on the new
// inputs, reuse a cached artifact when they hold, recompile when they do
// not, and after repeated size changes along one input dimension compile
// it symbolically (automatic dynamic shapes) so that one artifact serves
// every size there.
package dynamo

import (
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"sort"
	"strconv"
	"strings"

	"gcdbg/ir"
	"gcdbg/tensor"
	"gcdbg/trace"
)

// Value is one input of a call: a tensor, or a Python constant for a
// non-tensor placeholder (T nil).
type Value struct {
	T     *ir.TensorData
	Const ir.Arg
}

// Frame is every input of one call of a graph, by target.
type Frame map[string]Value

// ExampleFrame is the call the trace recorded: its example inputs,
// parameters and constants.
func ExampleFrame(g *ir.Graph) Frame {
	f := Frame{}
	for name, td := range g.Tensors {
		f[name] = Value{T: td}
	}
	for _, n := range g.Placeholders() {
		if n.Meta.HasValue && n.Meta.Tensor == nil {
			f[n.Target] = Value{Const: n.Meta.Value}
		}
	}
	return f
}

// Spec is one NAME=VALUE of an --input set, resolved against the graph:
// for a tensor input VALUE is a shape AxBxC with optional suffixes
// (:float64, :requires_grad) or @file.safetensors:key; for a constant
// input it is a Python literal (0, 1.5, True, None).
type Spec struct {
	Name, Text string
}

// ParseSet splits "x=4x784,y=4x784:float64" into specs.
func ParseSet(s string) ([]Spec, error) {
	var out []Spec
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		name, val, ok := strings.Cut(part, "=")
		if !ok || name == "" || val == "" {
			return nil, fmt.Errorf("--input %q: want NAME=AxBxC[:dtype], NAME=@file.safetensors:key or NAME=constant", part)
		}
		out = append(out, Spec{Name: name, Text: val})
	}
	return out, nil
}

// Apply returns a copy of f with the specs' values. Random tensors are
// normal (integers: uniform over the example's range, so indices stay
// valid) with a seed from the spec's text, so a run repeats exactly.
func (f Frame) Apply(specs []Spec) (Frame, error) {
	out := make(Frame, len(f))
	for k, v := range f {
		out[k] = v
	}
	for _, sp := range specs {
		old, ok := f[sp.Name]
		if !ok {
			return nil, fmt.Errorf("--input %s: the graph has no input called %q (inputs: %s)", sp.Name, sp.Name, strings.Join(f.names(), ", "))
		}
		if old.T == nil {
			c, err := parseConst(sp.Text)
			if err != nil {
				return nil, fmt.Errorf("--input %s=%s: %q is a constant input: %w", sp.Name, sp.Text, sp.Name, err)
			}
			out[sp.Name] = Value{Const: c}
			continue
		}
		td, err := makeTensor(sp, old.T)
		if err != nil {
			return nil, fmt.Errorf("--input %s=%s: %w", sp.Name, sp.Text, err)
		}
		out[sp.Name] = Value{T: td}
	}
	return out, nil
}

func (f Frame) names() []string {
	var ns []string
	for k := range f {
		ns = append(ns, k)
	}
	sort.Strings(ns)
	return ns
}

func parseConst(s string) (ir.Arg, error) {
	switch s {
	case "True":
		return true, nil
	case "False":
		return false, nil
	case "None":
		return nil, nil
	}
	if i, err := strconv.ParseInt(s, 10, 64); err == nil {
		return i, nil
	}
	if x, err := strconv.ParseFloat(s, 64); err == nil {
		return x, nil
	}
	return nil, fmt.Errorf("want an int, a float, True, False or None")
}

// maxRandomElements bounds a random input (1 GiB of float64).
const maxRandomElements = 1 << 27

func makeTensor(sp Spec, old *ir.TensorData) (*ir.TensorData, error) {
	if strings.HasPrefix(sp.Text, "@") {
		return loadTensor(sp.Text[1:], old)
	}
	parts := strings.Split(sp.Text, ":")
	var shape []int
	if parts[0] != "" && parts[0] != "scalar" {
		for _, d := range strings.Split(parts[0], "x") {
			n, err := strconv.Atoi(d)
			if err != nil || n < 0 {
				return nil, fmt.Errorf("shape %q: %q is not a size", parts[0], d)
			}
			shape = append(shape, n)
		}
	}
	n := 1
	for _, d := range shape {
		if d > 0 && n > maxRandomElements/d {
			return nil, fmt.Errorf("shape %q: more than %d elements", parts[0], maxRandomElements)
		}
		n *= d
	}
	dt, rg := old.T.DType, old.RequiresGrad
	for _, suf := range parts[1:] {
		switch suf {
		case "requires_grad":
			rg = true
		case "no_grad":
			rg = false
		default:
			d, ok := tensor.ParseDType(suf)
			if !ok {
				return nil, fmt.Errorf("suffix %q: not a dtype (float32, float64, ...) nor requires_grad / no_grad", suf)
			}
			dt = d
		}
	}
	h := fnv.New64a()
	h.Write([]byte(sp.Name + "=" + sp.Text))
	rng := rand.New(rand.NewPCG(h.Sum64(), 0x9e3779b97f4a7c15))
	t := tensor.New(dt, shape...)
	lo, hi := intRange(old.T)
	for i := 0; i < n; i++ {
		if dt.IsFloat() {
			t.SetFlat(i, rng.NormFloat64())
		} else {
			t.SetFlatInt(i, lo+rng.Int64N(hi-lo+1))
		}
	}
	return &ir.TensorData{T: t, RequiresGrad: rg, Origin: "random:" + sp.Text}, nil
}

// intRange is the example's value range (for random integer inputs).
func intRange(t *tensor.Tensor) (int64, int64) {
	if t.DType == tensor.Bool {
		return 0, 1
	}
	if t.DType.IsFloat() || t.Numel() == 0 {
		return 0, 9
	}
	lo, hi := t.FlatInt(0), t.FlatInt(0)
	for i := 1; i < t.Numel(); i++ {
		v := t.FlatInt(i)
		lo, hi = min(lo, v), max(hi, v)
	}
	return lo, hi
}

func loadTensor(ref string, old *ir.TensorData) (*ir.TensorData, error) {
	i := strings.LastIndexByte(ref, ':')
	if i < 0 {
		return nil, fmt.Errorf("@%s: want @file.safetensors:key", ref)
	}
	file, key := ref[:i], ref[i+1:]
	m, err := trace.LoadSafetensors(file)
	if err != nil {
		return nil, err
	}
	t, ok := m[key]
	if !ok {
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		return nil, fmt.Errorf("@%s: %s has no tensor %q (keys: %s)", ref, file, key, strings.Join(keys, ", "))
	}
	return &ir.TensorData{T: t, RequiresGrad: old.RequiresGrad, Origin: "file:" + key}, nil
}

// Describe prints the graph-level inputs of a frame (placeholders and
// constants, not parameters): x=f32[4, 28, 28], b=0.
func Describe(g *ir.Graph, f Frame) string {
	var parts []string
	for _, n := range g.Placeholders() {
		v, ok := f[n.Target]
		if !ok {
			continue
		}
		if v.T == nil {
			parts = append(parts, n.Target+"="+ir.FormatArg(v.Const, func(n *ir.Node) string { return n.Name }))
			continue
		}
		parts = append(parts, fmt.Sprintf("%s=%s%s", n.Target, v.T.T.DType.Short(), ir.ShapeOf(v.T.T.Shape)))
	}
	return strings.Join(parts, ", ")
}
