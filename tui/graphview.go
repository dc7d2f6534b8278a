package tui

import (
	"fmt"
	"sort"
	"strings"

	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"

	"gcdbg/ir"
	"gcdbg/termsafe"
	"gcdbg/viz"
)

// GraphView is a bubbletea component that draws one stage graph in the
// terminal (boxes and edges laid out by graphviz, viz) and lets
// the user pan, select nodes and collapse groups of nodes into one box.
//
// Keys: arrows or hjkl pan (HJKL or pgup/pgdown a screenful), f shows the
// whole graph shrunk to the view (arrows move the frame, f or enter zoom
// back in there), tab and
// shift+tab select the next/previous box and scroll to it, enter toggles
// the selected node's group, "-" collapses the selected node's group (all
// groups when it has none or it is already collapsed), "+" expands the
// selected group (all groups when the selection is not a collapsed group).
//
// The last line of the view is a status line. Layouts are cached per
// collapse state, so toggling back and forth does not lay out again.
type GraphView struct {
	g         *ir.Graph
	groups    viz.Grouping
	members   map[string][]string // group -> node names, graph order
	collapsed map[string]bool
	cache     map[string]*viz.Scene // by collapseKey; shared by copies
	scene     *viz.Scene
	err       error
	x0, y0    int
	w, h      int
	selected  string // a node name ("" none); its box is selected
	highlight map[string]bool
	// overview shows the whole graph shrunk to the view (f toggles): the
	// frame marks the part the detail view shows; arrows move it.
	overview bool
}

// GraphViewOptions configures NewGraphView.
type GraphViewOptions struct {
	// Groups says which nodes collapse together: viz.ModuleGroups(g)
	// when nil; stages.Provenance.Kernels groups by fused kernel.
	Groups viz.Grouping
	// Collapsed starts with every group collapsed. Graphs with more than
	// CollapseAbove nodes (default 150) start collapsed regardless.
	Collapsed     bool
	CollapseAbove int
}

// NewGraphView lays out g for the terminal. Layout errors are shown in
// the view rather than returned (the rest of the TUI keeps working).
func NewGraphView(g *ir.Graph, opts GraphViewOptions) GraphView {
	v := GraphView{g: g, groups: opts.Groups, collapsed: map[string]bool{},
		cache: map[string]*viz.Scene{}, w: 80, h: 24}
	if g == nil {
		v.err = fmt.Errorf("no graph at this stage")
		return v
	}
	if v.groups == nil {
		v.groups = viz.ModuleGroups(g)
	}
	v.members = v.groups.Members(g)
	limit := opts.CollapseAbove
	if limit == 0 {
		limit = 150
	}
	if opts.Collapsed || len(g.Nodes) > limit {
		for k := range v.members {
			v.collapsed[k] = true
		}
	}
	v.relayout()
	return v
}

// SetSize sets the view's size in cells, the status line included.
func (v *GraphView) SetSize(w, h int) {
	v.w, v.h = max(w, 1), max(h, 2)
	v.clampOffset()
}

// SetHighlight marks nodes to draw highlighted (a box is highlighted when
// any node it stands for is).
func (v *GraphView) SetHighlight(names map[string]bool) { v.highlight = names }

// SetSelected selects the first of names that the graph has and scrolls
// to it; no match clears the selection.
func (v *GraphView) SetSelected(names []string) {
	v.selected = ""
	for _, n := range names {
		if v.g != nil && v.g.Node(n) != nil {
			v.selected = n
			v.reveal()
			return
		}
	}
}

// Selected returns the nodes the selected box stands for: one node, or
// every member of a collapsed group; nil when nothing is selected.
func (v GraphView) Selected() []string {
	if b := v.selectedBox(); b != nil {
		return append([]string(nil), b.Members...)
	}
	return nil
}

// Err is the layout error, if graphviz failed.
func (v GraphView) Err() error { return v.err }

// Update handles key presses; other messages are ignored.
func (v GraphView) Update(msg tea.Msg) (GraphView, tea.Cmd) {
	k, ok := msg.(tea.KeyPressMsg)
	if !ok || v.scene == nil {
		return v, nil
	}
	page := max(v.h-2, 1)
	if v.overview {
		// Arrows move the frame by one overview cell; f or enter zooms in there.
		sx, sy := v.scene.Scale(v.w, v.h-1)
		switch k.String() {
		case "up", "k":
			v.y0 -= sy
		case "down", "j":
			v.y0 += sy
		case "left", "h":
			v.x0 -= sx
		case "right", "l":
			v.x0 += sx
		case "f", "enter", "esc":
			v.overview = false
		case "tab":
			v.step(1)
		case "shift+tab":
			v.step(-1)
		}
		v.clampOffset()
		return v, nil
	}
	switch k.String() {
	case "f":
		v.overview = true
	case "up", "k":
		v.y0 -= 2
	case "down", "j":
		v.y0 += 2
	case "left", "h":
		v.x0 -= 4
	case "right", "l":
		v.x0 += 4
	case "K", "pgup":
		v.y0 -= page
	case "J", "pgdown":
		v.y0 += page
	case "H":
		v.x0 -= v.w / 2
	case "L":
		v.x0 += v.w / 2
	case "home", "g":
		v.x0, v.y0 = 0, 0
	case "tab":
		v.step(1)
	case "shift+tab":
		v.step(-1)
	case "enter":
		if grp, ok := v.groups[v.selected]; ok && len(v.members[grp]) > 1 {
			v.collapsed[grp] = !v.collapsed[grp]
			v.relayout()
		}
	case "-", "_":
		grp, ok := v.groups[v.selected]
		if ok && len(v.members[grp]) > 1 && !v.collapsed[grp] {
			v.collapsed[grp] = true
		} else {
			for g := range v.members {
				v.collapsed[g] = true
			}
		}
		v.relayout()
	case "+", "=":
		if b := v.selectedBox(); b != nil && b.Group {
			v.collapsed[b.ID] = false
		} else {
			v.collapsed = map[string]bool{}
		}
		v.relayout()
	}
	v.clampOffset()
	return v, nil
}

var (
	gvSelected  = lipgloss.NewStyle().Reverse(true).Bold(true)
	gvHighlight = lipgloss.NewStyle().Foreground(lipgloss.Color("#e5c07b")).Bold(true)
	gvStatus    = lipgloss.NewStyle().Faint(true)
)

// View draws the visible part of the graph and a status line.
func (v GraphView) View() tea.View {
	return tea.NewView(v.Render())
}

// Render is View's content as a string, for embedding in a larger view.
func (v GraphView) Render() string {
	if v.err != nil || v.scene == nil {
		msg := "no layout"
		if v.err != nil {
			msg = termsafe.String(v.err.Error())
		}
		return gvPad("graph view: "+msg, v.w) + strings.Repeat("\n", v.h-1)
	}
	sel := v.selectedBox()
	mark := func(b *viz.Box) viz.Mark {
		if b == sel {
			return viz.Selected
		}
		for _, m := range b.Members {
			if v.highlight[m] {
				return viz.Highlighted
			}
		}
		return viz.Plain
	}
	style := func(s string, m viz.Mark) string {
		if m == viz.Selected {
			return gvSelected.Render(s)
		}
		return gvHighlight.Render(s)
	}
	if v.overview {
		body := v.scene.Overview(v.w, v.h-1, mark, style, v.x0, v.y0, v.w, v.h-1)
		status := fmt.Sprintf("overview of %s: %d boxes for %d nodes (█ selected, ▓ lit, ▒ box) · arrows move the frame · f/enter zoom in", termsafe.String(v.g.Name), len(v.scene.Boxes), len(v.g.Nodes))
		return body + "\n" + gvStatus.Render(gvPad(status, v.w))
	}
	body := v.scene.Render(v.x0, v.y0, v.w, v.h-1, mark, style)
	status := fmt.Sprintf("%s: %d boxes for %d nodes", termsafe.String(v.g.Name), len(v.scene.Boxes), len(v.g.Nodes))
	if sel != nil {
		status += " · selected " + termsafe.String(sel.ID)
		if sel.Group {
			status += fmt.Sprintf(" (%d nodes)", len(sel.Members))
		}
	}
	status += " · hjkl pan  tab select  +/- expand/collapse  f overview"
	return body + "\n" + gvStatus.Render(gvPad(status, v.w))
}

func (v *GraphView) selectedBox() *viz.Box {
	if v.scene == nil || v.selected == "" {
		return nil
	}
	b, _ := v.scene.BoxOf(v.selected)
	return b
}

// relayout fetches or builds the scene for the current collapse state and
// keeps the selection in view.
func (v *GraphView) relayout() {
	key := v.collapseKey()
	if s, ok := v.cache[key]; ok {
		v.scene = s
	} else {
		s, err := viz.BuildScene(v.g, v.groups, v.collapsed)
		if err != nil {
			v.err = err
			return
		}
		v.cache[key] = s
		v.scene = s
	}
	v.reveal()
}

func (v *GraphView) collapseKey() string {
	var ks []string
	for k, c := range v.collapsed {
		if c {
			ks = append(ks, k)
		}
	}
	sort.Strings(ks)
	return strings.Join(ks, "\x00")
}

// step moves the selection to the next or previous box in graph order.
func (v *GraphView) step(dir int) {
	bs := v.scene.Boxes
	if len(bs) == 0 {
		return
	}
	i := -1
	if b := v.selectedBox(); b != nil {
		for k := range bs {
			if bs[k] == b {
				i = k
			}
		}
	}
	switch {
	case i < 0 && dir > 0:
		i = 0
	case i < 0:
		i = len(bs) - 1
	default:
		i = (i + dir + len(bs)) % len(bs)
	}
	v.selected = bs[i].Members[0]
	v.reveal()
}

// reveal scrolls so the selected box is in view, centring it when it was not.
func (v *GraphView) reveal() {
	b := v.selectedBox()
	if b == nil {
		return
	}
	bodyH := v.h - 1
	if b.X < v.x0 || b.X+b.W > v.x0+v.w {
		v.x0 = b.X + b.W/2 - v.w/2
	}
	if b.Y < v.y0 || b.Y+b.H > v.y0+bodyH {
		v.y0 = b.Y + b.H/2 - bodyH/2
	}
	v.clampOffset()
}

func (v *GraphView) clampOffset() {
	if v.scene == nil {
		return
	}
	v.x0 = max(0, min(v.x0, v.scene.W-v.w))
	v.y0 = max(0, min(v.y0, v.scene.H-(v.h-1)))
}

func gvPad(s string, w int) string {
	rs := []rune(s)
	if len(rs) > w {
		return string(rs[:w])
	}
	return s + strings.Repeat(" ", w-len(rs))
}
