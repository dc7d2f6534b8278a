package viz

import (
	"regexp"
	"strings"

	"gcdbg/ir"
)

// selfCall finds the module calls `self.NAME(` in a line of source.
var selfCall = regexp.MustCompile(`self\.([A-Za-z_][A-Za-z0-9_]*)\s*\(`)

// ModuleGroups maps nodes to the top-level module they belong to, for
// collapsing: a node whose name starts with a module path (dots as
// underscores: "linear_relu_stack_0_mm", "attn_c_attn") belongs to that
// path's first component, found among the graph's call_module targets,
// parameter targets and tensors; otherwise the user's stack says: a node
// created inside a submodule (two or more frames) belongs to the first
// module the outermost line calls, a node of a line calling exactly one
// module to that module. Nodes no rule places are left out.
func ModuleGroups(g *ir.Graph) map[string]string {
	called := map[string]bool{} // call_module targets
	for _, n := range g.Nodes {
		if n.Op == ir.CallModule {
			called[n.Target] = true
		}
	}
	prefixes := map[string]string{} // module path, dots as underscores -> its first component
	addPath := func(path string) {
		parts := strings.Split(path, ".")
		if len(parts) < 2 && !called[path] {
			return // a plain input name, not a module path
		}
		for i := 1; i <= len(parts); i++ {
			prefixes[strings.Join(parts[:i], "_")] = parts[0]
		}
	}
	for _, n := range g.Nodes {
		if n.Op == ir.CallModule || n.Op == ir.GetAttr {
			addPath(n.Target)
		}
	}
	for name := range g.Tensors {
		addPath(name)
	}
	out := map[string]string{}
	for _, n := range g.Nodes {
		if n.Op == ir.Output {
			continue
		}
		if top := prefixTop(n.Name, prefixes); top != "" {
			out[n.Name] = top
			continue
		}
		if top := stackTop(n.Meta.Stack); top != "" {
			out[n.Name] = top
		}
	}
	return out
}

// prefixTop returns the first component of the longest module path that
// name equals or extends with "_".
func prefixTop(name string, prefixes map[string]string) string {
	best := ""
	for p := range prefixes {
		if (name == p || strings.HasPrefix(name, p+"_")) && len(p) > len(best) {
			best = p
		}
	}
	if best == "" {
		return ""
	}
	return prefixes[best]
}

func stackTop(stack []ir.Frame) string {
	if len(stack) == 0 {
		return ""
	}
	calls := selfCall.FindAllStringSubmatch(stack[0].Code, -1)
	if len(calls) == 0 || (len(stack) == 1 && len(calls) > 1) {
		return ""
	}
	return calls[0][1]
}

// Grouping is how nodes collapse: node name -> group name.
type Grouping map[string]string

// Members lists each group's nodes in graph order.
func (gr Grouping) Members(g *ir.Graph) map[string][]string {
	out := map[string][]string{}
	for _, n := range g.Nodes {
		if k, ok := gr[n.Name]; ok {
			out[k] = append(out[k], n.Name)
		}
	}
	return out
}
