package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"gcdbg/compiler"
	"gcdbg/runner"
	"gcdbg/trace"
)

// Human output of the compiled path and `gcdbg run DIR`.

// printTiming puts the three times side by side, each a median over the
// runs and covering the same work (forward, or forward+backward).
func printTiming(w io.Writer, g *runner.GraphResult) {
	t := g.Timing
	fmt.Fprintf(w, "  time (%s, median of %d):", t.Covers, t.Runs)
	fmt.Fprintf(w, " eager interpreter %.3f ms%s", t.EagerMS, t.EagerNote())
	if t.CompiledMS > 0 {
		fmt.Fprintf(w, " | compiled %.3f ms", t.CompiledMS)
		if t.OutsideMS > 0 || t.FallbackMS > 0 {
			fmt.Fprintf(w, " (outside kernels: wrapper and worker round trips %.3f ms", t.OutsideMS)
			if len(g.Fallback) > 0 || t.FallbackMS > 0 {
				fmt.Fprintf(w, ", eager fallbacks %.3f ms = %.0f%%", t.FallbackMS, 100*t.FallbackMS/t.CompiledMS)
			}
			fmt.Fprint(w, ")")
		}
	}
	if t.ProducerEagerMS > 0 {
		// Not divided into the compiled time: the two were timed by different
		// processes at different moments (load, environment), and a ratio would
		// claim a comparison that did not happen; bench times both in one run.
		fmt.Fprintf(w, " | PyTorch eager %.3f ms (recorded at export, not compared: `gcdbg bench` times both live)", t.ProducerEagerMS)
	}
	fmt.Fprintln(w)
}

// printCompiled shows how each program was built and the per-kernel table.
// manyKernels: above this many kernels, run lists the slowest
// shownKernels and counts the kernel choices (--all lists each).
const manyKernels, shownKernels = 20, 15

func printCompiled(w io.Writer, g *runner.GraphResult, all bool) {
	if builds, ok := g.Stages["build"].([]runner.BuildInfo); ok && len(builds) > 0 {
		var parts []string
		for _, b := range builds {
			parts = append(parts, fmt.Sprintf("%s %s (%.1f ms)", b.Role, cacheWord(b.Cache), b.MS))
		}
		fmt.Fprintf(w, "  build: %s\n", strings.Join(parts, ", "))
	}
	if st, ok := g.Stages["gpu"].(runner.GPUStats); ok {
		fmt.Fprintf(w, "  gpu: kernels %.3f ms, host<->device copies %.3f ms (%d bytes), host fallbacks %.3f ms; device copy %.1f GB/s, the kernels' bytes at %.1f%% of it\n",
			st.KernelMS, st.TransferMS, st.TransferBytes, st.FallbackMS, st.CopyGBps, 100*st.BandwidthFraction)
	}
	if len(g.Kernels) == 0 {
		return
	}
	var krs []runner.KernelResult
	for _, k := range g.Kernels {
		if kr, ok := runner.KernelOf(k); ok {
			krs = append(krs, kr)
		}
	}
	few := all || len(krs) <= manyKernels
	if few {
		fmt.Fprintf(w, "  kernels (median of %d runs):\n", g.Timing.Runs)
	} else {
		total := 0.0
		for _, kr := range krs {
			total += kr.MS
		}
		sort.SliceStable(krs, func(i, j int) bool { return krs[i].MS > krs[j].MS })
		shown := 0.0
		for _, kr := range krs[:shownKernels] {
			shown += kr.MS
		}
		fmt.Fprintf(w, "  kernels (median of %d runs): the %d slowest of %d, %.0f%% of the kernels' %.3f ms (--all lists every kernel):\n",
			g.Timing.Runs, shownKernels, len(krs), 100*shown/max(total, 1e-12), total)
		krs = krs[:shownKernels]
	}
	fmt.Fprintf(w, "    %-40s %-9s %-9s %9s %8s %9s  %s\n", "name", "role", "kind", "ms", "GB/s", "GFLOP/s", "nodes")
	for _, kr := range krs {
		name := kr.Name
		if len(name) > 40 {
			name = name[:37] + "..."
		}
		nodes := strings.Join(kr.Nodes, ", ")
		if len(nodes) > 60 {
			nodes = nodes[:57] + "..."
		}
		fmt.Fprintf(w, "    %-40s %-9s %-9s %9.4f %8.2f %9.2f  %s\n", name, kr.Role, kr.Kind, kr.MS, kr.GBps, kr.GFlops, nodes)
	}
	if few {
		printChoices(w, g)
	} else if n := countChoices(g); n > 0 {
		fmt.Fprintf(w, "  choices by measurement: %d kernels chose an alternative by timing it on this machine (--all lists each with its timings)\n", n)
	}
	if len(g.Fallback) > 0 {
		fmt.Fprintf(w, "  eager fallbacks: %s", strings.Join(g.Fallback, ", "))
		if t := g.Timing; t.CompiledMS > 0 {
			fmt.Fprintf(w, " (%.3f ms, %.0f%% of the compiled time)", t.FallbackMS, 100*t.FallbackMS/t.CompiledMS)
		}
		fmt.Fprintln(w)
	}
}

func cacheWord(c string) string {
	switch c {
	case "hit":
		return "cache hit"
	case "miss":
		return "compiled"
	case "aot":
		return "loaded from the compiled directory"
	}
	return c
}

// isAOTDir says whether path is a directory written by `gcdbg compile`.
func isAOTDir(path string) bool {
	if path == "" {
		return false
	}
	fi, err := os.Stat(path)
	if err != nil || !fi.IsDir() {
		return false
	}
	_, err = os.Stat(filepath.Join(path, "index.json"))
	return err == nil
}

// runAOT runs the programs of a compiled directory against the trace they
// came from (tracePath, else the one the index records).
func runAOT(dir, tracePath string, runs int) (*trace.Trace, *runner.Result, error) {
	idx, err := compiler.ReadAOTIndex(dir)
	if err != nil {
		return nil, nil, err
	}
	progs, err := compiler.LoadAOT(dir)
	if err != nil {
		return nil, nil, err
	}
	if tracePath == "" {
		tracePath = idx.TracePath
	}
	if tracePath == "" {
		return nil, nil, fmt.Errorf("%s: index.json records no trace path (compiled from %q); pass --trace", dir, idx.Trace)
	}
	tr, err := loadTrace(tracePath)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: the trace it was compiled from: %w", dir, err)
	}
	res, err := runner.RunAOT(tr, progs, runner.Options{Runs: runs})
	return tr, res, err
}

// printChoices lists the kernels' alternatives chosen by measurement and
// the timings that decided them (compiler/autotune.go).
func countChoices(g *runner.GraphResult) int {
	n := 0
	for _, k := range g.Kernels {
		if kr, ok := runner.KernelOf(k); ok && kr.Choice != nil {
			n++
		}
	}
	return n
}

func printChoices(w io.Writer, g *runner.GraphResult) {
	head := false
	for _, k := range g.Kernels {
		kr, ok := runner.KernelOf(k)
		if !ok || kr.Choice == nil {
			continue
		}
		if !head {
			fmt.Fprintln(w, "  choices by measurement (per kernel, this machine; GCDBG_AUTOTUNE=0 runs the defaults):")
			head = true
		}
		fmt.Fprintf(w, "    %s\n", kr.Choice.String())
	}
}
