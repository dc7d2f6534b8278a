package report

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"gcdbg/ir"
	"gcdbg/stages"
)

// The report is opened in a real browser (Debian's chromium, headless):
// the dumped DOM proves the script ran (body data-ready="1", tooltips set,
// a selection given in the URL coloured along its provenance in several
// stages) and a screenshot proves the page draws something.

func chromiumPath(t *testing.T) string {
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Skip("chromium is not installed (apt-get install -y chromium): the report is not checked in a browser")
	return ""
}

// chromium runs the headless browser with no network, profile or updates.
func chromium(t *testing.T, bin string, args ...string) []byte {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	base := []string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--user-data-dir=" + t.TempDir()}
	cmd := exec.CommandContext(ctx, bin, append(base, args...)...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("chromium %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	return stdout.Bytes()
}

func TestChromiumRendersReport(t *testing.T) {
	bin := chromiumPath(t)
	tr, units, res := build(t, "transformer_block.json")
	dir := t.TempDir()
	if err := Write(tr, units, res, dir); err != nil {
		t.Fatal(err)
	}
	// Select the node the forward graph returns first (the block's
	// output) in the URL; the script colours it and everything it came
	// from, back to the captured graph.
	p := newProvenance()
	p.addUnit(0, units[0])
	out, ok := units[0].Partition.Forward.Outputs()[0].(*ir.Node)
	if !ok {
		t.Fatal("the forward graph's first output is not a node")
	}
	sel, ok := p.lookup(0, "forward", out.Name)
	if !ok {
		t.Fatal("no id for the forward graph's output")
	}
	url := fmt.Sprintf("file://%s#sel=%d", filepath.Join(dir, "index.html"), sel)

	dom := string(chromium(t, bin, "--dump-dom", url))
	if !regexp.MustCompile(`<body[^>]*data-ready="1"`).MatchString(dom) {
		t.Fatalf("the page's script did not run (no data-ready on body); DOM starts %.300q", dom)
	}
	for _, st := range stages.Table {
		if !strings.Contains(dom, fmt.Sprintf(`id="u0-%s"`, st.Name)) {
			t.Errorf("rendered DOM lacks stage %s", st.Name)
		}
	}
	if !strings.Contains(dom, `title="g0 decomposed: `) {
		t.Error("the script did not set the tooltips")
	}
	// Coloured spans, by stage: the selection reaches back to the capture.
	coloured := map[string]bool{}
	for _, m := range regexp.MustCompile(`<span class="gn[^"]* pv pv0[^"]*" data-node="(\d+)" title="g0 ([a-z ]+):`).FindAllStringSubmatch(dom, -1) {
		coloured[m[2]] = true
	}
	for _, st := range []string{"forward", "joint", "decomposed", "normalized", "captured"} {
		if !coloured[st] {
			t.Errorf("selection not coloured in stage %s (coloured: %v)", st, coloured)
		}
	}
	if !strings.Contains(dom, "pvself") {
		t.Error("the selected node itself is not marked")
	}
	// The drawings' nodes are coloured too (graph stages are drawn by
	// viz, one <g> per node).
	if n := len(regexp.MustCompile(`<g class="node gn pv pv0[^"]*" data-node`).FindAllString(dom, -1)); n < 5 {
		t.Errorf("%d drawn nodes coloured, want one per graph stage at least", n)
	}

	png := filepath.Join(t.TempDir(), "report.png")
	chromium(t, bin, "--screenshot="+png, "--window-size=1400,1000", url)
	b, err := os.ReadFile(png)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(b, []byte("\x89PNG")) || len(b) < 10<<10 {
		t.Errorf("screenshot is %d bytes (want a PNG over 10 KB)", len(b))
	}
	if keep := os.Getenv("GCDBG_REPORT_SCREENSHOT"); keep != "" {
		_ = os.WriteFile(keep, b, 0o644)
	}
}
