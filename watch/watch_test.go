package watch

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"gcdbg/graphtext"
	"gcdbg/ir"
	"gcdbg/trace"
)

// The tests watch graph text files in a temporary folder, loaded by
// graphtext.Load (the loader gcdbg passes is openTrace, which picks it for
// this content).

func load(path string) (*trace.Trace, error) { return graphtext.Load(path) }

// graph is a two-node graph whose constant tells the versions apart.
func graph(k int) string {
	return fmt.Sprintf("def forward(self, x: \"f32[4, 8]\"):\n    y = torch.relu(x)\n    return (y * %d,)\n", k)
}

// save writes like an editor: a temporary file in the same folder renamed
// over the original.
func save(t testing.TB, path, text string) {
	t.Helper()
	tmp := filepath.Join(filepath.Dir(path), "."+filepath.Base(path)+".swp")
	if err := os.WriteFile(tmp, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
}

// next waits for the next final Result.
func next(t testing.TB, w *Watcher, within time.Duration) Result {
	t.Helper()
	deadline := time.After(within)
	for {
		select {
		case r, ok := <-w.Results():
			if !ok {
				t.Fatal("results closed")
			}
			if r.Final {
				return r
			}
		case <-deadline:
			t.Fatalf("no result within %s", within)
		}
	}
}

// quiet reports the final results that arrive within d.
func quiet(w *Watcher, d time.Duration) []Result {
	var out []Result
	deadline := time.After(d)
	for {
		select {
		case r, ok := <-w.Results():
			if !ok {
				return out
			}
			if r.Final {
				out = append(out, r)
			}
		case <-deadline:
			return out
		}
	}
}

// multiplier is the constant of graph(k) in a result's captured graph.
func multiplier(t testing.TB, r Result) int64 {
	t.Helper()
	if r.Err != nil || len(r.Units) != 1 {
		t.Fatalf("result #%d: err %v, %d units", r.Seq, r.Err, len(r.Units))
	}
	for _, n := range r.Units[0].Captured.Nodes {
		if n.Target == "operator.mul" || strings.HasSuffix(n.Target, "mul") {
			if k, ok := n.Args[1].(int64); ok {
				return k
			}
		}
	}
	t.Fatalf("no mul node in %s", ir.FXGraph(r.Units[0].Captured))
	return 0
}

// settle waits for the goroutine count to come back to at most n.
func settle(n int) int {
	var got int
	for i := 0; i < 100; i++ {
		if got = runtime.NumGoroutine(); got <= n {
			return got
		}
		time.Sleep(10 * time.Millisecond)
	}
	return got
}

func TestRenameSaveAndDiff(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "g.py")
	save(t, path, graph(1))
	w, err := New(path, Options{Load: load, Quiet: 20 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	r := next(t, w, 5*time.Second)
	if r.Seq != 1 || r.Diff != nil || multiplier(t, r) != 1 {
		t.Fatalf("first: seq %d diff %v", r.Seq, r.Diff)
	}
	// One more node (a neg) and a changed constant.
	save(t, path, "def forward(self, x: \"f32[4, 8]\"):\n    y = torch.relu(x)\n    return (-(y * 3),)\n")
	r = next(t, w, 5*time.Second)
	if r.Err != nil || r.Seq != 2 || r.Diff == nil {
		t.Fatalf("after rename-save: %+v", r)
	}
	var norm *StageDiff
	for i, s := range r.Diff.Stages {
		if s.Stage == "normalized" {
			norm = &r.Diff.Stages[i]
		}
	}
	if norm == nil || len(norm.Added) != 1 || len(norm.Changed) < 1 {
		t.Fatalf("normalized diff: %+v (all: %s)", norm, r.Diff.Summary())
	}
	if len(r.Diff.Kernels) == 0 {
		t.Fatalf("the kernel's source changed but the diff names none: %s", r.Diff.Summary())
	}
	// A save of the same bytes is no compile.
	save(t, path, "def forward(self, x: \"f32[4, 8]\"):\n    y = torch.relu(x)\n    return (-(y * 3),)\n")
	if extra := quiet(w, 300*time.Millisecond); len(extra) != 0 {
		t.Fatalf("an unchanged save recompiled: %+v", extra)
	}
}

func TestBurstIsOneCompile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "g.py")
	save(t, path, graph(1))
	w, err := New(path, Options{Load: load, Quiet: 100 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	next(t, w, 5*time.Second)
	for k := 2; k <= 6; k++ { // a formatter rewriting the file five times
		if err := os.WriteFile(path, []byte(graph(k)), 0o600); err != nil {
			t.Fatal(err)
		}
		time.Sleep(5 * time.Millisecond)
	}
	rs := quiet(w, time.Second)
	if len(rs) != 1 || multiplier(t, rs[0]) != 6 {
		t.Fatalf("a burst of 5 writes gave %d compiles", len(rs))
	}
}

// 100 quick edits, every other one invalid, end in the last valid state:
// no crash, no goroutine, process or temporary file left behind.
func TestQuickEditsEndInLastValid(t *testing.T) {
	before := runtime.NumGoroutine()
	dir := t.TempDir()
	path := filepath.Join(dir, "g.py")
	save(t, path, graph(1))
	w, err := New(path, Options{Load: load, Quiet: 10 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	next(t, w, 5*time.Second)
	invalid := []string{
		"def forward(self, x: \"f33[4, 8]\"):\n    return (x,)\n",
		"def forward(self, x: \"f32[4, 8]\"):\n    return (z,)\n",
		"def forward(self, x",
		"",
		"def forward(self, x: \"f32[4, 8]\"):\n    y = torch.mm(x, x)\n    return (y,)\n", // shapes do not match: a stage error
	}
	var last Result
	drain := func() {
		for {
			select {
			case r := <-w.Results():
				if r.Final {
					last = r
				}
			default:
				return
			}
		}
	}
	for i := 0; i < 100; i++ {
		if i%2 == 0 {
			save(t, path, invalid[i/2%len(invalid)])
		} else {
			save(t, path, graph(100+i))
		}
		time.Sleep(time.Duration(i%7) * 3 * time.Millisecond) // some edits land mid-compile
		drain()
	}
	save(t, path, graph(7))
	for _, r := range quiet(w, time.Second) {
		last = r
	}
	if last.Err != nil || multiplier(t, last) != 7 {
		t.Fatalf("the last result is #%d err %v, want the last valid content", last.Seq, last.Err)
	}
	save(t, path, invalid[0])
	r := next(t, w, 5*time.Second)
	if r.Err == nil || r.Kept != last.Seq {
		t.Fatalf("an invalid save: err %v, kept #%d, want #%d", r.Err, r.Kept, last.Seq)
	}
	if !strings.Contains(r.Err.Error(), "g.py:1:") {
		t.Errorf("the error does not point into the file: %v", r.Err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if after := settle(before); after > before {
		buf := make([]byte, 1<<16)
		t.Fatalf("%d goroutines before, %d after Close:\n%s", before, after, buf[:runtime.Stack(buf, true)])
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 1 {
		var names []string
		for _, e := range ents {
			names = append(names, e.Name())
		}
		t.Fatalf("files left in the folder: %v", names)
	}
}

// alive reports whether process pid still runs (a zombie does not).
func alive(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return false
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	_, rest, _ := strings.Cut(string(b), ") ")
	return !strings.HasPrefix(rest, "Z")
}

func readPids(t testing.TB, path string) []int {
	b, _ := os.ReadFile(path)
	var out []int
	for _, f := range strings.Fields(string(b)) {
		p, err := strconv.Atoi(f)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, p)
	}
	return out
}

// --exec turns the watched source into the trace: here sed replaces the
// placeholder K, as an exporter would run model.py.
func TestExec(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "model.src")
	save(t, src, strings.Replace(graph(1), "* 1", "* K", 1)+"# K=2\n")
	cmd := `echo $$ >> pids; k=$(sed -n 's/^# K=//p' model.src); sed "s/\bK\b/$k/" model.src > out.py`
	w, err := New(src, Options{Load: load, Exec: cmd, Trace: filepath.Join(dir, "out.py"), Quiet: 20 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	r := next(t, w, 5*time.Second)
	if m := multiplier(t, r); m != 2 {
		t.Fatalf("after --exec the graph multiplies by %d, want 2", m)
	}
	save(t, src, strings.Replace(graph(1), "* 1", "* K", 1)+"# K=5\n")
	if m := multiplier(t, next(t, w, 5*time.Second)); m != 5 {
		t.Fatalf("after an edit and --exec the graph multiplies by %d, want 5", m)
	}
	// The command fails: its output is in the error, the last good stays.
	save(t, src, "# K=9\n")
	r = next(t, w, 5*time.Second)
	if r.Err == nil || r.Kept != 2 {
		t.Fatalf("a trace without a graph: err %v kept %d", r.Err, r.Kept)
	}
	w.Close()
	for _, pid := range readPids(t, filepath.Join(dir, "pids")) {
		if alive(pid) {
			t.Errorf("--exec process %d still runs", pid)
		}
	}
}

func TestExecFailureAndKill(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "model.src")
	save(t, src, "v1\n")
	// Fails loudly: the output is shown.
	w, err := New(src, Options{Load: load, Exec: "echo exporter says no >&2; exit 3", Quiet: 20 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	r := next(t, w, 5*time.Second)
	if r.Err == nil || !strings.Contains(r.Err.Error(), "exporter says no") || !strings.Contains(r.Err.Error(), "exit status 3") {
		t.Fatalf("a failing --exec: %v", r.Err)
	}
	w.Close()

	// Hangs, with a child in the background: Close kills both.
	before := runtime.NumGoroutine()
	w, err = New(src, Options{Load: load, Exec: "sleep 60 & echo $! > bg; echo $$ > fg; wait", Quiet: 20 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	bg, fg := filepath.Join(dir, "bg"), filepath.Join(dir, "fg")
	for i := 0; i < 200 && (len(readPids(t, bg)) == 0 || len(readPids(t, fg)) == 0); i++ {
		time.Sleep(10 * time.Millisecond)
	}
	pids := append(readPids(t, bg), readPids(t, fg)...)
	if len(pids) != 2 {
		t.Fatalf("the command did not start: %v", pids)
	}
	t0 := time.Now()
	w.Close()
	if d := time.Since(t0); d > 3*time.Second {
		t.Errorf("Close took %s", d)
	}
	for i := 0; i < 100 && (alive(pids[0]) || alive(pids[1])); i++ {
		time.Sleep(10 * time.Millisecond)
	}
	for _, pid := range pids {
		if alive(pid) {
			t.Errorf("process %d outlived Close", pid)
		}
	}
	if after := settle(before); after > before {
		t.Errorf("%d goroutines before, %d after Close", before, after)
	}

	// A timeout kills it too and says so.
	w, err = New(src, Options{Load: load, Exec: "sleep 60", ExecTimeout: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if r := next(t, w, 5*time.Second); r.Err == nil || !strings.Contains(r.Err.Error(), "timed out") {
		t.Fatalf("a hanging --exec: %v", r.Err)
	}
}

func TestNewRefuses(t *testing.T) {
	if _, err := New(filepath.Join(t.TempDir(), "none.py"), Options{Load: load}); err == nil {
		t.Error("a missing file was accepted")
	}
	if _, err := New(t.TempDir(), Options{Load: load}); err == nil {
		t.Error("a folder was accepted")
	}
	if _, err := New("x.py", Options{}); err == nil {
		t.Error("no loader was accepted")
	}
}
