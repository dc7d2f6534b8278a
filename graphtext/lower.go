package graphtext

import (
	"math"
	"strconv"
	"strings"

	"gcdbg/ir"
)

// lower turns an expression into an ir.Arg, appending a node for every
// call and operator in it (inner ones first, as Python evaluates them).
// name is the statement's target, given to the node the whole expression
// makes; ann is the statement's annotation, the meta of that node.
// inIndex is true inside a subscript, where lists and slices mean indexing.
func (b *builder) lower(e expr, name string, ann *annot, inIndex bool) (ir.Arg, error) {
	before := len(b.g.Nodes)
	v, err := b.lowerExpr(e, name, ann, inIndex)
	if err != nil {
		return nil, err
	}
	if n, ok := v.(*ir.Node); ok && ann != nil && len(b.g.Nodes) > before && b.g.Nodes[len(b.g.Nodes)-1] == n {
		m, err := b.dims.tensorMeta(ann)
		if err != nil {
			return nil, err
		}
		if m != nil && n.Op != ir.GetAttr {
			n.Meta.Tensor = m
		}
	}
	return v, nil
}

func (b *builder) lowerExpr(e expr, name string, ann *annot, inIndex bool) (ir.Arg, error) {
	switch x := e.(type) {
	case *numExpr:
		return x.v, nil
	case *strExpr:
		return x.s, nil
	case *constExpr:
		if _, ok := x.v.(ellipsis); ok {
			return ir.Ellipsis{}, nil
		}
		return x.v, nil
	case *nameExpr:
		return b.lookup(x.name, x.p)
	case *seqExpr:
		items := make([]ir.Arg, len(x.items))
		for i, it := range x.items {
			v, err := b.lower(it, "", nil, inIndex)
			if err != nil {
				return nil, err
			}
			items[i] = v
		}
		if x.list && inIndex {
			return ir.List(items), nil
		}
		return ir.Tuple(items), nil
	case *sliceExpr:
		if !inIndex {
			return nil, b.errf(x.p, "a slice (a:b) is only allowed inside a subscript")
		}
		var parts [3]ir.Arg
		for i, pe := range []expr{x.lo, x.hi, x.step} {
			if pe == nil {
				continue
			}
			v, err := b.lower(pe, "", nil, false)
			if err != nil {
				return nil, err
			}
			switch v.(type) {
			case nil, int64, *ir.Node:
			default:
				return nil, b.errf(pe.at(), "a slice bound must be an int, None or a node")
			}
			parts[i] = v
		}
		return ir.Slice{Start: parts[0], Stop: parts[1], Step: parts[2]}, nil
	case *binExpr:
		l, err := b.lower(x.x, "", nil, false)
		if err != nil {
			return nil, err
		}
		r, err := b.lower(x.y, "", nil, false)
		if err != nil {
			return nil, err
		}
		op := binaryOps[x.op]
		return b.call(x.p, ir.CallFunction, "operator."+op, []ir.Arg{l, r}, nil, name, strings.TrimSuffix(op, "_")), nil
	case *unaryExpr:
		v, err := b.lower(x.x, "", nil, false)
		if err != nil {
			return nil, err
		}
		if f, ok := v.(float64); ok && x.op == "-" { // -inf
			return -f, nil
		}
		op := unaryOps[x.op]
		return b.call(x.p, ir.CallFunction, "operator."+op, []ir.Arg{v}, nil, name, strings.TrimSuffix(op, "_")), nil
	case *indexExpr:
		v, err := b.lowerNode(x.x, "subscript")
		if err != nil {
			return nil, err
		}
		idx, err := b.lower(x.index, "", nil, true)
		if err != nil {
			return nil, err
		}
		return b.call(x.p, ir.CallFunction, "operator.getitem", []ir.Arg{v, idx}, nil, name, "getitem"), nil
	case *attrExpr:
		if path, ok := selfPath(x); ok {
			return b.getAttr(path, x.p, name, ann)
		}
		if root, parts, ok := dotted(x); ok {
			if _, local := b.env[root]; !local {
				if mod, ok := b.modulePath(root); ok {
					return b.constant(mod+"."+strings.Join(parts, "."), x.p)
				}
			}
		}
		v, err := b.lowerNode(x.x, "attribute access")
		if err != nil {
			return nil, err
		}
		return b.call(x.p, ir.CallFunction, "builtins.getattr", []ir.Arg{v, x.name}, nil, name, "getattr"), nil
	case *callExpr:
		return b.lowerCall(x, name, ann)
	}
	return nil, b.errf(e.at(), "unsupported expression")
}

// lowerNode lowers an expression that must be a node (what x.attr and
// x[i] read).
func (b *builder) lowerNode(e expr, what string) (*ir.Node, error) {
	v, err := b.lower(e, "", nil, false)
	if err != nil {
		return nil, err
	}
	n, ok := v.(*ir.Node)
	if !ok {
		return nil, b.errf(e.at(), "%s needs a tensor or node, found %s", what, show(v))
	}
	return n, nil
}

// dotted splits a.b.c into its root name and attribute names.
func dotted(e expr) (string, []string, bool) {
	var parts []string
	for {
		switch x := e.(type) {
		case *attrExpr:
			parts = append([]string{x.name}, parts...)
			e = x.x
		case *nameExpr:
			return x.name, parts, true
		default:
			return "", nil, false
		}
	}
}

// selfPath recognises self.a.b and getattr(self.a, "0").b, the module path
// of a parameter.
func selfPath(e expr) (string, bool) {
	switch x := e.(type) {
	case *nameExpr:
		return "", x.name == "self"
	case *attrExpr:
		p, ok := selfPath(x.x)
		if !ok {
			return "", false
		}
		if p == "" {
			return x.name, true
		}
		return p + "." + x.name, true
	case *callExpr:
		if fn, ok := x.fn.(*nameExpr); ok && fn.name == "getattr" && len(x.args) == 2 && len(x.kwargs) == 0 {
			s, isStr := x.args[1].(*strExpr)
			p, ok := selfPath(x.args[0])
			if isStr && ok && s.s != "" {
				if p == "" {
					return s.s, true
				}
				return p + "." + s.s, true
			}
		}
	}
	return "", false
}

// getAttr reads self.PATH: a get_attr node on a declared tensor (a class
// line, a `# gcdbg: param` directive, or this statement's annotation).
func (b *builder) getAttr(path string, at Pos, name string, ann *annot) (ir.Arg, error) {
	if path == "" {
		return nil, b.errf(at, "`self` alone is not a value; read a parameter as self.NAME")
	}
	sp := b.attrs[path]
	if sp == nil {
		meta, err := b.dims.tensorMeta(ann)
		if err != nil {
			return nil, err
		}
		if meta == nil && b.isSubgraph(path) {
			// A nested GraphModule of the file (a higher-order op's body,
			// such as cond_true_0 or score_mod_0): its name, as data for the
			// op that takes it.
			return "self." + path, nil
		}
		if meta == nil {
			return nil, b.errf(at, "self.%s is not declared: annotate the statement (w: \"f32[4, 8]\" = self.%s), add a class line (%s: \"f32[4, 8]\") or `# gcdbg: param %s f32[4, 8]`", path, path, path, path)
		}
		sp = &tensorSpec{target: path, pos: at, meta: meta, attr: true, grad: meta.DType.IsFloat() || b.f.grad[path]}
		b.attrs[path] = sp
	}
	if b.specs[path] == nil {
		b.specs[path] = sp
		b.order = append(b.order, sp)
	}
	n := b.call(at, ir.GetAttr, path, nil, nil, name, path)
	if sp.meta != nil {
		m := *sp.meta
		m.RequiresGrad = sp.grad
		n.Meta.Tensor = &m
	}
	sp.nodes = append(sp.nodes, n)
	return n, nil
}

// lowerCall lowers f(args): a function by its dotted path (torch.sin,
// torch.ops.aten.sin.default, operator.add), a method of a node
// (x.view(2, 3)), or one of the few builtins graphs print.
func (b *builder) lowerCall(c *callExpr, name string, ann *annot) (ir.Arg, error) {
	if path, ok := selfPath(c); ok { // getattr(self.layers, "0")
		return b.getAttr(path, c.p, name, ann)
	}
	if path, ok := selfPath(c.fn); ok {
		return nil, b.errf(c.p, "calling the module self.%s is not supported: write the functional call it makes (torch.nn.functional.linear(x, self.%s.weight, self.%s.bias))", path, path, path)
	}
	root, parts, ok := dotted(c.fn)
	if !ok {
		return nil, b.errf(c.p, "only functions and methods can be called")
	}
	if _, local := b.env[root]; local && len(parts) > 0 {
		// A method call: x.view(2, 3) is call_method view with args (x, 2, 3).
		recv, err := b.lowerNode(c.fn.(*attrExpr).x, "a method call")
		if err != nil {
			return nil, err
		}
		args, kwargs, err := b.callArgs(c)
		if err != nil {
			return nil, err
		}
		m := parts[len(parts)-1]
		return b.call(c.p, ir.CallMethod, m, append([]ir.Arg{recv}, args...), kwargs, name, m), nil
	}
	if _, local := b.env[root]; local {
		return nil, b.errf(c.p, "%q is a value, not a function", root)
	}
	var target string
	if mod, ok := b.modulePath(root); ok {
		target = strings.Join(append([]string{mod}, parts...), ".")
	} else if len(parts) == 0 {
		return b.builtin(c, root, name)
	} else {
		return nil, b.errf(c.fn.at(), "name %q is not defined", root)
	}
	args, kwargs, err := b.callArgs(c)
	if err != nil {
		return nil, err
	}
	switch target {
	case "torch.device":
		return deviceArg(args, kwargs), nil
	case "torch.Size":
		if len(args) == 1 {
			if t, ok := args[0].(ir.Tuple); ok {
				return t, nil
			}
		}
	}
	return b.call(c.p, ir.CallFunction, target, args, kwargs, name, opName(target)), nil
}

// opName is the name fx gives a call's node: torch.ops.aten.sin.default → sin.
func opName(target string) string {
	parts := strings.Split(target, ".")
	if len(parts) >= 4 && parts[0] == "torch" && parts[1] == "ops" {
		return parts[3]
	}
	if len(parts) >= 2 && (parts[0] == "aten" || parts[0] == "prims") {
		return parts[1]
	}
	return strings.TrimSuffix(parts[len(parts)-1], "_")
}

func (b *builder) callArgs(c *callExpr) ([]ir.Arg, []ir.Kwarg, error) {
	args := make([]ir.Arg, len(c.args))
	for i, a := range c.args {
		v, err := b.lower(a, "", nil, false)
		if err != nil {
			return nil, nil, err
		}
		args[i] = v
	}
	var kwargs []ir.Kwarg
	for _, kw := range c.kwargs {
		v, err := b.lower(kw.value, "", nil, false)
		if err != nil {
			return nil, nil, err
		}
		kwargs = append(kwargs, ir.Kwarg{Name: kw.name, Value: v})
	}
	return args, kwargs, nil
}

// builtin handles the bare functions fx code uses: getattr, slice,
// device, float("inf").
func (b *builder) builtin(c *callExpr, fn, name string) (ir.Arg, error) {
	args, kwargs, err := b.callArgs(c)
	if err != nil {
		return nil, err
	}
	switch fn {
	case "getattr":
		if len(args) == 2 && len(kwargs) == 0 {
			_, isNode := args[0].(*ir.Node)
			_, isStr := args[1].(string)
			if isNode && isStr {
				return b.call(c.p, ir.CallFunction, "builtins.getattr", args, nil, name, "getattr"), nil
			}
		}
		return nil, b.errf(c.p, "getattr needs a node and an attribute name")
	case "slice":
		if len(args) >= 1 && len(args) <= 3 && len(kwargs) == 0 {
			parts := [3]ir.Arg{}
			if len(args) == 1 {
				parts[1] = args[0]
			} else {
				copy(parts[:], args)
			}
			for i, a := range parts {
				switch a.(type) {
				case nil, int64, *ir.Node:
				default:
					return nil, b.errf(c.args[min(i, len(c.args)-1)].at(), "a slice bound must be an int, None or a node")
				}
			}
			return ir.Slice{Start: parts[0], Stop: parts[1], Step: parts[2]}, nil
		}
		return nil, b.errf(c.p, "slice takes one to three arguments")
	case "device":
		return deviceArg(args, kwargs), nil
	case "float":
		if len(args) == 1 {
			switch v := args[0].(type) {
			case string:
				switch strings.ToLower(strings.TrimSpace(v)) {
				case "inf", "+inf", "infinity":
					return math.Inf(1), nil
				case "-inf", "-infinity":
					return math.Inf(-1), nil
				case "nan":
					return math.NaN(), nil
				}
			case int64:
				return float64(v), nil
			case float64:
				return v, nil
			}
		}
		return nil, b.errf(c.p, "float(...) takes a number or \"inf\", \"-inf\", \"nan\"")
	}
	return nil, b.errf(c.fn.at(), "unknown function %q (call torch.*, torch.ops.aten.*, operator.* or a method of a node)", fn)
}

// deviceArg makes device(type='cuda', index=0) or torch.device("cpu").
func deviceArg(args []ir.Arg, kwargs []ir.Kwarg) ir.Arg {
	typ, idx := "cpu", ir.Arg(nil)
	if len(args) > 0 {
		if s, ok := args[0].(string); ok {
			typ = s
		}
	}
	if len(args) > 1 {
		idx = args[1]
	}
	for _, kw := range kwargs {
		switch kw.Name {
		case "type":
			if s, ok := kw.Value.(string); ok {
				typ = s
			}
		case "index":
			idx = kw.Value
		}
	}
	if i, ok := idx.(int64); ok && !strings.Contains(typ, ":") {
		typ += ":" + strconv.FormatInt(i, 10)
	}
	return ir.Device(typ)
}

// show prints an arg for a message.
func show(v ir.Arg) string {
	return ir.FormatArg(v, func(n *ir.Node) string { return n.Name })
}

// isSubgraph reports whether path names a class of the file other than the
// graph's own: Dynamo prints a higher-order op's bodies as nested classes.
func (b *builder) isSubgraph(path string) bool {
	for _, fn := range b.f.funcs {
		if fn.class == path {
			return true
		}
	}
	return false
}
