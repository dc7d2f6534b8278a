package tui

import (
	"regexp"
	"strings"

	"gcdbg/stages"
)

// Text stages (guards, loopir, fusion, memory, and the code stages) print
// buffers (buf3, arg0_1), kernels (kernel0), fused groups (buf0_buf1) and
// node names. Each compiled program of the Unit (u.Programs) knows which
// graph nodes each buffer and kernel computes (loop nodes' Origins), so a
// line that mentions them stands for those graph nodes: that is how a ReLU
// in the captured graph finds its loop node, its kernel and its code.

var sectionRE = regexp.MustCompile(`^## (\w+) graph`)

// indexTextLines gives every line of a text stage its refs: the nodes of
// the first name on it that resolves (or, for an indented line with none,
// those of its block's header line), and its highlight set: every name it
// mentions plus its header's refs (a kernel's body lights up with it).
func indexTextLines(d *stageDoc, prov *stages.Provenance) {
	d.refs = make([][]nodeID, len(d.lines))
	d.hl = make([][]nodeID, len(d.lines))
	d.direct = make([][]nodeID, len(d.lines))
	if prov.Programs() == 0 || d.err != "" {
		return
	}
	byRole := map[string]int{}
	for i := 0; i < prov.Programs(); i++ {
		byRole[prov.ProgramRole(i)] = i
	}
	cur := 0
	// Headers are the enclosing less-indented lines with refs (a kernel,
	// then one of its nodes); a line inherits from the nearest.
	type header struct {
		indent int
		refs   []nodeID
	}
	var stack []header
	for i, l := range d.lines {
		if m := sectionRE.FindStringSubmatch(l); m != nil {
			if p, ok := byRole[m[1]]; ok {
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
		toks := identRE.FindAllString(l, -1)
		if strings.Contains(trim, "File: ") && (strings.HasPrefix(trim, "//") || strings.HasPrefix(trim, "#")) {
			toks = nil // the user's source quoted in a comment: prose, not names
		}
		for _, tok := range toks {
			ids := prov.Resolve(cur, tok)
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
