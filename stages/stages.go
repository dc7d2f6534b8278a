// Package stages is gcdbg's compiler pipeline: one table of stages, each a
// real transformation of what the previous stages produced, with a printer.
// The TUI, dump, report and watch mode know stages only through Table, so
// adding a stage is one file and one line here (the spirit of Go's
// cmd/compile/internal/ssa/compile.go pass list).
package stages

import (
	"fmt"
	"strings"

	"gcdbg/ir"
	"gcdbg/trace"
)

// Unit is one captured graph travelling through the pipeline, with the
// artifact each stage made for it. Stages read earlier fields and fill their own.
type Unit struct {
	Trace    *trace.Trace
	Captured *ir.Graph // the graph as the producer captured it
	// Normalized is Captured rewritten to the canonical torch-level op set:
	// modules become functional calls, aliases collapse, args bound to schemas.
	Normalized *ir.Graph
}

// Stage is one row of the pipeline table.
type Stage struct {
	Name    string
	Explain string // one line: what the compiler does here and why
	Run     func(u *Unit) error
	Print   func(u *Unit) string
	Graph   func(u *Unit) *ir.Graph // the stage's graph, for node counts and provenance; nil if none
}

// Table is the pipeline, in order.
var Table = []Stage{
	{"captured", "The graph exactly as the producer captured it (torch.fx / Dynamo): modules, methods, operator.* calls.",
		nil, printCaptured, func(u *Unit) *ir.Graph { return u.Captured }},
	{"normalized", "One canonical torch-level op set: modules become functional calls, aliases (x + y, torch.add, Tensor.add) one op, every argument bound to its schema and every shape inferred.",
		normalize, printNormalized, func(u *Unit) *ir.Graph { return u.Normalized }},
}

// Lookup finds a stage by name.
func Lookup(name string) (*Stage, error) {
	for i := range Table {
		if Table[i].Name == name {
			return &Table[i], nil
		}
	}
	return nil, fmt.Errorf("unknown stage %q (stages: %s)", name, strings.Join(Names(), ", "))
}

// Names lists the stage names in order.
func Names() []string {
	out := make([]string, len(Table))
	for i, s := range Table {
		out[i] = s.Name
	}
	return out
}

// Run takes every graph of a trace through the stages up to and including
// `until` ("" = all) and returns one Unit per graph.
func Run(tr *trace.Trace, until string) ([]*Unit, error) {
	if until != "" {
		if _, err := Lookup(until); err != nil {
			return nil, err
		}
	}
	units := make([]*Unit, len(tr.Graphs))
	for i, g := range tr.Graphs {
		u := &Unit{Trace: tr, Captured: g}
		units[i] = u
		for _, st := range Table {
			if st.Run != nil {
				if err := st.Run(u); err != nil {
					return units, fmt.Errorf("%s: stage %s: %w", traceName(tr), st.Name, err)
				}
			}
			if st.Name == until {
				break
			}
		}
	}
	return units, nil
}

func traceName(tr *trace.Trace) string {
	if tr.Path != "" {
		return tr.Path
	}
	return tr.Name
}

func printCaptured(u *Unit) string {
	return ir.FXGraph(u.Captured)
}

func printNormalized(u *Unit) string {
	return ir.Readable(u.Normalized)
}
