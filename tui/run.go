package tui

import (
	"fmt"
	"sort"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"gcdbg/interp"
	"gcdbg/runner"
	"gcdbg/trace"
)

// The run panel is the explorer's only use of runner: `r` runs runner.Run
// in a command and shows its Result (the same as `gcdbg run --json`). When
// the runner compares compiled kernels too, the panel shows them without
// change here beyond the fields it prints.

type runDoneMsg struct {
	res  *runner.Result
	err  error
	took time.Duration
	seq  int
}

type spinMsg struct{ seq int }

type runPanel struct {
	visible, running bool
	seq              int // which run a message belongs to
	frame            int
	res              *runner.Result
	err              error
	took             time.Duration
}

var spinner = []string{"⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"}

func spin(seq int) tea.Cmd {
	return tea.Tick(120*time.Millisecond, func(time.Time) tea.Msg { return spinMsg{seq} })
}

// start runs the trace in the background; pressing r while a run is going
// only shows the panel.
func (r *runPanel) start(tr *trace.Trace, opt Options) tea.Cmd {
	r.visible = true
	if r.running {
		return nil
	}
	r.running, r.err = true, nil
	r.seq++
	seq := r.seq
	runs := opt.Runs
	work := func() tea.Msg {
		t0 := time.Now()
		res, err := runner.Run(tr, runner.Options{Runs: runs})
		return runDoneMsg{res: res, err: err, took: time.Since(t0), seq: seq}
	}
	return tea.Batch(work, spin(seq))
}

func (r *runPanel) update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case spinMsg:
		if r.running && msg.seq == r.seq {
			r.frame++
			return spin(msg.seq)
		}
	case runDoneMsg:
		if msg.seq == r.seq {
			r.running = false
			r.res, r.err, r.took = msg.res, msg.err, msg.took
		}
	}
	return nil
}

func (r *runPanel) view() string {
	if r.running {
		return spinner[r.frame%len(spinner)] + " running the pipeline and the eager interpreter, comparing with PyTorch…"
	}
	var sb strings.Builder
	if r.err != nil {
		sb.WriteString(styles.bad.Render("could not run: ") + r.err.Error() + "\n")
	}
	res := r.res
	if res == nil {
		return sb.String()
	}
	verdict := styles.ok.Render("PASS: every output and gradient matches PyTorch and gcdbg's eager reference")
	if !res.OK {
		verdict = styles.bad.Render("FAIL: some values differ (see ✗)")
	}
	fmt.Fprintf(&sb, "%s  (%s, took %s)\n", verdict, res.Device, r.took.Round(time.Millisecond))
	for _, g := range res.Graphs {
		fmt.Fprintf(&sb, "graph %s", g.Name)
		if k, ok := g.Stages["kernels"]; ok {
			fmt.Fprintf(&sb, " · %v kernels (%v before fusion)", k, g.Stages["kernels_before_fusion"])
		}
		if pb, ok := g.Stages["peak_bytes"]; ok {
			fmt.Fprintf(&sb, " · peak %v bytes", pb)
		}
		sb.WriteString("\n")
		for _, o := range g.Outputs {
			fmt.Fprintf(&sb, "  output %d %s%v  vs PyTorch %s  vs eager %s\n", o.Index, o.DType, o.Shape, cmp(o.VsExpected), cmp(o.VsEager))
		}
		for _, gr := range g.Grads {
			fmt.Fprintf(&sb, "  grad %-28s vs PyTorch %s  vs eager %s\n", gr.Name, cmp(gr.VsExpected), cmp(gr.VsEager))
		}
		t := g.Timing
		fmt.Fprintf(&sb, "  time (%s, median of %d): gcdbg eager %.3f ms", t.Covers, t.Runs, t.EagerMS)
		if t.CompiledMS > 0 {
			fmt.Fprintf(&sb, " · compiled %.3f ms", t.CompiledMS)
		}
		if t.ProducerEagerMS > 0 {
			fmt.Fprintf(&sb, " · PyTorch eager %.3f ms", t.ProducerEagerMS)
		}
		sb.WriteString("\n")
		if len(g.Fallback) > 0 {
			fb := append([]string(nil), g.Fallback...)
			sort.Strings(fb)
			fmt.Fprintf(&sb, "  eager fallbacks: %s\n", strings.Join(fb, ", "))
		}
	}
	return strings.TrimRight(sb.String(), "\n")
}

// cmp renders one comparison: ✓/✗ and the largest absolute error.
func cmp(c *interp.Comparison) string {
	if c == nil {
		return styles.dim.Render("—")
	}
	if c.Why != "" {
		return styles.bad.Render("✗ " + c.Why)
	}
	mark := styles.ok.Render("✓")
	if !c.Match {
		mark = styles.bad.Render("✗")
	}
	return fmt.Sprintf("%s max|Δ| %.2g", mark, c.MaxAbsErr)
}
