package torchtrace

import (
	"path/filepath"
	"strings"
	"testing"

	"gcdbg/stages"
)

// TORCH_TRACE logs from PyTorch 2.6 (testdata/hop/gen_hop.py) holding what
// gcdbg does not model — higher-order ops (torch.cond, flex_attention), an
// autocast region — or a dict input open: the captured graph is there with
// the node marked, and the pipeline stops at the op, naming it (issue 15).
func TestLogsWithHigherOrderOpsOpen(t *testing.T) {
	for _, c := range []struct {
		log, node, target string // node "" = the whole pipeline runs
	}{
		{"cond.log", "cond", "torch.ops.higher_order.cond"},
		{"flex.log", "", "torch.ops.higher_order.flex_attention"},
		{"autocast.log", "_enter_autocast", "torch.amp.autocast_mode._enter_autocast"},
		{"dict.log", "", ""},
	} {
		tr, _, err := Import(filepath.Join("testdata", "hop", c.log))
		if err != nil {
			t.Errorf("%s does not open: %v", c.log, err)
			continue
		}
		if len(tr.Graphs) != 1 {
			t.Errorf("%s: %d graphs, want 1 (a higher-order op's bodies are not graphs of their own)", c.log, len(tr.Graphs))
			continue
		}
		units, err := stages.Run(tr, "")
		u := units[0]
		captured := stages.Table[0].Print(u)
		if c.target != "" && !strings.Contains(captured, c.target) {
			t.Errorf("%s: captured graph lacks %s:\n%s", c.log, c.target, captured)
		}
		switch {
		case c.log == "dict.log":
			if err != nil {
				t.Errorf("dict.log: %v", err)
			}
		case c.node == "": // flex: stops at or before the higher-order op
			if u.Failure == nil || u.Failure.Stage != "normalized" {
				t.Errorf("%s: failure %v, want one at the normalized stage", c.log, u.Failure)
			}
		default:
			f := u.Failure
			if f == nil || f.Stage != "normalized" || f.Node != c.node || f.Target != c.target {
				t.Errorf("%s: failure %+v, want normalized at node %s (%s)", c.log, f, c.node, c.target)
				continue
			}
			if !strings.Contains(captured, "gcdbg stops here") || f.Suggestion == "" {
				t.Errorf("%s: captured graph not marked or no suggestion (%q):\n%s", c.log, f.Suggestion, captured)
			}
		}
	}
}
