package render

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"

	"gcdbg/compiler"
	"gcdbg/ir"
	"gcdbg/loopir"
	"gcdbg/tensor"
)

// The driver: fallback kernels split the schedule into segments; each
// segment of compiled kernels is one entry point gcdbg_segN with the ABI
// of compiler/manifest.go, and each fallback becomes a manifest step the
// parent runs eagerly on strided views of the buffer slots.

// entries writes the entry points and fills the manifest's steps.
func (r *renderer) entries(specs []compiler.KernelSpec) (string, error) {
	var b strings.Builder
	var seg []int
	flush := func() {
		if len(seg) == 0 {
			return
		}
		entry := fmt.Sprintf("gcdbg_seg%d", len(r.segments()))
		step := compiler.Step{Kind: "segment", Entry: entry}
		b.WriteString(r.segment(entry, seg))
		for _, ki := range seg {
			step.Kernels = append(step.Kernels, specs[ki])
		}
		r.man.Steps = append(r.man.Steps, step)
		seg = nil
	}
	for ki, k := range r.kernels {
		if !isFallback(k) {
			seg = append(seg, ki)
			continue
		}
		flush()
		step, err := r.fallback(k)
		if err != nil {
			return "", fmt.Errorf("kernel %d (%s): %w", ki, k.Name, err)
		}
		r.man.Steps = append(r.man.Steps, step)
	}
	flush()
	return b.String(), nil
}

func (r *renderer) segments() []compiler.Step {
	var out []compiler.Step
	for _, s := range r.man.Steps {
		if s.Kind == "segment" {
			out = append(out, s)
		}
	}
	return out
}

// segment writes one entry point: sizes from syms, pointers from bufs (or
// the arena), then each kernel with its index and wall time recorded.
func (r *renderer) segment(entry string, kernels []int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "\nvoid %s(char **bufs, const int64_t *syms, double *kernel_seconds, volatile int32_t *current_kernel) {\n", entry)
	for i, s := range r.man.Symbols {
		fmt.Fprintf(&b, "  const int64_t %s = syms[%d];\n", s, i)
	}
	b.WriteString("  double t0 = 0;\n")
	for _, ki := range kernels {
		g := r.gens[ki]
		var args []string
		for _, p := range g.params {
			args = append(args, r.pointer(r.store[p]))
		}
		args = append(args, r.man.Symbols...)
		fmt.Fprintf(&b, "  if (current_kernel) *current_kernel = %d;\n", ki)
		b.WriteString("  if (kernel_seconds) t0 = gcdbg_now();\n")
		if g.ci {
			args = append(args, fmt.Sprint(ki))
		}
		fn := g.name
		if g.fn != "" {
			fn = g.fn
		}
		fmt.Fprintf(&b, "  %s(%s);\n", fn, strings.Join(args, ", "))
		fmt.Fprintf(&b, "  if (kernel_seconds) kernel_seconds[%d] = gcdbg_now() - t0;\n", ki)
	}
	b.WriteString("  (void)bufs; (void)syms; (void)t0;\n}\n")
	return b.String()
}

// fallback describes a fallback node as a manifest step.
func (r *renderer) fallback(k *loopir.Kernel) (compiler.Step, error) {
	if len(k.Nodes) != 1 {
		return compiler.Step{}, fmt.Errorf("a fallback kernel has %d nodes, want 1", len(k.Nodes))
	}
	n := k.Nodes[0]
	step := compiler.Step{Kind: "fallback", IRNode: n.IRNode}
	if r.p.Graph == nil {
		return step, fmt.Errorf("no graph")
	}
	irn := r.irNode(n.IRNode)
	if irn == nil {
		return step, fmt.Errorf("no graph node %q", n.IRNode)
	}
	d := ir.Lookup(irn.Target)
	if d == nil {
		return step, fmt.Errorf("node %q: %q is not a canonical op", irn.Name, irn.Target)
	}
	bound, err := d.Schema.Bind(irn.Args, irn.Kwargs)
	if err != nil {
		return step, fmt.Errorf("node %q: %w", irn.Name, err)
	}
	step.Op = irn.Target
	for i, a := range bound {
		spec, err := r.argSpec(a)
		if err != nil {
			return step, fmt.Errorf("node %q: args[%d]: %w", irn.Name, i, err)
		}
		step.Args = append(step.Args, spec)
	}
	for _, w := range n.Writes {
		st := r.store[w.Buffer]
		if st == nil {
			return step, fmt.Errorf("node %q: result buffer %q has no slot", irn.Name, w.Buffer)
		}
		step.Writes = append(step.Writes, st.slot)
	}
	return step, nil
}

// argSpec encodes one argument: a tensor as a strided view of its slot, a
// list holding tensors item by item, anything else as a constant.
func (r *renderer) argSpec(a ir.Arg) (compiler.ArgSpec, error) {
	switch x := a.(type) {
	case *ir.Node:
		if v := r.p.Values[x.Name]; v != nil {
			st := r.store[v.Buffer]
			if st == nil {
				return compiler.ArgSpec{}, fmt.Errorf("%q (buffer %s) has no slot", x.Name, v.Buffer)
			}
			sizes, ok1 := constList(v.Sizes)
			strides, ok2 := constList(v.Strides)
			off, ok3 := v.Offset.(loopir.Const)
			slot := st.slot
			if !ok1 || !ok2 || !ok3 {
				return compiler.ArgSpec{Slot: &slot, SymSizes: r.sizeStrings(v.Sizes), SymStrides: r.sizeStrings(v.Strides),
					SymOffset: r.sizeText(v.Offset)}, nil
			}
			return compiler.ArgSpec{Slot: &slot, Sizes: sizes, Strides: strides, Offset: off.V}, nil
		}
		if x.Meta.HasValue {
			return r.argSpec(x.Meta.Value)
		}
		return compiler.ArgSpec{}, fmt.Errorf("%q has no value", x.Name)
	case ir.Tuple, ir.List:
		items := []ir.Arg{}
		if t, ok := x.(ir.Tuple); ok {
			items = t
		} else {
			items = x.(ir.List)
		}
		if hasTensor(items, r) {
			spec := compiler.ArgSpec{IsList: isList(x)}
			for _, it := range items {
				s, err := r.argSpec(it)
				if err != nil {
					return spec, err
				}
				spec.Items = append(spec.Items, s)
			}
			return spec, nil
		}
	}
	raw, err := encodeArg(a)
	if err != nil {
		return compiler.ArgSpec{}, err
	}
	return compiler.ArgSpec{Const: raw, IsConst: true}, nil
}

func isList(a ir.Arg) bool { _, ok := a.(ir.List); return ok }

func hasTensor(items []ir.Arg, r *renderer) bool {
	for _, it := range items {
		if n, ok := it.(*ir.Node); ok && r.p.Values[n.Name] != nil {
			return true
		}
	}
	return false
}

func constList(es []loopir.Expr) ([]int64, bool) {
	out := make([]int64, len(es))
	for i, e := range es {
		c, ok := e.(loopir.Const)
		if !ok {
			return nil, false
		}
		out[i] = c.V
	}
	return out, true
}

// encodeArg writes a value in the trace format's ARG encoding
// (docs/trace-format.md), so a float stays a float ("3.0").
func encodeArg(a ir.Arg) (json.RawMessage, error) {
	switch x := a.(type) {
	case nil:
		return json.RawMessage("null"), nil
	case bool, string:
		return json.Marshal(x)
	case int64:
		return json.RawMessage(strconv.FormatInt(x, 10)), nil
	case float64:
		switch {
		case math.IsNaN(x):
			return json.RawMessage(`{"float": "nan"}`), nil
		case math.IsInf(x, 1):
			return json.RawMessage(`{"float": "inf"}`), nil
		case math.IsInf(x, -1):
			return json.RawMessage(`{"float": "-inf"}`), nil
		}
		s := strconv.FormatFloat(x, 'g', -1, 64)
		if !strings.ContainsAny(s, ".eE") {
			s += ".0"
		}
		return json.RawMessage(s), nil
	case tensor.DType:
		return json.RawMessage(`{"dtype": "` + x.String() + `"}`), nil
	case ir.Device:
		s, _ := json.Marshal(string(x))
		return json.RawMessage(`{"device": ` + string(s) + `}`), nil
	case ir.Tuple:
		return encodeList(x, false)
	case ir.List:
		return encodeList(x, true)
	case ir.Ellipsis: // y[..., idx] = v: index_put's subscript
		return json.RawMessage(`{"ellipsis": true}`), nil
	case ir.Slice: // y[:, idx] = v, constant bounds only (a bound computed in the graph has no value here)
		parts := make([]string, 3)
		for i, p := range []ir.Arg{x.Start, x.Stop, x.Step} {
			switch v := p.(type) {
			case nil:
				parts[i] = "null"
			case int64:
				parts[i] = strconv.FormatInt(v, 10)
			default:
				return nil, fmt.Errorf("cannot encode a slice whose bound is a %T", p)
			}
		}
		return json.RawMessage(`{"slice": [` + strings.Join(parts, ", ") + `]}`), nil
	}
	return nil, fmt.Errorf("cannot encode a %T argument", a)
}

func encodeList(items []ir.Arg, list bool) (json.RawMessage, error) {
	parts := make([]string, len(items))
	for i, it := range items {
		raw, err := encodeArg(it)
		if err != nil {
			return nil, err
		}
		parts[i] = string(raw)
	}
	s := "[" + strings.Join(parts, ", ") + "]"
	if list {
		s = `{"list": ` + s + `}`
	}
	return json.RawMessage(s), nil
}
