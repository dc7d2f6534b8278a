package stress

import (
	"strings"
	"testing"

	"gcdbg/runner"
)

// The case: a trace of 100 identical one-op graphs (graph text,
// one `def forward` each) compiled 100 times, about a second each, because
// the cache key held the graph's name. Now one build, 99 cache hits, and
// every graph still agrees with the eager interpreter.
func TestHundredIdenticalGraphsCompileOnce(t *testing.T) {
	if testing.Short() {
		t.Skip("runs 100 graphs")
	}
	t.Setenv("GCDBG_CACHE_DIR", t.TempDir())
	text := strings.Repeat("def forward(self, x: \"f32[64]\"):\n    return (torch.sin(x),)\n\n", 100)
	tr, err := Load(text, "hundred")
	if err != nil {
		t.Fatal(err)
	}
	if len(tr.Graphs) != 100 {
		t.Fatalf("%d graphs, want 100", len(tr.Graphs))
	}
	res, err := runner.Run(tr, runner.Options{Runs: 1, Device: "cpu"})
	if err != nil {
		t.Fatal(err)
	}
	if !res.OK {
		t.Fatalf("verdict: mismatch")
	}
	miss, hit := 0, 0
	hashes := map[string]bool{}
	for _, g := range res.Graphs {
		for _, b := range g.Stages["build"].([]runner.BuildInfo) {
			switch b.Cache {
			case "miss":
				miss++
			case "hit":
				hit++
			}
			hashes[b.Hash] = true
		}
	}
	if miss != 1 || hit != 99 || len(hashes) != 1 {
		t.Fatalf("%d builds, %d cache hits, %d distinct entries; want 1, 99, 1", miss, hit, len(hashes))
	}
}
