// Package tui is `gcdbg explore`: a terminal explorer of a trace's way
// through the compiler. A stage list (stages.Table), two panes showing any
// two stages of one captured graph, synced through provenance (the node
// under the cursor lights up what it came from and what it became in every
// stage), a source panel, a run panel (runner.Run), help and a guided tour.
//
// The model is Bubble Tea's Elm architecture: Update handles a message and
// returns commands for slow work (running the pipeline, running the
// trace), whose results come back as messages; View draws only the
// visible lines. Stages are known only through stages.Table.
package tui

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"gcdbg/ir"
	"gcdbg/stages"
	"gcdbg/termsafe"
	"gcdbg/trace"
)

// Options tune the explorer.
type Options struct {
	Runs int // timed repetitions of the run panel (runner.Options.Runs)
	// Device is the run panel's first device (cpu, opencl, cuda, eager);
	// "" picks runner.DefaultDevice(): cpu when a C compiler is present.
	Device string
	// Watch: the stages come from WatchMsgs (tui/watch.go), not from Init.
	Watch bool
}

// Model is the explorer's state.
type Model struct {
	tr      *trace.Trace
	opt     Options
	units   []*unitDoc
	loadErr string
	graph   int // index into units
	panes   [2]pane
	focus   int
	width   int
	height  int
	help    bool
	explain bool
	diff    bool // mark what each stage changed against the one before
	// diffVs is what diff mode compares a stage with: D cycles off →
	// the stage before → the other pane's stage → the previous watch
	// compile (when there is one) → off.
	diffVs string
	// panelTop scrolls the last box under the panes ({ and }); errClosed
	// hides the error box until the next error.
	panelTop  int
	errClosed bool
	// zoom shows the focused pane alone, full width; hideList hides the
	// stage list (both automatic on a narrow terminal).
	zoom, hideList bool
	// The wait for the pipeline: when it started, the spinner's frame.
	started   time.Time
	loadFrame int
	ticking   bool
	prompt    *prompt
	search    string
	source    []string // the source panel's lines; nil when closed
	run       runPanel
	tour      *tour
	notice    string
	related   map[nodeID]bool
	// sel is the selection the related set was computed from. Moving a
	// cursor (j/k, search, g, a click) replaces it; stepping a pane's
	// stage (] [) and switching panes keep it (keepSel), so one node can
	// be followed from the captured graph to its kernel lines and back.
	sel     []nodeID
	keepSel bool
	selAt   [3]int // graph, stage, line the related set was computed for
	watch   watchState
}

// prompt is the one-line input of / (search) and g (go to node).
type prompt struct {
	kind   string // "search" or "goto"
	text   string
	origin int // the cursor when the prompt opened (esc goes back)
}

// loadedMsg carries the pipeline's result.
type loadedMsg struct {
	units []*unitDoc
	err   error
}

// New makes the explorer for tr; Init runs the pipeline in the background.
func New(tr *trace.Trace, opt Options) Model {
	return Model{tr: tr, opt: opt, width: 120, height: 40, selAt: [3]int{-1, -1, -1}, started: time.Now()}
}

// loadTickMsg animates the wait for the pipeline.
type loadTickMsg struct{}

func loadTick() tea.Cmd {
	return tea.Tick(120*time.Millisecond, func(time.Time) tea.Msg { return loadTickMsg{} })
}

// Init starts the pipeline.
func (m Model) Init() tea.Cmd {
	if m.opt.Watch {
		return nil
	}
	return loadCmd(m.tr)
}

func loadCmd(tr *trace.Trace) tea.Cmd {
	return func() tea.Msg { return load(tr) }
}

// load runs every stage and indexes what it made, once per captured graph.
func load(tr *trace.Trace) loadedMsg { return loadUntil(tr, "") }

// ranUnits are the loaded units when every stage ran for every graph, so
// the run panel can use them instead of running the pipeline again; nil
// otherwise (a stage failed, or the pipeline was loaded only in part).
func (m *Model) ranUnits() []*stages.Unit {
	var us []*stages.Unit
	for _, d := range m.units {
		u := d.unit
		if u == nil || u.Normalized == nil || len(u.Programs) == 0 {
			return nil
		}
		for _, lp := range u.Programs {
			if lp.Source == nil {
				return nil
			}
		}
		us = append(us, u)
	}
	return us
}

// loadUntil runs the stages up to and including until ("" = all); the
// later stages show that they have no artifact.
func loadUntil(tr *trace.Trace, until string) loadedMsg {
	units, err := stages.Run(tr, until)
	var docs []*unitDoc
	for _, u := range units {
		if u != nil {
			docs = append(docs, buildUnitDoc(u))
		}
	}
	return loadedMsg{units: docs, err: err}
}

func (m *Model) doc() *unitDoc {
	if len(m.units) == 0 {
		return nil
	}
	return m.units[m.graph]
}

func (m *Model) stageDoc(p int) *stageDoc { return m.doc().stages[m.panes[p].stage] }

// Update handles one message.
func (m Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	cmd := m.update(msg)
	m.refresh()
	return m, cmd
}

func (m *Model) update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
		if m.doc() == nil && m.loadErr == "" && !m.ticking && !m.opt.Watch {
			// The first size comes as the program starts: animate the
			// wait for the pipeline (a big trace takes seconds).
			m.ticking = true
			return loadTick()
		}
	case loadTickMsg:
		if m.doc() == nil && m.loadErr == "" {
			m.loadFrame++
			return loadTick()
		}
	case loadedMsg:
		m.units = msg.units
		if msg.err != nil {
			m.loadErr = msg.err.Error()
			m.errClosed = false
		}
		if len(m.units) > 0 {
			m.graph = 0
			m.panes[0] = pane{stage: 0, remember: map[int]int{}}
			m.panes[1] = pane{stage: nextGraphStage(m.doc(), 0), remember: map[int]int{}}
			for p := range m.panes {
				m.panes[p].cursor = -1
				m.panes[p].step(m.stageDoc(p), 1)
				m.panes[p].cursor = max(m.panes[p].cursor, 0)
			}
		}
	case WatchMsg:
		m.applyWatch(msg)
	case runDoneMsg, spinMsg, progressMsg:
		return m.run.update(msg)
	case tea.MouseWheelMsg:
		m.wheel(msg.Mouse())
	case tea.MouseClickMsg:
		m.click(msg.Mouse())
	case tea.KeyPressMsg:
		return m.key(msg)
	}
	return nil
}

// nextGraphStage is the first stage after i that has a graph, else i+1.
func nextGraphStage(d *unitDoc, i int) int {
	for j := i + 1; j < len(d.stages); j++ {
		if d.stages[j].graph != nil {
			return j
		}
	}
	return min(i+1, len(d.stages)-1)
}

func (m *Model) key(msg tea.KeyPressMsg) tea.Cmd {
	if m.prompt != nil {
		m.promptKey(msg)
		return nil
	}
	if m.help {
		if key.Matches(msg, keys.Quit) && msg.String() == "ctrl+c" {
			return tea.Quit
		}
		m.help = false
		return nil
	}
	m.notice = ""
	if key.Matches(msg, keys.Quit) {
		return tea.Quit
	}
	if m.doc() == nil {
		return nil
	}
	p := &m.panes[m.focus]
	d := m.stageDoc(m.focus)
	h := m.paneBody()
	if p.gv != nil && !global(msg) {
		k := msg
		switch msg.String() { // the graph view steps boxes with tab; here tab switches panes
		case ".":
			k = tea.KeyPressMsg{Code: tea.KeyTab}
		case ",":
			k = tea.KeyPressMsg{Code: tea.KeyTab, Mod: tea.ModShift}
		}
		gv, cmd := p.gv.Update(k)
		p.gv = &gv
		m.selAt = [3]int{-1, -1, -1}
		return cmd
	}
	switch {
	case key.Matches(msg, keys.Help):
		m.help = true
	case key.Matches(msg, keys.Close):
		switch {
		case m.errorText() != "" && !m.errClosed:
			m.errClosed = true
		case m.source != nil:
			m.source = nil
		case m.run.visible:
			m.run.visible = false
		case m.explain:
			m.explain = false
		default:
			m.tour = nil
		}
	case key.Matches(msg, keys.Down):
		p.step(d, 1)
	case key.Matches(msg, keys.Up):
		p.step(d, -1)
	case key.Matches(msg, keys.PageDown):
		p.cursor += h
		p.top += h
	case key.Matches(msg, keys.PageUp):
		p.cursor -= h
		p.top -= h
	case key.Matches(msg, keys.Top):
		p.cursor, p.top = 0, 0
	case key.Matches(msg, keys.Bottom):
		p.cursor = len(d.lines) - 1
	case key.Matches(msg, keys.Left):
		p.left = max(0, p.left-8)
	case key.Matches(msg, keys.Right):
		p.left += 8
	case key.Matches(msg, keys.Focus):
		m.focus = 1 - m.focus
		m.keepSel = true
	case key.Matches(msg, keys.PrevStage):
		m.keepSel = true
		m.setStage(m.focus, p.stage-1)
	case key.Matches(msg, keys.NextStage):
		m.keepSel = true
		m.setStage(m.focus, p.stage+1)
	case key.Matches(msg, keys.OtherNext):
		m.otherLit(1)
	case key.Matches(msg, keys.OtherPrev):
		m.otherLit(-1)
	case key.Matches(msg, keys.NextGraph), key.Matches(msg, keys.PrevGraph):
		m.switchGraph(key.Matches(msg, keys.NextGraph))
	case key.Matches(msg, keys.Jump):
		m.jumpToSource()
	case key.Matches(msg, keys.Search):
		m.prompt = &prompt{kind: "search", origin: p.cursor}
	case key.Matches(msg, keys.Goto):
		m.prompt = &prompt{kind: "goto", origin: p.cursor}
	case key.Matches(msg, keys.Next):
		m.find(m.search, p.cursor+1, 1)
	case key.Matches(msg, keys.Prev):
		m.find(m.search, p.cursor-1, -1)
	case key.Matches(msg, keys.Explain):
		m.explain = !m.explain
	case key.Matches(msg, keys.PanelDown):
		m.panelTop += max(m.height/8, 1)
		m.bottom() // clamps panelTop
	case key.Matches(msg, keys.PanelUp):
		m.panelTop = max(0, m.panelTop-max(m.height/8, 1))
	case key.Matches(msg, keys.Zoom):
		m.zoom = !m.zoom
	case key.Matches(msg, keys.List):
		m.hideList = !m.hideList
	case key.Matches(msg, keys.Diff):
		switch {
		case !m.diff:
			m.diff, m.diffVs = true, diffPrev
			m.notice = "diff: + added, ~ changed against the stage before; the stage list counts them, = unchanged (D again: against the other pane)"
		case m.diffVs == diffPrev:
			m.diffVs = diffPane
			m.notice = "diff: each pane against the other pane's stage"
		case m.diffVs == diffPane && m.watch.prevSeq > 0:
			m.diffVs = diffCompile
			m.notice = fmt.Sprintf("diff: + added, ~ changed since compile #%d", m.watch.prevSeq)
		default:
			m.diff, m.diffVs = false, ""
		}
	case key.Matches(msg, keys.Tour):
		return m.startTour()
	case key.Matches(msg, keys.TourNext) && m.tour != nil:
		return m.tourStep(1)
	case key.Matches(msg, keys.TourPrev) && m.tour != nil:
		return m.tourStep(-1)
	case key.Matches(msg, keys.Run):
		return m.run.start(m.tr, m.ranUnits(), m.opt)
	case key.Matches(msg, keys.Device):
		m.run.nextDevice(m.opt)
		m.run.running = false // a run on the old device still reports, but is no longer shown
		return m.run.start(m.tr, m.ranUnits(), m.opt)
	case key.Matches(msg, keys.View):
		m.toggleGraph()
	}
	p.clamp(m.stageDoc(m.focus), h)
	return nil
}

// setStage shows stage i in pane p. The cursor lands on the selection's
// first line there (so the selection follows the pane), else where it was
// the last time this pane showed that stage.
func (m *Model) setStage(p, i int) {
	d := m.doc()
	if i < 0 || i >= len(d.stages) {
		return
	}
	pn := &m.panes[p]
	pn.remember[pn.stage] = pn.cursor
	pn.stage = i
	pn.gv = nil
	pn.left = 0
	nd := d.stages[i]
	if l := bestLine(nd, m.sel, m.related); l >= 0 {
		pn.cursor = l
	} else if c, ok := pn.remember[i]; ok {
		pn.cursor = c
	} else {
		pn.cursor = -1
		pn.step(nd, 1)
		pn.cursor = max(pn.cursor, 0)
	}
	pn.top = max(0, pn.cursor-m.paneBody()/4)
	if h := blockHeader(nd, pn.cursor); h >= 0 && h < pn.top && pn.cursor-h < m.paneBody()*3/4 {
		pn.top = h // the kernel (block) the cursor is in shows its header line too
	}
	pn.clamp(nd, m.paneBody())
}

// blockHeader is the nearest line at or above i with no indentation (a
// kernel's signature, a graph's def line) when i is inside an indented
// block, or -1.
func blockHeader(d *stageDoc, i int) int {
	if i < 0 || i >= len(d.lines) {
		return -1
	}
	for j := i; j >= 0; j-- {
		l := d.lines[j]
		if strings.TrimSpace(l) == "" {
			return -1
		}
		if l[0] != ' ' && l[0] != '\t' {
			return j
		}
	}
	return -1
}

func (m *Model) switchGraph(next bool) {
	if len(m.units) < 2 {
		m.notice = "this trace has one captured graph"
		return
	}
	if next {
		m.graph = (m.graph + 1) % len(m.units)
	} else {
		m.graph = (m.graph + len(m.units) - 1) % len(m.units)
	}
	for p := range m.panes {
		m.panes[p].gv = nil
		m.panes[p].remember = map[int]int{}
		m.panes[p].cursor, m.panes[p].top, m.panes[p].left = -1, 0, 0
		m.panes[p].step(m.stageDoc(p), 1)
		m.panes[p].cursor = max(m.panes[p].cursor, 0)
	}
	m.related, m.sel = nil, nil
	m.source = nil
}

// selection is what the cursor of the focused pane stands for.
func (m *Model) selection() []nodeID {
	if m.doc() == nil {
		return nil
	}
	d := m.stageDoc(m.focus)
	if gv := m.panes[m.focus].gv; gv != nil {
		var ids []nodeID
		for _, n := range gv.Selected() {
			ids = append(ids, nodeID{Stage: d.idx, Name: n})
		}
		return ids
	}
	c := m.panes[m.focus].cursor
	if c < 0 || c >= len(d.refs) {
		return nil
	}
	return d.refs[c]
}

// refresh recomputes the related set when the selection moved, and
// scrolls the other pane to show it.
func (m *Model) refresh() {
	if m.doc() == nil {
		return
	}
	at := [3]int{m.graph, m.panes[m.focus].stage*2 + m.focus, m.panes[m.focus].cursor}
	if at == m.selAt {
		return
	}
	m.selAt = at
	if !m.keepSel || m.related == nil {
		m.sel = m.selection()
		m.related = m.doc().prov.Related(m.sel...)
	}
	m.keepSel = false
	o := 1 - m.focus
	od := m.stageDoc(o)
	if l := bestLine(od, m.sel, m.related); l >= 0 {
		m.panes[o].cursor = l
		m.panes[o].show(od, l, m.paneBody())
	}
}

// paneAt is the pane under screen column x, -1 over the stage list.
func (m *Model) paneAt(x int) int {
	lw, pw := m.layout()
	switch {
	case x < lw:
		return -1
	case m.single():
		return m.focus
	case x >= lw+pw+1:
		return 1
	}
	return 0
}

// click selects what is under the pointer, as GOSSAFUNC does: a stage of
// the stage list shows in the focused pane; a line of a pane takes the
// focus and the cursor (selecting its node).
func (m *Model) click(ms tea.Mouse) {
	if m.doc() == nil || m.help || ms.Button != tea.MouseLeft {
		return
	}
	body := m.height - 2
	_, bh := m.bottom()
	body -= bh
	row := ms.Y - 1 // below the title line
	if row < 0 || row >= body {
		return
	}
	p := m.paneAt(ms.X)
	if p < 0 {
		// The stage list: a title row, then one (or two) rows per stage.
		per := 1
		if body >= 2*len(m.doc().stages)+1 {
			per = 2
		}
		if i := (row - 1) / per; row >= 1 && i < len(m.doc().stages) {
			m.keepSel = true
			m.setStage(m.focus, i)
		}
		return
	}
	if m.panes[p].gv != nil {
		return
	}
	line := m.panes[p].top + row - 1 // below the pane's header
	d := m.stageDoc(p)
	if row < 1 || line >= len(d.lines) {
		return
	}
	m.focus = p
	m.panes[p].cursor = line
}

// wheel scrolls the pane under the mouse.
func (m *Model) wheel(ms tea.Mouse) {
	if m.doc() == nil {
		return
	}
	p := m.paneAt(ms.X)
	if p < 0 {
		return
	}
	delta := 3
	if ms.Button == tea.MouseWheelUp {
		delta = -3
	}
	m.panes[p].scroll(m.stageDoc(p), delta, m.paneBody())
}

// matches lists the lines of d containing q (lower case).
func matches(d *stageDoc, q string) []int {
	var out []int
	for i, l := range d.lines {
		if strings.Contains(strings.ToLower(l), q) {
			out = append(out, i)
		}
	}
	return out
}

// searchSummary counts q's matches in every stage: "3 here (2/3) · 17 in
// 5 stages: normalized 2, joint 9, …".
func (m *Model) searchSummary(q string, cur int) string {
	q = strings.ToLower(q)
	d := m.stageDoc(m.focus)
	here := matches(d, q)
	k := 0
	for i, l := range here {
		if l == cur {
			k = i + 1
		}
	}
	total, nst := 0, 0
	var per []string
	for _, sd := range m.doc().stages {
		if n := len(matches(sd, q)); n > 0 {
			total += n
			nst++
			per = append(per, fmt.Sprintf("%s %d", sd.name, n))
		}
	}
	s := fmt.Sprintf("%q: %d here", q, len(here))
	if k > 0 {
		s += fmt.Sprintf(" (%d/%d)", k, len(here))
	}
	return s + fmt.Sprintf(" · %d in %d stages: %s (n/N go on into the next stage)", total, nst, strings.Join(per, ", "))
}

// find moves the focused pane's cursor to the next line (from line
// `from`, in direction dir) containing q, case-insensitively; past the
// pane's last (first) match it goes on into the next (previous) stage
// that has one, wrapping around the table. It reports every stage's
// count in the status line.
func (m *Model) find(q string, from, dir int) bool {
	if q == "" {
		return false
	}
	lq := strings.ToLower(q)
	ns := len(m.doc().stages)
	for k := 0; k <= ns; k++ {
		si := ((m.panes[m.focus].stage+dir*k)%ns + ns) % ns
		d := m.doc().stages[si]
		ms := matches(d, lq)
		if len(ms) == 0 {
			continue
		}
		line := -1
		switch {
		case k == 0 && dir > 0:
			for _, l := range ms {
				if l >= from {
					line = l
					break
				}
			}
		case k == 0:
			for j := len(ms) - 1; j >= 0; j-- {
				if ms[j] <= from {
					line = ms[j]
					break
				}
			}
		case dir > 0:
			line = ms[0]
		default:
			line = ms[len(ms)-1]
		}
		if line < 0 {
			continue
		}
		if si != m.panes[m.focus].stage {
			m.setStage(m.focus, si)
		}
		m.panes[m.focus].cursor = line
		m.panes[m.focus].clamp(d, m.paneBody())
		m.notice = m.searchSummary(q, line)
		return true
	}
	m.notice = fmt.Sprintf("%q not found in any stage", q)
	return false
}

func (m *Model) promptKey(msg tea.KeyPressMsg) {
	pr := m.prompt
	p := &m.panes[m.focus]
	switch msg.String() {
	case "esc":
		p.cursor = pr.origin
		m.prompt = nil
	case "enter":
		m.prompt = nil
		if pr.kind == "goto" {
			m.gotoNode(strings.TrimSpace(pr.text))
		} else {
			m.search = pr.text
		}
	case "backspace":
		if r := []rune(pr.text); len(r) > 0 {
			pr.text = string(r[:len(r)-1])
		}
	default:
		if msg.Text != "" {
			pr.text += msg.Text
		}
	}
	if m.prompt != nil && pr.kind == "search" {
		if !m.findHere(pr.text, pr.origin) {
			p.cursor = pr.origin
		}
	}
	p.clamp(m.stageDoc(m.focus), m.paneBody())
}

// findHere is the incremental search while typing: the first match in
// the focused pane at or after from (wrapping), without leaving it.
func (m *Model) findHere(q string, from int) bool {
	if q == "" {
		return false
	}
	d := m.stageDoc(m.focus)
	ms := matches(d, strings.ToLower(q))
	if len(ms) == 0 {
		m.notice = m.searchSummary(q, -1)
		return false
	}
	line := ms[0]
	for _, l := range ms {
		if l >= from {
			line = l
			break
		}
	}
	m.panes[m.focus].cursor = line
	m.notice = m.searchSummary(q, line)
	return true
}

// gotoNode selects the node called name: in the focused stage if it
// defines it, or (a text stage: loop IR, kernels) on the first line that
// names it itself; else in the first graph stage that has it (the pane
// switches there).
func (m *Model) gotoNode(name string) {
	d := m.doc()
	cur := d.stages[m.panes[m.focus].stage]
	if _, ok := cur.defLine[name]; !ok && cur.graph == nil {
		// A line naming the node in its own text first (the C line
		// commented "// NAME"), else one naming a buffer that computes it.
		best, rank := -1, 0
		for i, ids := range cur.direct {
			for _, id := range ids {
				if id.Name != name {
					continue
				}
				r := 1 // names a buffer computing it
				for _, tok := range identRE.FindAllString(cur.lines[i], -1) {
					if tok == name {
						r = 2 // names it, in a comment
						if t := strings.TrimSpace(cur.lines[i]); !strings.HasPrefix(t, "//") && !strings.HasPrefix(t, "#") {
							r = 3 // names it on a line of code
						}
					}
				}
				if r > rank {
					best, rank = i, r
				}
			}
		}
		if best >= 0 {
			m.panes[m.focus].cursor = best
			m.panes[m.focus].clamp(cur, m.paneBody())
			return
		}
	}
	try := []int{m.panes[m.focus].stage}
	for i := range d.stages {
		try = append(try, i)
	}
	for _, i := range try {
		if l, ok := d.stages[i].defLine[name]; ok {
			if i != m.panes[m.focus].stage {
				m.setStage(m.focus, i)
			}
			m.panes[m.focus].cursor = l
			m.panes[m.focus].clamp(d.stages[i], m.paneBody())
			return
		}
	}
	m.notice = fmt.Sprintf("no node %q in graph %s", name, d.unit.Captured.Name)
}

// capturedStage is the first graph stage of the table: the graph as the
// user's program produced it, where user source lines live.
func (m *Model) capturedStage() int {
	for i, d := range m.doc().stages {
		if d.graph != nil {
			return i
		}
	}
	return -1
}

// originNodes are the captured-graph nodes the selection came from.
func (m *Model) originNodes() []*ir.Node {
	c := m.capturedStage()
	if c < 0 {
		return nil
	}
	g := m.doc().stages[c].graph
	var out []*ir.Node
	for _, n := range g.Nodes {
		if m.related[nodeID{Stage: c, Name: n.Name}] {
			out = append(out, n)
		}
	}
	return out
}

// jumpToSource shows the selection's original nodes in the other pane (the
// captured graph) and opens the source panel on the user's lines.
func (m *Model) jumpToSource() {
	nodes := m.originNodes()
	if len(nodes) == 0 {
		m.notice = "the line under the cursor stands for no node of the captured graph"
		return
	}
	c := m.capturedStage()
	o := 1 - m.focus
	if m.panes[m.focus].stage != c {
		m.panes[o].remember[m.panes[o].stage] = m.panes[o].cursor
		m.panes[o].stage = c
		m.panes[o].left = 0
	}
	d := m.doc().stages[c]
	if l := firstRelated(d, m.related); l >= 0 {
		m.panes[o].cursor = l
		m.panes[o].show(d, l, m.paneBody())
	}
	m.source = sourceLines(m.tr, nodes)
}

// relatedStages lists, per stage, whether the selection lives there.
func (m *Model) relatedStages() []bool {
	d := m.doc()
	out := make([]bool, len(d.stages))
	for i, sd := range d.stages {
		out[i] = firstRelated(sd, m.related) >= 0
	}
	return out
}

// otherLit moves the other pane's cursor to the next (dir 1) or previous
// lit line of the selection, wrapping: the lines a selection lights far
// down a long stage (the backward half of a joint graph) are one key away.
func (m *Model) otherLit(dir int) {
	o := 1 - m.focus
	d := m.stageDoc(o)
	var lit []int
	for i := range d.lines {
		if lineRelated(d, i, m.related) {
			lit = append(lit, i)
		}
	}
	if len(lit) == 0 {
		m.notice = "the selection lights no line of " + d.name
		return
	}
	cur := m.panes[o].cursor
	k := -1
	if dir > 0 {
		for j, l := range lit {
			if l > cur {
				k = j
				break
			}
		}
		if k < 0 {
			k = 0
		}
	} else {
		for j := len(lit) - 1; j >= 0; j-- {
			if lit[j] < cur {
				k = j
				break
			}
		}
		if k < 0 {
			k = len(lit) - 1
		}
	}
	m.panes[o].cursor = lit[k]
	m.panes[o].show(d, lit[k], m.paneBody())
	m.notice = fmt.Sprintf("%s: lit line %d of %d", d.name, k+1, len(lit))
}

// cursorNodes names the selection, for the status line.
func (m *Model) cursorNodes() string {
	sel := m.sel
	if sel == nil {
		sel = m.selection()
	}
	names := make([]string, 0, len(sel))
	for _, id := range sel {
		names = append(names, termsafe.String(id.Name))
	}
	sort.Strings(names)
	if len(names) > 4 {
		names = append(names[:4], "…")
	}
	return strings.Join(names, ", ")
}

// global keys work the same in graph mode; the others go to the drawing.
func global(msg tea.KeyPressMsg) bool {
	return key.Matches(msg, keys.Focus, keys.PrevStage, keys.NextStage, keys.PrevGraph, keys.NextGraph,
		keys.View, keys.Diff, keys.Zoom, keys.List, keys.PanelUp, keys.PanelDown, keys.OtherNext, keys.OtherPrev, keys.Help, keys.Close, keys.Quit, keys.Run, keys.Device, keys.Tour, keys.Explain, keys.Jump, keys.TourNext, keys.TourPrev)
}

// toggleGraph switches the focused pane between text and a drawing of its
// stage's graph, keeping the selection.
func (m *Model) toggleGraph() {
	p := &m.panes[m.focus]
	if p.gv != nil {
		// Back to text on the line of the node selected in the drawing.
		names := p.gv.Selected()
		p.gv = nil
		d := m.stageDoc(m.focus)
		if len(names) > 0 {
			if l, ok := d.defLine[names[0]]; ok {
				p.cursor = l
				p.clamp(d, m.paneBody())
			}
		}
		return
	}
	d := m.stageDoc(m.focus)
	if d.graph == nil {
		m.notice = d.name + " has no graph to draw"
		return
	}
	gv := NewGraphView(d.graph, GraphViewOptions{})
	if err := gv.Err(); err != nil {
		m.notice = "cannot draw " + d.name + ": " + err.Error()
		return
	}
	var names []string
	for _, id := range m.selection() {
		names = append(names, id.Name)
	}
	gv.SetSelected(names)
	p.gv = &gv
}
