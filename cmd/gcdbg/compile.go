package main

import (
	"flag"
	"fmt"
	"io"

	"gcdbg/compiler"
	"gcdbg/stages"
)

// cmdCompile builds every compiled graph of a trace (forward and backward
// of a training graph) and writes DIR/<graph>_<role>.so and .json plus
// DIR/index.json, for `gcdbg run DIR` to load without recompiling.
func cmdCompile(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("compile", flag.ContinueOnError)
	out := fs.String("o", "", "output directory (required)")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: gcdbg compile [TRACE] -o DIR")
		fs.PrintDefaults()
	}
	pos, err := parseFlags(fs, args, stderr)
	if err != nil {
		if err == flag.ErrHelp {
			return 0
		}
		fmt.Fprintln(stderr, "gcdbg compile:", err)
		return 2
	}
	if *out == "" || len(pos) > 1 {
		fs.Usage()
		return 2
	}
	path := ""
	if len(pos) == 1 {
		path = pos[0]
	}
	tr, err := loadTrace(path)
	if err != nil {
		fmt.Fprintln(stderr, "gcdbg compile:", err)
		return 2
	}
	units, err := stages.Run(tr, "kernels")
	if err != nil {
		fmt.Fprintln(stderr, "gcdbg compile:", err)
		return 2
	}
	var progs []compiler.Program
	for _, u := range units {
		for _, lp := range u.Programs {
			if lp.Source != nil {
				progs = append(progs, lp.Source.Program())
			}
		}
	}
	arts, err := compiler.BuildAll(progs, compiler.Options{})
	if err != nil {
		fmt.Fprintln(stderr, "gcdbg compile:", err)
		return 2
	}
	name := tr.Name
	if path != "" {
		name = path
	}
	if err := compiler.WriteAOT(*out, name, arts); err != nil {
		fmt.Fprintln(stderr, "gcdbg compile:", err)
		return 2
	}
	for _, a := range arts {
		state := "built"
		if a.Hit {
			state = "cached"
		}
		fmt.Fprintf(stdout, "%s %s: %s in %v\n", a.Manifest.Graph, a.Manifest.Role, state, a.Elapsed.Round(1e6))
	}
	fmt.Fprintf(stdout, "wrote %d programs to %s\n", len(arts), *out)
	return 0
}
