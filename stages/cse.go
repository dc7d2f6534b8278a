package stages

import (
	"fmt"
	"strings"

	"gcdbg/ir"
)

// cseGraph merges duplicate pointwise nodes of a backward graph before it
// is lowered to the loop IR (lowerLoops): a node computing the same
// deterministic pointwise op on the same arguments as an earlier node is
// dropped and its users read the earlier one. The values are the same
// bits (the same op on the same inputs).
//
// BatchNorm's decomposition subtracts the mean twice (once for the
// variance, once to normalize), and its derivative multiplies the same
// gradient by the same centred input twice; the min-cut recomputes them
// in the backward, where each copy was a full activation stored by one
// kernel and read by others (vgg_bn_train's backward: 12 such nodes,
// resnet_block_train's: 6). Only the backward: in the forward the
// variance's copy is computed inside the statistics kernel and never
// stored (sched's reorder), so merging it with the normalize's would store
// it. A node the graph outputs directly is kept (two outputs never share
// a node), and ops that draw random numbers are never merged.
func cseGraph(g *ir.Graph) *ir.Graph {
	if g == nil {
		return g
	}
	out := g.OutputNode()
	returned := map[*ir.Node]bool{}
	if out != nil {
		out.EachInput(func(n *ir.Node) { returned[n] = true })
	}
	repl := map[*ir.Node]ir.Arg{}
	seen := map[string]*ir.Node{}
	nodes := make([]*ir.Node, 0, len(g.Nodes))
	merged := false
	for _, n := range g.Nodes {
		c := remapNode(n, repl)
		if key, ok := cseKey(c); ok && !returned[n] {
			if prev := seen[key]; prev != nil {
				repl[n] = prev
				merged = true
				continue
			}
			seen[key] = c
		}
		nodes = append(nodes, c)
	}
	if !merged {
		return g
	}
	ng := *g
	ng.Nodes = nodes
	return &ng
}

// remapNode is n reading through repl: n itself when it reads no node of
// repl, else a copy (recorded in repl as n's replacement) whose args and
// kwargs read the replacements. The input graph is never changed.
func remapNode(n *ir.Node, repl map[*ir.Node]ir.Arg) *ir.Node {
	if len(repl) == 0 || !readsAny(n, repl) {
		return n
	}
	cp := *n
	cp.Args = make([]ir.Arg, len(n.Args))
	for i, a := range n.Args {
		cp.Args[i] = replaceArg(a, repl)
	}
	cp.Kwargs = make([]ir.Kwarg, len(n.Kwargs))
	for i, kv := range n.Kwargs {
		cp.Kwargs[i] = ir.Kwarg{Name: kv.Name, Value: replaceArg(kv.Value, repl)}
	}
	repl[n] = &cp
	return &cp
}

// readsAny reports whether n reads a node of repl.
func readsAny(n *ir.Node, repl map[*ir.Node]ir.Arg) bool {
	found := false
	n.EachInput(func(in *ir.Node) { found = found || repl[in] != nil })
	return found
}

// cseKey identifies a deterministic pointwise call by its target, its
// arguments (node references by identity) and its result's meta; false
// for any other node, or an argument of a kind the key cannot print.
func cseKey(n *ir.Node) (string, bool) {
	if n.Op != ir.CallFunction || n.Meta.Tensor == nil {
		return "", false
	}
	if strings.Contains(n.Target, "rand") || strings.Contains(n.Target, "dropout") || strings.Contains(n.Target, "bernoulli") {
		return "", false
	}
	if d := ir.Lookup(n.Target); d == nil || d.Kind != ir.KindPointwise {
		return "", false
	}
	ref := func(m *ir.Node) string { return fmt.Sprintf("%%%p", m) }
	var b strings.Builder
	b.WriteString(n.Target)
	for _, a := range n.Args {
		b.WriteString("|")
		b.WriteString(ir.FormatArg(a, ref))
	}
	for _, kv := range n.Kwargs {
		b.WriteString("|" + kv.Name + "=")
		b.WriteString(ir.FormatArg(kv.Value, ref))
	}
	b.WriteString("|" + n.Meta.Tensor.String())
	if strings.Contains(b.String(), "<") { // an argument FormatArg prints only by its type
		return "", false
	}
	return b.String(), true
}
