package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	xansi "github.com/charmbracelet/x/ansi"

	"gcdbg/ir"
	"gcdbg/stages"
	"gcdbg/trace"
	"gcdbg/tui"
)

// toyGraph is a toy stage's artifact: the decomposed graph with every
// node renamed "toy_NAME", each coming from the node it copies.
func toyGraph(u *stages.Unit) *ir.Graph {
	if u.Decomposed == nil {
		return nil
	}
	g := &ir.Graph{Name: u.Decomposed.Name, Tensors: u.Decomposed.Tensors}
	for _, n := range u.Decomposed.Nodes {
		c := *n
		if n.Op != ir.Output {
			c.Name = "toy_" + n.Name
		}
		c.From = []string{n.Name}
		g.Nodes = append(g.Nodes, &c)
	}
	return g
}

// withToyStage registers the toy stage for the test: one row of the table,
// nothing else anywhere.
func withToyStage(t *testing.T) {
	old := stages.Table
	stages.Table = append(append([]stages.Stage(nil), old...), stages.Stage{
		Name: "toy", Explain: "A toy stage registered by a test: the decomposed graph, renamed.",
		Teach: "Toy stages teach nothing but that a stage is one row.",
		Print: func(u *stages.Unit) string { return "# the toy stage\n" + ir.Readable(toyGraph(u)) },
		Graph: toyGraph, Parent: "decomposed", Lang: "python", Open: true,
	})
	t.Cleanup(func() { stages.Table = old })
}

// Adding a stage is one row: a toy stage registered by this test (no
// other change anywhere) is listed by `gcdbg stages`, printed by `gcdbg
// dump`, a column of the report, a stage of the explorer with provenance
// back to the decomposed graph, and part of watch mode's diff.
func TestToyStageReachesEveryView(t *testing.T) {
	withToyStage(t)
	fixture := filepath.Join("..", "..", "fixtures", "mlp.json")

	var out, errOut bytes.Buffer
	if c := mainArgs([]string{"stages"}, &out, &errOut); c != 0 || !strings.Contains(out.String(), "toy") {
		t.Errorf("gcdbg stages: exit %d, no toy:\n%s", c, out.String())
	}
	out.Reset()
	if c := mainArgs([]string{"dump", fixture, "--stage", "toy"}, &out, &errOut); c != 0 ||
		!strings.Contains(out.String(), "# the toy stage") || !strings.Contains(out.String(), "toy_linear_relu_stack_1") {
		t.Errorf("gcdbg dump --stage toy: exit %d:\n%s%s", c, out.String(), errOut.String())
	}

	dir := t.TempDir()
	out.Reset()
	if c := mainArgs([]string{"report", fixture, "-o", dir, "--runs", "1"}, &out, &errOut); c != 0 {
		t.Fatalf("gcdbg report: exit %d: %s", c, errOut.String())
	}
	page, err := os.ReadFile(filepath.Join(dir, "index.html"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(page, []byte(`id="u0-toy"`)) || !bytes.Contains(page, []byte(">toy_linear_relu_stack_1</span>")) ||
		!bytes.Contains(page, []byte("A toy stage registered by a test")) {
		t.Error("the report has no toy column with linked nodes")
	}

	// The explorer: the toy stage is in the stage list, and the first
	// ReLU selected in the captured graph leads to its toy copy.
	tr, err := trace.Load(fixture)
	if err != nil {
		t.Fatal(err)
	}
	var m tea.Model = tui.New(tr, tui.Options{Runs: 1})
	m, _ = m.Update(tea.WindowSizeMsg{Width: 160, Height: 50})
	m, _ = m.Update(m.Init()())
	press := func(k string) {
		for _, r := range k {
			m, _ = m.Update(tea.KeyPressMsg{Code: r, Text: string(r)})
		}
	}
	m, _ = m.Update(tea.KeyPressMsg{Code: 'g', Text: "g"})
	press("linear_relu_stack_1")
	m, _ = m.Update(tea.KeyPressMsg{Code: tea.KeyEnter})
	m, _ = m.Update(tea.KeyPressMsg{Code: tea.KeyTab})
	for i := 0; i < len(stages.Table); i++ {
		press("]")
	}
	screen := xansi.Strip(m.View().Content)
	if !regexp.MustCompile(`● toy +\d+ ◂2`).MatchString(screen) || !strings.Contains(screen, "▶     toy_linear_relu_stack_1: ") {
		t.Errorf("the explorer does not follow the ReLU into the toy stage:\n%s", screen)
	}

	// Watch mode: an edit shows in the toy stage's diff.
	path := filepath.Join(t.TempDir(), "g.py")
	write := func(s string) {
		if err := os.WriteFile(path+".tmp", []byte(s), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(path+".tmp", path); err != nil {
			t.Fatal(err)
		}
	}
	write("def forward(self, x: \"f32[4, 8]\"):\n    return (torch.relu(x),)\n")
	var wout, werr lockedBuffer
	code := make(chan int, 1)
	go func() { code <- mainArgs([]string{"watch", path, "--count", "2"}, &wout, &werr) }()
	for i := 0; i < 500 && len(wout.lines()) < 1; i++ {
		time.Sleep(20 * time.Millisecond)
	}
	write("def forward(self, x: \"f32[4, 8]\"):\n    return (torch.relu(x) * 2,)\n")
	select {
	case c := <-code:
		if c != 0 {
			t.Fatalf("watch: exit %d: %s", c, werr.b.String())
		}
	case <-time.After(20 * time.Second):
		t.Fatal("gcdbg watch --count 2 did not stop")
	}
	if l := wout.lines(); len(l) != 2 || !strings.Contains(l[1], "toy +1 -0 ~1") {
		t.Errorf("watch lines %q lack the toy stage's change", l)
	}
}
