package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gcdbg/conformance"
)

// A run with -store merges into the store and makes the table and the
// passing list from all of it; a listed sample it judged that no longer
// passes fails the run and stays listed. (The samples here are refused by
// the exporter, so no gcdbg runs.)
func TestMergeRun(t *testing.T) {
	work := t.TempDir()
	store := filepath.Join(work, "results.tsv")
	passing := filepath.Join(work, "passing.txt")
	md := filepath.Join(work, "conformance.md")
	bin := filepath.Join(work, "gcdbg") // must exist; refused samples never run it
	os.WriteFile(bin, nil, 0o755)
	earlier := &conformance.Store{Torch: "1.13", Outs: []conformance.Outcome{
		{ID: "cos/float32/0", OpInfo: "cos", DType: "float32", Status: conformance.Pass, Commit: "aaa", Date: "2026-11-25T10:00Z"},
		{ID: "cos/float32/1", OpInfo: "cos", DType: "float32", Status: conformance.Pass, Commit: "aaa", Date: "2026-11-25T10:00Z"},
		{ID: "sin/float32/0", OpInfo: "sin", DType: "float32", Status: conformance.Pass, Commit: "aaa", Date: "2026-11-25T10:00Z"},
	}}
	if err := conformance.WriteStore(store, earlier); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(passing, []byte("cos/float32/0\ncos/float32/1\nsin/float32/0\n"), 0o644)
	dir := filepath.Join(work, "export")
	os.Mkdir(dir, 0o755)
	// cos in float32 again: sample 0 is refused now, sample 1 is no longer made
	os.WriteFile(filepath.Join(dir, "manifest.jsonl"),
		[]byte(`{"id": "cos/float32/0", "opinfo": "cos", "dtype": "float32", "refused": "export: boom"}`+"\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "covered.tsv"), []byte("cos\tfloat32\ncos\t\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "selection.txt"), []byte("cos\nsin\ntan\n"), 0o644)
	args := []string{"-dir", dir, "-bin", bin, "-store", store, "-passing", passing, "-md", md,
		"-torch", "1.13", "-commit", "bbb+", "-date", "2026-11-25T18:00Z", "-command", "run.sh --ops cos --merge"}
	var out, errb bytes.Buffer
	if rc := run(args, &out, &errb); rc != 1 {
		t.Fatalf("rc %d (want 1: two regressions)\n%s%s", rc, out.String(), errb.String())
	}
	for _, want := range []string{"REGRESSION cos/float32/0: refused at export", "REGRESSION cos/float32/1 (no longer exported)", "merged 1 samples"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
	st, err := conformance.ReadStore(store)
	if err != nil {
		t.Fatal(err)
	}
	var rows []string
	for _, o := range st.Outs {
		rows = append(rows, o.ID+" "+string(o.Status)+" "+o.Commit)
	}
	if strings.Join(rows, ",") != "cos/float32/0 refused bbb+,sin/float32/0 pass aaa" {
		t.Errorf("store %q", rows)
	}
	table, _ := os.ReadFile(md)
	for _, want := range []string{"| 2 | 1 (50.0%) | 0 | 0 | 1 |", "| float32 | 2 | 2026-11-25T10:00Z to 2026-11-25T18:00Z | aaa (1), bbb+ (1) |", "| sin | 1 | 1 |",
		"OpInfos: 2 of the selection's 3 have samples here; without a sample here (not run, or no sample in these dtypes): tan"} {
		if !strings.Contains(string(table), want) {
			t.Errorf("table lacks %q:\n%s", want, table)
		}
	}
	ids, _ := conformance.ReadIDs(passing)
	if strings.Join(ids, ",") != "cos/float32/0,cos/float32/1,sin/float32/0" {
		t.Errorf("passing.txt dropped a regression without --update: %q", ids)
	}
	// the same run with -update-passing accepts them
	out.Reset()
	if rc := run(append(args, "-update-passing"), &out, &errb); rc != 1 {
		t.Fatalf("rc %d\n%s", rc, out.String())
	}
	ids, _ = conformance.ReadIDs(passing)
	if strings.Join(ids, ",") != "sin/float32/0" {
		t.Errorf("passing.txt after --update: %q", ids)
	}
	// another PyTorch's samples do not go into this store
	args[len(args)-7] = "2.6.0"
	if rc := run(args, &out, &errb); rc != 2 || !strings.Contains(errb.String(), "PyTorch 1.13") {
		t.Errorf("rc %d merging PyTorch 2.6 samples: %s", rc, errb.String())
	}
}

// A run without -store of chosen ids (conformance/run.sh --ids: no covered
// pairs) does not count the listed samples it did not judge as regressions
// (it flagged prod/bool/9 "no longer exported" when only prod/bool/19 ran);
// one whose OpInfo x dtype it exported in full still does.
func TestIdsRunRegressions(t *testing.T) {
	work := t.TempDir()
	passing := filepath.Join(work, "passing.txt")
	bin := filepath.Join(work, "gcdbg")
	os.WriteFile(bin, nil, 0o755)
	os.WriteFile(passing, []byte("cos/float32/0\ncos/float32/1\n"), 0o644)
	dir := filepath.Join(work, "export")
	os.Mkdir(dir, 0o755)
	os.WriteFile(filepath.Join(dir, "manifest.jsonl"),
		[]byte(`{"id": "cos/float32/2", "opinfo": "cos", "dtype": "float32", "refused": "export: boom"}`+"\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "covered.tsv"), nil, 0o644)
	args := []string{"-dir", dir, "-bin", bin, "-passing", passing, "-md", filepath.Join(work, "t.md"),
		"-torch", "1.13", "-commit", "bbb", "-date", "2026-11-25T18:00Z", "-command", "run.sh --ids f"}
	var out, errb bytes.Buffer
	if rc := run(args, &out, &errb); rc != 0 || strings.Contains(out.String(), "REGRESSION") {
		t.Fatalf("rc %d (want 0: nothing listed was judged)\n%s%s", rc, out.String(), errb.String())
	}
	os.WriteFile(filepath.Join(dir, "covered.tsv"), []byte("cos\tfloat32\n"), 0o644)
	out.Reset()
	if rc := run(args, &out, &errb); rc != 1 || !strings.Contains(out.String(), "REGRESSION cos/float32/1 (no longer exported)") {
		t.Errorf("rc %d with cos/float32 exported in full (want 1, cos/float32/1 no longer exported)\n%s", rc, out.String())
	}
}

// A merge makes the table with xfail.tsv as it is when it merges, not as
// the run began: an entry listed while the run judged (here by the fake
// gcdbg itself) shows its sample, which another run merged wrong, as
// xfail (PyTorch). (A run read it once at its start, and its merge showed
// instance_norm bfloat16/5 and /6, listed meanwhile, as wrong.)
func TestMergeRereadsXFail(t *testing.T) {
	work := t.TempDir()
	store := filepath.Join(work, "results.tsv")
	xfail := filepath.Join(work, "xfail.tsv")
	md := filepath.Join(work, "conformance.md")
	os.WriteFile(xfail, []byte("# none yet\n"), 0o644)
	bin := filepath.Join(work, "gcdbg") // lists tan/float32/0 when it runs, then fails
	os.WriteFile(bin, []byte("#!/bin/sh\nprintf 'tan/float32/0\\ta PyTorch artefact\\n' >> "+xfail+"\nexit 2\n"), 0o755)
	earlier := &conformance.Store{Torch: "1.13", Outs: []conformance.Outcome{
		{ID: "tan/float32/0", OpInfo: "tan", DType: "float32", Status: conformance.Wrong, Reason: "output 0 vs PyTorch", Commit: "aaa", Date: "2026-11-25T10:00Z"},
	}}
	if err := conformance.WriteStore(store, earlier); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(work, "export")
	os.Mkdir(dir, 0o755)
	os.WriteFile(filepath.Join(dir, "manifest.jsonl"),
		[]byte(`{"id": "cos/float32/0", "opinfo": "cos", "dtype": "float32", "trace": "cos__float32__0.json"}`+"\n"), 0o644)
	args := []string{"-dir", dir, "-bin", bin, "-batch=false", "-store", store, "-md", md, "-xfail", xfail,
		"-torch", "1.13", "-commit", "bbb", "-date", "2026-11-25T18:00Z", "-command", "run.sh --ops cos --merge"}
	var out, errb bytes.Buffer
	if rc := run(args, &out, &errb); rc == 2 {
		t.Fatalf("rc 2\n%s%s", out.String(), errb.String())
	}
	if b, _ := os.ReadFile(xfail); !strings.Contains(string(b), "tan/float32/0") {
		t.Fatalf("test premise: the fake gcdbg did not run (xfail.tsv: %q)\n%s%s", b, out.String(), errb.String())
	}
	table, _ := os.ReadFile(md)
	if !strings.Contains(string(table), "| tan | 1 | 0 | 0 | 1 | 0 | 0 | 1× xfail (PyTorch): a PyTorch artefact") {
		t.Errorf("the table does not show tan/float32/0 as xfail (PyTorch):\n%s", table)
	}
}
