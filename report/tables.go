package report

import (
	"encoding/json"
	"fmt"
	"html"
	"sort"
	"strings"

	"gcdbg/runner"
	"gcdbg/stages"
	"gcdbg/verdict"
)

// The tables below the stage columns: the scheduler's decisions, the
// memory plan and the kernels of every compiled program, then the run's
// comparisons and timings. They are built from the data, not the printed
// text, so each cell is one fact.

var esc = html.EscapeString

// nodeSpan is a clickable name: the same span code() writes for names.
func nodeSpan(p *provenance, ui int, scope, name, graph string) string {
	id, ok := p.group(ui, scope, name, graph)
	if !ok {
		return `<span class="code">` + esc(name) + `</span>`
	}
	return fmt.Sprintf(`<span class="gn code" data-node="%d">%s</span>`, id, esc(name))
}

// commas writes n with thousands separators.
func commas(n int64) string {
	s := fmt.Sprint(n)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

// loopTables writes the fusion decisions, kernels and memory plan of
// every compiled program of unit ui.
func loopTables(b *strings.Builder, p *provenance, ui int, u *stages.Unit) {
	g := u.Captured.Name
	for _, lp := range u.Programs {
		if lp.Schedule == nil && lp.Memory == nil {
			continue
		}
		scope := loopScope(lp.Role)
		fmt.Fprintf(b, "<h3>%s graph: fusion, kernels, memory</h3>\n", esc(lp.Role))
		if s := lp.Schedule; s != nil {
			fmt.Fprintf(b, "<p>%d loop nodes before fusion, %d kernels after, in %d rounds:", len(s.Before), len(s.Kernels), len(s.Rounds))
			for i, r := range s.Rounds {
				fmt.Fprintf(b, " round %d: %d groups, %d candidate pairs, %d groups after;", i+1, r.N, r.Candidates, r.After)
			}
			b.WriteString("</p>\n<h4>fusion decisions (best score first within each round)</h4>\n")
			b.WriteString(`<div class="scroll"><table class="t fusion"><tr><th>round</th><th>pair</th><th>action</th><th>category</th><th>bytes saved</th><th>proximity</th><th>score</th><th>reason</th></tr>` + "\n")
			for _, d := range s.Decisions {
				cls := ""
				if d.Action == "fuse" {
					cls = ` class="fuse"`
				}
				fmt.Fprintf(b, `<tr%s><td class="num">%d</td><td>%s + %s</td><td>%s</td><td>%s</td><td class="num">%s</td><td class="num">%d</td><td class="code">%s</td><td>%s</td></tr>`+"\n",
					cls, d.Round, nodeSpan(p, ui, scope, d.A, g), nodeSpan(p, ui, scope, d.B, g), esc(d.Action), esc(d.Category),
					commas(d.BytesSaved), d.Proximity, esc(d.Score.String()), esc(d.Reason))
			}
			b.WriteString("</table></div>\n<h4>kernels</h4>\n")
			b.WriteString(`<table class="t kernels"><tr><th>kernel</th><th>nodes</th><th>kinds</th></tr>` + "\n")
			for _, k := range s.Kernels {
				var names, kinds []string
				for _, n := range k.Nodes {
					names = append(names, nodeSpan(p, ui, scope, n.Name, g))
					kind := string(n.Kind)
					if n.Op != "" {
						kind += " " + n.Op
					}
					kinds = append(kinds, esc(kind))
				}
				fmt.Fprintf(b, "<tr><td>%s</td><td>%s</td><td>%s</td></tr>\n", nodeSpan(p, ui, scope, k.Name, g), strings.Join(names, ", "), strings.Join(kinds, ", "))
			}
			b.WriteString("</table>\n")
		}
		if m := lp.Memory; m != nil {
			b.WriteString("<h4>memory plan</h4>\n")
			fmt.Fprintf(b, "<p>peak bytes: %s unfused (one kernel per node), %s fused before planning, %s after; allocations %d before planning, %d after (%d kernels)</p>\n",
				commas(m.PeakUnfused), commas(m.PeakBefore), commas(m.PeakAfter), m.AllocsBefore, m.AllocsAfter, m.Kernels)
			b.WriteString(`<div class="scroll"><table class="t memory"><tr><th>buffer</th><th>kind</th><th>bytes</th><th>live (kernels)</th><th>storage</th><th>note</th></tr>` + "\n")
			for _, bl := range m.Buffers {
				live, storage := "-", "-"
				if bl.Materialized {
					live = fmt.Sprintf("%d..%d", bl.First, bl.Last)
					storage = nodeSpan(p, ui, scope, bl.Storage, g)
				}
				note := esc(bl.Status())
				fmt.Fprintf(b, `<tr><td>%s</td><td>%s</td><td class="num">%s</td><td class="num">%s</td><td>%s</td><td>%s</td></tr>`+"\n",
					nodeSpan(p, ui, scope, bl.Name, g), esc(string(bl.Kind)), commas(bl.Bytes), live, storage, note)
			}
			b.WriteString("</table></div>\n")
		}
	}
}

// judgement writes one comparison's cells: max abs, max rel, and the
// verdict with the numbers that decided it (package verdict's words).
func judgement(c *verdict.Judgement) string {
	if c == nil {
		return `<td colspan="3">no reference in this trace: not compared</td>`
	}
	cls := "ok"
	if !c.Match {
		cls = "bad"
	}
	return fmt.Sprintf(`<td class="num">%.3g</td><td class="num">%.3g</td><td><span class="%s">%s</span><div class="why">%s</div></td>`,
		c.MaxAbsErr, c.MaxRelErr, cls, esc(c.Short()), esc(c.Detail()))
}

// runTables writes one graph's run: every output and grad against
// PyTorch and against gcdbg's eager reference, then timings and stats.
func runTables(b *strings.Builder, gr *runner.GraphResult) {
	b.WriteString("<h3>run: the pipeline's numbers against PyTorch and gcdbg's eager reference</h3>\n")
	b.WriteString(`<table class="t run"><tr><th rowspan="2">value</th><th colspan="3">vs PyTorch (expected)</th><th colspan="3">vs gcdbg eager</th></tr>` +
		`<tr><th>max abs err</th><th>max rel err</th><th></th><th>max abs err</th><th>max rel err</th><th></th></tr>` + "\n")
	for _, o := range gr.Outputs {
		fmt.Fprintf(b, "<tr><td>output %d %s%s</td>%s%s</tr>\n", o.Index, esc(o.DType), esc(fmt.Sprint(o.Shape)), judgement(o.VsExpected), judgement(o.VsEager))
	}
	for _, g := range gr.Grads {
		fmt.Fprintf(b, `<tr><td>grad of <span class="code">%s</span></td>%s%s</tr>`+"\n", esc(g.Name), judgement(g.VsExpected), judgement(g.VsEager))
	}
	for _, bf := range gr.Buffers {
		fmt.Fprintf(b, `<tr><td>buffer <span class="code">%s</span> after the run</td>%s%s</tr>`+"\n", esc(bf.Name), judgement(bf.VsExpected), judgement(bf.VsEager))
	}
	b.WriteString("</table>\n")
	fmt.Fprintf(b, "<p>%s</p>\n", esc(gr.Verdict))
	if gr.FirstDifference != "" {
		fmt.Fprintf(b, "<p class=\"bad\">where to look: %s</p>\n", esc(gr.FirstDifference))
	}
	if gr.NotComparedWithPyTorch != "" {
		fmt.Fprintf(b, "<p>vs PyTorch: %s</p>\n", esc(gr.NotComparedWithPyTorch))
	}
	t := gr.Timing
	b.WriteString(`<h4>timing (medians)</h4><table class="t timing"><tr><th>what</th><th>ms</th></tr>` + "\n")
	fmt.Fprintf(b, `<tr><td>gcdbg eager interpreter (%s, %d runs)%s</td><td class="num">%.3f</td></tr>`+"\n", esc(t.Covers), t.Runs, esc(t.EagerNote()), t.EagerMS)
	if t.CompiledMS > 0 {
		fmt.Fprintf(b, `<tr><td>compiled</td><td class="num">%.3f</td></tr>`+"\n", t.CompiledMS)
	}
	if t.ProducerEagerMS > 0 {
		fmt.Fprintf(b, `<tr><td>PyTorch eager, recorded by the producer</td><td class="num">%.3f</td></tr>`+"\n", t.ProducerEagerMS)
	}
	b.WriteString("</table>\n")
	if len(gr.Stages) > 0 {
		keys := make([]string, 0, len(gr.Stages))
		for k := range gr.Stages {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		b.WriteString(`<h4>stage statistics</h4><table class="t stats"><tr><th>stat</th><th>value</th></tr>` + "\n")
		for _, k := range keys {
			fmt.Fprintf(b, "<tr><td>%s</td><td class=\"code\">%s</td></tr>\n", esc(k), esc(jsonText(gr.Stages[k])))
		}
		b.WriteString("</table>\n")
	}
	if len(gr.Kernels) > 0 {
		b.WriteString(`<h4>kernels run</h4><table class="t"><tr><th>#</th><th>kernel</th></tr>` + "\n")
		for i, k := range gr.Kernels {
			fmt.Fprintf(b, "<tr><td class=\"num\">%d</td><td class=\"code\">%s</td></tr>\n", i, esc(jsonText(k)))
		}
		b.WriteString("</table>\n")
	}
	if len(gr.Fallback) > 0 {
		fmt.Fprintf(b, "<p>eager fallbacks: <span class=\"code\">%s</span></p>\n", esc(strings.Join(gr.Fallback, ", ")))
	}
}

func jsonText(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}
