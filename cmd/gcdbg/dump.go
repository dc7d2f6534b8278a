package main

import (
	"flag"
	"fmt"
	"io"
	"strings"

	"gcdbg/ir"
	"gcdbg/stages"
)

func cmdDump(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("dump", flag.ContinueOnError)
	stage := fs.String("stage", "captured", "stage to print: "+strings.Join(stages.Names(), ", "))
	graph := fs.String("graph", "", "only this graph (default: every graph)")
	form := fs.String("form", "", "graph form: fx (graph(): %x : ...) or readable (def forward(...)); default: the stage's own")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: gcdbg dump [TRACE] [--stage NAME] [--graph NAME] [--form fx|readable]")
		fs.PrintDefaults()
	}
	pos, err := parseFlags(fs, args, stderr)
	if err != nil {
		if err == flag.ErrHelp {
			return 0
		}
		fmt.Fprintln(stderr, "gcdbg dump:", err)
		return 2
	}
	st, err := stages.Lookup(*stage)
	if err != nil {
		fmt.Fprintln(stderr, "gcdbg dump:", err)
		return 2
	}
	if *form != "" && *form != "fx" && *form != "readable" {
		fmt.Fprintf(stderr, "gcdbg dump: --form must be fx or readable, got %q\n", *form)
		return 2
	}
	path := ""
	if len(pos) == 1 {
		path = pos[0]
	}
	tr, err := loadTrace(path)
	if err != nil {
		fmt.Fprintln(stderr, "gcdbg dump:", err)
		return 2
	}
	units, err := stages.Run(tr, st.Name)
	rc := 0
	if err != nil {
		// A graph the pipeline stopped on still shows the stages it reached;
		// a later stage prints where and why it stopped (exit status 2).
		fmt.Fprintln(stderr, "gcdbg dump:", errText(err))
		if len(units) == 0 {
			return 2
		}
		if si := stageIndex(st.Name); si >= 0 {
			for _, u := range units {
				if u != nil && !u.Reached(si) {
					rc = 2
				}
			}
		}
	}
	found := false
	for _, u := range units {
		if *graph != "" && u.Captured.Name != *graph {
			continue
		}
		found = true
		fmt.Fprintf(stdout, "# %s, graph %s, stage %s\n", tr.Name, u.Captured.Name, st.Name)
		var sg *ir.Graph
		if st.Graph != nil {
			sg = st.Graph(u)
		}
		switch {
		case *form == "fx" && sg != nil:
			fmt.Fprint(stdout, ir.FXGraph(sg))
		case *form == "readable" && sg != nil:
			fmt.Fprint(stdout, ir.Readable(sg))
		default:
			fmt.Fprint(stdout, st.Print(u))
		}
		if b := u.Captured.Break; b != nil {
			fmt.Fprintf(stdout, "# graph break: %s\n", b.Reason)
		}
		fmt.Fprintln(stdout)
	}
	if !found {
		fmt.Fprintf(stderr, "gcdbg dump: no graph %q in %s\n", *graph, tr.Name)
		return 2
	}
	return rc
}

func cmdStages(w io.Writer) int {
	for i, st := range stages.Table {
		fmt.Fprintf(w, "%2d  %-12s %s\n", i+1, st.Name, st.Explain)
	}
	return 0
}

func cmdOps(args []string, w, errw io.Writer) int {
	coverage := false
	for _, a := range args {
		switch a {
		case "--coverage", "-coverage":
			coverage = true
		case "-h", "--help", "-help":
			fmt.Fprintln(w, "usage: gcdbg ops [--coverage]\n\nWithout flags: every canonical op with its kind and schema.\n--coverage: PyTorch 2.6's core ATen opset, each op supported (the gcdbg op it becomes and how it runs: compiled, compiled in some forms (which), decomposed, eager fallback) or out of scope with the reason; then the torch.nn.functional ops out of scope and the argument values of supported ops gcdbg refuses, each with the reason.")
			return 0
		default:
			fmt.Fprintf(errw, "gcdbg ops: unknown argument %q (try --coverage)\n", a)
			return 2
		}
	}
	if coverage {
		rows := stages.Coverage()
		fmt.Fprint(w, stages.CoverageTable(rows))
		fmt.Fprint(w, stages.FunctionalOutOfScopeTable())
		fmt.Fprint(w, stages.ArgumentOutOfScopeTable())
		for _, r := range rows {
			if r.Status == stages.CoverageMissing {
				return 1
			}
		}
		return 0
	}
	for _, d := range ir.Ops() {
		var ps []string
		for _, p := range d.Schema.Params {
			s := p.Name
			if p.Variadic {
				s = "*" + s
			}
			if p.HasDefault {
				s += "=" + ir.FormatArg(p.Default, func(n *ir.Node) string { return n.Name })
			}
			ps = append(ps, s)
		}
		fmt.Fprintf(w, "%-26s %-10s %s(%s)\n", d.Name, d.Kind, d.Schema.Name, strings.Join(ps, ", "))
	}
	return 0
}
