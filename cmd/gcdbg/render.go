package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"gcdbg/stages"
	"gcdbg/viz"
)

// cmdRender writes one graph stage as SVG (or DOT, for a .dot file):
// nodes coloured by op kind, fused kernels as clusters when the stage's
// graph was compiled, a legend of the colours.
func cmdRender(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("render", flag.ContinueOnError)
	stage := fs.String("stage", "captured", "graph stage to draw: "+strings.Join(graphStages(), ", "))
	gname := fs.String("graph", "", "which graph (required when the trace has several)")
	out := fs.String("o", "", "output file: FILE.svg, or FILE.dot for graphviz's input; - for stdout (SVG)")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: gcdbg render [TRACE] --stage NAME [--graph NAME] -o FILE.svg")
		fs.PrintDefaults()
	}
	pos, err := parseFlags(fs, args, stderr)
	if err != nil {
		if err == flag.ErrHelp {
			return 0
		}
		fmt.Fprintln(stderr, "gcdbg render:", err)
		return 2
	}
	fail := func(format string, a ...any) int {
		fmt.Fprintf(stderr, "gcdbg render: "+format+"\n", a...)
		return 2
	}
	if *out == "" {
		return fail("need -o FILE.svg")
	}
	st, err := stages.Lookup(*stage)
	if err != nil {
		return fail("%v", err)
	}
	if st.Graph == nil {
		return fail("stage %s has no graph to draw (graph stages: %s)", st.Name, strings.Join(graphStages(), ", "))
	}
	path := ""
	if len(pos) == 1 {
		path = pos[0]
	}
	tr, err := loadTrace(path)
	if err != nil {
		return fail("%v", err)
	}
	// From decomposed on, run to the end so the fusion schedule exists for
	// the clusters; a failure in a later stage still leaves this stage's
	// graph drawable. Earlier stages are drawn without clusters.
	until := ""
	if stageIndex(st.Name) < stageIndex("decomposed") {
		until = st.Name
	}
	units, runErr := stages.Run(tr, until)
	var names []string
	var u *stages.Unit
	for _, x := range units {
		if x == nil {
			continue
		}
		names = append(names, x.Captured.Name)
		if x.Captured.Name == *gname || *gname == "" && len(tr.Graphs) == 1 {
			u = x
		}
	}
	if u == nil {
		if *gname == "" {
			return fail("%s has %d graphs (%s): choose one with --graph", tr.Name, len(tr.Graphs), strings.Join(names, ", "))
		}
		return fail("no graph %q in %s (graphs: %s)", *gname, tr.Name, strings.Join(names, ", "))
	}
	g := st.Graph(u)
	if g == nil {
		if runErr != nil {
			return fail("%v", runErr)
		}
		return fail("graph %s has no %s graph (nothing requires grad?)", u.Captured.Name, st.Name)
	}
	if runErr != nil {
		fmt.Fprintln(stderr, "gcdbg render: warning: later stages failed, no fused-kernel clusters:", runErr)
	}
	opt := viz.Options{Title: fmt.Sprintf("%s · graph %s · stage %s", tr.Name, u.Captured.Name, st.Name),
		Legend: true, Clusters: stages.NewProvenance(u).Kernels(u, stageIndex(st.Name))}
	dot := viz.DOT(g, opt)
	var data []byte
	if strings.HasSuffix(*out, ".dot") {
		data = []byte(dot)
	} else if data, err = viz.SVG(dot); err != nil {
		return fail("graph %s, stage %s: %v", u.Captured.Name, st.Name, err)
	}
	if *out == "-" {
		_, err = stdout.Write(data)
	} else {
		err = os.WriteFile(*out, data, 0o644)
	}
	if err != nil {
		return fail("%v", err)
	}
	return 0
}

// graphStages lists the stages that have a graph.
func graphStages() []string {
	var out []string
	for _, st := range stages.Table {
		if st.Graph != nil {
			out = append(out, st.Name)
		}
	}
	return out
}

func stageIndex(name string) int {
	for i, st := range stages.Table {
		if st.Name == name {
			return i
		}
	}
	return -1
}
