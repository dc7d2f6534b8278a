// Command conformance judges exported OpInfo samples (conformance/export_opinfo.py)
// with `gcdbg run --json` (eager, then compiled), writes docs/conformance.md and
// fails when a sample of the committed passing list no longer passes, or when
// any sample panics.
//
//	go run ./conformance/cmd/conformance -dir DIR -bin bin/gcdbg [-j 2] [-md docs/conformance.md]
//	    [-passing conformance/passing.txt] [-update-passing] [-results out.json]
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"sync"
	"time"

	"gcdbg/conformance"
)

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("conformance", flag.ContinueOnError)
	fs.SetOutput(stderr)
	dir := fs.String("dir", "", "directory export_opinfo.py wrote (traces + manifest*.jsonl)")
	bin := fs.String("bin", "bin/gcdbg", "the gcdbg binary")
	jobs := fs.Int("j", 2, "samples judged at once")
	timeout := fs.Duration("timeout", 120*time.Second, "per run of gcdbg")
	md := fs.String("md", "", "write the table here (docs/conformance.md)")
	passing := fs.String("passing", "", "committed list of passing sample ids: fail when one of them does not pass")
	update := fs.Bool("update-passing", false, "rewrite -passing with the ids that pass now (after checking it)")
	results := fs.String("results", "", "write every outcome here as JSON")
	torch := fs.String("torch", "", "PyTorch version, for the table")
	dtypes := fs.String("dtypes", "", "dtypes exported, for the table")
	note := fs.String("note", "", "a note for the table")
	command := fs.String("command", "make conformance", "the command, for the table")
	coverage := fs.String("coverage", "", "the output of `gcdbg ops --coverage`: OpInfos of out-of-scope ops say so in the table")
	var also multiFlag
	fs.Var(&also, "also", "outcomes of an earlier run (its -results file) to include in the table and the passing check (repeatable)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *dir == "" {
		fmt.Fprintln(stderr, "conformance: -dir is required")
		return 2
	}
	samples, err := conformance.ReadManifest(*dir)
	if err != nil {
		fmt.Fprintln(stderr, "conformance:", err)
		return 2
	}
	if _, err := os.Stat(*bin); err != nil {
		fmt.Fprintln(stderr, "conformance: gcdbg binary:", err)
		return 2
	}
	outs := make([]conformance.Outcome, len(samples))
	var wg sync.WaitGroup
	next := make(chan int)
	var mu sync.Mutex
	done := 0
	start := time.Now()
	for w := 0; w < max(1, *jobs); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				outs[i] = conformance.Judge(*bin, *dir, samples[i], *timeout)
				mu.Lock()
				done++
				if done%200 == 0 {
					fmt.Fprintf(stderr, "conformance: %d/%d samples judged (%s)\n", done, len(samples), time.Since(start).Round(time.Second))
				}
				mu.Unlock()
			}
		}()
	}
	for i := range samples {
		next <- i
	}
	close(next)
	wg.Wait()

	for _, f := range also {
		data, err := os.ReadFile(f)
		var more []conformance.Outcome
		if err == nil {
			err = json.Unmarshal(data, &more)
		}
		if err != nil {
			fmt.Fprintln(stderr, "conformance: -also:", err)
			return 2
		}
		for i, o := range more { // read again with this classifier
			if o.Status == conformance.Error && conformance.IsRefusal(o.Reason) {
				more[i].Status = conformance.Refused
			}
		}
		outs = append(outs, more...)
	}
	if len(also) > 0 { // an id judged in this run wins over an earlier run's
		seen := map[string]bool{}
		kept := outs[:0]
		for _, o := range outs {
			if !seen[o.ID] {
				seen[o.ID] = true
				kept = append(kept, o)
			}
		}
		outs = kept
	}
	t := conformance.Totals(outs)
	fmt.Fprintf(stdout, "%d samples: %d pass, %d wrong, %d refused, %d error, %d panic, %d timeout (%s)\n",
		len(outs), t[conformance.Pass], t[conformance.Wrong], t[conformance.Refused], t[conformance.Error],
		t[conformance.Panic], t[conformance.Timeout], time.Since(start).Round(time.Second))
	if *results != "" {
		data, _ := json.MarshalIndent(outs, "", " ")
		if err := os.WriteFile(*results, append(data, '\n'), 0o644); err != nil {
			fmt.Fprintln(stderr, "conformance:", err)
			return 2
		}
	}
	if *md != "" {
		f, err := os.Create(*md)
		if err == nil {
			var ds []string
			for _, d := range strings.Split(*dtypes, ",") {
				if d = strings.TrimSpace(d); d != "" {
					ds = append(ds, d)
				}
			}
			info := conformance.RunInfo{Torch: *torch, DTypes: ds, Command: *command, Note: *note}
			if *coverage != "" {
				text, rerr := os.ReadFile(*coverage)
				if rerr != nil {
					fmt.Fprintln(stderr, "conformance:", rerr)
					return 2
				}
				info.OutOfScope = conformance.ParseCoverage(string(text))
			}
			err = conformance.WriteMarkdown(f, info, outs)
			if cerr := f.Close(); err == nil {
				err = cerr
			}
		}
		if err != nil {
			fmt.Fprintln(stderr, "conformance:", err)
			return 2
		}
	}
	rc := 0
	for _, o := range outs {
		if o.Status == conformance.Panic {
			fmt.Fprintf(stdout, "PANIC %s (%s): %s\n", o.ID, o.Stage, o.Reason)
			rc = 1
		}
	}
	if *passing != "" {
		ids, err := conformance.ReadIDs(*passing)
		if err != nil && !(os.IsNotExist(err) && *update) {
			fmt.Fprintln(stderr, "conformance:", err)
			return 2
		}
		for _, r := range conformance.Regressions(outs, ids) {
			fmt.Fprintln(stdout, "REGRESSION", r)
			rc = 1
		}
		if *update {
			keep := map[string]bool{}
			for _, id := range conformance.PassingIDs(outs) {
				keep[id] = true
			}
			// ids of OpInfos and dtypes this run did not cover stay listed
			ran := map[string]bool{}
			for _, o := range outs {
				ran[o.OpInfo+"/"+o.DType] = true
			}
			for _, id := range ids {
				if i := strings.LastIndexByte(id, '/'); i < 0 || !ran[id[:i]] {
					keep[id] = true
				}
			}
			var all []string
			for id := range keep {
				all = append(all, id)
			}
			sort.Strings(all)
			text := "# Sample ids that pass conformance (docs/conformance.md); `make conformance` fails when one stops passing.\n" +
				"# Regenerated by `make conformance-update`.\n" + strings.Join(all, "\n") + "\n"
			if err := os.WriteFile(*passing, []byte(text), 0o644); err != nil {
				fmt.Fprintln(stderr, "conformance:", err)
				return 2
			}
		}
	}
	return rc
}

type multiFlag []string

func (m *multiFlag) String() string     { return strings.Join(*m, ",") }
func (m *multiFlag) Set(v string) error { *m = append(*m, v); return nil }
