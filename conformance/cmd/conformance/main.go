// Command conformance judges exported OpInfo samples (conformance/export_opinfo.py)
// with `gcdbg run --json` (eager, then compiled), writes docs/conformance.md and
// fails when a sample of the committed passing list no longer passes, or when
// any sample panics.
//
//	go run ./conformance/cmd/conformance -dir DIR -bin bin/gcdbg [-j 2] [-md docs/conformance.md]
//	    [-passing conformance/passing.txt] [-update-passing] [-results out.json]
//	    [-store conformance/results.tsv -commit C] [-xfail conformance/xfail.tsv]
//
// With -store the run is merged into the results store and the table and
// the passing list are made from the whole store (conformance/store.go).
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
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
	batch := fs.Bool("batch", true, "judge in long-lived `gcdbg __judge` processes (one per job) instead of a `gcdbg run` process per run: the same runs without a start-up each")
	md := fs.String("md", "", "write the table here (docs/conformance.md)")
	passing := fs.String("passing", "", "committed list of passing sample ids: fail when one of them does not pass")
	update := fs.Bool("update-passing", false, "with -store: drop from -passing the listed ids this run judged that do not pass now")
	results := fs.String("results", "", "write every outcome here as JSON")
	torch := fs.String("torch", "", "PyTorch version, for the table")
	dtypes := fs.String("dtypes", "", "dtypes exported, for the table")
	note := fs.String("note", "", "a note for the table")
	command := fs.String("command", "make conformance", "the command, for the table")
	coverage := fs.String("coverage", "", "the output of `gcdbg ops --coverage`: OpInfos of out-of-scope ops say so in the table")
	store := fs.String("store", "", "merge this run into the results store (conformance/results.tsv), under a lock, and make -md and -passing from the whole store")
	commit := fs.String("commit", "", "the gcdbg commit judged (for the store; '+' marks uncommitted changes)")
	date := fs.String("date", "", "when this run judged (for the store; default now, UTC)")
	xfailPath := fs.String("xfail", "", "the samples wrong because of PyTorch (conformance/xfail.tsv): the table shows them in a column of their own; one that this run judged and that passes, or fails otherwise, fails the run")
	var also multiFlag
	fs.Var(&also, "also", "outcomes of an earlier run (its -results file) to include in the table and the passing check (repeatable)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *update && *store == "" {
		fmt.Fprintln(stderr, "conformance: -update-passing needs -store: passing.txt is made from the results store")
		return 2
	}
	if *store != "" && len(also) > 0 {
		fmt.Fprintln(stderr, "conformance: -also outcomes carry no commit: merge runs into -store instead")
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
	xfail := map[string]string{}
	if *xfailPath != "" {
		if xfail, err = conformance.ReadXFail(*xfailPath); err != nil {
			fmt.Fprintln(stderr, "conformance:", err)
			return 2
		}
	}
	if _, err := os.Stat(*bin); err != nil {
		fmt.Fprintln(stderr, "conformance: gcdbg binary:", err)
		return 2
	}
	if *date == "" {
		*date = time.Now().UTC().Format("2006-01-02T15:04Z")
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
			var r conformance.Runner = conformance.Process(*bin)
			if *batch {
				b := &conformance.Batch{Bin: *bin}
				defer b.Close()
				r = b
			}
			for i := range next {
				outs[i] = conformance.JudgeBy(r, *dir, samples[i], *timeout)
				outs[i].Commit, outs[i].Date = *commit, *date
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
	rc := 0
	for _, o := range outs {
		if o.Status == conformance.Panic {
			fmt.Fprintf(stdout, "PANIC %s (%s): %s\n", o.ID, o.Stage, o.Reason)
			rc = 1
		}
	}
	for _, e := range conformance.CheckXFail(outs, xfail, false) {
		fmt.Fprintln(stdout, "XFAIL", e)
		rc = 1
	}
	var old []string
	if *passing != "" {
		old, err = conformance.ReadIDs(*passing)
		if err != nil && !os.IsNotExist(err) {
			fmt.Fprintln(stderr, "conformance:", err)
			return 2
		}
	}
	table := outs // what the table shows: this run, or the whole store
	info := conformance.RunInfo{Torch: *torch, Command: *command, Note: *note}
	for _, d := range strings.Split(*dtypes, ",") {
		if d = strings.TrimSpace(d); d != "" {
			info.DTypes = append(info.DTypes, d)
		}
	}
	if *coverage != "" {
		text, rerr := os.ReadFile(*coverage)
		if rerr != nil {
			fmt.Fprintln(stderr, "conformance:", rerr)
			return 2
		}
		info.OutOfScope = conformance.ParseCoverage(string(text))
	}
	if *store == "" {
		if *passing != "" {
			// a listed sample this run did not judge is a regression only where the
			// run exported its OpInfo x dtype in full (a run of chosen --ids covers none)
			covered, err := conformance.ReadCovered(*dir)
			if err != nil {
				fmt.Fprintln(stderr, "conformance:", err)
				return 2
			}
			for _, r := range conformance.RegressionsIn(outs, old, covered) {
				fmt.Fprintln(stdout, "REGRESSION", r)
				rc = 1
			}
		}
		if err := writeTable(*md, info, conformance.ApplyXFail(table, xfail)); err != nil {
			fmt.Fprintln(stderr, "conformance:", err)
			return 2
		}
		return rc
	}
	// Merge into the store: read, merge and write it, the table and the
	// passing list under one lock, so two runs merging at once both land.
	covered, err := conformance.ReadCovered(*dir)
	if err != nil {
		fmt.Fprintln(stderr, "conformance:", err)
		return 2
	}
	if *passing != "" {
		for _, r := range conformance.RegressionsIn(outs, old, covered) {
			fmt.Fprintln(stdout, "REGRESSION", r)
			rc = 1
		}
	}
	unlock, err := conformance.LockStore(*store)
	if err != nil {
		fmt.Fprintln(stderr, "conformance:", err)
		return 2
	}
	defer unlock()
	st, err := conformance.ReadStore(*store)
	if err != nil {
		fmt.Fprintln(stderr, "conformance:", err)
		return 2
	}
	if st.Torch != "" && st.Torch != *torch {
		fmt.Fprintf(stderr, "conformance: %s holds samples of PyTorch %s, this run's are PyTorch %s: not merged (use -md to a file of its own)\n", *store, st.Torch, *torch)
		return 2
	}
	// The table shows the whole store, so xfail.tsv as it is now: a run
	// takes minutes, and samples listed meanwhile (with another run's
	// judgements of them merged) would show as wrong.
	if *xfailPath != "" {
		if xfail, err = conformance.ReadXFail(*xfailPath); err != nil {
			fmt.Fprintln(stderr, "conformance:", err)
			return 2
		}
	}
	st = conformance.MergeStore(st, outs, covered)
	st.Torch = *torch
	if err := conformance.WriteStore(*store, st); err != nil {
		fmt.Fprintln(stderr, "conformance:", err)
		return 2
	}
	fmt.Fprintf(stdout, "merged %d samples into %s (%d samples)\n", len(outs), *store, len(st.Outs))
	info.DTypes = nil
	seen := map[string]bool{}
	for _, o := range st.Outs {
		if o.DType != "" && !seen[o.DType] {
			seen[o.DType] = true
			info.DTypes = append(info.DTypes, o.DType)
		}
	}
	sort.Strings(info.DTypes)
	info.Note = "" // the table is the whole store's, not this run's
	if sel, err := conformance.ReadIDs(filepath.Join(*dir, "selection.txt")); err == nil {
		info.Selection = sel
	}
	info.Command = "conformance/run.sh --merge (runs merged into " + *store + "; the latest: " + *command + ")"
	if err := writeTable(*md, info, conformance.ApplyXFail(st.Outs, xfail)); err != nil {
		fmt.Fprintln(stderr, "conformance:", err)
		return 2
	}
	if *passing != "" {
		if err := conformance.WritePassing(*passing, conformance.NewPassing(st, old, outs, covered, *update)); err != nil {
			fmt.Fprintln(stderr, "conformance:", err)
			return 2
		}
	}
	return rc
}

func writeTable(path string, info conformance.RunInfo, outs []conformance.Outcome) error {
	if path == "" {
		return nil
	}
	var b bytes.Buffer
	if err := conformance.WriteMarkdown(&b, info, outs); err != nil {
		return err
	}
	return conformance.WriteFileAtomic(path, b.Bytes())
}

type multiFlag []string

func (m *multiFlag) String() string     { return strings.Join(*m, ",") }
func (m *multiFlag) Set(v string) error { *m = append(*m, v); return nil }
