package graphtext

import (
	"strings"
	"testing"

	"gcdbg/ir"
)

// Dynamo prints a higher-order op's bodies as classes nested in the graph's
// class and passes dicts of options: both parse; the bodies are not graphs
// of their own, the op gets their names and the dict as data.
func TestNestedSubgraphsAndDicts(t *testing.T) {
	src := `class GraphModule(torch.nn.Module):
    def forward(self, L_x_: "f32[4]"):
        l_x_ = L_x_
        body_0 = self.body_0
        hop = torch.ops.higher_order.some_op(body_0, [l_x_], {'A': False, 'B': 2}, {1, 2});  body_0 = None
        getitem: "f32[4]" = hop[0];  hop = None
        return (getitem,)

    class body_0(torch.nn.Module):
        def forward(self, l_x_):
            sin: "f32[4]" = l_x_.sin()
            return (sin,)
`
	tr, err := Parse([]byte(src), t.TempDir(), "g.py")
	if err != nil {
		t.Fatal(err)
	}
	if len(tr.Graphs) != 1 {
		t.Fatalf("%d graphs, want 1", len(tr.Graphs))
	}
	g := tr.Graphs[0]
	hop := g.Node("hop")
	if hop == nil || hop.Target != "torch.ops.higher_order.some_op" || len(hop.Args) != 4 {
		t.Fatalf("hop node %+v", hop)
	}
	if hop.Args[0] != "self.body_0" {
		t.Errorf("body arg %#v, want the subgraph's name", hop.Args[0])
	}
	d, ok := hop.Args[2].(ir.Tuple)
	if !ok || len(d) != 2 || !strings.Contains(ir.FormatArg(d, nil), "A") {
		t.Errorf("dict arg %#v", hop.Args[2])
	}
	if s, ok := hop.Args[3].(ir.Tuple); !ok || len(s) != 2 {
		t.Errorf("set arg %#v", hop.Args[3])
	}
	// An undeclared attribute that is not a nested class is still an error.
	bad := strings.Replace(src, "self.body_0", "self.nothing", 1)
	if _, err := Parse([]byte(bad), t.TempDir(), "g.py"); err == nil || !strings.Contains(err.Error(), "self.nothing is not declared") {
		t.Errorf("undeclared attribute: %v", err)
	}
}
