package stages

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"gcdbg/ir"
	"gcdbg/tensor"
)

// The guards stage derives, from a graph's inputs, the checks Dynamo puts in
// front of a compiled artifact: the artifact was specialised to these
// dtypes, shapes, strides and constants, so it may only be reused while
// they still hold. Evaluating them on new inputs is the dynamo package's job.

// Guard kinds, named as Dynamo's GuardBuilder names them.
const (
	GuardTensorMatch  = "TENSOR_MATCH"
	GuardEqualsMatch  = "EQUALS_MATCH"
	GuardConstMatch   = "CONSTANT_MATCH"
	GuardNoAliasing   = "NO_TENSOR_ALIASING"
	GuardShapeEnv     = "SHAPE_ENV"
	cpuDispatchKeySet = "DispatchKeySet(CPU, BackendSelect, ADInplaceOrView, AutogradCPU)"
)

// GuardInput is one input of a graph as the guards see it: a tensor
// (placeholder, get_attr or module parameter) or a non-tensor constant.
type GuardInput struct {
	Name   string // the placeholder / parameter target (key of Graph.Tensors)
	Source string // Dynamo's source: L['x'], L['self'].fc1.weight
	Tensor bool
	DType  tensor.DType
	// Sizes and Strides are what the artifact was compiled for; -1 marks a
	// dynamic dimension (Dynamo's None), whose symbol is Syms[i].
	Sizes, Strides []int
	Syms           []string
	RequiresGrad   bool
	Value          ir.Arg // the constant of a non-tensor input
}

// DimKey names one input dimension in GuardSet.Dynamic ("x:0").
func DimKey(input string, dim int) string { return input + ":" + strconv.Itoa(dim) }

// Source is Dynamo's name for an input: placeholders are frame locals
// (L['x']); parameters hang off L['self'], with Sequential indices as [0].
func Source(target string, placeholder bool) string {
	if placeholder {
		return "L['" + target + "']"
	}
	var b strings.Builder
	b.WriteString("L['self']")
	for _, part := range strings.Split(target, ".") {
		if _, err := strconv.Atoi(part); err == nil {
			b.WriteString("[" + part + "]")
		} else {
			b.WriteString("." + part)
		}
	}
	return b.String()
}

func deriveGuards(u *Unit) error { return DeriveGuards(u, nil) }

// DeriveGuards fills u.Guards from the captured graph's inputs. dynamic
// ("x:0" -> "s0") names the dimensions compiled symbolically: their size
// and any stride that depends on them are not guarded, and each symbol
// gets Dynamo's shape-env guard 2 <= size (0 and 1 are always specialised).
func DeriveGuards(u *Unit, dynamic map[string]string) error {
	gs := &GuardSet{Producer: u.Captured.Guards, Dynamic: dynamic}
	u.Guards = gs
	ins, err := GuardInputs(u)
	if err != nil {
		return err
	}
	var tensors []string
	for _, in := range ins {
		if !in.Tensor {
			gs.Derived = append(gs.Derived, ConstGuard(in))
			continue
		}
		tensors = append(tensors, in.Source)
		gs.Derived = append(gs.Derived, ir.Guard{Kind: GuardTensorMatch, Source: in.Source, Text: checkTensorText(in)})
	}
	if len(tensors) >= 2 {
		gs.Derived = append(gs.Derived, ir.Guard{Kind: GuardNoAliasing, Source: strings.Join(tensors, ", "),
			Text: "check_no_aliasing(" + strings.Join(tensors, ", ") + ")"})
	}
	for _, sc := range ShapeChecks(ins) {
		gs.Derived = append(gs.Derived, ir.Guard{Kind: GuardShapeEnv, Source: sc.Source, Text: sc.Text})
	}
	return nil
}

// ShapeCheck is one shape-env guard on symbolic input sizes: 2 <= size on
// the first dimension carrying a symbol (0 and 1 are always specialised),
// and equality with that first dimension for every other dimension
// duck-sized to the same symbol. EqInput is "" for the former.
type ShapeCheck struct {
	Input   string
	Dim     int
	EqInput string
	EqDim   int
	Source  string
	Text    string
}

// ShapeChecks lists the shape-env guards of the inputs, in input order.
func ShapeChecks(ins []GuardInput) []ShapeCheck {
	type at struct {
		in  GuardInput
		dim int
	}
	first := map[string]at{}
	var out []ShapeCheck
	for _, in := range ins {
		for d, s := range in.Syms {
			if s == "" {
				continue
			}
			src := fmt.Sprintf("%s.size()[%d]", in.Source, d)
			if f, ok := first[s]; ok {
				out = append(out, ShapeCheck{Input: in.Name, Dim: d, EqInput: f.in.Name, EqDim: f.dim, Source: in.Source,
					Text: fmt.Sprintf("%s.size()[%d] == %s", f.in.Source, f.dim, src)})
				continue
			}
			first[s] = at{in, d}
			out = append(out, ShapeCheck{Input: in.Name, Dim: d, Source: in.Source, Text: "2 <= " + src})
		}
	}
	return out
}

// GuardInputs lists the graph's inputs in Dynamo's order: placeholders,
// then parameters in the order the graph first reads them.
func GuardInputs(u *Unit) ([]GuardInput, error) {
	g := u.Captured
	var dynamic map[string]string
	if u.Guards != nil {
		dynamic = u.Guards.Dynamic
	}
	var ins []GuardInput
	seen := map[string]bool{}
	addTensor := func(n *ir.Node, target string, placeholder bool) error {
		if seen[target] {
			return nil
		}
		seen[target] = true
		td := g.Tensors[target]
		if td == nil || td.T == nil {
			return fmt.Errorf("graph %q: node %q: target: %q has no tensor to guard", g.Name, n.Name, target)
		}
		rg := td.RequiresGrad
		if placeholder && n.Meta.Tensor != nil {
			rg = rg || n.Meta.Tensor.RequiresGrad
		}
		in := GuardInput{Name: target, Source: Source(target, placeholder), Tensor: true, DType: td.T.DType,
			Sizes: append([]int{}, td.T.Shape...), Strides: append([]int{}, td.T.Strides...),
			Syms: make([]string, len(td.T.Shape)), RequiresGrad: rg}
		for d := range in.Sizes {
			if s, ok := dynamic[DimKey(target, d)]; ok {
				in.Sizes[d], in.Syms[d] = -1, s
			}
		}
		// A stride is the product of the sizes to its right (for the
		// contiguous inputs gcdbg makes), so it is dynamic when one is.
		for d := range in.Strides {
			for r := d + 1; r < len(in.Syms); r++ {
				if in.Syms[r] != "" && in.Strides[d] != 0 {
					in.Strides[d] = -1
				}
			}
		}
		ins = append(ins, in)
		return nil
	}
	for _, n := range g.Nodes {
		if n.Op != ir.Placeholder {
			continue
		}
		if n.Meta.HasValue && n.Meta.Tensor == nil {
			ins = append(ins, GuardInput{Name: n.Target, Source: Source(n.Target, true), Value: n.Meta.Value})
			seen[n.Target] = true
			continue
		}
		if err := addTensor(n, n.Target, true); err != nil {
			return nil, err
		}
	}
	for _, n := range g.Nodes {
		switch {
		case n.Op == ir.GetAttr:
			if g.Tensors[n.Target] != nil {
				if err := addTensor(n, n.Target, false); err != nil {
					return nil, err
				}
			}
		case n.Op == ir.CallModule && n.Module != nil:
			for _, local := range moduleParamOrder(n.Module) {
				if err := addTensor(n, n.Module.Params[local], false); err != nil {
					return nil, err
				}
			}
		}
	}
	return ins, nil
}

// moduleParamOrder lists a module's parameters as normalization reads them
// (weight, bias, running stats), then any others by name.
func moduleParamOrder(m *ir.Module) []string {
	var out []string
	known := map[string]bool{}
	for _, l := range []string{"weight", "bias", "running_mean", "running_var"} {
		known[l] = true
		if q := m.Params[l]; q != "" {
			out = append(out, l)
		}
	}
	var rest []string
	for l, q := range m.Params {
		if !known[l] && q != "" {
			rest = append(rest, l)
		}
	}
	sort.Strings(rest)
	return append(out, rest...)
}

// ConstGuard is the guard on a non-tensor input: Dynamo specialises on its value.
func ConstGuard(in GuardInput) ir.Guard {
	switch v := in.Value.(type) {
	case nil:
		return ir.Guard{Kind: GuardConstMatch, Source: in.Source, Text: in.Source + " is None"}
	case bool:
		return ir.Guard{Kind: GuardConstMatch, Source: in.Source, Text: in.Source + " is " + pyRepr(v)}
	}
	return ir.Guard{Kind: GuardEqualsMatch, Source: in.Source, Text: in.Source + " == " + pyRepr(in.Value)}
}

func pyRepr(v ir.Arg) string {
	switch x := v.(type) {
	case bool:
		if x {
			return "True"
		}
		return "False"
	case string:
		return "'" + x + "'"
	}
	return ir.FormatArg(v, func(n *ir.Node) string { return n.Name })
}

// checkTensorText writes the guard as Dynamo prints TENSOR_MATCH.
func checkTensorText(in GuardInput) string {
	return fmt.Sprintf("check_tensor(%s, Tensor, %s, torch.%s, device=None, requires_grad=%s, size=%s, stride=%s)",
		in.Source, cpuDispatchKeySet, in.DType, pyRepr(in.RequiresGrad), optList(in.Sizes), optList(in.Strides))
}

func optList(xs []int) string {
	parts := make([]string, len(xs))
	for i, x := range xs {
		if x < 0 {
			parts[i] = "None"
		} else {
			parts[i] = strconv.Itoa(x)
		}
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

// printGuards shows gcdbg's derived guards beside the producer's.
func printGuards(u *Unit) string {
	gs := u.Guards
	if gs == nil {
		return "(guards not derived)\n"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "derived by gcdbg from the graph's inputs (%d):\n", len(gs.Derived))
	for _, g := range gs.Derived {
		fmt.Fprintf(&b, "  %-18s %s\n", g.Kind, g.Text)
	}
	if len(gs.Dynamic) > 0 {
		keys := make([]string, 0, len(gs.Dynamic))
		for k := range gs.Dynamic {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		b.WriteString("dynamic dimensions:\n")
		for _, k := range keys {
			fmt.Fprintf(&b, "  %s = %s\n", gs.Dynamic[k], dimSource(k))
		}
	}
	if len(gs.Producer) == 0 {
		why := ""
		if u.Trace != nil {
			if m, _ := u.Trace.Producer["method"].(string); m == "fx.symbolic_trace" {
				why = " (torch.fx.symbolic_trace records no guards; a Dynamo export would)"
			}
		}
		b.WriteString("recorded by the producer: none" + why + "\n")
		return b.String()
	}
	fmt.Fprintf(&b, "recorded by the producer (%d):\n", len(gs.Producer))
	for _, p := range gs.Producer {
		note := "no derived counterpart"
		if counterpart(gs.Derived, p) {
			note = "derived too"
		}
		fmt.Fprintf(&b, "  %-18s %s    [%s]\n", p.Kind, p.Text, note)
	}
	return b.String()
}

// dimSource turns "x:0" into L['x'].size()[0].
func dimSource(key string) string {
	i := strings.LastIndexByte(key, ':')
	if i < 0 {
		return key
	}
	return fmt.Sprintf("%s.size()[%s]", Source(key[:i], true), key[i+1:])
}

// counterpart reports whether gcdbg derived a guard of the same kind on the
// same source as the producer's guard p.
func counterpart(derived []ir.Guard, p ir.Guard) bool {
	for _, d := range derived {
		if d.Kind == p.Kind && (d.Source == p.Source || strings.Contains(d.Source, p.Source)) {
			return true
		}
	}
	return false
}
