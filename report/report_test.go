package report

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"gcdbg/ir"
	"gcdbg/runner"
	"gcdbg/stages"
	"gcdbg/trace"
)

// build loads a fixture and takes it through the pipeline and the run.
func build(t *testing.T, fixture string) (*trace.Trace, []*stages.Unit, *runner.Result) {
	t.Helper()
	tr, err := trace.Load(filepath.Join("..", "fixtures", fixture))
	if err != nil {
		t.Fatal(err)
	}
	units, err := stages.Run(tr, "")
	if err != nil {
		t.Fatal(err)
	}
	res, err := runner.Run(tr, runner.Options{Runs: 1})
	if err != nil {
		t.Fatal(err)
	}
	return tr, units, res
}

func render(t *testing.T, tr *trace.Trace, units []*stages.Unit, res *runner.Result) string {
	t.Helper()
	page, err := Render(tr, units, res)
	if err != nil {
		t.Fatal(err)
	}
	return string(page)
}

// The page loads nothing: no src= at all, no link to anything but itself.
func checkSelfContained(t *testing.T, page string) {
	t.Helper()
	if !strings.Contains(page, `http-equiv="Content-Security-Policy" content="`+csp+`"`) {
		t.Error("no CSP meta tag")
	}
	if regexp.MustCompile(`(?i)\ssrc\s*=`).MatchString(page) {
		t.Error("the page has a src= attribute: it would load something")
	}
	for _, m := range regexp.MustCompile(`href="([^"]*)"`).FindAllStringSubmatch(page, -1) {
		if !strings.HasPrefix(m[1], "#") {
			t.Errorf("link %q leaves the page", m[1])
		}
	}
	if n := strings.Count(strings.ToLower(page), "<script"); n != 2 {
		t.Errorf("%d <script> tags, want 2 (provenance data, code)", n)
	}
}

func TestReportMLP(t *testing.T) {
	tr, units, res := build(t, "mlp.json")
	page := render(t, tr, units, res)
	checkSelfContained(t, page)

	// Every stage of the table has a column (or a merged column's anchor)
	// and a link in the pipeline strip.
	for _, st := range stages.Table {
		if !strings.Contains(page, fmt.Sprintf(`id="u0-%s"`, st.Name)) {
			t.Errorf("no column for stage %s", st.Name)
		}
		if !strings.Contains(page, fmt.Sprintf(`href="#u0-%s"`, st.Name)) {
			t.Errorf("no pipeline link to stage %s", st.Name)
		}
	}

	// Every node of every graph stage is a clickable span with its id.
	p := newProvenance()
	p.addUnit(0, units[0])
	u := units[0]
	for _, st := range stages.Table {
		if st.Graph == nil || st.Graph(u) == nil {
			continue
		}
		for _, n := range st.Graph(u).Nodes {
			id, ok := p.lookup(0, st.Name, n.Name)
			if !ok {
				t.Fatalf("stage %s node %s has no provenance id", st.Name, n.Name)
			}
			if n.Op == ir.Output {
				continue // printed as "return ...", not by its name
			}
			if want := fmt.Sprintf("g0 %s: %s", st.Name, n.Name); p.label[id] != want {
				t.Errorf("label %q, want %q", p.label[id], want)
			}
			if !strings.Contains(page, fmt.Sprintf(`data-node="%d">%s</span>`, id, n.Name)) {
				t.Errorf("stage %s: node %s is not a linked span", st.Name, n.Name)
			}
		}
	}

	// Every graph stage is drawn, each drawn node clickable.
	total := 0
	for _, st := range stages.Table {
		if st.Graph != nil && st.Graph(u) != nil {
			total += len(st.Graph(u).Nodes)
		}
	}
	if got := strings.Count(page, `<g class="node gn" data-node=`); got != total {
		t.Errorf("%d drawn nodes linked, want %d", got, total)
	}

	// torch.fx's form links uses too, not only definitions: flatten is
	// defined, then passed to the first Linear.
	if id, _ := p.lookup(0, "captured", "flatten"); strings.Count(page, fmt.Sprintf(`data-node="%d">flatten<`, id)) != 2 {
		t.Error("captured flatten is not linked at its definition and its use")
	}

	// Provenance: the second ReLU in the min-cut forward graph goes back,
	// through the joint, decomposed, functional and normalized graphs, to
	// the captured call_module node; and the loop-IR buffer that computes
	// it comes from it.
	fwd, _ := p.lookup(0, "forward", "linear_relu_stack_3")
	cap, _ := p.lookup(0, "captured", "linear_relu_stack_3")
	if !reaches(p, fwd, cap) {
		t.Errorf("forward linear_relu_stack_3 does not lead back to the captured node")
	}
	var buf string
	for _, lp := range u.Programs {
		if lp.Role != "forward" {
			continue
		}
		for _, n := range lp.Loops.Nodes {
			for _, o := range n.Origins {
				if o == "linear_relu_stack_3" {
					buf = n.Name
				}
			}
		}
	}
	bid, ok := p.lookup(0, loopScope("forward"), buf)
	if buf == "" || !ok || !reaches(p, bid, cap) {
		t.Errorf("loop node %q computing linear_relu_stack_3 does not lead back to the captured node", buf)
	}

	// The fusion table has one row per decision, the fused ones marked.
	fused, decisions := 0, 0
	for _, lp := range u.Programs {
		for _, d := range lp.Schedule.Decisions {
			decisions++
			if d.Action == "fuse" {
				fused++
			}
			if d.Reason != "" && !strings.Contains(page, esc(d.Reason)) {
				t.Errorf("refusal reason %q missing", d.Reason)
			}
		}
	}
	if got := strings.Count(page, `<tr class="fuse">`); got != fused || fused == 0 {
		t.Errorf("%d fused rows, want %d", got, fused)
	}
	rows := strings.Count(page, "</tr>\n") // header rows end in "</tr>" + "\n" too
	if rows < decisions {
		t.Errorf("%d table rows for %d decisions", rows, decisions)
	}

	// The run: every output and grad matches PyTorch and the eager
	// reference, so 2 "match" verdicts per row and no mismatch.
	gr := res.Graphs[0]
	want := 2 * (len(gr.Outputs) + len(gr.Grads))
	if got := strings.Count(page, `<span class="ok">✓ `); got != want || len(gr.Grads) == 0 {
		t.Errorf("%d match verdicts, want %d (outputs %d, grads %d)", got, want, len(gr.Outputs), len(gr.Grads))
	}
	if strings.Contains(page, `<span class="bad">✗`) {
		t.Error("a mismatch in a fixture that matches")
	}
	// Each graph stage's column says what it changed (stages.Provenance.Diff).
	if !strings.Contains(page, ">+6 ~6 −0 vs captured</small>") || !strings.Contains(page, ">unchanged vs normalized</small>") {
		t.Error("the normalized and functional columns do not say what they changed")
	}
	// The memory plan's note column is the plan's own (sched.BufferLife.Status):
	// the MLP's transposed weight-gradient GEMM results are not allocated.
	for _, name := range []string{"linear_relu_stack.0.weight", "peak bytes", "gcdbg eager interpreter", "<td>not allocated: the GEMM writes"} {
		if !strings.Contains(page, name) {
			t.Errorf("page lacks %q", name)
		}
	}
}

// reaches reports whether to is an ancestor of from along the From edges.
func reaches(p *provenance, from, to int) bool {
	seen := map[int]bool{}
	stack := []int{from}
	for len(stack) > 0 {
		x := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if x == to {
			return true
		}
		if seen[x] {
			continue
		}
		seen[x] = true
		stack = append(stack, p.from[x]...)
	}
	return false
}

// A node name from the trace is text, never markup, wherever it appears.
func TestHostileNodeName(t *testing.T) {
	tr, err := trace.Load(filepath.Join("..", "fixtures", "mlp.json"))
	if err != nil {
		t.Fatal(err)
	}
	const hostile = `<script>alert(1)</script>`
	g := tr.Graphs[0]
	g.Name = hostile
	tr.Name = hostile
	// The flatten node; args point at nodes, so renaming keeps the graph whole.
	g.Nodes[1].Name = hostile
	units, err := stages.Run(tr, "")
	if err != nil {
		t.Fatal(err)
	}
	res, err := runner.Run(tr, runner.Options{Runs: 1})
	if err != nil {
		t.Fatal(err)
	}
	res.Error = hostile // shown in the banner
	page := render(t, tr, units, res)
	checkSelfContained(t, page)
	if strings.Contains(page, "alert(1)</script>") || strings.Contains(page, "<script>alert") {
		t.Fatal("the hostile name reached the page unescaped")
	}
	if !strings.Contains(page, "&lt;script&gt;alert(1)&lt;/script&gt;") {
		t.Error("the hostile name is not shown escaped")
	}
}

// A unit the pipeline left half-built (a stage failed) still renders:
// each stage that cannot print says so.
func TestPartialUnits(t *testing.T) {
	tr, err := trace.Load(filepath.Join("..", "fixtures", "mlp.json"))
	if err != nil {
		t.Fatal(err)
	}
	units, err := stages.Run(tr, "captured")
	if err != nil {
		t.Fatal(err)
	}
	res := &runner.Result{Trace: tr.Name, Device: "cpu", Error: "graph g0: stage guards: broken on purpose"}
	page := render(t, tr, units, res)
	checkSelfContained(t, page)
	if !strings.Contains(page, "broken on purpose") || !strings.Contains(page, `id="u0-captured"`) {
		t.Error("the error or the captured column is missing")
	}
	if _, err := Render(nil, nil, nil); err == nil {
		t.Error("no error for a nil trace")
	}
	// No units at all is an empty report, not a crash.
	render(t, tr, nil, nil)
}

// A drawing from viz is embedded without its XML prolog; one that
// could run script is dropped.
func TestSVGEmbedding(t *testing.T) {
	old := graphSVG
	defer func() { graphSVG = old }()
	tr, units, res := build(t, "sin_cos.json")
	graphSVG = func(g *ir.Graph, _ map[string]string) (string, error) {
		return `<?xml version="1.0"?><!DOCTYPE svg><svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><text>` + fmt.Sprint(len(g.Nodes)) + `</text></svg>`, nil
	}
	page := render(t, tr, units, res)
	if strings.Contains(page, "<?xml") || !strings.Contains(page, `<details class="svg"><summary>graph drawing`) {
		t.Error("drawing not embedded, or embedded with its prolog")
	}
	for _, bad := range []string{`<svg><script>x()</script></svg>`, `<svg><g onclick="x()"/></svg>`, `<svg><a href="javascript:x()"/></svg>`} {
		graphSVG = func(*ir.Graph, map[string]string) (string, error) { return bad, nil }
		if page := render(t, tr, units, res); strings.Contains(page, "x()") {
			t.Errorf("unsafe drawing %q embedded", bad)
		}
	}
	if _, ok := inlineSVG(`<svg><text>a onion=b</text></svg>`); !ok {
		t.Error("text that merely contains ' on...=' refused")
	}
}

func TestWrite(t *testing.T) {
	tr, units, res := build(t, "sin_cos.json")
	dir := filepath.Join(t.TempDir(), "out")
	if err := Write(tr, units, res, dir); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, "index.html"))
	if err != nil || !strings.HasPrefix(string(b), "<!DOCTYPE html>") {
		t.Fatalf("index.html: %v", err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("%d files written, want only index.html", len(entries))
	}
}
