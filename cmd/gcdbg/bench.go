package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"

	"gcdbg/compiler"
	"gcdbg/interp"
	"gcdbg/runner"
)

// `gcdbg bench [TRACES...]`: per trace, the compiled programs' time against
// PyTorch eager (measured now by exporter/bench_eager.py when PyTorch can
// be imported, else the producer's recorded timing), the speedups' geometric
// mean, and each pointwise kernel's bandwidth as a fraction of a STREAM
// triad measured in the same run.

const python = "/usr/bin/python3"

type benchRow struct {
	trace               string
	compiledMS, eagerMS float64 // eager: gcdbg's eager interpreter
	torchMS             float64
	torchHow            string // "measured" or "recorded"
	maxErr              float64
	chain               bool // only pointwise/reduction kernels
	kernels             []runner.KernelResult
}

func cmdBench(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	runs := fs.Int("runs", 10, "timed repetitions; medians are reported")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: gcdbg bench [TRACE ...] [--runs N]   (default: fixtures/*.json, else the embedded example)")
		fs.PrintDefaults()
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
	triad, err := compiler.Triad(5)
	if err != nil {
		fmt.Fprintln(stderr, "gcdbg bench:", err)
		return 2
	}
	torchOK := exec.Command(python, "-c", "import torch").Run() == nil
	fmt.Fprintf(stdout, "STREAM triad (OpenMP, %d CPUs): %.1f GB/s\n\n", runtime.NumCPU(), triad)
	fmt.Fprintf(stdout, "%-22s %12s %12s %12s %-9s %8s %10s\n", "trace", "compiled ms", "interp ms", "PyTorch ms", "", "speedup", "max err")
	var rows []benchRow
	for _, p := range paths {
		row, err := benchTrace(p, *runs, torchOK)
		if err != nil {
			fmt.Fprintf(stderr, "gcdbg bench: %v\n", err)
			return 2
		}
		rows = append(rows, row)
		fmt.Fprintf(stdout, "%-22s %12.3f %12.3f %12.3f %-9s %7.2fx %10.2g\n", row.trace, row.compiledMS, row.eagerMS, row.torchMS, row.torchHow, row.torchMS/row.compiledMS, row.maxErr)
	}
	var all, chain []float64
	for _, r := range rows {
		all = append(all, r.torchMS/r.compiledMS)
		if r.chain {
			chain = append(chain, r.torchMS/r.compiledMS)
		}
	}
	fmt.Fprintf(stdout, "\ngmean speedup over PyTorch eager: %.2fx (%d traces)\n", gmean(all), len(all))
	fmt.Fprintf(stdout, "gmean speedup, pointwise/reduction chains only: %.2fx (%d traces)\n", gmean(chain), len(chain))
	fmt.Fprintln(stdout, "\npointwise kernels' bandwidth (fraction of the triad):")
	for _, r := range rows {
		for _, k := range r.kernels {
			if (k.Kind == "pointwise" || k.Kind == "fused" && r.chain) && k.GBps > 0 {
				fmt.Fprintf(stdout, "  %-22s %-9s %-28s %8.4f ms %7.2f GB/s %5.1f%%\n", r.trace, k.Role, k.Name, k.MS, k.GBps, 100*k.GBps/triad)
			}
		}
	}
	return 0
}

func benchTrace(path string, runs int, torchOK bool) (benchRow, error) {
	tr, err := loadTrace(path)
	if err != nil {
		return benchRow{}, err
	}
	res, err := runner.Run(tr, runner.Options{Runs: runs, Device: "cpu"})
	if err != nil {
		return benchRow{}, err
	}
	row := benchRow{trace: res.Trace, chain: true, torchHow: "recorded"}
	for _, g := range res.Graphs {
		row.compiledMS += g.Timing.CompiledMS
		row.eagerMS += g.Timing.EagerMS
		row.torchMS += g.Timing.ProducerEagerMS
		for _, o := range g.Outputs {
			row.maxErr = math.Max(row.maxErr, maxAbs(o.VsExpected))
		}
		for _, gd := range g.Grads {
			row.maxErr = math.Max(row.maxErr, maxAbs(gd.VsExpected))
		}
		for _, k := range g.Kernels {
			kr := k.(runner.KernelResult)
			row.kernels = append(row.kernels, kr)
			// A pointwise/reduction chain: no GEMM or convolution (extern)
			// anywhere; fused kernels of pointwise and reduction nodes count.
			if kr.Kind == "extern" {
				row.chain = false
			}
		}
		if len(g.Fallback) > 0 {
			row.chain = false
		}
	}
	if torchOK && path != "" {
		if ms, err := torchEager(path, runs); err == nil {
			row.torchMS, row.torchHow = ms, "measured"
		} else {
			fmt.Fprintf(os.Stderr, "gcdbg bench: %s: PyTorch timing failed, using the recorded one: %v\n", path, err)
		}
	}
	return row, nil
}

// torchEager runs exporter/bench_eager.py on the trace: the sum over its
// graphs of forward (+ backward) medians.
func torchEager(path string, runs int) (float64, error) {
	script := filepath.Join("exporter", "bench_eager.py")
	if _, err := os.Stat(script); err != nil {
		return 0, fmt.Errorf("%s not found (run from the repository)", script)
	}
	out, err := exec.Command(python, script, path, "--runs", fmt.Sprint(runs)).Output()
	if err != nil {
		if ee, ok := err.(*exec.ExitError); ok {
			return 0, fmt.Errorf("%v: %s", err, strings.TrimSpace(string(ee.Stderr)))
		}
		return 0, err
	}
	var r struct {
		Graphs []struct {
			Forward  float64 `json:"eager_forward_ms"`
			Backward float64 `json:"eager_backward_ms"`
		} `json:"graphs"`
	}
	if err := json.Unmarshal(out, &r); err != nil {
		return 0, err
	}
	ms := 0.0
	for _, g := range r.Graphs {
		ms += g.Forward + g.Backward
	}
	return ms, nil
}

func maxAbs(c *interp.Comparison) float64 {
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
