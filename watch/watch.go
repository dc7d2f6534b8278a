// Package watch is gcdbg's watch mode: it watches a graph file (and its
// sidecar), recompiles it in the background whenever it is saved, and says
// what changed since the last compile. `gcdbg watch` prints a line per
// recompile; `gcdbg explore --watch` swaps the new stages into the screen.
//
// One goroutine turns file events into debounced "compile now" kicks; one
// worker compiles, so two compiles never overlap. A kick that arrives while
// a compile runs cancels it (it is stale: the file changed under it); the
// worker then starts over on the newest content.
package watch

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/fsnotify/fsnotify"

	"gcdbg/compiler"
	"gcdbg/runner"
	"gcdbg/stages"
	"gcdbg/trace"
)

// Options tune a Watcher.
type Options struct {
	// Load reads the trace (cmd/gcdbg passes openTrace). Required.
	Load func(path string) (*trace.Trace, error)
	// Exec is a shell command (sh -c, in the watched file's folder) run
	// when the watched file changes, before the trace is loaded: e.g. the
	// exporter on model.py. Its output is kept and shown when it fails.
	Exec        string
	ExecTimeout time.Duration // default 2 minutes
	// Trace is the file loaded after Exec (default: the watched file).
	Trace string
	// Device "" runs the stages only; "eager" or "cpu" then also runs the
	// trace (runner.Run: values compared, timings); "cpu" first builds the
	// compiled programs, through the content-hashed cache.
	Device string
	Runs   int           // runner repetitions (default 3)
	Quiet  time.Duration // how long the folder must be quiet before a compile (default 50 ms)
}

// Phases of one compile: the stages are shown as soon as they exist; the
// run (builds, values, timings) follows when Options.Device asks for it.
const (
	PhaseStages = "stages"
	PhaseRun    = "run"
)

// Result is one compile's outcome (or one phase of it).
type Result struct {
	Seq   int    // the compile's number, from 1
	Phase string // PhaseStages or PhaseRun
	Final bool   // the last Result of this Seq
	At    time.Time
	// On success: the new trace and units (every stage run).
	Trace *trace.Trace
	Units []*stages.Unit
	Run   *runner.Result // PhaseRun only
	// Builds are the compiled programs (Device "cpu"): which came from the
	// cache and which were rebuilt because their source changed.
	Builds []Build
	// Err is why this compile failed; the last good compile stays (Kept
	// is its Seq, 0 when there is none yet).
	Err        error
	Kept       int
	ExecOutput string
	// Diff is what changed since the last good compile; nil for the first.
	Diff *Diff
	// Elapsed runs from the first file event of the burst that caused this
	// compile (or from New, for the first) to this Result.
	Elapsed time.Duration
}

// Build is one compiled program's build.
type Build struct {
	Graph, Role string
	Hit         bool // found in the cache, not compiled
	Elapsed     time.Duration
	// On a miss, the kernel objects compiled and those reused from the
	// per-kernel object cache (a one-node edit recompiles one kernel).
	ObjectsBuilt, ObjectsCached int
}

// Watcher watches one file. Results come on Results() until Close.
type Watcher struct {
	opt     Options
	path    string // the watched file (absolute)
	names   map[string]bool
	fw      *fsnotify.Watcher
	results chan Result
	kick    chan time.Time // holds at most one pending compile: its burst's first event
	done    chan struct{}
	wg      sync.WaitGroup
	once    sync.Once

	mu     sync.Mutex
	cancel context.CancelFunc // the running compile's

	// Worker-only state.
	seq      int
	doneHash [sha256.Size]byte // the content the last finished compile saw
	haveHash bool
	good     *Result // last good stages result
	goodRun  *runner.Result
}

// New starts watching path and compiles it once right away.
func New(path string, opt Options) (*Watcher, error) {
	if opt.Load == nil {
		return nil, errors.New("watch: no loader")
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("watch: %s: %w", path, err)
	}
	if st, err := os.Stat(abs); err != nil {
		return nil, fmt.Errorf("watch: %w", err)
	} else if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("watch: %s is not a regular file", path)
	}
	if opt.ExecTimeout <= 0 {
		opt.ExecTimeout = 2 * time.Minute
	}
	if opt.Runs <= 0 {
		opt.Runs = 3
	}
	if opt.Quiet <= 0 {
		opt.Quiet = 50 * time.Millisecond
	}
	if opt.Trace == "" {
		opt.Trace = abs
	}
	fw, err := fsnotify.NewWatcher()
	if err != nil {
		return nil, fmt.Errorf("watch: %w", err)
	}
	// Editors save by writing a temporary file and renaming it over the
	// original, which ends a watch on the file itself; watching the folder
	// sees every such save as an event on the file's name.
	if err := fw.Add(filepath.Dir(abs)); err != nil {
		fw.Close()
		return nil, fmt.Errorf("watch: %s: %w", filepath.Dir(abs), err)
	}
	w := &Watcher{
		opt: opt, path: abs, fw: fw,
		names:   map[string]bool{filepath.Base(abs): true, sidecar(abs): true},
		results: make(chan Result, 8),
		kick:    make(chan time.Time, 1),
		done:    make(chan struct{}),
	}
	w.kick <- time.Now()
	w.wg.Add(2)
	go w.events()
	go w.worker()
	return w, nil
}

// sidecar is the base name of the tensors file beside path.
func sidecar(path string) string {
	b := filepath.Base(path)
	return strings.TrimSuffix(b, filepath.Ext(b)) + ".safetensors"
}

// Results delivers every Result; it is closed by Close.
func (w *Watcher) Results() <-chan Result { return w.results }

// Close stops watching, cancels a running compile (killing an --exec
// command and its children) and waits for every goroutine to end.
func (w *Watcher) Close() error {
	var err error
	w.once.Do(func() {
		close(w.done)
		w.cancelRunning()
		err = w.fw.Close()
		w.wg.Wait()
		close(w.results)
	})
	return err
}

func (w *Watcher) cancelRunning() {
	w.mu.Lock()
	if w.cancel != nil {
		w.cancel()
	}
	w.mu.Unlock()
}

// events debounces file events: a compile starts once the watched names
// have been quiet for Options.Quiet, so an editor's write-rename-chmod
// burst (or a formatter rewriting the file) is one compile.
func (w *Watcher) events() {
	defer w.wg.Done()
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	defer timer.Stop()
	var first time.Time
	for {
		select {
		case <-w.done:
			return
		case ev, ok := <-w.fw.Events:
			if !ok {
				return
			}
			if !w.names[filepath.Base(ev.Name)] || ev.Op == fsnotify.Chmod {
				continue
			}
			if first.IsZero() {
				first = time.Now()
			}
			timer.Reset(w.opt.Quiet)
		case err, ok := <-w.fw.Errors:
			if !ok {
				return
			}
			w.emit(Result{At: time.Now(), Phase: PhaseStages, Final: true, Err: fmt.Errorf("watching %s: %w", filepath.Dir(w.path), err)})
		case <-timer.C:
			// A compile still running works on content that is now stale.
			w.cancelRunning()
			select {
			case w.kick <- first:
			default: // one is pending already; it reads the newest content
			}
			first = time.Time{}
		}
	}
}

// emit hands r to the reader unless the watcher is closing.
func (w *Watcher) emit(r Result) bool {
	select {
	case w.results <- r:
		return true
	case <-w.done:
		return false
	}
}

func (w *Watcher) worker() {
	defer w.wg.Done()
	for {
		select {
		case <-w.done:
			return
		case first := <-w.kick:
			ctx, cancel := context.WithCancel(context.Background())
			w.mu.Lock()
			w.cancel = cancel
			w.mu.Unlock()
			select {
			case <-w.done: // Close ran before the cancel func was stored
				cancel()
			default:
			}
			w.compile(ctx, first)
			w.mu.Lock()
			w.cancel = nil
			w.mu.Unlock()
			cancel()
		}
	}
}

// contentHash covers the watched file and its sidecar: a save that leaves
// both unchanged (an editor touching the file, --exec writing the same
// trace again) does not recompile.
func (w *Watcher) contentHash() [sha256.Size]byte {
	h := sha256.New()
	for _, p := range []string{w.path, filepath.Join(filepath.Dir(w.path), sidecar(w.path))} {
		b, err := os.ReadFile(p)
		fmt.Fprintf(h, "%d:%v:", len(b), err != nil)
		h.Write(b)
	}
	var s [sha256.Size]byte
	copy(s[:], h.Sum(nil))
	return s
}

// compile runs one compile; it returns early, emitting nothing more, once
// ctx is cancelled by a newer edit.
func (w *Watcher) compile(ctx context.Context, first time.Time) {
	hash := w.contentHash()
	if w.haveHash && hash == w.doneHash {
		return
	}
	finished := func() { w.doneHash, w.haveHash = hash, true }
	w.seq++
	r := Result{Seq: w.seq, Phase: PhaseStages, Final: true}
	if w.good != nil {
		r.Kept = w.good.Seq
	}
	fail := func(err error) {
		if ctx.Err() != nil {
			return
		}
		finished()
		r.Err, r.At, r.Elapsed = err, time.Now(), time.Since(first)
		w.emit(r)
	}
	if w.opt.Exec != "" {
		out, err := w.runExec(ctx)
		r.ExecOutput = out
		if err != nil {
			fail(err)
			return
		}
	}
	if ctx.Err() != nil {
		return
	}
	tr, err := w.opt.Load(w.opt.Trace)
	if err != nil {
		fail(err)
		return
	}
	units, err := stages.Run(tr, "")
	if err != nil {
		fail(err)
		return
	}
	if ctx.Err() != nil {
		return
	}
	r.Trace, r.Units, r.Kept = tr, units, 0
	if w.good != nil {
		r.Diff = DiffUnits(w.good.Units, units)
	}
	r.Final = w.opt.Device == ""
	r.At, r.Elapsed = time.Now(), time.Since(first)
	good := r
	w.good = &good
	if !w.emit(r) || r.Final {
		finished()
		return
	}
	if ctx.Err() != nil {
		return
	}
	rr := r
	rr.Phase, rr.Final = PhaseRun, true
	if w.opt.Device == "cpu" {
		rr.Builds, err = buildAll(units)
		if err != nil {
			fail(err)
			return
		}
		if ctx.Err() != nil {
			return
		}
	}
	run, err := runner.RunUnits(tr, units, runner.Options{Runs: w.opt.Runs, Device: w.opt.Device})
	if err != nil {
		rr.Kept = rr.Seq // the stages of this compile stay; the run failed
		r = rr
		fail(err)
		return
	}
	if ctx.Err() != nil {
		return
	}
	rr.Run = run
	if rr.Diff != nil && w.goodRun != nil {
		d := *rr.Diff
		d.Timing = DiffRuns(w.goodRun, run)
		rr.Diff = &d
	}
	w.goodRun = run
	rr.At, rr.Elapsed = time.Now(), time.Since(first)
	finished()
	w.emit(rr)
}

// buildAll builds every compiled program in parallel, as runner.Run's
// builder would (same options, so the run finds them in the cache), to say
// which ones the edit made stale.
func buildAll(units []*stages.Unit) ([]Build, error) {
	var ps []compiler.Program
	var builds []Build
	for _, u := range units {
		for _, lp := range u.Programs {
			if lp.Source == nil {
				continue
			}
			ps = append(ps, lp.Source.Program())
			builds = append(builds, Build{Graph: u.Captured.Name, Role: lp.Role})
		}
	}
	arts, err := compiler.BuildAll(ps, compiler.Options{})
	if err != nil {
		return nil, err
	}
	for i, a := range arts {
		builds[i].Hit, builds[i].Elapsed = a.Hit, a.Elapsed
		builds[i].ObjectsBuilt, builds[i].ObjectsCached = a.ObjectsBuilt, a.ObjectsCached
	}
	return builds, nil
}

// runExec runs Options.Exec in its own process group, so that a timeout,
// a newer edit or Close kills it with everything it started.
func (w *Watcher) runExec(ctx context.Context) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, w.opt.ExecTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "sh", "-c", w.opt.Exec)
	cmd.Dir = filepath.Dir(w.path)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = time.Second
	err := cmd.Run()
	if cmd.Process != nil {
		// Children left running after sh exited (a `cmd &`) go too.
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
	if err != nil {
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			err = fmt.Errorf("timed out after %s", w.opt.ExecTimeout)
		}
		return out.String(), fmt.Errorf("--exec %q: %w\n%s", w.opt.Exec, err, strings.TrimRight(out.String(), "\n"))
	}
	return out.String(), nil
}
