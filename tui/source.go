package tui

import (
	"fmt"
	"path/filepath"
	"strings"

	"gcdbg/ir"
	"gcdbg/trace"
)

// sourceLines shows where the user's program made the given captured
// nodes: each node's innermost stack frame, then the source text around
// every distinct line (from the trace's embedded sources when it has the
// file, else the frame's own code).
func sourceLines(tr *trace.Trace, nodes []*ir.Node) []string {
	type loc struct {
		file string
		line int
	}
	var out []string
	var locs []loc
	code := map[loc]string{}
	for _, n := range nodes {
		st := n.Meta.Stack
		if len(st) == 0 {
			out = append(out, fmt.Sprintf("%s (%s): no stack recorded", n.Name, n.Target))
			continue
		}
		f := st[len(st)-1]
		out = append(out, fmt.Sprintf("%s (%s %s) ← %s:%d in %s", n.Name, n.Op, n.Target, f.File, f.Line, f.Func))
		l := loc{f.File, f.Line}
		if _, seen := code[l]; !seen {
			locs = append(locs, l)
			code[l] = f.Code
		}
	}
	for _, l := range locs {
		out = append(out, "")
		text := sourceText(tr, l.file)
		if text == "" {
			out = append(out, fmt.Sprintf("  %s:%d", l.file, l.line), fmt.Sprintf("> %4d  %s", l.line, strings.TrimSpace(code[l])))
			continue
		}
		src := strings.Split(text, "\n")
		out = append(out, "  "+l.file)
		for i := max(1, l.line-2); i <= min(len(src), l.line+2); i++ {
			mark := " "
			if i == l.line {
				mark = ">"
			}
			out = append(out, fmt.Sprintf("%s %4d  %s", mark, i, src[i-1]))
		}
	}
	return out
}

// sourceText finds a file's text among the trace's sources, by path or,
// failing that, by base name.
func sourceText(tr *trace.Trace, file string) string {
	if tr == nil {
		return ""
	}
	for _, s := range tr.Sources {
		if s.File == file {
			return s.Text
		}
	}
	for _, s := range tr.Sources {
		if filepath.Base(s.File) == filepath.Base(file) {
			return s.Text
		}
	}
	return ""
}
