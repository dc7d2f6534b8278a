package tui

import (
	"fmt"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	xansi "github.com/charmbracelet/x/ansi"

	"gcdbg/stages"
	"gcdbg/termsafe"
)

// narrow is a terminal too small for the stage list beside two panes
// (80×24): the list hides and one pane takes the width; \\ and z bring
// them back.
func (m *Model) narrow() bool { return m.width < 100 }

// single reports whether only the focused pane is shown.
func (m *Model) single() bool { return m.zoom != m.narrow() }

// layout returns the stage list's width and each pane's width.
func (m *Model) layout() (listW, paneW int) {
	listW = 24
	if m.diff {
		listW = 26
	}
	if m.hideList != m.narrow() {
		listW = 0
	}
	if m.single() {
		return listW, max(m.width-listW, 4)
	}
	paneW = (m.width - listW - 1) / 2
	return listW, max(paneW, 4)
}

// panelBox is one box under the panes: the tour, the error, the stage's
// explanation, the user's source, the run.
type panelBox struct {
	title string
	body  []string // wrapped to the box's width
	pin   int      // leading body lines that never scroll away (the run's verdict)
}

// panelList lists the open boxes, top to bottom. The last one takes the
// room the others leave and scrolls with { and }.
func (m *Model) panelList() []panelBox {
	w := max(m.width-4, 10)
	var out []panelBox
	add := func(title, body string, pin int) {
		out = append(out, panelBox{title: title, body: strings.Split(wrap(body, w), "\n"), pin: pin})
	}
	// Text from the trace (names in the tour, errors, the user's source)
	// is made safe; the run panel sanitises its own parts (it is styled).
	addText := func(title, body string) {
		add(title, termsafe.Text(body), 0)
	}
	if m.tour != nil {
		addText(m.tour.title(), m.tour.text())
	}
	if e := m.errorText(); e != "" && !m.errClosed {
		addText("error (esc closes · { } scroll)", e)
	}
	if m.explain && m.doc() != nil {
		d := m.stageDoc(m.focus)
		st := stages.Table[d.idx]
		body := st.Explain
		if t := st.Teach; t != "" {
			body += "\n\n" + t
		}
		add("stage "+st.Name+" (e to close)", body, 0)
	}
	if m.source != nil {
		addText("user source (esc to close)", strings.Join(m.source, "\n"))
	}
	if m.run.visible {
		add("run vs PyTorch (r to rerun · d device · { } scroll · esc to close)", m.run.view(), 1)
	}
	return out
}

// errorText is the whole of the error on screen: the pipeline's, or the
// last watch compile's.
func (m *Model) errorText() string {
	if m.watch.errText != "" {
		return fmt.Sprintf("watch compile #%d failed (showing #%d):\n%s", m.watch.errSeq, m.watch.seq, m.watch.errText)
	}
	if m.loadErr != "" && m.doc() != nil {
		return "pipeline: " + m.loadErr
	}
	return ""
}

// bottom renders the boxes in at most half the screen and says how many
// rows they take. Every box keeps its title; a box too long for its share
// shows a window of its body (the last box's moves with { and }) and says
// how much is out of sight, so nothing is clipped without a way to reach it.
func (m *Model) bottom() (string, int) {
	boxes := m.panelList()
	if len(boxes) == 0 {
		return "", 0
	}
	avail := max((m.height-2)/2, 4)
	for len(boxes) > 1 && 4*len(boxes) > avail {
		boxes = boxes[1:] // the earliest give way
	}
	room := avail - 3*len(boxes) // borders and titles
	rows := make([]int, len(boxes))
	for i := range boxes {
		rows[i] = min(len(boxes[i].body), 1)
		room -= rows[i]
	}
	for i := len(boxes) - 1; i >= 0 && room > 0; i-- {
		extra := min(room, len(boxes[i].body)-rows[i])
		rows[i] += extra
		room -= extra
	}
	var parts []string
	total := 0
	for i, bx := range boxes {
		body := bx.body
		if n := rows[i]; len(body) > n {
			scroll := 0
			if i == len(boxes)-1 {
				scroll = m.panelTop
			}
			pin := min(bx.pin, n)
			window := n - pin - 1 // one row says what is hidden
			if window < 0 {
				pin, window = 0, n-1
			}
			rest := body[pin:]
			scroll = max(0, min(scroll, len(rest)-max(window, 0)))
			if i == len(boxes)-1 {
				m.panelTop = scroll
			}
			shown := append(append([]string(nil), body[:pin]...), rest[scroll:scroll+max(window, 0)]...)
			hidden := len(rest) - max(window, 0)
			note := fmt.Sprintf("… %d more lines", hidden)
			if i == len(boxes)-1 {
				note += fmt.Sprintf(" (lines %d-%d of %d; { } scroll)", scroll+1, scroll+max(window, 0), len(rest))
			}
			body = append(shown, styles.dim.Render(note))
		}
		parts = append(parts, styles.panel.Width(m.width).Render(styles.panelTitle.Render(bx.title)+"\n"+strings.Join(body, "\n")))
		total += len(body) + 3
	}
	return strings.Join(parts, "\n"), total
}

// paneBody is how many text lines a pane shows (below its header).
func (m *Model) paneBody() int {
	_, bh := m.bottom()
	return max(m.height-2-bh-1, 1)
}

// View draws the screen.
func (m Model) View() tea.View {
	v := tea.NewView(m.render())
	v.AltScreen = true
	v.MouseMode = tea.MouseModeCellMotion
	v.WindowTitle = "gcdbg explore"
	return v
}

func (m *Model) render() string {
	title := styles.title.Render("gcdbg explore") + " " + termsafe.String(m.tr.Name)
	if m.doc() == nil {
		msg := fmt.Sprintf("%s running the pipeline on %s… %.1f s", spinner[m.loadFrame%len(spinner)], termsafe.String(m.tr.Name), time.Since(m.started).Seconds())
		if m.opt.Watch {
			msg = "waiting for the first compile…"
		}
		if m.loadErr != "" {
			msg = "error: " + m.loadErr
		} else if e := m.errorText(); e != "" {
			msg = e
		}
		// The whole message, wrapped: nothing cut at the terminal's edge.
		body := strings.ReplaceAll(wrap(termsafe.Text(msg), max(m.width-4, 10)), "\n", "\n  ")
		return title + m.watchBanner() + "\n\n  " + body
	}
	u := m.doc().unit
	title += styles.dim.Render(fmt.Sprintf(" · graph %s (%d/%d)", termsafe.String(u.Captured.Name), m.graph+1, len(m.units)))
	if u.Captured.Break != nil {
		title += styles.dim.Render(" · graph break: " + termsafe.String(u.Captured.Break.Reason))
	}
	if m.loadErr != "" {
		title += " " + styles.bad.Render("pipeline error: "+m.loadErr)
	}
	title += m.watchBanner()
	title = xansi.Truncate(title, m.width, "…")
	bottom, bh := m.bottom()
	bodyH := max(m.height-2-bh, 2)
	var body string
	if m.help {
		body = m.helpView(bodyH)
	} else {
		body = m.mainView(bodyH)
	}
	out := title + "\n" + body
	if bottom != "" {
		out += "\n" + bottom
	}
	return out + "\n" + m.statusLine()
}

func (m *Model) mainView(h int) string {
	lw, pw := m.layout()
	list := strings.Split(m.stageList(lw, h), "\n")
	var cols [2][]string
	for p := range m.panes {
		if m.panes[p].gv != nil {
			cols[p] = strings.Split(m.panes[p].graphView(m.stageDoc(p), m.related, p == m.focus, pw, h), "\n")
			continue
		}
		var marks []byte
		sum := ""
		if m.diff {
			marks, sum = m.doc().marks(m.stageDoc(p), m.diffVs, m.panes[1-p].stage)
		}
		cols[p] = strings.Split(m.panes[p].view(m.stageDoc(p), m.related, p == m.focus, m.diff, marks, sum, pw, h), "\n")
	}
	sep := styles.dim.Render("│")
	rows := make([]string, h)
	for r := 0; r < h; r++ {
		var sb strings.Builder
		if lw > 0 {
			sb.WriteString(fit(at(list, r), lw))
		}
		if m.single() {
			sb.WriteString(fit(at(cols[m.focus], r), pw))
		} else {
			sb.WriteString(fit(at(cols[0], r), pw))
			sb.WriteString(sep)
			sb.WriteString(fit(at(cols[1], r), pw))
		}
		rows[r] = sb.String()
	}
	return strings.Join(rows, "\n")
}

func at(xs []string, i int) string {
	if i < len(xs) {
		return xs[i]
	}
	return ""
}

// fit cuts or pads a styled string to exactly w cells.
func fit(s string, w int) string {
	if xansi.StringWidth(s) > w {
		s = xansi.Truncate(s, w, "")
	}
	if n := xansi.StringWidth(s); n < w {
		s += strings.Repeat(" ", w-n)
	}
	return s
}

// stageList draws the pipeline: ● where the selection lives, 1/2 for the
// stage each pane shows, node counts, and each stage's one-line
// explanation when there is room.
func (m *Model) stageList(w, h int) string {
	if w == 0 {
		return ""
	}
	d := m.doc()
	rel := m.relatedStages()
	twoLines := h >= 2*len(d.stages)+1
	lines := []string{styles.panelTitle.Render(" stages")}
	for i, sd := range d.stages {
		mark := "  "
		if rel[i] {
			mark = styles.mark.Render("● ")
		}
		which := ""
		for p := range m.panes {
			if m.panes[p].stage == i {
				which += "◂" + fmt.Sprint(p+1)
			}
		}
		count := sd.count()
		if m.diff {
			// Against the other pane: each pane's stage against the
			// other's, every other stage against the focused one.
			other := m.panes[m.focus].stage
			if i == other {
				other = m.panes[1-m.focus].stage
			}
			_, sum := m.doc().marks(sd, m.diffVs, other)
			count = shortSum(sum)
		} else if sd.unchanged {
			count = "=" // GOSSAFUNC: a pass that changed nothing
		}
		name := fmt.Sprintf("%-11s%5s %-4s", sd.name, count, which)
		if m.diff {
			name = fmt.Sprintf("%-11s%-9s%-4s", sd.name, count, which)
		}
		if m.panes[m.focus].stage == i {
			name = styles.focusHead.Render(name)
		} else if which != "" {
			name = styles.head.Render(name)
		}
		lines = append(lines, mark+name)
		if twoLines {
			lines = append(lines, styles.dim.Render("  "+xansi.Truncate(stages.Table[i].Explain, w-3, "…")))
		}
	}
	return strings.Join(lines, "\n")
}

func (m *Model) statusLine() string {
	var s string
	switch {
	case m.prompt != nil && m.prompt.kind == "search":
		s = " /" + m.prompt.text + "█   (enter keeps, esc goes back)"
		if m.notice != "" {
			s += " · " + m.notice
		}
	case m.prompt != nil:
		s = " go to node: " + m.prompt.text + "█   (enter goes, esc cancels)"
	case m.notice != "":
		s = " " + m.notice
	case m.run.running && m.run.progress != "":
		s = " " + m.run.progress // a run's progress notice (run.go), never written over the screen
	case m.doc() != nil:
		a, b := m.stageDoc(m.focus).name, m.stageDoc(1-m.focus).name
		s = fmt.Sprintf(" %s · %s · [%s] ↔ %s", termsafe.String(m.tr.Name), termsafe.String(m.doc().unit.Captured.Name), a, b)
		if m.panes[0].stage == m.panes[1].stage {
			// Stepping one pane onto the other's stage left nothing but the
			// stage list's two marks saying so (examples/review6, finding 11).
			s += " (both panes)"
		}
		if c := m.cursorNodes(); c != "" {
			s += " · node " + c
		}
		s += m.watchStatus() + " · " + keys.hints()
	}
	return styles.status.Render(padCut(s, m.width))
}

// helpView lists every key binding, generated from the key map.
func (m *Model) helpView(h int) string {
	lines := []string{styles.panelTitle.Render(" keys") + styles.dim.Render("  (any key closes)"), ""}
	for _, g := range keys.groups() {
		for _, kb := range g {
			hp := kb.Help()
			lines = append(lines, fmt.Sprintf("  %-14s %s", hp.Key, hp.Desc))
		}
		lines = append(lines, "")
	}
	lines = append(lines, styles.dim.Render("  mouse wheel scrolls the pane under the pointer; ● marks lines and stages of the selection"))
	for len(lines) < h {
		lines = append(lines, "")
	}
	return lipgloss.JoinVertical(lipgloss.Left, lines[:h]...)
}

// wrap breaks text to width w on spaces, keeping its own line breaks.
func wrap(s string, w int) string {
	var out []string
	for _, para := range strings.Split(s, "\n") {
		if xansi.StringWidth(para) <= w {
			out = append(out, para)
			continue
		}
		line := ""
		for _, word := range strings.Fields(para) {
			if line != "" && xansi.StringWidth(line)+1+xansi.StringWidth(word) > w {
				out = append(out, line)
				line = ""
			}
			if line != "" {
				line += " "
			}
			line += word
		}
		out = append(out, line)
	}
	return strings.Join(out, "\n")
}
