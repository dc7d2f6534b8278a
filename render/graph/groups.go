package graph

import (
	"regexp"
	"strings"

	"gcdbg/ir"
	"gcdbg/stages"
)

// KernelClusters maps each node of stage st's graph to the fused kernel
// that computes it, as "kernelN" (prefixed "forward/" or "backward/" for
// a training graph's two programs). It is a best effort through
// provenance: loop nodes name the compiled graph's nodes in Origins; for
// the joint and decomposed graphs of a training graph, compiled nodes are
// traced back through From (forward/backward -> joint -> decomposed). A
// node several kernels compute goes to the first; nodes no kernel names
// (placeholders, views folded into indexing) are in none. Stages before
// decomposed, or units not yet scheduled, give nil.
func KernelClusters(u *stages.Unit, st *stages.Stage) map[string]string {
	if st == nil || st.Graph == nil || len(u.Programs) == 0 {
		return nil
	}
	target := st.Graph(u)
	if target == nil {
		return nil
	}
	out := map[string]string{}
	for _, lp := range u.Programs {
		if lp.Schedule == nil || lp.Graph == nil {
			continue
		}
		// The chain from the target graph down to the compiled graph.
		chain := []*ir.Graph{lp.Graph}
		if lp.Graph != target && u.Joint != nil && u.Joint.Graph != nil {
			chain = append([]*ir.Graph{u.Joint.Graph}, chain...)
			if u.Joint.Graph != target {
				chain = append([]*ir.Graph{u.Decomposed}, chain...)
			}
		}
		if chain[0] != target {
			continue
		}
		label := map[string]string{}
		for _, k := range lp.Schedule.Kernels {
			name := k.Name
			if len(u.Programs) > 1 {
				name = lp.Role + "/" + k.Name
			}
			for _, ln := range k.Nodes {
				for _, o := range ln.Origins {
					if _, done := label[o]; !done {
						label[o] = name
					}
				}
			}
		}
		// Walk provenance back one graph at a time, keeping program order
		// so the first kernel wins.
		for i := len(chain) - 1; i > 0; i-- {
			prev := map[string]string{}
			for _, n := range chain[i].Nodes {
				if l, ok := label[n.Name]; ok {
					for _, f := range n.From {
						if _, done := prev[f]; !done {
							prev[f] = l
						}
					}
				}
			}
			label = prev
		}
		for _, n := range target.Nodes {
			if l, ok := label[n.Name]; ok {
				if _, done := out[n.Name]; !done {
					out[n.Name] = l
				}
			}
		}
	}
	return out
}

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
