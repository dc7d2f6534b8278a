package runner

import (
	"fmt"
	"os"
	"time"

	"gcdbg/compiler"
)

// A run's progress: at real sizes the reference runs and the C compiler
// take minutes, and a silent terminal looks hung, so a step still running
// says so every Options.ProgressEvery. Where it says so is the caller's
// choice (Options.Progress): the CLI's standard error, the explorer's
// status line — a line written to the terminal under a full-screen view
// would scroll it and stay there.

func (o Options) progressEvery() time.Duration {
	if o.ProgressEvery > 0 {
		return o.ProgressEvery
	}
	return 10 * time.Second
}

// notify sends one notice to o.Progress, else to standard error.
func (o Options) notify(msg string) {
	if o.Progress != nil {
		o.Progress(msg)
		return
	}
	fmt.Fprintln(os.Stderr, msg)
}

// compilerOptions are the builder's options of this run: its notices
// (a compilation still running, a damaged cache entry) go where the run's do.
func (o Options) compilerOptions() compiler.Options {
	return compiler.Options{Notify: o.notify, Progress: o.ProgressEvery}
}

// stillRunning notifies every o.progressEvery() until the returned function
// is called, as the compiler does while cc runs.
func stillRunning(o Options, what string) func() {
	return compiler.Every(o.progressEvery(), func(d time.Duration) {
		o.notify(fmt.Sprintf("gcdbg: still running %s: %.0f s so far", what, d.Seconds()))
	})
}
