// Package graph draws gcdbg's graphs: DOT text for graphviz, an SVG of any
// graph stage (nodes coloured by op kind, fused kernels as clusters), and a
// character-cell drawing for the terminal laid out by graphviz.
package viz

import (
	"fmt"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"gcdbg/ir"
)

// Node categories for colouring: the canonical op kinds (ir.Kind) plus the
// fx node kinds that are not op calls, and "module"/"other" for the
// captured graph's calls that no canonical op names (call_module,
// call_method, operator.*).
const (
	CatInput  = "input"  // placeholder
	CatParam  = "param"  // get_attr
	CatOutput = "output" // the output node
	CatModule = "module" // call_module (captured graphs only)
	CatOther  = "other"
)

// Colours are the fill colours by category; categories missing here
// (new ir kinds) fall back to CatOther's.
var Colours = map[string]string{
	CatInput:                 "#9ecae1",
	CatParam:                 "#fdd49e",
	CatOutput:                "#bdbdbd",
	CatModule:                "#c6dbef",
	CatOther:                 "#f0f0f0",
	string(ir.KindPointwise): "#c7e9c0",
	string(ir.KindReduction): "#fdae6b",
	string(ir.KindMatmul):    "#fc9272",
	string(ir.KindConv):      "#fb6a4a",
	string(ir.KindView):      "#e5e5e5",
	string(ir.KindNorm):      "#dadaeb",
	string(ir.KindPool):      "#bcbddc",
	string(ir.KindCreation):  "#ffffcc",
	string(ir.KindIndex):     "#d9f0a3",
	string(ir.KindSort):      "#fee391",
	string(ir.KindMeta):      "#ffffff",
	string(ir.KindLoss):      "#fa9fb5",
}

// Category says how a node is coloured: its canonical op's kind when the
// target is a canonical op, else what the fx node kind says.
func Category(n *ir.Node) string {
	switch n.Op {
	case ir.Placeholder:
		return CatInput
	case ir.GetAttr:
		return CatParam
	case ir.Output:
		return CatOutput
	case ir.CallModule:
		return CatModule
	}
	if d := ir.Lookup(n.Target); d != nil {
		return string(d.Kind)
	}
	return CatOther
}

func colour(cat string) string {
	if c, ok := Colours[cat]; ok {
		return c
	}
	return Colours[CatOther]
}

// Options says what DOT draws beyond the nodes and edges.
type Options struct {
	// Clusters maps node names to a cluster label (a fused kernel); nodes
	// not in the map are drawn outside every cluster.
	Clusters map[string]string
	Title    string
	Legend   bool // a colour key of the categories present, as the graph label
}

// BigGraphLayout is the node count from which dot's layout is bounded
// (bigGraphAttrs).
const BigGraphLayout = 800

// bigGraphAttrs are graph attributes that bound dot's layout of a graph of
// n nodes: network simplex (ranking and x positions) to one pass per node
// (nslimit, nslimit1) and crossing minimization to a tenth of its
// iterations (mclimit). Unbounded, the joint graph of a YOLO-style head
// (3,168 nodes, examples/review8) took more than 120 s, with gcdbg report
// and gcdbg render silent meanwhile; bounded, 7.6 s. Smaller graphs keep
// the full layout.
func bigGraphAttrs(n int) string {
	if n < BigGraphLayout {
		return ""
	}
	return ", nslimit=1, nslimit1=1, mclimit=0.1"
}

// NodeID is the DOT identifier of the i-th node. Trace names never become
// DOT identifiers (they may hold anything); they appear only in labels.
func NodeID(i int) string { return fmt.Sprintf("n%d", i) }

// DOT writes g as a graphviz digraph: one box per node labelled with its
// name, target and value type, filled by Category, edges from each input.
func DOT(g *ir.Graph, opt Options) string {
	var b strings.Builder
	b.WriteString("digraph G {\n")
	n := 0
	if g != nil {
		n = len(g.Nodes)
	}
	fmt.Fprintf(&b, "  graph [rankdir=TB, fontname=\"Helvetica\", fontsize=12, nodesep=0.25, ranksep=0.35%s];\n", bigGraphAttrs(n))
	b.WriteString("  node [shape=box, style=\"rounded,filled\", fontname=\"Helvetica\", fontsize=10, margin=\"0.08,0.03\"];\n")
	b.WriteString("  edge [color=\"#555555\", arrowsize=0.6];\n")
	if g != nil && (opt.Title != "" || opt.Legend) {
		fmt.Fprintf(&b, "  labelloc=t;\n  label=%s;\n", graphLabel(g, opt))
	}
	if g == nil {
		b.WriteString("}\n")
		return b.String()
	}
	ids := make(map[*ir.Node]string, len(g.Nodes))
	clusters := map[string][]int{}
	var order []string
	for i, n := range g.Nodes {
		ids[n] = NodeID(i)
		if c, ok := opt.Clusters[n.Name]; ok {
			if _, seen := clusters[c]; !seen {
				order = append(order, c)
			}
			clusters[c] = append(clusters[c], i)
			continue
		}
		writeNode(&b, "  ", i, n)
	}
	for k, c := range order {
		fmt.Fprintf(&b, "  subgraph cluster_%d {\n    label=%s; style=\"dashed,rounded\"; color=\"#3182bd\"; fontsize=10;\n", k, Quote(c))
		for _, i := range clusters[c] {
			writeNode(&b, "    ", i, g.Nodes[i])
		}
		b.WriteString("  }\n")
	}
	for _, n := range g.Nodes {
		for _, in := range n.Inputs() {
			if id, ok := ids[in]; ok {
				fmt.Fprintf(&b, "  %s -> %s;\n", id, ids[n])
			}
		}
	}
	b.WriteString("}\n")
	return b.String()
}

func writeNode(b *strings.Builder, indent string, i int, n *ir.Node) {
	fmt.Fprintf(b, "%s%s [label=%s, fillcolor=%s];\n", indent, NodeID(i),
		Quote(strings.Join(nodeLines(n), "\n")), Quote(colour(Category(n))))
}

// nodeLines is a node's label: name, what it computes, its value type.
func nodeLines(n *ir.Node) []string {
	lines := []string{n.Name, shortTarget(n)}
	if t := valueType(n); t != "" {
		lines = append(lines, t)
	}
	return lines
}

// shortTarget names what a node does in a few characters.
func shortTarget(n *ir.Node) string {
	switch n.Op {
	case ir.Placeholder:
		if n.Target != "" && n.Target != n.Name {
			return "input " + n.Target // primals_1 is the user's x
		}
		return "input"
	case ir.GetAttr:
		return "param " + n.Target
	case ir.Output:
		return "output"
	}
	t := strings.TrimPrefix(n.Target, "aten.")
	t = strings.TrimPrefix(t, "torch.nn.functional.")
	if n.Op == ir.CallMethod {
		t = "." + t
	}
	return t
}

// valueType is the node's dtype and shape ("f32[8, 512]"), or the item
// types of a tuple result.
func valueType(n *ir.Node) string {
	if t := n.Meta.Tensor; t != nil {
		return t.String()
	}
	if len(n.Meta.Items) > 0 {
		parts := make([]string, len(n.Meta.Items))
		for i, it := range n.Meta.Items {
			if it == nil {
				parts[i] = "?"
				continue
			}
			parts[i] = it.String()
		}
		return "(" + strings.Join(parts, ", ") + ")"
	}
	return ""
}

// Quote makes s a DOT double-quoted string that graphviz shows as s:
// quotes and backslashes are escaped (a lone backslash would start one of
// graphviz's label escapes such as \N or \G), ampersands become &amp;
// (graphviz expands entities such as &lt; in labels), newlines become \n (a
// centred line break), other control characters and invalid UTF-8 are
// replaced, since a trace's names may contain anything.
func Quote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for len(s) > 0 {
		r, size := utf8.DecodeRuneInString(s)
		s = s[size:]
		switch {
		case r == utf8.RuneError && size <= 1:
			b.WriteRune('\uFFFD')
		case r == '"':
			b.WriteString(`\"`)
		case r == '\\':
			b.WriteString(`\\`)
		case r == '&':
			b.WriteString("&amp;")
		case r == '\n':
			b.WriteString(`\n`)
		case unicode.IsControl(r):
			b.WriteRune('\uFFFD')
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// graphLabel is the title plus, with Legend, an HTML-like table with one
// swatch per category present. An HTML label keeps the legend out of the
// node set, so SVG consumers that count nodes see only the graph's.
func graphLabel(g *ir.Graph, opt Options) string {
	if !opt.Legend {
		return Quote(opt.Title)
	}
	present := map[string]bool{}
	for _, n := range g.Nodes {
		present[Category(n)] = true
	}
	cats := make([]string, 0, len(present))
	for c := range present {
		cats = append(cats, c)
	}
	sort.Strings(cats)
	var b strings.Builder
	b.WriteString("<<table border=\"0\" cellspacing=\"2\"><tr>")
	if opt.Title != "" {
		fmt.Fprintf(&b, "<td><b>%s</b></td><td> </td>", htmlEscape(opt.Title))
	}
	for _, c := range cats {
		fmt.Fprintf(&b, "<td bgcolor=\"%s\" border=\"1\">%s</td>", colour(c), htmlEscape(c))
	}
	if len(opt.Clusters) > 0 {
		b.WriteString("<td> </td><td border=\"1\" style=\"dashed\" color=\"#3182bd\">fused kernel</td>")
	}
	b.WriteString("</tr></table>>")
	return b.String()
}

// htmlEscape escapes text for graphviz's HTML-like labels.
func htmlEscape(s string) string {
	var b strings.Builder
	for _, r := range strings.ToValidUTF8(s, "\uFFFD") {
		switch {
		case r == '&':
			b.WriteString("&amp;")
		case r == '<':
			b.WriteString("&lt;")
		case r == '>':
			b.WriteString("&gt;")
		case r == '"':
			b.WriteString("&quot;")
		case unicode.IsControl(r):
			b.WriteRune('\uFFFD')
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}
