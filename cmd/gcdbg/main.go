// Command gcdbg is a debugger and visualizer for deep-learning graph
// compilers: it loads a trace of a PyTorch model, takes it through a real
// compiler pipeline stage by stage, and checks every result against its own
// eager interpreter and PyTorch's reference numbers.
package main

import (
	"fmt"
	"io"
	"os"
	"strings"

	"gcdbg/compiler"
	"gcdbg/runner"
	"gcdbg/termsafe"
)

// usage is gcdbg help; the devices come from runner.Devices, as in run --help.
var usage = strings.ReplaceAll(usageText, "{devices}", runner.DeviceChoices("|"))

const usageText = `gcdbg — a debugger for deep-learning graph compilers

Usage:
  gcdbg run    [TRACE|DIR] [--json] [--device {devices}] [--runs N] [--input NAME=AxB ...]
                                                run the trace's graphs (compiled to C with --device cpu,
                                                OpenCL/CUDA kernels with opencl/cuda, gcdbg's eager
                                                interpreter with eager) and compare every output and grad
                                                with PyTorch's expected values; DIR is from gcdbg compile;
                                                --input checks guards on other inputs and recompiles
  gcdbg bench  [TRACE ...]                      compiled time vs PyTorch eager per trace (both under one
                                                OpenMP environment), and the kernels' bandwidth and
                                                GFLOP/s vs a STREAM triad and OpenBLAS sgemm
  gcdbg dump   [TRACE] [--stage NAME] [--graph NAME] [--form fx|readable]
                                                print one stage's artifact (default stage: captured)
  gcdbg report [TRACE] -o DIR                   write DIR/index.html: every stage side by side, fusion
                                                decisions, memory plan, run comparison (no network needed)
  gcdbg render [TRACE] --stage NAME [--graph NAME] -o FILE.svg
                                                draw a graph stage as SVG: nodes coloured by op
                                                kind, fused kernels as clusters
  gcdbg explore [TRACE] [--watch]               browse the stages in the terminal: synced panes, source, run
                                                (--watch: recompile when the file is saved)
  gcdbg watch  FILE [--exec CMD] [--device cpu|eager|none]
                                                recompile FILE on every save, a line per compile: what
                                                changed per stage, kernels rebuilt or cached, timings
  gcdbg compile [TRACE] -o DIR                  build every compiled graph into DIR (.so + manifest .json, index.json)
  gcdbg cache  [clear]                          the build cache: where, how many programs, its size; clear empties it
  gcdbg stages                                  list the pipeline's stages with one line each
  gcdbg ops [--coverage]                        list the canonical op set and its schemas; --coverage: PyTorch 2.6's core ATen ops, supported or out of scope (why)
  gcdbg help                                    this text

TRACE is a gcdbg trace file (docs/trace-format.md; exporter/gcdbg_export.py
makes one from a PyTorch model), readable graph text (def forward(self, x:
"f32[8, 16]"): ..., docs/graph-text.md) or a PyTorch TORCH_TRACE log
(docs/torch-trace.md). With no TRACE, commands use the embedded example: the
seed MLP (Flatten + Linear 784→512→512→10 with ReLU).

Choices by measurement: where a kernel can run more than one way (OpenBLAS,
oneDNN's sgemm, the generated GEMM or, for GEMMs of at most 32 rows, the
skinny-M GEMM; its loops on the OpenMP team or on one thread), run and
bench time each way once per kernel, shape and machine on the run's own data,
keep the fastest and cache the choice beside the build cache; the kernels
stage and run's kernel table show it with the timings that decided it.
GCDBG_AUTOTUNE=0 (or run --autotune=false) measures nothing and uses no cached
choice: every kernel runs its default, for deterministic CI. GCDBG_CHOICE=N
runs alternative N of every kernel that has it (to compare candidates).

Environment: GCDBG_CACHE_DIR the build cache (default: the user cache
directory's gcdbg; the measured choices live in its choices/, which gcdbg cache
clear leaves); CC the C compiler (default cc); GCDBG_CC_TIMEOUT one
compilation's limit (a Go duration or seconds; default 5m per 40,000 lines of
C, at least 5m); OMP_NUM_THREADS and
OMP_WAIT_POLICY for the compiled kernels and bench's PyTorch alike (default: the
CPUs this process may use; passive on 4 CPUs or fewer), OPENBLAS_THREAD_TIMEOUT
likewise (default 4 on 4 CPUs or fewer: OpenBLAS's idle threads sleep at once);
GCDBG_NO_BLAS=1 runs no OpenBLAS or oneDNN, only generated GEMMs; GCDBG_OPENCL_DEVICE
picks an OpenCL device by name (docs/gpu.md); GCDBG_CRASH_DIR where a crash's
stack is written (default: the temp folder).

Exit status of run: 0 every output, gradient and buffer matches (the accuracy verdict, docs/verdict.md), 1 some mismatch, 2 the input
could not be read or run.
`

func main() {
	os.Exit(safeMain(os.Args[1:], os.Stdout, os.Stderr))
}

func mainArgs(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return 2
	}
	cmd, rest := args[0], args[1:]
	// Everything a command prints may hold names a trace controls: control
	// characters in them are shown escaped (package termsafe), never sent to
	// the terminal. The explorer's stdout is the TUI's own drawing (it
	// sanitises names itself); its errors still go through stderr's filter.
	// The hidden worker speaks a binary protocol on os.Stdout.
	stderr = termsafe.Writer(stderr)
	if cmd != "explore" {
		stdout = termsafe.Writer(stdout)
	}
	switch cmd {
	case "run":
		return cmdRun(rest, stdout, stderr)
	case "dump":
		return cmdDump(rest, stdout, stderr)
	case "compile":
		return cmdCompile(rest, stdout, stderr)
	case "bench":
		return cmdBench(rest, stdout, stderr)
	case "report":
		return cmdReport(rest, stdout, stderr)
	case "render":
		return cmdRender(rest, stdout, stderr)
	case "explore":
		return cmdExplore(rest, stdout, stderr)
	case "watch":
		return cmdWatch(rest, stdout, stderr)
	case "cache":
		return cmdCache(rest, stdout, stderr)
	case "stages":
		return cmdStages(stdout)
	case "ops":
		return cmdOps(rest, stdout, stderr)
	case "__judge": // hidden: `gcdbg run` for many traces in one process (judge.go)
		return cmdJudge(os.Stdin, os.Stdout)
	case "__worker": // hidden: runs compiled kernels for gcdbg (compiler/worker.go)
		return compiler.WorkerMain(os.Stdin, os.Stdout)
	case "help", "-h", "--help", "-help":
		fmt.Fprint(stdout, usage)
		return 0
	}
	fmt.Fprintf(stderr, "gcdbg: unknown command %q\n\n%s", cmd, usage)
	return 2
}
