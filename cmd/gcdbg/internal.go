package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"time"

	"gcdbg/runner"
	"gcdbg/stages"
	"gcdbg/trace"
)

// safeMain is mainArgs with every panic turned into an internal error: one
// line on stderr naming the command (and the stage, graph and node when the
// pipeline caught it), the stack written to a file, exit status 2. A panic
// never kills gcdbg with Go's raw trace.
func safeMain(args []string, stdout, stderr io.Writer) (rc int) {
	defer func() {
		if r := recover(); r != nil {
			cmd := "gcdbg"
			if len(args) > 0 {
				cmd += " " + args[0]
			}
			ie := &stages.InternalError{Value: r, Stack: debug.Stack()}
			reportInternal(ie)
			fmt.Fprintf(stderr, "%s: %v\n", cmd, ie)
			rc = 2
		}
	}()
	return mainArgs(args, stdout, stderr)
}

// reportInternal writes an internal error's stack to a file (once) and
// records where, so the error's message points at it. With no writable
// folder the message says the stack was lost, never panics again.
func reportInternal(ie *stages.InternalError) {
	if ie.StackFile != "" || len(ie.Stack) == 0 {
		return
	}
	dir := os.Getenv("GCDBG_CRASH_DIR")
	if dir == "" {
		dir = os.TempDir()
	}
	f, err := os.CreateTemp(dir, "gcdbg-internal-error-*.txt")
	if err != nil {
		ie.StackFile = "(not written: " + err.Error() + ")"
		return
	}
	fmt.Fprintf(f, "gcdbg internal error, %s\nargs: %q\n\n%v\n\n%s", time.Now().UTC().Format(time.RFC3339), os.Args, ie, ie.Stack)
	f.Close()
	ie.StackFile, _ = filepath.Abs(f.Name())
}

// errText is err's message; for an internal error (a panic the pipeline
// caught) its stack is written to a file first and the message names it.
func errText(err error) string {
	msg := err.Error()
	if ie, ok := stages.AsInternal(err); ok {
		reportInternal(ie)
		if ie.StackFile != "" && !strings.Contains(msg, ie.StackFile) {
			msg += " (stack in " + ie.StackFile + ")"
		}
	}
	return msg
}

// catchRun calls f, turning a panic into an internal error returned as err.
func catchRun(f func() error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			ie := &stages.InternalError{Value: r, Stack: debug.Stack()}
			reportInternal(ie)
			err = ie
		}
	}()
	return f()
}

// partialGraphs is what `run --json` reports for a trace whose pipeline
// stopped: one entry per graph with the node counts of every stage it
// reached and, for the graph that stopped, `stages.stopped` saying where and
// why (stage, node, target, reason, suggestion). Outputs were not compared.
func partialGraphs(tr *trace.Trace) []runner.GraphResult {
	units, _ := stages.Run(tr, "")
	out := []runner.GraphResult{}
	for _, u := range units {
		if u == nil {
			continue
		}
		gr := runner.GraphResult{Name: u.Captured.Name, Outputs: []runner.OutputResult{}, Grads: []runner.GradResult{},
			Stages: map[string]any{}, Kernels: []any{}, Fallback: []string{}}
		if u.Captured.Break != nil {
			gr.Break = u.Captured.Break.Reason
		}
		for i, st := range stages.Table {
			if st.Graph == nil || !u.Reached(i) {
				continue
			}
			if g := st.Graph(u); g != nil {
				gr.Stages[st.Name] = map[string]int{"nodes": len(g.Nodes)}
			}
		}
		if f := u.Failure; f != nil {
			stop := map[string]any{"stage": f.Stage, "reason": f.Reason()}
			if f.Node != "" {
				stop["node"] = f.Node
			}
			if f.Target != "" {
				stop["target"] = f.Target
			}
			if f.Suggestion != "" {
				stop["suggestion"] = f.Suggestion
			}
			if _, ok := stages.AsInternal(f.Err); ok {
				stop["internal"] = true
			}
			gr.Stages["stopped"] = stop
		}
		out = append(out, gr)
	}
	return out
}

// catchGraphs is partialGraphs that gives up (nil) instead of panicking.
func catchGraphs(tr *trace.Trace) (gs []runner.GraphResult) {
	defer func() {
		if recover() != nil {
			gs = nil
		}
	}()
	return partialGraphs(tr)
}
