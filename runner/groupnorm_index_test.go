package runner

import (
	"regexp"
	"strings"
	"testing"
)

// GroupNorm's [N, C, H, W] <-> [N, G, C/G*H*W] views leave no division and
// modulo chain in the fixture's kernels where the index is the flat one
// (render/unravel.go, loopir's div/mod folding): every load's index has at
// most one of / and %, and the compiled run matches PyTorch.
func TestGroupNormIndicesFolded(t *testing.T) {
	tr, units, src := renderFirstProgram(t, "../fixtures/group_instance_norm.json")
	load := regexp.MustCompile(`= b_\w+\[(.*)\];`)
	for _, l := range strings.Split(src.Code, "\n") {
		m := load.FindStringSubmatch(l)
		if m != nil && strings.Contains(m[1], "/") && strings.Contains(m[1], "%") {
			t.Errorf("an unfolded view index: %s", strings.TrimSpace(l))
		}
	}
	matchEachChoice(t, tr, units, 1, "0")
}
