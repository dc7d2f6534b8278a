package main

import (
	"flag"
	"fmt"
	"io"
	"path/filepath"

	"gcdbg/report"
	"gcdbg/runner"
	"gcdbg/stages"
	"gcdbg/viz"
)

// cmdReport writes the static HTML report: every stage of every graph,
// the fusion decisions, the memory plan and the run's comparisons.
// A trace that fails part-way still gets a report of the stages that ran,
// with the error at the top (exit status 2).
func cmdReport(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("report", flag.ContinueOnError)
	out := fs.String("o", "", "folder to write index.html into (created if missing)")
	runs := fs.Int("runs", 5, "timed repetitions of the eager interpreter; the median is reported")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: gcdbg report [TRACE] -o DIR [--runs N]")
		fs.PrintDefaults()
	}
	pos, err := parseFlags(fs, args, stderr)
	if err != nil {
		if err == flag.ErrHelp {
			return 0
		}
		fmt.Fprintln(stderr, "gcdbg report:", err)
		return 2
	}
	if *out == "" {
		fmt.Fprintln(stderr, "gcdbg report: -o DIR is required")
		return 2
	}
	path := ""
	if len(pos) == 1 {
		path = pos[0]
	}
	tr, err := loadTrace(path)
	if err != nil {
		fmt.Fprintln(stderr, "gcdbg report:", err)
		return 2
	}
	status := 0
	units, stageErr := stages.Run(tr, "")
	var res *runner.Result
	if stageErr == nil {
		res, err = runner.RunUnits(tr, units, runner.Options{Runs: *runs, Progress: progressTo(stderr)})
	} else {
		res, err = &runner.Result{Trace: tr.Name, Device: "cpu"}, stageErr
	}
	if err != nil {
		res.Error, res.OK = err.Error(), false
		fmt.Fprintln(stderr, "gcdbg report:", err)
		status = 2
	}
	if n, big := graphNodes(units); big > 0 {
		fmt.Fprintf(stderr, "gcdbg report: drawing the graph stages (%d nodes in all, the largest %d): this takes a while\n", n, big)
	}
	if err := report.Write(tr, units, res, *out); err != nil {
		fmt.Fprintln(stderr, "gcdbg report:", err)
		return 2
	}
	fmt.Fprintf(stdout, "wrote %s\n", filepath.Join(*out, "index.html"))
	if status == 0 && !res.OK {
		status = 1
	}
	return status
}

// graphNodes counts the nodes of every graph stage the report draws, and
// gives the largest stage's count when dot's layout of it is bounded
// (viz.BigGraphLayout: it takes seconds), 0 otherwise.
func graphNodes(units []*stages.Unit) (total, big int) {
	for _, u := range units {
		for _, st := range stages.Table {
			if g := stages.StageGraph(st, u); g != nil {
				total += len(g.Nodes)
				big = max(big, len(g.Nodes))
			}
		}
	}
	if big < viz.BigGraphLayout {
		big = 0
	}
	return total, big
}
