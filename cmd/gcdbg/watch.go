package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"

	tea "charm.land/bubbletea/v2"

	"gcdbg/runner"
	"gcdbg/trace"
	"gcdbg/tui"
	"gcdbg/watch"
)

// cmdWatch is `gcdbg watch FILE`: recompile FILE whenever it is saved and
// print one line per compile (package watch).
func cmdWatch(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("watch", flag.ContinueOnError)
	execCmd := fs.String("exec", "", "shell command run (in FILE's folder) when FILE changes, before the trace is reloaded: e.g. the exporter on model.py")
	tracePath := fs.String("trace", "", "the trace --exec writes, loaded after it (default: FILE)")
	defDevice, why := runner.DefaultDevice()
	device := fs.String("device", defDevice, "cpu: build (cached) and run the compiled kernels after the stages; eager: run the eager interpreter; none: the stages only (default here: "+defDevice+deviceWhy(why)+")")
	runs := fs.Int("runs", 3, "timed repetitions per compile; the median is reported")
	count := fs.Int("count", 0, "stop after this many compiles (0: until interrupted)")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: gcdbg watch FILE [--exec CMD [--trace OUT]] [--device cpu|eager|none] [--runs N]")
		fs.PrintDefaults()
	}
	pos, err := parseFlags(fs, args, stderr)
	if err != nil {
		if err == flag.ErrHelp {
			return 0
		}
		fmt.Fprintln(stderr, "gcdbg watch:", err)
		return 2
	}
	if len(pos) != 1 {
		fs.Usage()
		return 2
	}
	dev := *device
	if dev == "none" {
		dev = ""
	} else if err := checkDevice(dev, why); err != nil {
		fmt.Fprintln(stderr, "gcdbg watch:", err)
		return 2
	}
	w, err := watch.New(pos[0], watch.Options{Load: openTrace, Exec: *execCmd, Trace: *tracePath, Device: dev, Runs: *runs})
	if err != nil {
		fmt.Fprintln(stderr, "gcdbg watch:", err)
		return 2
	}
	defer w.Close()
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, os.Interrupt)
	defer signal.Stop(stop)
	name := filepath.Base(pos[0])
	done := 0
	for {
		select {
		case <-stop:
			return 0
		case r, ok := <-w.Results():
			if !ok {
				return 0
			}
			if !r.Final {
				continue
			}
			fmt.Fprintln(stdout, watchLine(name, r))
			if done++; *count > 0 && done >= *count {
				return 0
			}
		}
	}
}

// watchLine is one compile:
//
//	#3 12:04:05 mlp.py: ok in 84 ms — normalized +1 -0 ~2, kernels: k1_h2_abs changed (1 of 2 rebuilt, 1 cached), outputs match
//	#4 12:04:09 mlp.py:3:14: unknown dtype "f33" (keeping #3)
func watchLine(name string, r watch.Result) string {
	head := fmt.Sprintf("#%d %s ", r.Seq, r.At.Format("15:04:05"))
	if r.Err != nil {
		msg := r.Err.Error()
		// The loader's errors start with the file name; others get it.
		if !strings.HasPrefix(msg, name) {
			msg = name + ": " + msg
		}
		keep := "nothing compiled yet"
		if r.Kept > 0 {
			keep = fmt.Sprintf("keeping #%d", r.Kept)
		}
		first, rest, _ := strings.Cut(msg, "\n")
		line := head + first + " (" + keep + ")"
		if rest != "" {
			line += "\n    " + strings.ReplaceAll(strings.TrimRight(rest, "\n"), "\n", "\n    ")
		}
		return line
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s%s: ok in %d ms", head, name, r.Elapsed.Milliseconds())
	if r.Diff != nil {
		b.WriteString(" — " + r.Diff.Summary())
	} else {
		n := 0
		for _, u := range r.Units {
			n += len(u.Captured.Nodes)
		}
		fmt.Fprintf(&b, " — %d graph(s), %d captured nodes", len(r.Units), n)
	}
	if len(r.Builds) > 0 {
		hit := 0
		for _, bl := range r.Builds {
			if bl.Hit {
				hit++
			}
		}
		built, cached := 0, 0
		for _, bl := range r.Builds {
			built += bl.ObjectsBuilt
			cached += bl.ObjectsCached
		}
		fmt.Fprintf(&b, " (%d of %d programs rebuilt, %d cached", len(r.Builds)-hit, len(r.Builds), hit)
		if built+cached > 0 {
			fmt.Fprintf(&b, "; kernel objects: %d compiled, %d reused", built, cached)
		}
		b.WriteString(")")
	}
	if r.Run != nil {
		b.WriteString(", " + r.Run.Summary())
		for _, g := range r.Run.Graphs {
			t := g.Timing
			ms, what := t.EagerMS, "eager"
			if t.CompiledMS > 0 {
				ms, what = t.CompiledMS, "compiled"
			}
			fmt.Fprintf(&b, ", %s %s %.3f ms", g.Name, what, ms)
			if r.Diff != nil {
				for _, d := range r.Diff.Timing {
					if d.Graph == g.Name && d.What == what {
						fmt.Fprintf(&b, " (%+.3f)", d.AfterMS-d.BeforeMS)
					}
				}
			}
		}
	}
	return b.String()
}

// exploreWatch is `gcdbg explore --watch FILE`: the explorer, fed by a
// watch.Watcher. The stages only (no run per save): the run panel (r)
// runs the newest trace on demand.
func exploreWatch(path string, runs int, stdout, stderr io.Writer) int {
	if path == "" {
		fmt.Fprintln(stderr, "gcdbg explore: --watch needs a FILE")
		return 2
	}
	w, err := watch.New(path, watch.Options{Load: openTrace})
	if err != nil {
		fmt.Fprintln(stderr, "gcdbg explore:", err)
		return 2
	}
	defer w.Close()
	// The title needs a name before the first compile lands.
	placeholder := &trace.Trace{Name: strings.TrimSuffix(filepath.Base(path), filepath.Ext(path)), Path: path}
	p := tea.NewProgram(tui.New(placeholder, tui.Options{Runs: runs, Watch: true}), tea.WithInput(os.Stdin), tea.WithOutput(stdout))
	fed := make(chan struct{})
	go func() {
		defer close(fed)
		for r := range w.Results() {
			p.Send(tui.NewWatchMsg(r))
		}
	}()
	_, err = p.Run()
	w.Close()
	<-fed
	if err != nil {
		fmt.Fprintln(stderr, "gcdbg explore:", err)
		return 2
	}
	return 0
}
