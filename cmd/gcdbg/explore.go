package main

import (
	"flag"
	"fmt"
	"io"
	"os"

	tea "charm.land/bubbletea/v2"

	"gcdbg/tui"
)

// cmdExplore opens the terminal explorer (package tui) on a trace.
func cmdExplore(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("explore", flag.ContinueOnError)
	runs := fs.Int("runs", 5, "timed repetitions of the run panel; the median is reported")
	watchFile := fs.Bool("watch", false, "recompile TRACE whenever it is saved and show what changed (see gcdbg watch)")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: gcdbg explore [TRACE] [--runs N] [--watch]")
		fs.PrintDefaults()
	}
	pos, err := parseFlags(fs, args, stderr)
	if err != nil {
		if err == flag.ErrHelp {
			return 0
		}
		fmt.Fprintln(stderr, "gcdbg explore:", err)
		return 2
	}
	path := ""
	if len(pos) == 1 {
		path = pos[0]
	}
	if err := tui.CheckTerminal(os.Stdin, stdout); err != nil {
		fmt.Fprintln(stderr, "gcdbg explore:", err)
		return 2
	}
	if *watchFile {
		return exploreWatch(path, *runs, stdout, stderr)
	}
	if path != "" {
		// A large trace takes seconds to read: say so before the screen clears.
		fmt.Fprintf(stderr, "gcdbg explore: loading %s…\n", path)
	}
	tr, err := loadTrace(path)
	if err != nil {
		fmt.Fprintln(stderr, "gcdbg explore:", err)
		return 2
	}
	p := tea.NewProgram(tui.New(tr, tui.Options{Runs: *runs}), tea.WithInput(os.Stdin), tea.WithOutput(stdout))
	if _, err := p.Run(); err != nil {
		fmt.Fprintln(stderr, "gcdbg explore:", err)
		return 2
	}
	return 0
}
