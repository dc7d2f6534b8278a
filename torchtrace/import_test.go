package torchtrace

import (
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"gcdbg/ir"
	"gcdbg/runner"
	"gcdbg/stages"
	"gcdbg/trace"
)

// Every sample imports; each captured graph becomes one graph named by its
// compile id, and the ones made only of ops gcdbg has run through the whole
// pipeline (runner.Run) and match gcdbg's eager reference. There is no
// PyTorch output in a TORCH_TRACE log, so vs_expected is absent.
func TestImportAndRunSamples(t *testing.T) {
	for _, s := range samples {
		tr, compiles, err := Import(filepath.Join("testdata", s.file))
		if err != nil {
			t.Fatalf("%s: %v", s.file, err)
		}
		var names []string
		for _, g := range tr.Graphs {
			names = append(names, g.Name)
		}
		if !reflect.DeepEqual(names, s.graphs) || len(compiles) != len(s.ids) {
			t.Errorf("%s: graphs %v of %d compiles, want %v of %d", s.file, names, len(compiles), s.graphs, len(s.ids))
		}
		refs := References(tr)
		for _, g := range tr.Graphs {
			if len(refs[g.Name]) == 0 {
				t.Errorf("%s %s: no PyTorch artifacts recorded", s.file, g.Name)
			}
			one := &trace.Trace{Name: tr.Name, Path: tr.Path, Graphs: []*ir.Graph{g}}
			res, err := runner.Run(one, runner.Options{Runs: 1, Device: "eager"})
			if s.file == "simple.log" {
				// F.dropout(training=True) runs on gcdbg's own draws, but
				// torch.ops.test.baz is the test's own custom op: not gcdbg's
				// to run. The error must name the graph, the node and the op.
				if err == nil || !strings.Contains(err.Error(), `graph "[0/0]": node "out_1"`) || !strings.Contains(err.Error(), "torch.ops.test.baz") {
					t.Errorf("simple.log: want an error naming the custom op's node, got %v", err)
				}
				continue
			}
			if err != nil {
				t.Errorf("%s %s: %v", s.file, g.Name, err)
				continue
			}
			if !res.OK || len(res.Graphs) != 1 {
				t.Errorf("%s %s: not ok: %+v", s.file, g.Name, res)
				continue
			}
			for _, o := range res.Graphs[0].Outputs {
				if o.VsExpected != nil || o.VsEager == nil || !o.VsEager.Match {
					t.Errorf("%s %s output %d: vs_expected %v vs_eager %v", s.file, g.Name, o.Index, o.VsExpected, o.VsEager)
				}
			}
		}
	}
}

// The captured graphs keep their recorded shapes, dtypes and device
// annotations' shapes; old logs without annotations get theirs from
// "sizes" and the TENSOR_MATCH guard.
func TestImportedShapes(t *testing.T) {
	for _, tc := range []struct {
		file, graph, input, meta string
	}{
		{"simple.log", "[0/0]", "L_x_", "f32[1, 320, 128, 128]"},
		{"artifacts.log", "[0/0]", "L_y_", "f32[5, 5]"},
		{"comp_metrics.log", "[2/0]", "L_x_", "f32[4, 4]"},
	} {
		tr, _, err := Import(filepath.Join("testdata", tc.file))
		if err != nil {
			t.Fatal(err)
		}
		var g *ir.Graph
		for _, x := range tr.Graphs {
			if x.Name == tc.graph {
				g = x
			}
		}
		if g == nil {
			t.Fatalf("%s: no graph %s", tc.file, tc.graph)
		}
		td := g.Tensors[tc.input]
		if td == nil {
			t.Fatalf("%s %s: no tensor for %s (have %v)", tc.file, tc.graph, tc.input, keys(g.Tensors))
		}
		if got := td.T.DType.Short() + ir.ShapeOf(td.T.Shape).String(); got != tc.meta {
			t.Errorf("%s %s: %s is %s, want %s", tc.file, tc.graph, tc.input, got, tc.meta)
		}
	}
}

func keys(m map[string]*ir.TensorData) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// The pytorch stage prints PyTorch's artifacts in pipeline order for an
// import and says so for any other trace.
func TestPyTorchStage(t *testing.T) {
	tr, _, err := Import("testdata/links.log")
	if err != nil {
		t.Fatal(err)
	}
	st, err := stages.Lookup("pytorch")
	if err != nil {
		t.Fatal(err)
	}
	out := st.Print(&stages.Unit{Trace: tr, Captured: tr.Graphs[0]})
	var order []int
	for _, h := range []string{"== dynamo_cpp_guards_str ==", "== aot_forward_graph ==", "== inductor_post_grad_graph ==",
		"== inductor_output_code ==", "== compilation_metrics ==", "== user_stack =="} {
		order = append(order, strings.Index(out, h))
	}
	for i := range order {
		if order[i] < 0 || i > 0 && order[i] < order[i-1] {
			t.Fatalf("sections out of order or missing %v:\n%s", order, out)
		}
	}
	if strings.Contains(out, "== dynamo_guards ==") {
		t.Error("the empty dynamo_guards listing should be left out")
	}
	other := &trace.Trace{Name: "x"}
	if got := st.Print(&stages.Unit{Trace: other, Captured: &ir.Graph{Name: "g0"}}); !strings.Contains(got, stages.NoReferences) {
		t.Errorf("non-import: %q", got)
	}
}

// Dynamo's guard tree becomes producer guards with their kind and source.
func TestProducerGuards(t *testing.T) {
	tr, _, err := Import("testdata/artifacts.log")
	if err != nil {
		t.Fatal(err)
	}
	gs := tr.Graphs[0].Guards
	var tm []ir.Guard
	for _, g := range gs {
		if g.Kind == "TENSOR_MATCH" {
			tm = append(tm, g)
		}
	}
	if len(gs) != 8 || len(tm) != 2 || tm[0].Source != "L['x']" || !strings.Contains(tm[0].Text, "size=[5, 5], stride=[5, 1])") {
		t.Errorf("guards %+v", gs)
	}
}

// A log whose graphs together need more random input than the budget
// imports what fits and says why the rest was left out.
func TestInputBudget(t *testing.T) {
	old := maxLogElements
	maxLogElements = 40
	defer func() { maxLogElements = old }()
	l, err := ReadFile("testdata/comp_metrics.log")
	if err != nil {
		t.Fatal(err)
	}
	im := FromLog(l, "comp_metrics", t.TempDir())
	var left []string
	for _, c := range im.Compiles {
		if c.ImportError != "" {
			left = append(left, c.ID)
			if !strings.Contains(c.ImportError, "random elements") {
				t.Errorf("%s: %s", c.ID, c.ImportError)
			}
		}
	}
	// Each graph needs 16 elements: [0/0_1] and [1/0_1] fit in 40, [2/0] not.
	if len(im.Trace.Graphs) != 2 || !reflect.DeepEqual(left, []string{"[2/0]"}) {
		t.Errorf("imported %d, left out %v", len(im.Trace.Graphs), left)
	}
}
