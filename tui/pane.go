package tui

import (
	"fmt"
	"strings"

	xansi "github.com/charmbracelet/x/ansi"
)

// pane shows one stage of the current graph as lines, with a cursor.
// Only the visible lines are drawn.
type pane struct {
	stage       int // index in stages.Table
	cursor, top int // line under the cursor, first visible line
	left        int // horizontal scroll, in cells
	remember    map[int]int
	// gv draws the stage's graph (graphview.go) instead of its text; nil
	// in text mode. Leaving the stage leaves graph mode.
	gv *GraphView
}

// graphView draws the pane in graph mode: a header, then the drawing with
// the selection's nodes highlighted.
func (p *pane) graphView(d *stageDoc, rel map[nodeID]bool, focused bool, width, height int) string {
	hs := styles.head
	if focused {
		hs = styles.focusHead
	}
	head := hs.Render(padCut(fmt.Sprintf(" %s · graph drawing (v: text · . , next/prev box · arrows pan · f overview)", d.name), width))
	names := map[string]bool{}
	for id := range rel {
		if id.Stage == d.idx {
			names[id.Name] = true
		}
	}
	p.gv.SetHighlight(names)
	p.gv.SetSize(width, height-1)
	return head + "\n" + p.gv.Render()
}

// lineRelated reports whether line i of d belongs to the selection.
func lineRelated(d *stageDoc, i int, rel map[nodeID]bool) bool {
	if len(rel) == 0 {
		return false
	}
	for _, id := range d.hl[i] {
		if rel[id] {
			return true
		}
	}
	return false
}

// lineDirect reports whether a text stage's line names a selected node
// itself (rather than lighting up as part of its kernel's block).
func lineDirect(d *stageDoc, i int, rel map[nodeID]bool) bool {
	if len(rel) == 0 || d.graph != nil || i >= len(d.direct) {
		return false
	}
	for _, id := range d.direct[i] {
		if rel[id] {
			return true
		}
	}
	return false
}

// bestLine is where a pane showing d puts its cursor to follow the
// selection: the line defining a related node of the selection's own name
// (the ReLU stays the ReLU), else the least indented line standing for a
// related node (the kernel computing it), else the first line it lights
// up; -1 if none.
func bestLine(d *stageDoc, sel []nodeID, rel map[nodeID]bool) int {
	if len(rel) == 0 {
		return -1
	}
	for _, s := range sel {
		if l, ok := d.defLine[s.Name]; ok && rel[nodeID{Stage: d.idx, Name: s.Name}] {
			return l
		}
	}
	// The least indented such line: a kernel's header rather than a line
	// of the fusion log that mentions one of its buffers.
	best, bestIndent := -1, 0
	for i, refs := range d.refs {
		for _, id := range refs {
			if !rel[id] {
				continue
			}
			indent := len(d.lines[i]) - len(strings.TrimLeft(d.lines[i], " \t"))
			if best < 0 || indent < bestIndent {
				best, bestIndent = i, indent
			}
			break
		}
	}
	if best >= 0 {
		return best
	}
	return firstRelated(d, rel)
}

// firstRelated is the first line of d the selection lights up, or -1.
func firstRelated(d *stageDoc, rel map[nodeID]bool) int {
	best := -1
	for id := range rel {
		if ls := d.lineOf[id]; len(ls) > 0 && (best < 0 || ls[0] < best) {
			best = ls[0]
		}
	}
	return best
}

// step moves the cursor to the next (dir 1) or previous (-1) line that
// stands for a node; a pane without such lines moves line by line.
func (p *pane) step(d *stageDoc, dir int) {
	any := false
	for _, r := range d.refs {
		if len(r) > 0 {
			any = true
			break
		}
	}
	for i := p.cursor + dir; i >= 0 && i < len(d.lines); i += dir {
		if !any || len(d.refs[i]) > 0 {
			p.cursor = i
			return
		}
	}
}

func (p *pane) clamp(d *stageDoc, height int) {
	n := len(d.lines)
	p.cursor = max(0, min(p.cursor, n-1))
	if height < 1 {
		height = 1
	}
	if p.cursor < p.top {
		p.top = p.cursor
	}
	if p.cursor >= p.top+height {
		p.top = p.cursor - height + 1
	}
	p.top = max(0, min(p.top, n-height))
	p.top = max(p.top, 0)
}

// show scrolls so line i is visible without moving the cursor, leaving
// some context above it.
func (p *pane) show(d *stageDoc, i, height int) {
	if i < p.top || i >= p.top+height {
		p.top = max(0, min(i-height/4, len(d.lines)-height))
	}
}

// scroll moves the view (mouse wheel), not the cursor.
func (p *pane) scroll(d *stageDoc, delta, height int) {
	p.top = max(0, min(p.top+delta, len(d.lines)-height))
}

// view draws the pane: a header line then height-1 lines of text. Gutter
// marks: ▶ the cursor (focused pane), ● a line of the selection, ◆ a
// text line that names a selected node itself (e.g. the C line computing it).
func (p *pane) view(d *stageDoc, rel map[nodeID]bool, focused, diff bool, marks []byte, sum string, width, height int) string {
	if width < 4 || height < 1 {
		return ""
	}
	var sb strings.Builder
	head := fmt.Sprintf(" %s", d.name)
	if d.graph != nil {
		head += fmt.Sprintf(" · %d nodes", len(d.graph.Nodes))
	}
	head += fmt.Sprintf(" · line %d/%d", p.cursor+1, len(d.lines))
	if diff && sum != "" {
		head += " · " + sum
	}
	if diff && marks == nil {
		marks = make([]byte, len(d.lines))
	}
	hs := styles.head
	if focused {
		hs = styles.focusHead
	}
	sb.WriteString(hs.Render(padCut(head, width)))
	body := height - 1
	for r := 0; r < body; r++ {
		sb.WriteString("\n")
		i := p.top + r
		if i >= len(d.lines) {
			continue
		}
		gutter := "  "
		text := d.lines[i]
		if diff && marks[i] != 0 {
			// The diff mark is a third gutter cell: "● +", "▶ ~".
			text = string(marks[i]) + text
		} else if diff {
			text = " " + text
		}
		switch {
		case focused && i == p.cursor:
			gutter = "▶ "
			sb.WriteString(gutter + styles.cursor.Render(padCut(cutLeft(text, p.left), width-2)))
		case lineDirect(d, i, rel):
			gutter = "◆ "
			sb.WriteString(styles.mark.Render(gutter) + styles.related.Render(padCut(cutLeft(text, p.left), width-2)))
		case lineRelated(d, i, rel):
			gutter = "● "
			sb.WriteString(styles.mark.Render(gutter) + styles.related.Render(padCut(cutLeft(text, p.left), width-2)))
		case diff:
			mark := " "
			if marks[i] != 0 {
				mark = styles.mark.Render(string(marks[i]))
			}
			if !focused && i == p.cursor {
				gutter = "▷ "
			}
			sb.WriteString(gutter + mark + xansi.Cut(colorLine(d, i), p.left, p.left+width-3))
		case !focused && i == p.cursor:
			sb.WriteString("▷ " + xansi.Cut(colorLine(d, i), p.left, p.left+width-2))
		default:
			sb.WriteString(gutter + xansi.Cut(colorLine(d, i), p.left, p.left+width-2))
		}
	}
	return sb.String()
}

func cutLeft(s string, n int) string {
	if n <= 0 {
		return s
	}
	return xansi.Cut(s, n, xansi.StringWidth(s))
}

// padCut fits plain text to exactly w cells.
func padCut(s string, w int) string {
	s = xansi.Truncate(s, w, "…")
	if n := xansi.StringWidth(s); n < w {
		s += strings.Repeat(" ", w-n)
	}
	return s
}
