package main

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"gcdbg/runner"
)

// inputSets collects repeated --input flags; each flag is one call.
type inputSets []string

func (s *inputSets) String() string     { return strings.Join(*s, " ") }
func (s *inputSets) Set(v string) error { *s = append(*s, v); return nil }

// printRecompiles shows, per graph, each call's guard check and what the
// cache did, then the cache itself.
func printRecompiles(w io.Writer, gs []runner.GraphRecompiles) {
	for _, g := range gs {
		fmt.Fprintf(w, "\nguards and recompiles, graph %s\n", g.Graph)
		for _, c := range g.Calls {
			label := "trace's own inputs"
			if c.Set != "" {
				label = "--input " + c.Set
			}
			verdict := "MISS"
			if c.Set == "" && len(c.Failures) == 0 {
				verdict = "empty cache"
			}
			if c.Hit {
				verdict = "hit " + c.Entry
			}
			fmt.Fprintf(w, "  call %s (%s): %s\n", label, c.Inputs, verdict)
			for _, f := range c.Failures {
				fmt.Fprintf(w, "    guard failed  %s\n", f)
			}
			for _, a := range c.Actions {
				fmt.Fprintf(w, "    %s\n", a)
			}
			if !c.Hit {
				fmt.Fprintf(w, "    compiled %s\n", c.Entry)
			}
			fmt.Fprintf(w, "    outputs %s", strings.Join(c.Outputs, ", "))
			if c.Set != "" {
				fmt.Fprint(w, "; no PyTorch reference for these inputs (comparison with expected values skipped)")
			}
			fmt.Fprintln(w)
			for i, v := range c.VsStatic {
				verdict := "match"
				if !v.Match {
					verdict = "MISMATCH " + v.Why
				}
				fmt.Fprintf(w, "    output %d, symbolic compile vs static compile at these sizes: max abs err %.3g  %s\n", i, v.MaxAbsErr, verdict)
			}
			printCompiledCall(w, c)
		}
		fmt.Fprintf(w, "  cache: %d entries, %d compiles", len(g.Cache), g.Compiles)
		if len(g.Dynamic) > 0 {
			var ds []string
			for k, v := range g.Dynamic {
				i := strings.LastIndexByte(k, ':')
				ds = append(ds, fmt.Sprintf("%s = L['%s'].size()[%s]", v, k[:i], k[i+1:]))
			}
			sort.Strings(ds)
			fmt.Fprintf(w, "; dynamic %s", strings.Join(ds, ", "))
		}
		fmt.Fprintln(w)
		for _, e := range g.Cache {
			fmt.Fprintf(w, "    %-6s %-24s %2d guards  %d hits", e.ID, e.Inputs, len(e.Guards), e.Hits)
			if e.Builds > 0 {
				fmt.Fprintf(w, "  %d programs built", e.Builds)
			}
			if len(e.Symbols) > 0 {
				fmt.Fprintf(w, "; kernels take %s", strings.Join(e.Symbols, ", "))
			}
			fmt.Fprintln(w)
			for _, gd := range e.Guards {
				if strings.HasPrefix(gd.Text, "check_tensor(L['self']") {
					continue // parameters never change between calls here; keep the table short
				}
				fmt.Fprintf(w, "           %s\n", gd.Text)
			}
		}
	}
}

// printCompiledCall shows what the entry's compiled programs computed for
// one call: built now or reused, the symbols' values, the comparisons.
func printCompiledCall(w io.Writer, c runner.CallResult) {
	cc := c.Compiled
	if cc == nil {
		return
	}
	how := "reusing the entry's built programs"
	if cc.Builds > 0 {
		how = fmt.Sprintf("built %d programs for %s", cc.Builds, c.Entry)
	}
	var syms []string
	for k, v := range cc.Symbols {
		syms = append(syms, fmt.Sprintf("%s=%d", k, v))
	}
	sort.Strings(syms)
	if len(syms) > 0 {
		how += ", " + strings.Join(syms, ", ")
	}
	fmt.Fprintf(w, "    compiled (%s)\n", how)
	for i, v := range cc.Outputs {
		fmt.Fprintf(w, "      output %d vs eager interpreter: max abs err %.3g  %s\n", i, v.MaxAbsErr, verdictOf(v.Match, v.Why))
	}
	// Grads in one line: the worst error, and which ones differ.
	if len(cc.Grads) > 0 {
		worst, bad := 0.0, []string{}
		for i, v := range cc.Grads {
			worst = max(worst, v.MaxAbsErr)
			if !v.Match {
				bad = append(bad, fmt.Sprintf("grad %d: %s", i, v.Why))
			}
		}
		verdict := "all match"
		if len(bad) > 0 {
			verdict = "MISMATCH " + strings.Join(bad, "; ")
		}
		fmt.Fprintf(w, "      %d grads vs joint graph at these sizes: max abs err %.3g  %s\n", len(cc.Grads), worst, verdict)
	}
}

func verdictOf(match bool, why string) string {
	if match {
		return "match"
	}
	return "MISMATCH " + why
}
