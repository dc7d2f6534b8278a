package conformance

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// The edge-shape suite: a fixed, committed list of OpInfo samples
// (testdata/ci_samples.txt), grouped by the edge they exercise. Each group
// is a test of its own; the samples are exported by real PyTorch in the
// test (skipped only where /usr/bin/python3 has no torch) and judged like
// `make conformance` does: eager, then compiled, against PyTorch. Every
// sample of the list must pass (the list holds only samples that do: a
// failure is a regression), and none may panic.
func TestEdgeShapes(t *testing.T) {
	list := "testdata/ci_samples.txt"
	if l := os.Getenv("GCDBG_CONFORMANCE_LIST"); l != "" {
		list = l // another list, e.g. to see a failing sample fail
	}
	groups, err := readGroups(list)
	if err != nil {
		t.Fatal(err)
	}
	py := pythonWithTorch(t)
	dir := t.TempDir()
	var ids []string
	for _, g := range groups {
		ids = append(ids, g.ids...)
	}
	idFile := filepath.Join(dir, "ids.txt")
	if err := os.WriteFile(idFile, []byte(strings.Join(ids, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	exp := exec.Command(py, "export_opinfo.py", "-o", dir, "--ids", idFile)
	if out, err := exp.CombinedOutput(); err != nil {
		t.Fatalf("export_opinfo.py: %v\n%s", err, out)
	}
	samples, err := ReadManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	byID := map[string]Sample{}
	for _, s := range samples {
		byID[s.ID] = s
	}
	bin := filepath.Join(dir, "gcdbg")
	build := exec.Command("go", "build", "-o", bin, "gcdbg/cmd/gcdbg")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	t.Setenv("GCDBG_CACHE_DIR", filepath.Join(dir, "cache"))
	// Judge everything two at a time, then report per group.
	// (two `gcdbg __judge` processes, as make conformance judges)
	outs := map[string]Outcome{}
	var mu sync.Mutex
	var wg sync.WaitGroup
	pool := make(chan *Batch, 2)
	for i := 0; i < cap(pool); i++ {
		b := &Batch{Bin: bin}
		defer b.Close()
		pool <- b
	}
	for _, id := range ids {
		s, ok := byID[id]
		if !ok {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			b := <-pool
			o := JudgeBy(b, dir, s, 120*time.Second)
			pool <- b
			mu.Lock()
			outs[s.ID] = o
			mu.Unlock()
		}()
	}
	wg.Wait()
	// A run in the batch process is the run of `gcdbg run` itself: the
	// first samples of each group judged again one process per run agree.
	t.Run("batch_is_gcdbg_run", func(t *testing.T) {
		for _, g := range groups {
			s, ok := byID[g.ids[0]]
			if !ok {
				continue
			}
			if o := Judge(bin, dir, s, 120*time.Second); o != outs[s.ID] {
				t.Errorf("%s: one process per run %+v, the batch process %+v", s.ID, o, outs[s.ID])
			}
		}
	})
	for _, g := range groups {
		t.Run(g.name, func(t *testing.T) {
			for _, id := range g.ids {
				o, ok := outs[id]
				if !ok {
					t.Errorf("%s: PyTorch's op_db no longer makes this sample (renumbered?); pick another", id)
					continue
				}
				if o.Status != Pass {
					t.Errorf("%s (%s): %s at %s: %s", id, o.Desc, o.Status, o.Stage, o.Reason)
				}
			}
		})
	}
}

type group struct {
	name string
	ids  []string
}

// readGroups reads the CI list: "## name" starts a group, then sample ids.
func readGroups(path string) ([]group, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var gs []group
	for i, ln := range strings.Split(string(data), "\n") {
		ln = strings.TrimSpace(ln)
		switch {
		case strings.HasPrefix(ln, "## "):
			gs = append(gs, group{name: strings.TrimSpace(ln[3:])})
		case ln == "" || strings.HasPrefix(ln, "#"):
		default:
			if len(gs) == 0 {
				return nil, fmt.Errorf("%s:%d: sample id before the first ## group", path, i+1)
			}
			if j := strings.IndexByte(ln, ' '); j >= 0 {
				ln = ln[:j] // "id  # comment"
			}
			gs[len(gs)-1].ids = append(gs[len(gs)-1].ids, ln)
		}
	}
	return gs, nil
}

// pythonWithTorch is the interpreter that exports samples (GCDBG_PYTHON,
// default /usr/bin/python3); the test is skipped when it has no torch.
func pythonWithTorch(t *testing.T) string {
	py := os.Getenv("GCDBG_PYTHON")
	if py == "" {
		py = "/usr/bin/python3"
	}
	if err := exec.Command(py, "-c", "import torch").Run(); err != nil {
		t.Skipf("%s has no torch (install python3-torch): %v", py, err)
	}
	return py
}

// Every group of the CI list is one of the edges issue 20 names, and every
// id is well-formed (OPINFO/DTYPE/INDEX) and listed once.
func TestCISampleList(t *testing.T) {
	groups, err := readGroups("testdata/ci_samples.txt")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"zero_d", "zero_element", "broadcasting", "negative_dim_keepdim", "noncontiguous_expanded",
		"int_bool_promotion", "several_results", "plain"}
	have := map[string]int{}
	seen := map[string]bool{}
	for _, g := range groups {
		have[g.name] = len(g.ids)
		for _, id := range g.ids {
			parts := strings.Split(id, "/")
			if len(parts) != 3 || parts[0] == "" || parts[1] == "" || strings.Trim(parts[2], "0123456789") != "" {
				t.Errorf("%s: malformed sample id", id)
			}
			if seen[id] {
				t.Errorf("%s listed twice", id)
			}
			seen[id] = true
		}
	}
	for _, w := range want {
		if have[w] == 0 {
			t.Errorf("group %q is missing or empty", w)
		}
	}
}

func TestClassify(t *testing.T) {
	okJSON := `{"ok": true, "graphs": [{"name": "g0", "outputs": [{"index": 0, "vs_expected": {"match": true}}]}]}`
	badJSON := `{"ok": false, "graphs": [{"name": "g0", "outputs": [{"index": 0, "vs_expected": {"match": false, "max_abs_err": 0.5, "why": "rmse 3 > 2"}}],
		"grads": [{"name": "t0", "vs_eager": {"match": false, "max_abs_err": 1}}]}]}`
	cases := []struct {
		rc             int
		stdout, stderr string
		want           Status
		reason         string
	}{
		{0, okJSON, "", Pass, ""},
		{0, `{"ok": true, "graphs": []}`, "", Error, "no graph"},
		{1, badJSON, "", Wrong, "output 0 vs PyTorch: max abs err 0.5 (rmse 3 > 2); grad of t0 vs eager"},
		{0, `{"ok": false}`, "", Error, "disagrees"},
		{2, `{"ok": false, "error": "x.json: stage normalized: graph \"g0\": node \"a\": target: unsupported function \"torch.foo\"", "graphs": []}`,
			"gcdbg run: ...", Refused, "unsupported function"},
		{2, `{"ok": false, "error": "x.json: stage forward: min-cut partition: needed but neither an input", "graphs": []}`, "", Error, "min-cut"},
		{2, `{"ok": false, "error": "x.json: stage joint: internal error (a gcdbg bug) in stage joint, graph \"g0\", node \"amax\": panic: index out of range"}`,
			"gcdbg run: x.json: stage joint: internal error (a gcdbg bug) in stage joint", Panic, "internal error"},
		{2, "", "panic: runtime error: index out of range [0] with length 0\n\ngoroutine 1 [running]:\n", Panic, "index out of range"},
		{1, "not json", "", Error, "readable"},
		{3, "", "killed", Error, "exit status 3"},
	}
	for i, c := range cases {
		st, why := Classify(c.rc, []byte(c.stdout), []byte(c.stderr))
		if st != c.want || !strings.Contains(why, c.reason) {
			t.Errorf("case %d: got %s %q, want %s containing %q", i, st, why, c.want, c.reason)
		}
	}
}

func TestReadManifestRejectsBadLines(t *testing.T) {
	for _, line := range []string{
		`{"id": "a/float32/0", "opinfo": "a", "trace": "../../etc/passwd"}`,
		`{"id": "a/float32/0", "opinfo": "a"}`,
		`{"opinfo": "a", "trace": "a.json"}`,
		`not json`,
	} {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "manifest.jsonl"), []byte(line+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := ReadManifest(dir); err == nil {
			t.Errorf("ReadManifest accepted %s", line)
		}
	}
	dir := t.TempDir()
	two := `{"id": "a/float32/0", "opinfo": "a", "trace": "a.json"}` + "\n"
	os.WriteFile(filepath.Join(dir, "manifest-1-of-2.jsonl"), []byte(two), 0o644)
	os.WriteFile(filepath.Join(dir, "manifest-2-of-2.jsonl"), []byte(two), 0o644)
	if _, err := ReadManifest(dir); err == nil || !strings.Contains(err.Error(), "twice") {
		t.Errorf("a sample in two shards: %v", err)
	}
}

func TestRegressionsAndTable(t *testing.T) {
	outs := []Outcome{
		{ID: "cos/float32/0", OpInfo: "cos", DType: "float32", Status: Pass},
		{ID: "cos/float32/1", OpInfo: "cos", DType: "float32", Status: Error, Stage: "compiled", Reason: "t.json: stage forward: boom 12"},
		{ID: "x|y/float32/0", OpInfo: "x|y<script>", DType: "float32", Status: Refused, Stage: "export", Reason: "a\nb|c"},
	}
	reg := Regressions(outs, []string{"cos/float32/0", "cos/float32/1", "cos/float32/9", "sin/float32/0", "cos/int64/0"})
	if len(reg) != 2 || !strings.HasPrefix(reg[0], "cos/float32/1: error") || !strings.Contains(reg[1], "cos/float32/9 (no longer exported)") {
		t.Errorf("regressions %q", reg)
	}
	var b bytes.Buffer
	if err := WriteMarkdown(&b, RunInfo{Torch: "1.13", DTypes: []string{"float32"}}, outs); err != nil {
		t.Fatal(err)
	}
	md := b.String()
	for _, want := range []string{"| 3 | 1 (33.3%) | 0 | 0 | 1 | 1 (1 / 0 / 0) | 2 |", "| cos | 2 | 1 | 0 | 0 | 0 | 1 |", `x\|y&lt;script&gt;`, "a b\\|c"} {
		if !strings.Contains(md, want) {
			t.Errorf("table lacks %q:\n%s", want, md)
		}
	}
	if strings.Contains(md, "<script>") {
		t.Error("table holds raw HTML from a name")
	}
}

func TestCoverageInTable(t *testing.T) {
	cov := ParseCoverage("core ATen op (PyTorch 2.6)  overloads  status        gcdbg op   how / why\n" +
		"_pdist_forward                       default                      out of scope                               F.pdist is not modeled\n" +
		"abs                                  default                      supported     aten.abs                     core op, compiled\n")
	if len(cov) != 1 || cov["_pdist_forward"] != "F.pdist is not modeled" {
		t.Fatalf("coverage %q", cov)
	}
	cov["max_pool3d"] = "3-D pools are not modeled"
	var b bytes.Buffer
	outs := []Outcome{{ID: "nn.functional.max_pool3d/float32/0", OpInfo: "nn.functional.max_pool3d", Status: Refused, Reason: "unsupported function"}}
	if err := WriteMarkdown(&b, RunInfo{OutOfScope: cov}, outs); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "out of scope (`gcdbg ops --coverage`): 3-D pools are not modeled") {
		t.Errorf("table:\n%s", b.String())
	}
}
