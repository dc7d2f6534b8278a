package ir

import (
	"fmt"
	"strings"
)

func pctName(n *Node) string   { return "%" + n.Name }
func plainName(n *Node) string { return n.Name }

// FormatCall prints a node's args and kwargs as fx does: (a, b) and {k: v}.
func formatArgsKwargs(n *Node, nodeFmt func(*Node) string) (string, string) {
	args := FormatArg(Tuple(n.Args), nodeFmt)
	kws := make([]string, len(n.Kwargs))
	for i, kv := range n.Kwargs {
		kws[i] = kv.Name + ": " + FormatArg(kv.Value, nodeFmt)
	}
	return args, "{" + strings.Join(kws, ", ") + "}"
}

// FXGraph prints g as torch.fx's Graph.__str__ does:
//
//	graph():
//	    %x : [#users=1] = placeholder[target=x]
//	    %relu : [#users=1] = call_function[target=torch.relu](args = (%x,), kwargs = {})
//	    return relu
func FXGraph(g *Graph) string {
	var b strings.Builder
	b.WriteString("graph():\n")
	users := g.Users()
	for _, n := range g.Nodes {
		b.WriteString("    ")
		b.WriteString(FXNode(n, users[n]))
		b.WriteByte('\n')
	}
	return b.String()
}

// FXNode prints one node in fx's graph form.
func FXNode(n *Node, users int) string {
	if n.Op == Output {
		if len(n.Args) == 0 {
			return "return None"
		}
		return "return " + FormatArg(n.Args[0], plainName)
	}
	typ := ""
	if m := n.Meta.Tensor; m != nil {
		typ = " " + m.String()
	}
	head := fmt.Sprintf("%%%s :%s [#users=%d] = %s[target=%s]", n.Name, typ, users, n.Op, n.Target)
	if n.Op == Placeholder || n.Op == GetAttr {
		return head
	}
	args, kws := formatArgsKwargs(n, pctName)
	return fmt.Sprintf("%s(args = %s, kwargs = %s)", head, args, kws)
}

// Readable prints g as GraphModule.print_readable does:
//
//	def forward(self, x: "f32[8, 784]"):
//	    # File: mlp.py:12, code: x = self.fc1(x)
//	    linear: "f32[8, 512]" = torch._C._nn.linear(x, fc1_weight, fc1_bias)
//	    return (linear,)
func Readable(g *Graph) string {
	var b strings.Builder
	var params []string
	for _, n := range g.Nodes {
		if n.Op == Placeholder {
			params = append(params, n.Name+annotation(n, ": "))
		}
	}
	fmt.Fprintf(&b, "def forward(self, %s):\n", strings.Join(params, ", "))
	var lastFrame string
	for _, n := range g.Nodes {
		if n.Op == Placeholder {
			continue
		}
		if st := n.Meta.Stack; len(st) > 0 {
			f := st[len(st)-1]
			if loc := fmt.Sprintf("# File: %s:%d, code: %s", f.File, f.Line, strings.TrimSpace(f.Code)); loc != lastFrame {
				b.WriteString("    " + loc + "\n")
				lastFrame = loc
			}
		}
		line := "    " + ReadableNode(n)
		if n.Meta.HasValue && n.Meta.Tensor == nil && n.Op != Output {
			// Python values (sizes, shape arithmetic) are known at compile time.
			line += "  # " + FormatArg(n.Meta.Value, plainName)
		}
		b.WriteString(line + "\n")
	}
	return b.String()
}

// ReadableNode prints one node as a line of Python.
func ReadableNode(n *Node) string {
	lhs := n.Name + annotation(n, ": ")
	args, _ := formatArgsKwargs(n, plainName)
	inner := strings.TrimSuffix(strings.TrimPrefix(args, "("), ")")
	inner = strings.TrimSuffix(inner, ",")
	for _, kv := range n.Kwargs {
		if inner != "" {
			inner += ", "
		}
		inner += kv.Name + " = " + FormatArg(kv.Value, plainName)
	}
	switch n.Op {
	case Output:
		if len(n.Args) == 0 {
			return "return None"
		}
		return "return " + FormatArg(n.Args[0], plainName)
	case GetAttr:
		return lhs + " = " + selfPath(n.Target)
	case CallModule:
		return lhs + " = " + selfPath(n.Target) + "(" + inner + ")"
	case CallMethod:
		if len(n.Args) == 0 {
			return lhs + " = ?." + n.Target + "()"
		}
		recv := FormatArg(n.Args[0], plainName)
		rest, _ := formatArgsKwargs(&Node{Args: n.Args[1:]}, plainName)
		rest = strings.TrimSuffix(strings.TrimSuffix(strings.TrimPrefix(rest, "("), ")"), ",")
		for _, kv := range n.Kwargs {
			if rest != "" {
				rest += ", "
			}
			rest += kv.Name + " = " + FormatArg(kv.Value, plainName)
		}
		return lhs + " = " + recv + "." + n.Target + "(" + rest + ")"
	}
	return lhs + " = " + n.Target + "(" + inner + ")"
}

// selfPath spells a module path as Python code would reach it:
// "stack.0.weight" becomes getattr(self.stack, "0").weight.
func selfPath(path string) string {
	expr := "self"
	for _, part := range strings.Split(path, ".") {
		if part != "" && (part[0] >= '0' && part[0] <= '9') {
			expr = fmt.Sprintf("getattr(%s, %q)", expr, part)
		} else {
			expr += "." + part
		}
	}
	return expr
}

func annotation(n *Node, sep string) string {
	if m := n.Meta.Tensor; m != nil {
		return sep + `"` + m.String() + `"`
	}
	return ""
}
