package conformance

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
)

func TestStoreRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "results.tsv")
	st := &Store{Torch: "1.13.0a0", Outs: []Outcome{
		{ID: "cos/float32/1", OpInfo: "cos", DType: "float32", Status: Error, Stage: "compiled",
			Reason: "/tmp/gcdbg-conformance.X/cos__float32__1.json: stage forward:\tboom\nsecond line", Commit: "abc1234+", Date: "2026-11-25T17:00Z"},
		{ID: "cos/float32/0", OpInfo: "cos", DType: "float32", Status: Pass, Commit: "abc1234", Date: "2026-11-25T17:00Z"},
		{ID: "abs/inplace", OpInfo: "abs", Status: Refused, Stage: "export", Reason: strings.Repeat("é", 150)},
	}}
	if err := WriteStore(path, st); err != nil {
		t.Fatal(err)
	}
	got, err := ReadStore(path)
	if err != nil {
		t.Fatal(err)
	}
	if got.Torch != "1.13.0a0" || len(got.Outs) != 3 {
		t.Fatalf("read back %+v", got)
	}
	if ids := []string{got.Outs[0].ID, got.Outs[1].ID, got.Outs[2].ID}; !slices.Equal(ids, []string{"abs/inplace", "cos/float32/0", "cos/float32/1"}) {
		t.Errorf("not sorted by id: %q", ids)
	}
	if r := got.Outs[2].Reason; r != "stage forward: boom second line" {
		t.Errorf("reason kept as %q (want no path, one line)", r)
	}
	if r := got.Outs[0].Reason; len(r) > 200 || !strings.HasSuffix(r, "...") || !strings.HasPrefix(r, "éé") || strings.ContainsRune(r, '\uFFFD') {
		t.Errorf("long reason cut badly: %d bytes %q", len(r), r)
	}
	if got.Outs[2].Commit != "abc1234+" || got.Outs[2].Date != "2026-11-25T17:00Z" || got.Outs[2].Stage != "compiled" {
		t.Errorf("row %+v", got.Outs[2])
	}
	// a damaged store is an error, not a silent loss
	for _, bad := range []string{"a\tb\tc\n", "x/float32/0\tx\tfloat32\tmaybe\t\t\t\t\n",
		"x/float32/0\tx\tfloat32\tpass\t\t\t\t\nx/float32/0\tx\tfloat32\tpass\t\t\t\t\n"} {
		p := filepath.Join(t.TempDir(), "r.tsv")
		os.WriteFile(p, []byte(storeColumns+"\n"+bad), 0o644)
		if _, err := ReadStore(p); err == nil {
			t.Errorf("ReadStore accepted %q", bad)
		}
	}
	if st, err := ReadStore(filepath.Join(t.TempDir(), "none.tsv")); err != nil || len(st.Outs) != 0 {
		t.Errorf("a missing store: %v %v", st, err)
	}
}

func TestMergeStore(t *testing.T) {
	o := func(id string, s Status, c string) Outcome {
		p, _ := idPair(id)
		return Outcome{ID: id, OpInfo: p.OpInfo, DType: p.DType, Status: s, Commit: c}
	}
	st := &Store{Torch: "1.13", Outs: []Outcome{
		o("cos/float32/0", Pass, "old"), o("cos/float32/1", Error, "old"), o("cos/float32/2", Pass, "old"),
		o("cos/int64/0", Pass, "old"), o("sin/float32/0", Wrong, "old"),
	}}
	// a full run of cos in float32 that makes two samples now: cos/float32/2 is gone
	run := []Outcome{o("cos/float32/0", Error, "new"), o("cos/float32/1", Pass, "new")}
	m := MergeStore(st, run, map[Pair]bool{{"cos", "float32"}: true})
	var got []string
	for _, x := range m.Outs {
		got = append(got, x.ID+" "+string(x.Status)+" "+x.Commit)
	}
	want := []string{"cos/float32/0 error new", "cos/float32/1 pass new", "cos/int64/0 pass old", "sin/float32/0 wrong old"}
	if !slices.Equal(got, want) {
		t.Errorf("merged %q, want %q", got, want)
	}
	// a run of chosen ids covers no pair: only its samples change
	m = MergeStore(st, []Outcome{o("sin/float32/0", Pass, "new")}, nil)
	if len(m.Outs) != 5 || m.Outs[4].Status != Pass || m.Outs[2].ID != "cos/float32/2" {
		t.Errorf("merge of one id: %+v", m.Outs)
	}

	// passing.txt after the merge: what the store says passes, and listed ids
	// that stopped passing stay until a run with accept drops them
	old := []string{"cos/float32/0", "cos/float32/2", "cos/int64/0", "tan/float32/0"}
	m = MergeStore(st, run, map[Pair]bool{{"cos", "float32"}: true})
	cov := map[Pair]bool{{"cos", "float32"}: true}
	if p := NewPassing(m, old, run, cov, false); !slices.Equal(p, []string{"cos/float32/0", "cos/float32/1", "cos/float32/2", "cos/int64/0", "tan/float32/0"}) {
		t.Errorf("passing without accept: %q", p)
	}
	if p := NewPassing(m, old, run, cov, true); !slices.Equal(p, []string{"cos/float32/1", "cos/int64/0", "tan/float32/0"}) {
		t.Errorf("passing with accept: %q", p)
	}
	if r := RegressionsIn(run, old, cov); len(r) != 2 || !strings.HasPrefix(r[0], "cos/float32/0: error") || r[1] != "cos/float32/2 (no longer exported)" {
		t.Errorf("regressions %q", r)
	}
	if r := RegressionsIn(run, old, nil); len(r) != 1 {
		t.Errorf("an --ids run reports a sample it did not make: %q", r)
	}
}

// Runs merging at the same time (two engineers, or shards) all land: each
// merge reads, merges and writes the store under LockStore.
func TestMergeStoreLocked(t *testing.T) {
	path := filepath.Join(t.TempDir(), "results.tsv")
	const n = 16
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			unlock, err := LockStore(path)
			if err != nil {
				errs <- err
				return
			}
			defer unlock()
			st, err := ReadStore(path)
			if err != nil {
				errs <- err
				return
			}
			op := fmt.Sprintf("op%02d", i)
			run := []Outcome{{ID: op + "/float32/0", OpInfo: op, DType: "float32", Status: Pass}}
			st = MergeStore(st, run, map[Pair]bool{{op, "float32"}: true})
			st.Torch = "1.13"
			errs <- WriteStore(path, st)
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	st, err := ReadStore(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Outs) != n {
		t.Errorf("%d samples in the store after %d merges", len(st.Outs), n)
	}
}

func TestTableProvenance(t *testing.T) {
	outs := []Outcome{
		{ID: "cos/float32/0", OpInfo: "cos", DType: "float32", Status: Pass, Commit: "aaa", Date: "2026-11-25T17:00Z"},
		{ID: "cos/float32/1", OpInfo: "cos", DType: "float32", Status: Pass, Commit: "bbb+", Date: "2026-11-25T18:10Z"},
		{ID: "cos/float32/2", OpInfo: "cos", DType: "float32", Status: Pass, Commit: "bbb+", Date: "2026-11-25T18:10Z"},
		{ID: "cos/int64/0", OpInfo: "cos", DType: "int64", Status: Pass},
	}
	var b bytes.Buffer
	if err := WriteMarkdown(&b, RunInfo{}, outs); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"| float32 | 3 | 2026-11-25T17:00Z to 2026-11-25T18:10Z | bbb+ (2), aaa (1) |", "| int64 | 1 |  | unknown (1) |"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, b.String())
		}
	}
	b.Reset()
	WriteMarkdown(&b, RunInfo{}, outs[3:])
	if strings.Contains(b.String(), "Which gcdbg judged") {
		t.Errorf("a run without commits claims provenance:\n%s", b.String())
	}
}
