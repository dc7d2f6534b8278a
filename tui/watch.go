package tui

import (
	"fmt"
	"strings"
	"time"

	"gcdbg/termsafe"
	"gcdbg/watch"
)

// Watch mode (`gcdbg explore --watch`): each compile of package watch comes
// in as a WatchMsg. A good compile swaps in the new stages and keeps what
// the user looks at (graph, each pane's stage, the selected node when it
// still exists); a failed one keeps the last good stages and shows the
// error in a banner. The status line says what changed since the last
// compile.

// WatchMsg carries one watch.Result. Make it with NewWatchMsg, off the UI
// goroutine: printing and indexing every stage is the slow part.
type WatchMsg struct {
	Result watch.Result
	docs   []*unitDoc
}

// NewWatchMsg builds the stage documents of r's units.
func NewWatchMsg(r watch.Result) WatchMsg {
	msg := WatchMsg{Result: r}
	if r.Err == nil && r.Phase == watch.PhaseStages {
		for _, u := range r.Units {
			if u != nil {
				msg.docs = append(msg.docs, buildUnitDoc(u))
			}
		}
	}
	return msg
}

// watchState is what the status line and the banner show.
type watchState struct {
	on      bool
	seq     int    // the compile on screen
	err     string // the last compile's error; "" when it was good
	errSeq  int
	errText string // the whole error, for the error panel
	prevSeq int    // the compile the diff mode's "vs #N" compares with (0 none)
	changed string // the diff summary of the compile on screen
	run     string // builds and the run's verdict, when it came
	elapsed time.Duration
}

// applyWatch handles a WatchMsg.
func (m *Model) applyWatch(msg WatchMsg) {
	r := msg.Result
	w := &m.watch
	w.on = true
	if r.Err != nil {
		w.err, w.errSeq, w.errText = firstLine(r.Err.Error()), r.Seq, r.Err.Error()
		m.errClosed = false
		return
	}
	if r.Phase == watch.PhaseRun {
		if r.Seq == w.seq {
			w.run = runSummary(r)
			w.elapsed = r.Elapsed
		}
		return
	}
	if len(msg.docs) == 0 {
		return
	}
	prev := w.seq
	w.err, w.errText, w.seq, w.run, w.elapsed = "", "", r.Seq, "", r.Elapsed
	w.changed = "first compile"
	w.prevSeq = 0
	if r.Diff != nil {
		w.changed = r.Diff.Summary()
		w.prevSeq = prev
		for _, d := range msg.docs {
			d.applyCompileDiff(r.Diff, prev)
		}
	}
	if r.Trace != nil {
		m.tr = r.Trace
	}
	m.loadErr = ""
	if len(m.units) == 0 {
		m.update(loadedMsg{units: msg.docs})
		return
	}
	// Keep the selection (the node followed, not just the cursor line)
	// wherever it still exists in the new compile.
	sel := m.sel
	if sel == nil {
		sel = m.selection()
	}
	names := make([]string, len(sel))
	for i, id := range sel {
		names[i] = id.Name
	}
	m.units = msg.docs
	m.graph = min(m.graph, len(m.units)-1)
	var kept []nodeID
	for _, id := range sel {
		if m.doc().prov.Node(id.Stage, id.Name) != nil {
			kept = append(kept, id)
		}
	}
	m.sel, m.related = nil, nil
	if len(kept) > 0 {
		m.sel = kept
		m.related = m.doc().prov.Related(kept...)
	}
	h := m.paneBody()
	for p := range m.panes {
		pn := &m.panes[p]
		d := m.stageDoc(p)
		if l := bestLine(d, m.sel, m.related); l >= 0 && (p == m.focus || !m.single()) {
			pn.cursor = l
			pn.show(d, l, h)
		}
		pn.clamp(d, h)
		if pn.gv != nil {
			pn.gv = nil
			if d.graph != nil {
				gv := NewGraphView(d.graph, GraphViewOptions{})
				if gv.Err() == nil {
					gv.SetSelected(names)
					pn.gv = &gv
				}
			}
		}
	}
	m.keepSel = m.sel != nil
	m.selAt = [3]int{-1, -1, -1}
}

func runSummary(r watch.Result) string {
	var parts []string
	if len(r.Builds) > 0 {
		hit := 0
		for _, b := range r.Builds {
			if b.Hit {
				hit++
			}
		}
		parts = append(parts, fmt.Sprintf("%d of %d programs rebuilt", len(r.Builds)-hit, len(r.Builds)))
	}
	if r.Run != nil {
		parts = append(parts, r.Run.Summary())
	}
	return strings.Join(parts, ", ")
}

func firstLine(s string) string {
	first, _, _ := strings.Cut(s, "\n")
	return first
}

// watchStatus is the status line's part: which compile is shown and what
// changed since the one before.
func (m *Model) watchStatus() string {
	w := m.watch
	if !w.on || w.seq == 0 {
		return ""
	}
	s := fmt.Sprintf(" · #%d (%d ms): %s", w.seq, w.elapsed.Milliseconds(), w.changed)
	if w.run != "" {
		s += "; " + w.run
	}
	return s
}

// watchBanner is the title line's error, when the last compile failed.
func (m *Model) watchBanner() string {
	w := m.watch
	if w.err == "" {
		return ""
	}
	keep := "nothing compiled yet"
	if w.seq > 0 {
		keep = fmt.Sprintf("showing #%d", w.seq)
	}
	return " " + styles.bad.Render(fmt.Sprintf("#%d failed: %s (%s)", w.errSeq, termsafe.String(w.err), keep))
}
