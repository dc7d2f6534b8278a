package stages

import (
	"errors"
	"strings"
	"testing"

	"gcdbg/ir"
	"gcdbg/trace"
)

// A trace with a deliberately unknown op (testdata/degrade/unknown_op.py,
// exported by real PyTorch) stops only the stages from normalized on: the
// captured graph and guards stay, the node is marked, the later stages say
// why they did not run.
func TestUnknownOpStopsOnlyLaterStages(t *testing.T) {
	tr, err := trace.Load("testdata/degrade/unknown_op.json")
	if err != nil {
		t.Fatal(err)
	}
	units, err := Run(tr, "")
	if err == nil {
		t.Fatal("Run succeeded on a trace with an unknown op")
	}
	if len(units) != 1 || units[0] == nil {
		t.Fatalf("want the one unit back with the error, got %d", len(units))
	}
	u := units[0]
	f := u.Failure
	if f == nil {
		t.Fatal("no Failure recorded")
	}
	var ff *Failure
	if !errors.As(err, &ff) || ff != f {
		t.Errorf("the returned error does not wrap the unit's Failure: %v", err)
	}
	if f.Stage != "normalized" || f.Node != "gcdbg_unknown_scale" || !strings.Contains(f.Target, "gcdbg_unknown_scale") {
		t.Errorf("failure = stage %q node %q target %q, want normalized / gcdbg_unknown_scale", f.Stage, f.Node, f.Target)
	}
	if !strings.Contains(f.Reason(), "unsupported") || strings.Contains(f.Reason(), `node "`) {
		t.Errorf("reason %q: want the error without its location prefix", f.Reason())
	}
	if u.Guards == nil {
		t.Error("the guards stage (before the failure) lost its artifact")
	}
	for i, st := range Table {
		if u.Reached(i) != (i < f.Index) {
			t.Errorf("Reached(%s) = %v", st.Name, u.Reached(i))
		}
		if st.Graph != nil && i >= f.Index && st.Graph(u) != nil {
			t.Errorf("stage %s not reached but has a graph", st.Name)
		}
	}
	captured := Table[0].Print(u)
	lines := strings.Split(captured, "\n")
	mark := -1
	for i, l := range lines {
		if strings.Contains(l, "^ gcdbg stops here") {
			mark = i
		}
	}
	if mark < 1 || !strings.HasPrefix(strings.TrimSpace(lines[mark-1]), "%gcdbg_unknown_scale ") {
		t.Errorf("captured graph does not mark the unknown node right under it:\n%s", captured)
	}
	if !strings.Contains(captured, "%sin ") {
		t.Error("captured graph lost the nodes after the unknown op")
	}
	for _, name := range []string{"normalized", "joint", "kernels"} {
		st, _ := Lookup(name)
		text := st.Print(u)
		if !strings.Contains(text, "gcdbg_unknown_scale") || !strings.Contains(text, "reason: ") {
			t.Errorf("stage %s prints %q, want the failure with its node and reason", name, text)
		}
	}
}

// The other graphs of a trace go on when one fails.
func TestFailureKeepsOtherGraphs(t *testing.T) {
	tr, err := trace.Load("testdata/degrade/unknown_op.json")
	if err != nil {
		t.Fatal(err)
	}
	good, err := trace.Load("../fixtures/sin_cos.json")
	if err != nil {
		t.Fatal(err)
	}
	g := good.Graphs[0]
	g.Name = "g1"
	tr.Graphs = append(tr.Graphs, g)
	units, err := Run(tr, "")
	if err == nil || len(units) != 2 {
		t.Fatalf("err %v, %d units", err, len(units))
	}
	if units[0].Failure == nil || units[1].Failure != nil || len(units[1].Programs) == 0 {
		t.Errorf("graph 0 failure %v, graph 1 failure %v with %d programs: want only graph 0 stopped", units[0].Failure, units[1].Failure, len(units[1].Programs))
	}
}

// A panic inside a stage is an InternalError naming stage, graph and node,
// never a crash.
func TestStagePanicIsInternalError(t *testing.T) {
	u := &Unit{Captured: &ir.Graph{Name: "g0"}}
	st := &Stage{Name: "boom", Run: func(*Unit) error {
		var xs []int
		_ = xs[3]
		return nil
	}}
	err := runStage(st, u)
	ie, ok := AsInternal(err)
	if !ok {
		t.Fatalf("runStage returned %v, want an InternalError", err)
	}
	if ie.Stage != "boom" || ie.Graph != "g0" || len(ie.Stack) == 0 {
		t.Errorf("internal error %+v: want stage, graph and stack", ie)
	}
	if !strings.Contains(err.Error(), "stage boom") || !strings.Contains(err.Error(), "index out of range") {
		t.Errorf("message %q", err.Error())
	}
	// A stage that tracks its node (CatchPanic) names it.
	st.Run = func(*Unit) (err error) {
		defer CatchPanic(&err, func() string { return "amax_1" })
		var m map[string]int
		m["x"] = 1
		return nil
	}
	ie, ok = AsInternal(runStage(st, u))
	if !ok || ie.Node != "amax_1" || ie.Stage != "boom" {
		t.Errorf("got %+v, want node amax_1 in stage boom", ie)
	}
	if !strings.Contains(ie.Error(), `node "amax_1"`) {
		t.Errorf("message %q does not name the node", ie.Error())
	}
}

func TestSuggestion(t *testing.T) {
	if s := suggestionFor("torch.nn.ReLU6", "target: unsupported module"); !strings.Contains(s, "clamp(x, 0, 6)") {
		t.Errorf("ReLU6 suggestion %q", s)
	}
	if s := suggestionFor("torch.nn.ReLU6", "meta.shape: gcdbg infers [2] but the trace says [3]"); s != "" {
		t.Errorf("a suggestion %q for an error that is not a refusal", s)
	}
}
