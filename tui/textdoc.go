package tui

import (
	"regexp"
	"strings"

	"gcdbg/ir"
	"gcdbg/stages"
)

// Text stages (guards, loopir, fusion, memory, and the code stages) print
// buffers (buf3, arg0_1), kernels (kernel0), fused groups (buf0_buf1) and
// node names. Each compiled program of the Unit (u.Programs) knows which
// graph nodes each buffer and kernel computes (loop nodes' Origins), so a
// line that mentions them stands for those graph nodes: that is how a ReLU
// in the captured graph finds its loop node, its kernel and its code.

var sectionRE = regexp.MustCompile(`^## (\w+) graph`)

// maxNameParts bounds the underscore-separated parts of one buffer name.
const maxNameParts = 3

// progNames resolves the names one compiled program prints to graph nodes
// of the stage whose graph the program compiles.
type progNames struct {
	stage   int
	nodes   map[string]bool     // the graph's node names
	origins map[string][]string // buffer or kernel name -> graph node names
}

func newProgNames(lp *stages.LoopProgram, graphs []*ir.Graph) *progNames {
	p := &progNames{stage: -1, nodes: map[string]bool{}, origins: map[string][]string{}}
	if lp.Graph != nil {
		for _, n := range lp.Graph.Nodes {
			p.nodes[n.Name] = true
		}
	}
	for i, g := range graphs {
		if g != nil && g == lp.Graph {
			p.stage = i
			break
		}
	}
	if lp.Loops != nil {
		for name, b := range lp.Loops.Buffers {
			if b.Node != "" {
				p.origins[name] = append(p.origins[name], b.Node)
			}
		}
		for _, n := range lp.Loops.Nodes {
			p.origins[n.Name] = appendNew(p.origins[n.Name], n.Origins...)
		}
	}
	if lp.Schedule != nil {
		for _, k := range lp.Schedule.Kernels {
			for _, n := range k.Nodes {
				p.origins[k.Name] = appendNew(p.origins[k.Name], p.origins[n.Name]...)
			}
		}
	}
	return p
}

func appendNew(xs []string, ys ...string) []string {
	for _, y := range ys {
		dup := false
		for _, x := range xs {
			dup = dup || x == y
		}
		if !dup {
			xs = append(xs, y)
		}
	}
	return xs
}

// resolve maps one identifier to graph node IDs: a node name, a buffer or
// kernel name, or a compound of buffer names (buf0_buf1, buf2_loop_body).
func (p *progNames) resolve(tok string) []nodeID {
	if p == nil || p.stage < 0 {
		return nil
	}
	var names []string
	if p.nodes[tok] {
		names = []string{tok}
	} else if o, ok := p.origins[tok]; ok {
		names = o
	} else if strings.Contains(tok, "_") {
		// A compound: try the longest known name (at most maxNameParts
		// underscore-separated parts, as in arg0_1) at each position.
		parts := strings.Split(tok, "_")
		seen := map[string]bool{}
		for i := 0; i < len(parts); {
			j := min(len(parts), i+maxNameParts)
			for ; j > i; j-- {
				if o, ok := p.origins[strings.Join(parts[i:j], "_")]; ok {
					for _, n := range o {
						if !seen[n] {
							seen[n] = true
							names = append(names, n)
						}
					}
					break
				}
			}
			i = max(j, i+1)
		}
	}
	ids := make([]nodeID, 0, len(names))
	for _, n := range names {
		ids = append(ids, nodeID{p.stage, n})
	}
	return ids
}

// indexTextLines gives every line of a text stage its refs: the nodes of
// the first name on it that resolves (or, for an indented line with none,
// those of its block's header line), and its highlight set: every name it
// mentions plus its header's refs (a kernel's body lights up with it).
func indexTextLines(d *stageDoc, u *stages.Unit, graphs []*ir.Graph) {
	d.refs = make([][]nodeID, len(d.lines))
	d.hl = make([][]nodeID, len(d.lines))
	d.direct = make([][]nodeID, len(d.lines))
	if u == nil || len(u.Programs) == 0 || d.err != "" {
		return
	}
	progs := make([]*progNames, len(u.Programs))
	byRole := map[string]*progNames{}
	for i, lp := range u.Programs {
		progs[i] = newProgNames(lp, graphs)
		byRole[lp.Role] = progs[i]
	}
	cur := progs[0]
	// Headers are the enclosing less-indented lines with refs (a kernel,
	// then one of its nodes); a line inherits from the nearest.
	type header struct {
		indent int
		refs   []nodeID
	}
	var stack []header
	for i, l := range d.lines {
		if m := sectionRE.FindStringSubmatch(l); m != nil {
			if p := byRole[m[1]]; p != nil {
				cur = p
			}
			stack = stack[:0]
			continue
		}
		trim := strings.TrimSpace(l)
		if trim == "" {
			stack = stack[:0]
			continue
		}
		indent := len(l) - len(strings.TrimLeft(l, " \t"))
		for len(stack) > 0 && stack[len(stack)-1].indent >= indent {
			stack = stack[:len(stack)-1]
		}
		var first, all []nodeID
		for _, tok := range identRE.FindAllString(l, -1) {
			ids := cur.resolve(tok)
			if first == nil && len(ids) > 0 {
				first = ids
			}
			all = append(all, ids...)
		}
		d.refs[i] = first
		if first == nil && len(stack) > 0 {
			d.refs[i] = stack[len(stack)-1].refs
		}
		d.hl[i] = all
		d.direct[i] = all
		for _, h := range stack {
			d.hl[i] = append(d.hl[i], h.refs...)
		}
		comment := strings.HasPrefix(trim, "#") || strings.HasPrefix(trim, "//")
		if first != nil && !comment {
			stack = append(stack, header{indent, first})
		}
	}
}
