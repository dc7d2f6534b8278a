// Package report writes `gcdbg report`: one self-contained HTML page
// (inline CSS, script and SVG; a CSP that forbids any network) showing
// every stage of every graph side by side, GOSSAFUNC ssa.html style:
// one column per stage, stages that changed nothing merged into one
// column, and a click on a node name colouring where it came from and what
// it became in every stage. Below the columns: the scheduler's fusion
// decisions, the kernels, the memory plan, and the run's comparisons with
// PyTorch and timings.
package report

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"

	"gcdbg/outfile"
	"gcdbg/runner"
	"gcdbg/stages"
	"gcdbg/trace"
)

// Write renders the report and writes it to dir/index.html, creating dir.
// units are stages.Run's (possibly partial, after a stage failed); res may
// be nil (no run) and its Error, if any, is shown at the top.
func Write(tr *trace.Trace, units []*stages.Unit, res *runner.Result, dir string) error {
	page, err := Render(tr, units, res)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("report: %w", err)
	}
	// Never through a symbolic link planted in dir (package outfile).
	if err := outfile.WriteFile(dir, "index.html", page, 0o644); err != nil {
		return fmt.Errorf("report: %w", err)
	}
	return nil
}

// Render returns the page.
func Render(tr *trace.Trace, units []*stages.Unit, res *runner.Result) ([]byte, error) {
	if tr == nil {
		return nil, errors.New("report: no trace")
	}
	p := newProvenance()
	for i, u := range units {
		if u != nil && u.Captured != nil {
			p.addUnit(i, u)
		}
	}
	var body strings.Builder
	for i, u := range units {
		if u == nil || u.Captured == nil {
			continue
		}
		graphSection(&body, p, i, u, graphResult(res, i, u.Captured.Name))
	}

	var b strings.Builder
	title := "gcdbg report: " + tr.Name
	fmt.Fprintf(&b, `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="%s">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>%s</title>
<style>%s
%s</style></head>
<body>
`, csp, esc(title), pageCSS, chromaCSS())
	header(&b, tr, units, res)
	b.WriteString(body.String())
	edges, err := json.Marshal(p.data())
	if err != nil {
		return nil, fmt.Errorf("report: provenance: %w", err)
	}
	// json.Marshal escapes <, > and &, so no "</script>" can end this early.
	fmt.Fprintf(&b, "<script type=\"application/json\" id=\"gc-prov\">%s</script>\n<script>%s</script>\n</body></html>\n", edges, pageJS)
	return []byte(b.String()), nil
}

// graphResult finds the run's result for unit i (by position, checked by name).
func graphResult(res *runner.Result, i int, name string) *runner.GraphResult {
	if res == nil || i >= len(res.Graphs) || res.Graphs[i].Name != name {
		return nil
	}
	return &res.Graphs[i]
}

func header(b *strings.Builder, tr *trace.Trace, units []*stages.Unit, res *runner.Result) {
	fmt.Fprintf(b, "<header><h1>gcdbg report: %s</h1>\n", esc(tr.Name))
	if tr.Path != "" {
		fmt.Fprintf(b, "<p>trace <code>%s</code></p>\n", esc(tr.Path))
	}
	if res != nil {
		v := `<span class="ok">every output, gradient and buffer matches</span> (` + esc(res.Coverage()) + `)`
		if !res.OK || res.Error != "" {
			v = `<span class="bad">` + esc(res.Summary()) + `</span> (` + esc(res.Coverage()) + `)`
			if res.Error != "" {
				v = `<span class="bad">error</span>`
			}
		}
		fmt.Fprintf(b, "<p>device %s, %d graph(s): %s</p>\n", esc(res.Device), len(units), v)
	} else {
		fmt.Fprintf(b, "<p>%d graph(s), not run</p>\n", len(units))
	}
	b.WriteString("</header>\n")
	if res != nil && res.Error != "" {
		fmt.Fprintf(b, "<div class=\"banner\">%s</div>\n", esc(res.Error))
	}
	b.WriteString("<nav>")
	for i, u := range units {
		if u == nil || u.Captured == nil {
			continue
		}
		fmt.Fprintf(b, `<a href="#u%d">graph %s</a>`, i, esc(u.Captured.Name))
	}
	b.WriteString(`<span class="help">Click a node name to colour it, what it came from and what it became in every stage (up to 8 at once; click again to clear). Click a column title to fold or open it.</span></nav>` + "\n")
}

// column is one stage column; consecutive stages with the same text share one.
type column struct {
	names []string
	nodes int    // -1 when the stage has no graph
	diff  string // what the stage changed against its provenance parent ("" none)
	html  string
}

func graphSection(b *strings.Builder, p *provenance, ui int, u *stages.Unit, gr *runner.GraphResult) {
	g := u.Captured
	fmt.Fprintf(b, "<section class=\"graph\" id=\"u%d\"><h2>graph %s</h2>\n", ui, esc(g.Name))
	if g.Break != nil {
		fmt.Fprintf(b, "<p>graph break after this graph: %s</p>\n", esc(g.Break.Reason))
	}
	var cols []*column
	last := ""
	for si, st := range stages.Table {
		text, ok := printStage(st, u)
		nodes := -1
		if st.Graph != nil {
			if gg := st.Graph(u); gg != nil {
				nodes = len(gg.Nodes)
			}
		}
		// GOSSAFUNC merges passes that changed nothing into one column.
		if ok && len(cols) > 0 && text == last {
			c := cols[len(cols)-1]
			c.names = append(c.names, st.Name)
			continue
		}
		last = text
		diff := ""
		if d := p.units[ui].sp.Diff(si); d != nil {
			diff = fmt.Sprintf("+%d ~%d −%d vs %s", len(d.Added), len(d.Changed), len(d.Removed), stages.Table[d.Against].Name)
			if d.Unchanged() {
				diff = "unchanged vs " + stages.Table[d.Against].Name
			}
		}
		cols = append(cols, &column{names: []string{st.Name}, nodes: nodes, diff: diff, html: stageBody(p, ui, u, si, text, ok)})
	}
	b.WriteString(`<div class="pipeline">`)
	for _, c := range cols {
		for _, name := range c.names {
			count := ""
			if c.nodes >= 0 {
				count = fmt.Sprintf(" <small>%d nodes</small>", c.nodes)
			}
			fmt.Fprintf(b, `<a href="#u%d-%s">%s%s</a>`, ui, esc(name), esc(name), count)
		}
	}
	b.WriteString("</div>\n<div class=\"cols\">\n")
	for _, c := range cols {
		open := false
		for _, n := range c.names {
			st, _ := stages.Lookup(n)
			open = open || st.Open
		}
		cls := "col"
		if !open {
			cls += " collapsed"
		}
		fmt.Fprintf(b, `<div class="%s" id="u%d-%s">`, cls, ui, esc(c.names[0]))
		for _, n := range c.names[1:] {
			fmt.Fprintf(b, `<span id="u%d-%s"></span>`, ui, esc(n))
		}
		title := esc(strings.Join(c.names, " + "))
		if c.nodes >= 0 {
			title += fmt.Sprintf(" <small>(%d nodes)</small>", c.nodes)
		}
		if c.diff != "" {
			title += fmt.Sprintf(` <small class="diff" title="nodes added, changed and removed against the stage its nodes came from">%s</small>`, esc(c.diff))
		}
		fmt.Fprintf(b, "<div class=\"col-head\">%s</div><div class=\"col-body\">%s</div></div>\n", title, c.html)
	}
	b.WriteString("</div>\n")
	loopTables(b, p, ui, u)
	if gr != nil {
		runTables(b, gr)
	}
	b.WriteString("</section>\n")
}

// printStage prints one stage, turning a printer's panic on a unit the
// pipeline left half-built (a stage failed) into a message.
func printStage(st stages.Stage, u *stages.Unit) (text string, ok bool) {
	text, err := stages.PrintStage(st, u)
	if err != nil {
		return err.Error(), false
	}
	return text, true
}

// stageBody is a column's content: the stage's one-line explanation, its
// drawing (graph stages), and its highlighted text with linked names.
func stageBody(p *provenance, ui int, u *stages.Unit, si int, text string, ok bool) string {
	st := stages.Table[si]
	var b strings.Builder
	fmt.Fprintf(&b, "<p class=\"explain\">%s</p>\n", esc(st.Explain))
	if !ok {
		fmt.Fprintf(&b, "<p class=\"bad\">%s</p>\n", esc(text))
		return b.String()
	}
	var lk linker
	lang := st.Lang
	sp := p.units[ui].sp
	switch {
	case sp.Graph(si) != nil:
		g := sp.Graph(si)
		gl := graphLinker{p: p, unit: ui, stage: st.Name}
		lk = gl
		if svg, err := graphSVG(g, sp.Kernels(u, si)); err != nil {
			fmt.Fprintf(&b, "<p class=\"bad\">drawing failed: %s</p>\n", esc(err.Error()))
		} else if s, ok := inlineSVG(svg); ok {
			s = linkSVG(s, g, gl)
			fmt.Fprintf(&b, "<details class=\"svg\"><summary>graph drawing (%d nodes)</summary><div>%s</div></details>\n", len(g.Nodes), s)
		}
	case st.Loop:
		ll := &loopLinker{p: p, unit: ui, graph: u.Captured.Name}
		if len(u.Programs) == 1 {
			ll.role = u.Programs[0].Role
		}
		lk = ll
	}
	b.WriteString(code(text, lang, lk))
	return b.String()
}
