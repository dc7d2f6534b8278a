package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"sort"
	"strings"
	"time"

	"gcdbg/compiler"
	"gcdbg/exporter"
	"gcdbg/runner"
	"gcdbg/verdict"
)

// `gcdbg bench [TRACES...]`: per trace, the compiled programs' time against
// PyTorch eager, the speedups' geometric mean, and a roofline column: the
// trace's kernels' bytes and flops over their time, against a STREAM triad
// and OpenBLAS's sgemm measured in the same run.
//
// PyTorch is timed live by exporter/bench_eager.py, kept running as a
// server (its graphs stay built and warm) and timed twice per trace: once
// before and once after the compiled run, so that both sides see the same
// machine load; the median is over the calls of both passes. Where
// PyTorch cannot be imported or cannot rebuild a graph, the producer's
// recorded timing is used and the row says "recorded" (and why on stderr).

const python = "/usr/bin/python3"

type benchRow struct {
	trace               string
	compiledMS, eagerMS float64 // eager: gcdbg's eager interpreter
	torchMS             float64
	torchHow            string // "measured" or "recorded"
	ok                  bool   // every comparison matched
	maxErr              float64
	chain               bool // only pointwise/reduction kernels
	kernels             []runner.KernelResult
	fallback            []string
	fallbackMS          float64
	bytes, flops        float64 // over the kernels' median times
	kernelMS            float64
}

func cmdBench(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	runs := fs.Int("runs", 10, "timed repetitions; medians are reported")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: gcdbg bench [TRACE ...] [--runs N]   (default: fixtures/*.json, else the embedded example)")
		fs.PrintDefaults()
		fmt.Fprint(stderr, `
PyTorch eager is timed live (exporter/bench_eager.py) before and after each compiled run, both
sides under one OpenMP environment: OMP_NUM_THREADS (yours, else the CPUs this process may use)
and OMP_WAIT_POLICY (yours, else passive on 4 CPUs or fewer). A trace PyTorch cannot rebuild
uses its recorded time ("recorded") and is left out of the gmeans when others were measured.
Kernels choose their candidates by measurement unless GCDBG_AUTOTUNE=0 (GCDBG_CHOICE=N forces
one). A load average of half the CPUs or more prints a warning: times then vary.
`)
	}
	paths, err := parseFlagsMulti(fs, args, stderr)
	if err != nil {
		if err == flag.ErrHelp {
			return 0
		}
		fmt.Fprintln(stderr, "gcdbg bench:", err)
		return 2
	}
	if len(paths) == 0 {
		paths, _ = filepath.Glob("fixtures/*.json")
		if len(paths) == 0 {
			paths = []string{""}
		}
	}
	device, why := runner.DefaultDevice()
	if device != "cpu" {
		fmt.Fprintf(stderr, "gcdbg bench: compiled execution is unavailable: %s\n", why)
		return 2
	}
	triad, err := compiler.Triad(triadRuns)
	if err != nil {
		fmt.Fprintln(stderr, "gcdbg bench:", err)
		return 2
	}
	peak, perr := compiler.SgemmPeak(triadRuns)
	if perr != nil {
		fmt.Fprintln(stderr, "gcdbg bench:", perr, "(no GFLOP/s roof)")
	}
	torch := startTorch(stderr)
	defer torch.close()
	fmt.Fprintf(stdout, "machine: %d CPUs, %s\n", runtime.NumCPU(), loadAverage())
	if w := busyWarning(runtime.NumCPU()); w != "" {
		fmt.Fprintln(stdout, w)
	}
	fmt.Fprintf(stdout, "roofs: STREAM triad (OpenMP, best of %d runs) %.1f GB/s", triadRuns, triad)
	if peak > 0 {
		fmt.Fprintf(stdout, "; OpenBLAS sgemm 1024^3 (best of %d) %.1f GFLOP/s", triadRuns, peak)
	}
	fmt.Fprintln(stdout)
	fmt.Fprintf(stdout, "OpenMP, both sides (compiler.OpenMPEnv): %s\n", compiler.OpenMPSummary())
	fmt.Fprintf(stdout, "compiled: median of %d runs after 50 ms of warm-up runs (at least one; forward+backward for training graphs); %s\n", *runs, compiledHow())
	if torch != nil {
		fmt.Fprintf(stdout, "PyTorch eager: measured live, before and after each compiled run; %s\n\n", torch.how(paths))
	} else {
		fmt.Fprintf(stdout, "PyTorch eager: not importable by %s; the producer's recorded timings (timed by the producer under its own settings)\n\n", python)
	}
	fmt.Fprintf(stdout, "%-22s %11s %11s %-9s %8s %8s %6s %9s %6s %9s  %s\n", "trace", "compiled ms", "PyTorch ms", "", "speedup",
		"roofline", "GB/s", "%triad", "GFLOP/s", "%sgemm", "verdict")
	var rows []benchRow
	over := &aboveRoof{}
	for _, p := range paths {
		row, err := benchTrace(p, *runs, torch, stderr)
		if err != nil {
			fmt.Fprintf(stderr, "gcdbg bench: %v\n", err)
			return 2
		}
		rows = append(rows, row)
		gbps, gflops := row.bytes/row.kernelMS/1e6, row.flops/row.kernelMS/1e6
		verdictText := "match"
		if !row.ok {
			verdictText = "MISMATCH"
		}
		if len(row.fallback) > 0 {
			verdictText += fmt.Sprintf("; %d fallback nodes (%s); %.0f%% of the time outside compiled kernels", len(row.fallback),
				trunc(strings.Join(row.fallback, ", "), 60), 100*row.fallbackMS/row.compiledMS)
		}
		fmt.Fprintf(stdout, "%-22s %11.3f %11.3f %-9s %7.2fx %8s %6.1f %9s %6.1f %8s  %s\n", row.trace, row.compiledMS, row.torchMS,
			row.torchHow, row.torchMS/row.compiledMS, over.pct(roofline(row, triad, peak), 1), gbps, over.pct(gbps, triad), gflops, over.pctOf(gflops, peak), verdictText)
	}
	writeGmeans(stdout, rows)
	fmt.Fprintln(stdout, "roofline: the time the kernels would take at the roofs (bytes / triad, flops / sgemm, the larger per kernel) over their measured time")
	fmt.Fprintln(stdout, "\nkernels of 1 MB or more, bandwidth as a fraction of the triad (median of the runs; best of the runs, as the triad is):")
	for _, r := range rows {
		for _, k := range r.kernels {
			if k.MS > 0 && k.GBps*k.MS*1e6 >= 1<<20 && k.Kind != "extern" {
				best := ""
				if k.BestMS > 0 {
					bg := k.GBps * k.MS / k.BestMS
					best = fmt.Sprintf("  best %9.4f ms %7.2f GB/s %6s", k.BestMS, bg, over.pct(bg, triad))
				}
				fmt.Fprintf(stdout, "  %-22s %-9s %-40s %9.4f ms %7.2f GB/s %6s  %6.1f GFLOP/s%s\n", r.trace, k.Role, trunc(k.Name, 40), k.MS, k.GBps, over.pct(k.GBps, triad), k.GFlops, best)
			}
		}
	}
	if over.any {
		fmt.Fprintf(stdout, "\n* above 100%%: faster than the roofs measured in this run (triad %.1f GB/s, sgemm %.1f GFLOP/s, best of %d runs; %s now): "+
			"the kernel's data fit in cache, or the roof ran under more load than the kernel did; not a fraction of the machine's peak\n",
			triad, peak, triadRuns, loadAverage())
	}
	head := false
	for _, r := range rows {
		for _, k := range r.kernels {
			if k.Choice == nil {
				continue
			}
			if !head {
				fmt.Fprintln(stdout, "\nchoices by measurement (compiler/autotune.go; GCDBG_AUTOTUNE=0 runs the defaults):")
				head = true
			}
			fmt.Fprintf(stdout, "  %-22s %-9s %s\n", r.trace, k.Role, k.Choice.String())
		}
	}
	return 0
}

// compiledHow says how the compiled side runs: its threads, wait policy
// and memory, as the header's PyTorch line says PyTorch's.
func compiledHow() string {
	w, err := compiler.WorkerCommand()
	if err != nil {
		return err.Error()
	}
	threads, _ := compiler.LookupEnv(w.Env, "OMP_NUM_THREADS")
	policy, ok := compiler.LookupEnv(w.Env, "OMP_WAIT_POLICY")
	if !ok {
		policy = "unset (libgomp's default)"
	}
	return fmt.Sprintf("worker process, %s OpenMP threads (kernels chosen by measurement may run on one), OMP_WAIT_POLICY=%s; "+
		"buffers preallocated in shared memory (MAP_POPULATE), glibc malloc defaults for kernels' scratch", threads, policy)
}

// writeGmeans prints the speedups' geometric means and the lowest; a
// mean over no trace is "none", never NaN.
//
// A trace whose PyTorch time is the recorded one (its model could not be
// rebuilt, or timing failed) is left out of the means when any trace was
// measured live: the recorded time was taken by the producer under other
// load and settings, and one such row made a slower-than-PyTorch LSTM read
// 87x. Only when no trace was measured are the means over recorded times,
// and they say so.
func writeGmeans(stdout io.Writer, rows []benchRow) {
	var all, chain []float64
	worst, worstName := math.Inf(1), ""
	measured, recorded := 0, []string{}
	for _, r := range rows {
		if r.torchHow == "measured" {
			measured++
		} else {
			recorded = append(recorded, r.trace)
		}
	}
	label := "PyTorch eager"
	if measured == 0 {
		label = "PyTorch eager's recorded times (none measured live)"
	}
	for _, r := range rows {
		if measured > 0 && r.torchHow != "measured" {
			continue
		}
		s := r.torchMS / r.compiledMS
		all = append(all, s)
		if r.chain {
			chain = append(chain, s)
		}
		if s < worst {
			worst, worstName = s, r.trace
		}
	}
	if len(all) == 0 {
		fmt.Fprintln(stdout, "\ngmean speedup over PyTorch eager: none (no trace)")
		return
	}
	fmt.Fprintf(stdout, "\ngmean speedup over %s: %.2fx (%d traces; lowest %.2fx, %s)\n", label, gmean(all), len(all), worst, worstName)
	if measured > 0 && len(recorded) > 0 {
		fmt.Fprintf(stdout, "left out of the means: %s (PyTorch's recorded time, not measured live: see the message above the table)\n", strings.Join(recorded, ", "))
	}
	if len(chain) > 0 {
		fmt.Fprintf(stdout, "gmean speedup, pointwise/reduction chains only: %.2fx (%d traces)\n", gmean(chain), len(chain))
	} else {
		fmt.Fprintln(stdout, "gmean speedup, pointwise/reduction chains only: none (every trace has a GEMM, convolution or fallback)")
	}
}

// triadRuns: the roofs are the best of this many runs (compiler.Triad,
// compiler.SgemmPeak).
const triadRuns = 10

// aboveRoof formats fractions of a roof, marking (and remembering) any
// above 100%, which the table then explains: a kernel faster than the
// triad is never shown as a silent 140%.
type aboveRoof struct{ any bool }

// pctOf is pct with "-" where the roof was not measured (of <= 0).
func (a *aboveRoof) pctOf(x, of float64) string {
	if of <= 0 {
		return "-"
	}
	return a.pct(x, of)
}

func (a *aboveRoof) pct(x, of float64) string {
	p := 100 * x / of
	if p > 100 {
		a.any = true
		return fmt.Sprintf("%.0f%%*", p)
	}
	return fmt.Sprintf("%.0f%%", p)
}

func trunc(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n-3] + "..."
}

// roofline is the kernels' time at the roofs over their measured time.
func roofline(r benchRow, triad, peak float64) float64 {
	ideal, got := 0.0, 0.0
	for _, k := range r.kernels {
		if k.MS <= 0 {
			continue
		}
		bytes, flops := k.GBps*k.MS*1e6, k.GFlops*k.MS*1e6
		t := bytes / triad / 1e6
		if peak > 0 {
			t = math.Max(t, flops/peak/1e6)
		}
		ideal += t
		got += k.MS
	}
	if got == 0 {
		return 0
	}
	return ideal / got
}

// busyWarning is a warning when the one-minute load average says other
// processes use half the machine or more: both sides then lose
// time to them, PyTorch's OpenMP threads far more than the compiled
// kernels, and the same command's speedups varied 0.12x-117x between runs
// on a loaded 2-core machine (examples/unseen2 finding 6).
func busyWarning(cpus int) string {
	load, ok := compiler.LoadAverage()
	if !ok || !compiler.Busy(load) {
		return ""
	}
	return fmt.Sprintf("warning: load average %.2f on %d CPUs: other processes compete for the cores, so times and speedups vary from run to run "+
		"(PyTorch's threads lose more to them than the compiled kernels); compare runs taken on a quiet machine", load, cpus)
}

func loadAverage() string {
	f := compiler.LoadAverages()
	if f == nil {
		return "load average unknown"
	}
	return "load average " + strings.Join(f, " ")
}

func benchTrace(path string, runs int, torch *torchServer, stderr io.Writer) (benchRow, error) {
	tr, err := loadTrace(path)
	if err != nil {
		return benchRow{}, err
	}
	// PyTorch, compiled, PyTorch: both sides under the same load. Before
	// each PyTorch pass this process settles its heap (the eager
	// interpreter's float64 tensors): a garbage collection running beside
	// PyTorch on a 2-core machine would be timed as PyTorch's.
	settle := func() {
		runtime.GC()
		debug.FreeOSMemory()
	}
	var calls []float64
	var terr error
	if torch != nil && path != "" {
		settle()
		calls, terr = torch.time(path, runs)
	}
	res, err := runner.Run(tr, runner.Options{Runs: runs, Device: "cpu", Progress: progressTo(stderr)})
	if err != nil {
		return benchRow{}, err
	}
	if torch != nil && path != "" && terr == nil {
		settle()
		more, err := torch.time(path, runs)
		calls, terr = append(calls, more...), err
	}
	row := benchRow{trace: res.Trace, chain: true, torchHow: "recorded", ok: res.OK}
	for _, g := range res.Graphs {
		row.compiledMS += g.Timing.CompiledMS
		row.fallbackMS += g.Timing.FallbackMS + g.Timing.OutsideMS
		row.eagerMS += g.Timing.EagerMS
		row.torchMS += g.Timing.ProducerEagerMS
		for _, o := range g.Outputs {
			row.maxErr = math.Max(row.maxErr, maxAbs(o.VsExpected))
		}
		for _, gd := range g.Grads {
			row.maxErr = math.Max(row.maxErr, maxAbs(gd.VsExpected))
		}
		for _, k := range g.Kernels {
			kr, ok := runner.KernelOf(k)
			if !ok {
				continue
			}
			row.kernels = append(row.kernels, kr)
			row.bytes += kr.GBps * kr.MS * 1e6
			row.flops += kr.GFlops * kr.MS * 1e6
			row.kernelMS += kr.MS
			// A pointwise/reduction chain: no GEMM or convolution (extern)
			// anywhere; fused kernels of pointwise and reduction nodes count.
			if kr.Kind == "extern" {
				row.chain = false
			}
		}
		if len(g.Fallback) > 0 {
			row.chain = false
			row.fallback = append(row.fallback, g.Fallback...)
		}
	}
	switch {
	case torch == nil || path == "":
	case terr != nil:
		fmt.Fprintf(stderr, "gcdbg bench: %s: PyTorch timing failed, using the recorded one: %v\n", path, terr)
	case len(calls) > 0:
		row.torchMS, row.torchHow = median(calls), "measured"
	}
	return row, nil
}

// torchServer is exporter/bench_eager.py --serve: one JSON request per
// line, one reply per line.
type torchServer struct {
	cmd  *exec.Cmd
	in   io.WriteCloser
	out  *bufio.Reader
	last string // the "how" of the last reply
	tmp  string // the embedded script's temporary copy, removed on close
}

func startTorch(stderr io.Writer) *torchServer {
	if exec.Command(python, "-c", "import torch").Run() != nil {
		return nil
	}
	script, err := benchScript()
	if err != nil {
		fmt.Fprintf(stderr, "gcdbg bench: bench_eager.py: %v: PyTorch timings are the recorded ones\n", err)
		return nil
	}
	cmd := torchCommand(script)
	cmd.Stderr = stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil
	}
	if err := cmd.Start(); err != nil {
		fmt.Fprintf(stderr, "gcdbg bench: %s: %v\n", script, err)
		return nil
	}
	ts := &torchServer{cmd: cmd, in: in, out: bufio.NewReaderSize(out, 1<<20)}
	if script != filepath.Join("exporter", "bench_eager.py") {
		ts.tmp = script
	}
	return ts
}

// torchCommand is the PyTorch timing server's command. It runs under the
// compiled worker's OpenMP environment (compiler.OpenMPEnv: thread count
// and wait policy), so that both sides of a speedup are timed alike, and
// with glibc keeping freed big blocks (bench_eager.py's MALLOC_ENV, which
// it would otherwise re-execute itself to set).
func torchCommand(script string) *exec.Cmd {
	cmd := exec.Command(python, script, "--serve")
	cmd.Env = append(append(os.Environ(), "MALLOC_MMAP_THRESHOLD_=17179869184", "MALLOC_TRIM_THRESHOLD_=17179869184"), compiler.OpenMPEnv()...)
	return cmd
}

// time returns each timed call's ms (forward + backward, summed over the
// trace's graphs).
func (t *torchServer) time(path string, runs int) ([]float64, error) {
	req, _ := json.Marshal(map[string]any{"trace": path, "runs": runs})
	if _, err := t.in.Write(append(req, '\n')); err != nil {
		return nil, fmt.Errorf("bench_eager.py: %w", err)
	}
	line, err := t.out.ReadBytes('\n')
	if err != nil {
		return nil, fmt.Errorf("bench_eager.py: %w", err)
	}
	var r struct {
		Error  string `json:"error"`
		Graphs []struct {
			How   string    `json:"how"`
			Calls []float64 `json:"calls_ms"`
		} `json:"graphs"`
	}
	if err := json.Unmarshal(line, &r); err != nil {
		return nil, fmt.Errorf("bench_eager.py: %w", err)
	}
	if r.Error != "" {
		return nil, fmt.Errorf("%s", r.Error)
	}
	var calls []float64
	for _, g := range r.Graphs {
		t.last = g.How
		for i, c := range g.Calls {
			if i >= len(calls) {
				calls = append(calls, 0)
			}
			calls[i] += c
		}
	}
	return calls, nil
}

// how asks the server how it times (one short run of the first trace that
// has a path), so the header can say it before the table.
func (t *torchServer) how(paths []string) string {
	for _, p := range paths {
		if p != "" {
			if _, err := t.time(p, 1); err == nil && t.last != "" {
				t.last = strings.Replace(t.last, " (1 per pass),", "", 1)
				return t.last
			}
		}
	}
	return "timing protocol of exporter/bench_eager.py"
}

func (t *torchServer) close() {
	if t == nil {
		return
	}
	if t.tmp != "" {
		defer os.Remove(t.tmp)
	}
	t.in.Close()
	done := make(chan struct{})
	go func() { _ = t.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		_ = t.cmd.Process.Kill()
		<-done
	}
}

func median(xs []float64) float64 {
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	n := len(s)
	if n == 0 {
		return math.NaN()
	}
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

func maxAbs(c *verdict.Judgement) float64 {
	if c == nil {
		return 0
	}
	return c.MaxAbsErr
}

func gmean(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	s := 0.0
	for _, x := range xs {
		s += math.Log(x)
	}
	return math.Exp(s / float64(len(xs)))
}

// parseFlagsMulti is parseFlags for commands that take several traces.
func parseFlagsMulti(fs *flag.FlagSet, args []string, stderr io.Writer) ([]string, error) {
	fs.SetOutput(stderr)
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		args = fs.Args()
		if len(args) == 0 {
			return pos, nil
		}
		if strings.HasPrefix(args[0], "-") && args[0] != "-" {
			continue
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
}

// benchScript is exporter/bench_eager.py: the repository's copy when run
// from the repository (so edits to it count), else the copy embedded in
// the binary, written to a temporary file.
func benchScript() (string, error) {
	script := filepath.Join("exporter", "bench_eager.py")
	if _, err := os.Stat(script); err == nil {
		return script, nil
	}
	f, err := os.CreateTemp("", "gcdbg-bench-eager-*.py")
	if err != nil {
		return "", err
	}
	defer f.Close()
	if _, err := f.Write(exporter.BenchEager); err != nil {
		return "", err
	}
	return f.Name(), nil
}
