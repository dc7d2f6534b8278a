package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"gcdbg/runner"
	"gcdbg/trace"
	"gcdbg/verdict"
)

func cmdRun(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	asJSON := fs.Bool("json", false, "print the machine-readable result (shared spec run-json.md)")
	runs := fs.Int("runs", 5, "timed repetitions; the median is reported")
	defDevice, why := runner.DefaultDevice()
	device := fs.String("device", defDevice, runner.DeviceChoices(", ")+": cpu also builds the graphs to C and runs the compiled kernels, comparing their values; opencl and cuda run OpenCL/CUDA kernels on a GPU; eager: the pipeline's graphs under the eager interpreter only (default here: "+defDevice+deviceWhy(why)+")")
	autotune := fs.Bool("autotune", true, "choose each kernel's alternative (OpenBLAS or generated GEMM, OpenMP team or one thread) by timing them once per shape and machine, cached; false (or GCDBG_AUTOTUNE=0) runs every kernel's default, measuring nothing: deterministic CI")
	tracePath := fs.String("trace", "", "with a compiled DIR: the trace it was compiled from (default: the path recorded in DIR/index.json)")
	all := fs.Bool("all", false, "print every comparison, kernel and kernel choice (default: the outputs, every value that fails or matches only with flipped comparisons, one summary line for the other grads and buffers, and the slowest kernels, where there are many)")
	var inputs inputSets
	fs.Var(&inputs, "input", "call the graph again with other inputs (repeatable; one set per flag): NAME=AxBxC[:float64][:requires_grad], NAME=@file.safetensors:key or NAME=constant, several joined by commas")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: gcdbg run [TRACE | DIR from gcdbg compile] [--json] [--runs N] [--device "+runner.DeviceChoices("|")+"] [--input NAME=AxBxC ...]")
		fs.PrintDefaults()
	}
	pos, err := parseFlags(fs, args, stderr)
	if err != nil {
		if err == flag.ErrHelp {
			return 0
		}
		fmt.Fprintln(stderr, "gcdbg run:", err)
		return 2
	}
	if !*autotune {
		os.Setenv("GCDBG_AUTOTUNE", "0")
	}
	path := ""
	if len(pos) == 1 {
		path = pos[0]
	}
	var res *runner.Result
	var tr *trace.Trace
	fail := func(err error) int {
		msg := errText(err) // a caught panic: its stack goes to a file the message names
		fmt.Fprintln(stderr, "gcdbg run:", msg)
		if *asJSON {
			name := path
			if name == "" {
				name = "(embedded example)"
			}
			graphs := []runner.GraphResult{}
			if tr != nil { // the stages each graph reached, and where it stopped
				if gs := catchGraphs(tr); gs != nil {
					graphs = gs
				}
			}
			writeJSON(stdout, &runner.Result{Trace: name, Device: "cpu", Error: msg, Graphs: graphs})
		}
		return 2
	}
	if isAOTDir(path) {
		// A `gcdbg compile` directory: its libraries run as they are, no
		// C compiler is involved; the trace gives inputs and references.
		tr, res, err = runAOT(path, *tracePath, *runs)
		if err != nil {
			return fail(err)
		}
	} else {
		if tr, err = loadTrace(path); err != nil {
			return fail(err)
		}
		if err := checkDevice(*device, why); err != nil {
			return fail(err)
		}
		if err = catchRun(func() (err error) {
			res, err = runner.Run(tr, runner.Options{Runs: *runs, Device: *device, Progress: progressTo(stderr)})
			return err
		}); err != nil {
			return fail(err)
		}
	}
	if len(inputs) > 0 {
		if res.Recompiles, err = runner.RecompilesWith(tr, inputs, runner.Options{Device: *device, Progress: progressTo(stderr)}); err != nil {
			return fail(err)
		}
	}
	if *asJSON {
		writeJSON(stdout, res)
	} else {
		printRun(stdout, tr.Path, res, *all)
		printRecompiles(stdout, res.Recompiles)
	}
	if !res.OK {
		return 1
	}
	return 0
}

// progressTo is a run's progress sink (runner.Options.Progress) for a
// command line: one line each on w, the command's standard error.
func progressTo(w io.Writer) func(string) {
	return func(msg string) { fmt.Fprintln(w, msg) }
}

// printComparisons prints the pipeline's result against PyTorch and against
// gcdbg's eager reference, one line each, in the verdict's own words.
func printComparisons(w io.Writer, g *runner.GraphResult, vsExpected, vsEager *verdict.Judgement) {
	switch {
	case vsExpected != nil:
		fmt.Fprintf(w, "    %-16s %s\n", "vs PyTorch:", vsExpected.Detail())
	case g.NotComparedWithPyTorch != "":
		fmt.Fprintf(w, "    %-16s not compared (see above)\n", "vs PyTorch:")
	default:
		fmt.Fprintf(w, "    %-16s no reference in this trace: nothing compared with PyTorch\n", "vs PyTorch:")
	}
	if vsEager != nil {
		fmt.Fprintf(w, "    %-16s %s\n", "vs gcdbg eager:", vsEager.Detail())
	}
}

func writeJSON(w io.Writer, v any) {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	_ = enc.Encode(v)
}

// manyValues: above this many grads (or buffers) of a graph, run prints
// one summary line for those that match plainly (--all prints each).
const manyValues = 8

// bindsAt is how near j's result is to its bounds: the larger of its rmse
// and worst-element error over their bounds (1: at the bound).
func bindsAt(j *verdict.Judgement) float64 {
	if j == nil {
		return 0
	}
	r := 0.0
	if b := j.Multiplier*j.BaselineRMSE + j.Floor; b > 0 {
		r = j.RMSE / b
	}
	if b := j.Multiplier*j.BaselineWorstErr + j.Floor; b > 0 {
		r = max(r, j.WorstErr/b)
	}
	return r
}

// plain reports whether j is a match that needed no flipped comparison
// (a summary line may stand for it).
func plain(j *verdict.Judgement) bool {
	return j == nil || (j.Match && !strings.Contains(j.Reference, "decided the other way"))
}

// printValues prints a graph's grads or buffers (kind "grad"/"buffer"):
// each one, or with many of them and not all, those that fail or needed
// flips and one line for the rest.
func printValues(w io.Writer, g *runner.GraphResult, kind string, names []string, judged [][2]*verdict.Judgement, all bool) {
	summarize := !all && len(names) > manyValues
	quiet, none, worst, worstName := 0, 0, 0.0, ""
	for i, name := range names {
		vsExpected, vsEager := judged[i][0], judged[i][1]
		if summarize && plain(vsExpected) && plain(vsEager) && (vsExpected != nil || vsEager != nil) {
			quiet++
			if vsExpected != nil && strings.Contains(vsExpected.Reference, "PyTorch gives this no gradient") {
				none++
			}
			for _, j := range []*verdict.Judgement{vsExpected, vsEager} {
				if b := bindsAt(j); b > worst {
					worst, worstName = b, name
				}
			}
			continue
		}
		if kind == "grad" {
			fmt.Fprintf(w, "  grad of %s\n", name)
		} else {
			fmt.Fprintf(w, "  buffer %s after the run\n", name)
		}
		printComparisons(w, g, vsExpected, vsEager)
	}
	if quiet > 0 {
		what := "grads"
		if kind == "buffer" {
			what = "buffers after the run"
		}
		zero := ""
		if none > 0 {
			zero = fmt.Sprintf("; %d of them zero, where PyTorch gives no gradient", none)
		}
		fmt.Fprintf(w, "  %d more %s match (the nearest its bound: %s, at %.2f of it%s; --all prints each)\n", quiet, what, worstName, worst, zero)
	}
}

func printRun(w io.Writer, path string, res *runner.Result, all bool) {
	if res.Backend == "eager" { // --device eager: gcdbg's interpreter computed the values, no kernel ran
		fmt.Fprintf(w, "trace %s (%s), device eager (gcdbg's interpreter; no compiled kernels)\n", res.Trace, path)
	} else {
		fmt.Fprintf(w, "trace %s (%s), device %s\n", res.Trace, path, res.Device)
	}
	if res.OK {
		fmt.Fprintf(w, "verdict: every output, gradient and buffer matches (%s)\n", res.Coverage())
	} else {
		fmt.Fprintf(w, "verdict: %s (%s)\n", res.Summary(), res.Coverage())
	}
	for _, g := range res.Graphs {
		if res.Backend == "eager" {
			g = withoutSelfComparison(g)
		}
		fmt.Fprintf(w, "\ngraph %s", g.Name)
		if g.Break != "" {
			fmt.Fprintf(w, "  (graph break after it: %s)", g.Break)
		}
		fmt.Fprintln(w)
		if g.NotComparedWithPyTorch != "" {
			fmt.Fprintf(w, "  vs PyTorch: %s\n", g.NotComparedWithPyTorch)
		}
		for _, o := range g.Outputs {
			label := ""
			if o.Index >= 0 && o.Index < len(g.OutputKeys) { // a dict's key (the trace's output_keys)
				label = " (" + g.OutputKeys[o.Index] + ")"
			}
			fmt.Fprintf(w, "  output %d%s %s%v\n", o.Index, label, o.DType, o.Shape)
			printComparisons(w, &g, o.VsExpected, o.VsEager)
		}
		var names []string
		var judged [][2]*verdict.Judgement
		for _, gd := range g.Grads {
			names, judged = append(names, gd.Name), append(judged, [2]*verdict.Judgement{gd.VsExpected, gd.VsEager})
		}
		printValues(w, &g, "grad", names, judged, all)
		names, judged = nil, nil
		for _, b := range g.Buffers {
			names, judged = append(names, b.Name), append(judged, [2]*verdict.Judgement{b.VsExpected, b.VsEager})
		}
		printValues(w, &g, "buffer", names, judged, all)
		if g.Stopped != "" {
			fmt.Fprintf(w, "  compiled code: none, the pipeline stopped at %s (values above: the graph stages under the interpreter)\n", g.Stopped)
		}
		if g.FirstDifference != "" {
			fmt.Fprintf(w, "  where to look: %s\n", g.FirstDifference)
		}
		if sb, ok := g.Stages["saved_bytes"]; ok {
			fmt.Fprintf(w, "  min-cut partition saves %d bytes for backward (save-everything: %d)\n", sb, g.Stages["saved_bytes_save_everything"])
		}
		printTiming(w, &g)
		printCompiled(w, &g, all)
	}
	fmt.Fprintf(w, "\n(%s)\n", runner.Rule)
	if res.OK {
		fmt.Fprintf(w, "verdict: every output, gradient and buffer matches (%s)\n", res.Coverage())
	} else {
		fmt.Fprintf(w, "verdict: %s (%s)\n", res.Summary(), res.Coverage())
	}
}

// withoutSelfComparison is g without its "vs gcdbg eager" judgements: under
// --device eager they compare the interpreter's values with themselves.
func withoutSelfComparison(g runner.GraphResult) runner.GraphResult {
	g.Outputs = append([]runner.OutputResult{}, g.Outputs...)
	for i := range g.Outputs {
		g.Outputs[i].VsEager = nil
	}
	g.Grads = append([]runner.GradResult{}, g.Grads...)
	for i := range g.Grads {
		g.Grads[i].VsEager = nil
	}
	g.Buffers = append([]runner.BufferResult{}, g.Buffers...)
	for i := range g.Buffers {
		g.Buffers[i].VsEager = nil
	}
	return g
}
