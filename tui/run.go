package tui

import (
	"fmt"
	"runtime/debug"
	"sort"
	"strings"
	"sync"
	"time"

	tea "charm.land/bubbletea/v2"

	"gcdbg/runner"
	"gcdbg/stages"
	"gcdbg/termsafe"
	"gcdbg/trace"
	"gcdbg/verdict"
)

// The run panel is the explorer's only use of runner: `r` runs runner.Run
// in a command and shows its Result (the same as `gcdbg run --json`): on
// the default device the compiled kernels' outputs and grads against
// PyTorch and against gcdbg's eager reference, and per-kernel timings.
// `d` switches the device (cpu, opencl, cuda, eager) and reruns.

type runDoneMsg struct {
	res  *runner.Result
	err  error
	took time.Duration
	seq  int
}

type spinMsg struct{ seq int }

// progressMsg is one of a run's progress notices (runner.Options.Progress:
// reference runs or the C compiler still running), shown in the status
// line: written to the terminal they would scroll the full-screen view.
type progressMsg struct {
	seq  int
	text string
	sink *progressSink // listened to again for the next notice
}

// progressSink passes a run's notices to the UI: sends after the run
// ended, or while the UI is behind, are dropped, never blocking the run.
type progressSink struct {
	mu     sync.Mutex
	ch     chan string
	closed bool
}

func (p *progressSink) send(msg string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return
	}
	select {
	case p.ch <- msg:
	default:
	}
}

func (p *progressSink) close() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.closed {
		p.closed = true
		close(p.ch)
	}
}

// listen waits for the sink's next notice; nil once the run ended.
func listen(seq int, p *progressSink) tea.Cmd {
	return func() tea.Msg {
		text, ok := <-p.ch
		if !ok {
			return nil
		}
		return progressMsg{seq: seq, text: text, sink: p}
	}
}

// devices are the run panel's devices, in the order `d` cycles them
// (runner.Devices). A device that is not present (no OpenCL platform, no
// CUDA driver) is reported plainly by the run itself.
var devices = runner.Devices

type runPanel struct {
	device           string // "" until the first run: then opt.Device or runner.DefaultDevice()
	visible, running bool
	seq              int // which run a message belongs to
	frame            int
	res              *runner.Result
	err              error
	took             time.Duration
	progress         string        // the running run's last progress notice
	every            time.Duration // how often the run reports progress (0: the runner's default)
}

var spinner = []string{"⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"}

func spin(seq int) tea.Cmd {
	return tea.Tick(120*time.Millisecond, func(time.Time) tea.Msg { return spinMsg{seq} })
}

// start runs the trace in the background; pressing r while a run is going
// only shows the panel.
func (r *runPanel) start(tr *trace.Trace, units []*stages.Unit, opt Options) tea.Cmd {
	r.visible = true
	if r.running {
		return nil
	}
	if r.device == "" {
		r.device = opt.Device
		if r.device == "" {
			r.device, _ = runner.DefaultDevice()
		}
	}
	r.running, r.err, r.progress = true, nil, ""
	r.seq++
	seq := r.seq
	sink := &progressSink{ch: make(chan string, 8)}
	ropt := runner.Options{Runs: opt.Runs, Device: r.device, Progress: sink.send, ProgressEvery: r.every}
	work := func() (msg tea.Msg) {
		t0 := time.Now()
		var res *runner.Result
		var err error
		defer sink.close()
		defer func() { // a panic in a run is an internal error in the panel, never a crash
			if r := recover(); r != nil {
				msg = runDoneMsg{err: &stages.InternalError{Stage: "run", Value: r, Stack: debug.Stack()}, took: time.Since(t0), seq: seq}
			}
		}()
		if units != nil {
			res, err = runner.RunUnits(tr, units, ropt)
		} else {
			res, err = runner.Run(tr, ropt)
		}
		return runDoneMsg{res: res, err: err, took: time.Since(t0), seq: seq}
	}
	return tea.Batch(work, spin(seq), listen(seq, sink))
}

// nextDevice moves to the next device of the cycle.
func (r *runPanel) nextDevice(opt Options) {
	if r.device == "" {
		r.device = opt.Device
		if r.device == "" {
			r.device, _ = runner.DefaultDevice()
		}
	}
	for i, d := range devices {
		if d == r.device {
			r.device = devices[(i+1)%len(devices)]
			return
		}
	}
	r.device = devices[0]
}

func (r *runPanel) update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case spinMsg:
		if r.running && msg.seq == r.seq {
			r.frame++
			return spin(msg.seq)
		}
	case progressMsg:
		if r.running && msg.seq == r.seq {
			r.progress = strings.TrimPrefix(termsafe.String(msg.text), "gcdbg: ")
		}
		return listen(msg.seq, msg.sink)
	case runDoneMsg:
		if msg.seq == r.seq {
			r.running, r.progress = false, ""
			r.res, r.err, r.took = msg.res, msg.err, msg.took
		}
	}
	return nil
}

func (r *runPanel) view() string {
	if r.running {
		what := "compiling and running the kernels on " + r.device
		if r.device == "eager" {
			what = "running the pipeline's graphs under the eager interpreter"
		}
		return spinner[r.frame%len(spinner)] + " " + what + ", comparing with PyTorch… (d: switch device)"
	}
	var sb strings.Builder
	res := r.res
	// The first line is the verdict: the panel pins it, whatever scrolls.
	switch {
	case r.err != nil:
		msg := termsafe.Text(r.err.Error()) // errors quote the trace's names
		sb.WriteString(styles.bad.Render("FAIL on "+r.device+": could not run") + " — " + firstLine(msg) + "\n")
		if rest := strings.TrimSpace(strings.TrimPrefix(msg, firstLine(msg))); rest != "" {
			sb.WriteString(rest + "\n")
		}
	case res == nil:
		return "not run yet: r runs"
	case !res.OK:
		fmt.Fprintf(&sb, "%s  (%s, took %s)\n", styles.bad.Render("FAIL on "+res.Device+": some values differ (see ✗)"), res.Device, r.took.Round(time.Millisecond))
	default:
		fmt.Fprintf(&sb, "%s  (%s, took %s)\n", styles.ok.Render("PASS on "+res.Device+": every value matches · "+res.Coverage()), res.Device, r.took.Round(time.Millisecond))
	}
	if res == nil {
		return strings.TrimRight(sb.String(), "\n")
	}
	if r.err != nil || res.Device != r.device {
		// Never a stale or fallback result passed off as this device's.
		fmt.Fprintf(&sb, "%s\n", styles.dim.Render(fmt.Sprintf("the numbers below are from a run on %s, not %s", res.Device, r.device)))
	}
	for _, g := range res.Graphs {
		fmt.Fprintf(&sb, "graph %s", termsafe.String(g.Name))
		if k, ok := g.Stages["kernels"]; ok {
			fmt.Fprintf(&sb, " · %v kernels (%v before fusion)", k, g.Stages["kernels_before_fusion"])
		}
		if pb, ok := g.Stages["peak_bytes"]; ok {
			fmt.Fprintf(&sb, " · peak %v bytes", pb)
		}
		sb.WriteString("\n")
		if g.NotComparedWithPyTorch != "" {
			sb.WriteString("  " + styles.dim.Render("vs PyTorch: "+termsafe.String(g.NotComparedWithPyTorch)) + "\n")
		}
		for _, o := range g.Outputs {
			fmt.Fprintf(&sb, "  output %d %s%v  vs PyTorch %s  vs eager %s\n", o.Index, o.DType, o.Shape, cmp(o.VsExpected), cmp(o.VsEager))
		}
		for _, gr := range g.Grads {
			fmt.Fprintf(&sb, "  grad %-28s vs PyTorch %s  vs eager %s\n", termsafe.String(gr.Name), cmp(gr.VsExpected), cmp(gr.VsEager))
		}
		for _, b := range g.Buffers {
			fmt.Fprintf(&sb, "  buffer %-26s vs PyTorch %s  vs eager %s\n", termsafe.String(b.Name), cmp(b.VsExpected), cmp(b.VsEager))
		}
		for _, line := range mismatchDetails(&g) {
			sb.WriteString("  " + styles.bad.Render(termsafe.String(line)) + "\n")
		}
		if g.FirstDifference != "" {
			sb.WriteString("  " + styles.bad.Render("where to look: "+termsafe.String(g.FirstDifference)) + "\n")
		}
		t := g.Timing
		fmt.Fprintf(&sb, "  time (%s, median of %d): gcdbg eager %.3f ms%s", t.Covers, t.Runs, t.EagerMS, t.EagerNote())
		if t.CompiledMS > 0 {
			fmt.Fprintf(&sb, " · compiled %.3f ms", t.CompiledMS)
		}
		if t.ProducerEagerMS > 0 {
			fmt.Fprintf(&sb, " · PyTorch eager %.3f ms (recorded at export)", t.ProducerEagerMS)
		}
		sb.WriteString("\n")
		writeKernels(&sb, g.Kernels)
		if len(g.Fallback) > 0 {
			fb := append([]string(nil), g.Fallback...)
			sort.Strings(fb)
			fmt.Fprintf(&sb, "  eager fallbacks: %s\n", termsafe.String(strings.Join(fb, ", ")))
		}
	}
	return strings.TrimRight(sb.String(), "\n")
}

// writeKernels lists every timed kernel, slowest first (the panel scrolls), with
// their median time, bandwidth and arithmetic rate.
func writeKernels(sb *strings.Builder, ks []any) {
	type row struct {
		name, role      string
		ms, gbps, gflop float64
	}
	var rows []row
	for _, k := range ks {
		if k, ok := runner.KernelOf(k); ok {
			rows = append(rows, row{k.Name, k.Role, k.MS, k.GBps, k.GFlops})
		}
	}
	if len(rows) == 0 {
		return
	}
	sort.SliceStable(rows, func(i, j int) bool { return rows[i].ms > rows[j].ms })
	fmt.Fprintf(sb, "  %d kernels timed, slowest first:     ms     GB/s  GFLOP/s\n", len(rows))
	for _, r := range rows {
		fmt.Fprintf(sb, "    %-24s %-9s %8.4f %8.2f %8.2f\n", cut(r.name, 24), r.role, r.ms, r.gbps, r.gflop)
	}
}

func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n-1] + "…"
}

// cmp renders one judgement in verdict's own words (✓/✗, rmse against
// its bound), coloured.
func cmp(j *verdict.Judgement) string {
	switch {
	case j == nil:
		return styles.dim.Render(j.Short())
	case j.Match:
		return styles.ok.Render(j.Short())
	}
	return styles.bad.Render(j.Short())
}

// mismatchDetails are the Detail lines of the failing comparisons.
func mismatchDetails(g *runner.GraphResult) []string {
	var out []string
	g.Judgements(func(what, against string, j *verdict.Judgement) {
		if !j.Match {
			out = append(out, fmt.Sprintf("✗ %s %s: %s", what, against, j.Detail()))
		}
	})
	return out
}
