package graphtext

import (
	"fmt"
	"math"
	"strings"

	"gcdbg/ir"
	"gcdbg/tensor"
)

// A tensorSpec is a tensor a graph reads (a placeholder or a self.X
// parameter): inputs.go generates it or reads it from the sidecar.
type tensorSpec struct {
	target string
	pos    Pos
	meta   *ir.TensorMeta // nil: no shape given (the sidecar must have it)
	attr   bool
	grad   bool
	nodes  []*ir.Node // the nodes whose meta the tensor completes
}

// builder lowers one parsed function to an ir.Graph.
type builder struct {
	file    string
	f       *file
	dims    *dimEnv
	g       *ir.Graph
	env     map[string]ir.Arg // what each Python name holds
	cleared map[string]Pos    // names set to None (`x = None`), for messages
	names   map[string]bool   // node names taken
	suffix  map[string]int    // the last _N suffix fresh gave each base
	specs   map[string]*tensorSpec
	order   []*tensorSpec
	attrs   map[string]*tensorSpec // shared by every graph of the file
	frame   *frameInfo
}

// knownRoots are the modules a call may name without an import.
var knownRoots = map[string]string{
	"torch": "torch", "operator": "operator", "_operator": "operator", "aten": "aten",
	"prims": "prims", "math": "math", "builtins": "builtins",
}

// binaryOps maps Python operators to the operator module's functions, the
// targets torch.fx records for them.
var binaryOps = map[string]string{
	"+": "add", "-": "sub", "*": "mul", "/": "truediv", "//": "floordiv", "%": "mod", "**": "pow",
	"@": "matmul", "&": "and_", "|": "or_", "^": "xor", "<<": "lshift", ">>": "rshift",
	"<": "lt", ">": "gt", "<=": "le", ">=": "ge", "==": "eq", "!=": "ne",
}

var unaryOps = map[string]string{"-": "neg", "+": "pos", "~": "invert", "not": "not_"}

func (b *builder) errf(at Pos, format string, a ...any) error {
	return &Error{File: b.file, Pos: at, Msg: fmt.Sprintf(format, a...)}
}

// function builds the graph of one `def forward`.
func (b *builder) function(fn *function, name string) (*ir.Graph, error) {
	b.g = &ir.Graph{Name: name, Tensors: map[string]*ir.TensorData{}}
	b.env, b.cleared, b.names, b.suffix = map[string]ir.Arg{}, map[string]Pos{}, map[string]bool{}, map[string]int{}
	b.specs, b.order = map[string]*tensorSpec{}, nil
	for _, pr := range fn.params {
		if err := b.placeholder(pr); err != nil {
			return nil, err
		}
	}
	for _, s := range fn.body {
		b.frame = s.frame
		if err := b.statement(s); err != nil {
			return nil, err
		}
	}
	return b.g, nil
}

func (b *builder) placeholder(pr param) error {
	n := &ir.Node{Name: pr.name, Op: ir.Placeholder, Target: pr.name}
	b.names[pr.name] = true
	b.g.Nodes = append(b.g.Nodes, n)
	b.env[pr.name] = n
	a := pr.ann
	if pr.def != nil { // a Python value: scale: float = 0.5
		if a != nil && !a.other {
			return b.errf(pr.def.at(), "parameter %q: a tensor input cannot have a default value", pr.name)
		}
		v, err := b.lower(pr.def, "", nil, false)
		if err != nil {
			return err
		}
		if hasNode(v) {
			return b.errf(pr.def.at(), "parameter %q: a default value must be a constant", pr.name)
		}
		n.Meta.Value, n.Meta.HasValue = v, true
		return nil
	}
	if a != nil && a.sym != nil { // a size input: n: "Sym(s0)"
		v, err := b.dims.eval(a.sym, 0)
		if err != nil {
			return err
		}
		n.Meta.Value, n.Meta.HasValue = v, true
		return nil
	}
	meta, err := b.dims.tensorMeta(a)
	if err != nil {
		return err
	}
	at := pr.p
	for _, in := range b.f.inputs {
		if in.name == pr.name && meta == nil {
			if meta, err = b.dims.tensorMeta(in.ann); err != nil {
				return err
			}
			if meta == nil {
				return b.errf(in.p, "input %q: the directive needs a tensor type such as f32[8, 16]", in.name)
			}
		}
	}
	if a != nil && a.other && !isTensorType(a.text) {
		return b.errf(a.dtPos, "parameter %q: %q is not an input gcdbg can make; annotate a tensor (\"f32[8, 16]\") or a size (\"Sym(s0)\")", pr.name, a.text)
	}
	sp := &tensorSpec{target: pr.name, pos: at, meta: meta, grad: b.f.grad[pr.name], nodes: []*ir.Node{n}}
	b.specs[pr.name] = sp
	b.order = append(b.order, sp)
	if meta != nil {
		m := *meta
		m.RequiresGrad = sp.grad
		n.Meta.Tensor = &m
	}
	return nil
}

func isTensorType(s string) bool {
	return s == "torch.Tensor" || s == "Tensor" || s == "torch.nn.Parameter"
}

func (b *builder) statement(s *stmt) error {
	switch s.kind {
	case sReturn:
		out := &ir.Node{Name: b.fresh("output"), Op: ir.Output, Target: "output"}
		var v ir.Arg
		if s.value != nil {
			var err error
			if v, err = b.lower(s.value, "", nil, false); err != nil {
				return err
			}
			if l, ok := v.(ir.List); ok {
				v = ir.Tuple(l) // fx's `return [a]`: the trace contract's tuple
			}
		}
		out.Args = []ir.Arg{v}
		b.g.Nodes = append(b.g.Nodes, out)
		return nil
	case sExpr:
		if _, ok := s.value.(*strExpr); ok {
			return nil // a docstring
		}
		_, err := b.lower(s.value, "", nil, false)
		return err
	case sSetItem:
		x, err := b.lowerNode(s.item.x, "item assignment")
		if err != nil {
			return err
		}
		idx, err := b.lower(s.item.index, "", nil, true)
		if err != nil {
			return err
		}
		v, err := b.lower(s.value, "", nil, false)
		if err != nil {
			return err
		}
		b.call(s.item.p, ir.CallFunction, "operator.setitem", []ir.Arg{x, idx, v}, nil, "", "setitem")
		return nil
	case sAugAssign:
		name := s.targets[0][0]
		x, err := b.lookup(name, s.tpos)
		if err != nil {
			return err
		}
		v, err := b.lower(s.value, "", nil, false)
		if err != nil {
			return err
		}
		b.env[name] = b.call(s.p, ir.CallFunction, "operator.i"+strings.TrimSuffix(binaryOps[s.op], "_"), []ir.Arg{x, v}, nil, name, "")
		return nil
	}
	// Assignment.
	if c, ok := s.value.(*constExpr); ok && c.v == nil && s.ann == nil {
		// PyTorch's `x = None` cleanup: the name is free again.
		for _, t := range s.targets {
			for _, nm := range t {
				delete(b.env, nm)
				b.cleared[nm] = s.p
			}
		}
		return nil
	}
	first := s.targets[0]
	name := ""
	if len(first) == 1 {
		name = first[0]
	}
	v, err := b.lower(s.value, name, s.ann, false)
	if err != nil {
		return err
	}
	for _, t := range s.targets {
		if err := b.bind(t, v, s); err != nil {
			return err
		}
	}
	return nil
}

// bind assigns v to a target: one name, or names unpacked from a tuple
// (a node's items become getitem nodes, as fx records them).
func (b *builder) bind(names []string, v ir.Arg, s *stmt) error {
	if len(names) == 1 {
		b.env[names[0]] = v
		delete(b.cleared, names[0])
		return nil
	}
	switch x := v.(type) {
	case *ir.Node:
		for i, nm := range names {
			b.env[nm] = b.call(s.tpos, ir.CallFunction, "operator.getitem", []ir.Arg{x, int64(i)}, nil, nm, "")
			delete(b.cleared, nm)
		}
		return nil
	case ir.Tuple:
		if len(x) != len(names) {
			return b.errf(s.tpos, "cannot unpack %d values into %d names", len(x), len(names))
		}
		for i, nm := range names {
			b.env[nm] = x[i]
			delete(b.cleared, nm)
		}
		return nil
	}
	return b.errf(s.tpos, "cannot unpack %s into %d names", show(v), len(names))
}

// fresh returns an unused node name built from base, as fx does (sin, sin_1).
func (b *builder) fresh(base string) string {
	base = sanitize(base)
	name := base
	// Suffixes continue from the last one given to base, so a long graph
	// of adds costs one probe per add rather than one per earlier add.
	for b.names[name] {
		b.suffix[base]++
		name = fmt.Sprintf("%s_%d", base, b.suffix[base])
	}
	b.names[name] = true
	return name
}

func sanitize(s string) string {
	var sb strings.Builder
	for i, r := range s {
		if isNamePart(r) && !(i == 0 && r >= '0' && r <= '9') {
			sb.WriteRune(r)
		} else {
			sb.WriteByte('_')
		}
	}
	if sb.Len() == 0 {
		return "_"
	}
	return sb.String()
}

// call appends a node. name is the statement's target (kept when free);
// hint names nested calls.
func (b *builder) call(at Pos, op, target string, args []ir.Arg, kwargs []ir.Kwarg, name, hint string) *ir.Node {
	if name == "" {
		name = hint
	}
	n := &ir.Node{Name: b.fresh(name), Op: op, Target: target, Args: args, Kwargs: kwargs}
	if f := b.frame; f != nil {
		n.Meta.Stack = []ir.Frame{{File: f.File, Line: f.Line, Func: f.Func, Code: f.Code}}
	}
	b.g.Nodes = append(b.g.Nodes, n)
	return n
}

// lookup resolves a Python name to what it holds.
func (b *builder) lookup(name string, at Pos) (ir.Arg, error) {
	if v, ok := b.env[name]; ok {
		return v, nil
	}
	if p, ok := b.cleared[name]; ok {
		return nil, b.errf(at, "name %q was set to None at line %d", name, p.Line)
	}
	switch name {
	case "inf":
		return math.Inf(1), nil
	case "nan":
		return math.NaN(), nil
	case "Ellipsis":
		return ir.Ellipsis{}, nil
	}
	if path, ok := b.modulePath(name); ok {
		return b.constant(path, at)
	}
	if name == "self" {
		return nil, b.errf(at, "`self` alone is not a value; read a parameter as self.NAME")
	}
	return nil, b.errf(at, "name %q is not defined", name)
}

// modulePath resolves a name that is not a local: an import alias or a
// module gcdbg knows without one.
func (b *builder) modulePath(name string) (string, bool) {
	if p, ok := b.f.aliases[name]; ok {
		if r, ok := knownRoots[p]; ok {
			return r, true
		}
		return p, true
	}
	p, ok := knownRoots[name]
	return p, ok
}

// memoryFormats are written as plain strings, as the trace exporter does.
var memoryFormats = map[string]bool{
	"torch.channels_last": true, "torch.contiguous_format": true, "torch.preserve_format": true,
	"torch.channels_last_3d": true, "torch.strided": true, "torch.sparse_coo": true,
}

// constant resolves a dotted module path used as a value.
func (b *builder) constant(path string, at Pos) (ir.Arg, error) {
	if strings.HasPrefix(path, "torch.") {
		if dt, ok := tensor.ParseDType(path); ok {
			return dt, nil
		}
		if memoryFormats[path] {
			return path, nil
		}
	}
	switch path {
	case "math.inf":
		return math.Inf(1), nil
	case "math.nan":
		return math.NaN(), nil
	case "math.pi":
		return math.Pi, nil
	case "math.e":
		return math.E, nil
	case "torch.inf":
		return math.Inf(1), nil
	}
	return nil, b.errf(at, "%s is not a value gcdbg knows (a dtype such as torch.float32, a memory format or a math constant)", path)
}

func hasNode(v ir.Arg) bool {
	found := false
	ir.MapArg(v, func(n *ir.Node) ir.Arg { found = true; return n })
	return found
}
