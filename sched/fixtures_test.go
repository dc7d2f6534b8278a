package sched_test

import (
	"path/filepath"
	"strings"
	"testing"

	"gcdbg/interp"
	"gcdbg/ir"
	"gcdbg/loopir"
	"gcdbg/stages"
	"gcdbg/tensor"
	"gcdbg/trace"
)

// Every fixture and zoo trace: the fused schedule computes what the eager
// interpreter computes on the decomposed graph, every refusal says why,
// and memory planning never raises the peak.
func TestFixturesScheduleMatchesEager(t *testing.T) {
	paths, _ := filepath.Glob("../fixtures/*.json")
	zoo, _ := filepath.Glob("../stages/testdata/*.json")
	paths = append(paths, zoo...)
	for _, path := range paths {
		t.Run(filepath.Base(path), func(t *testing.T) {
			for _, u := range load(t, path) {
				if len(u.Programs) == 0 {
					t.Fatalf("graph %q: nothing compiled", u.Captured.Name)
				}
				saved := interp.Inputs{}
				for _, lp := range u.Programs {
					checkProgram(t, u, lp, saved)
				}
			}
		})
	}
}

// checkProgram runs one compiled graph's fused kernels and the eager
// interpreter on the same graph. A forward graph's trailing outputs are the
// tensors saved for backward; they are recorded in saved and fed to the
// backward graph, as a training step does.
func checkProgram(t *testing.T, u *stages.Unit, lp *stages.LoopProgram, saved interp.Inputs) {
	t.Helper()
	s, m := lp.Schedule, lp.Memory
	label := u.Captured.Name + "/" + lp.Role
	if lp.Loops == nil || s == nil || m == nil {
		t.Fatalf("%s: no loop IR, schedule or memory plan", label)
	}
	want, err := interp.Run(lp.Graph, saved)
	if err != nil {
		t.Fatal(err)
	}
	inputs := loopir.InputsFromGraph(lp.Loops)
	for name, buf := range lp.Loops.Buffers {
		if buf.Kind != loopir.Input {
			continue
		}
		if n := lp.Graph.Node(buf.Node); n != nil {
			if v, ok := saved[n.Target].(*tensor.Tensor); ok {
				inputs[name] = v
			}
		}
	}
	got, err := loopir.Run(lp.Loops, s.Kernels, inputs)
	if err != nil {
		t.Fatalf("%s: %v\n%s", label, err, s.PostFusion())
	}
	if len(got) != len(want) {
		t.Fatalf("%s: %d outputs, eager has %d", label, len(got), len(want))
	}
	for i := range want {
		w, err := interp.AsTensor(want[i])
		if err != nil {
			t.Fatal(err)
		}
		if c := interp.Compare(got[i], w, interp.DefaultTolerance(w.DType)); !c.Match {
			t.Errorf("%s: output %d: %+v", label, i, c)
		}
	}
	if lp.Role == "forward" && u.Partition != nil {
		for i, sv := range u.Partition.Saved {
			saved[sv.Name] = want[u.Joint.NumOutputs+i]
		}
	}
	for _, d := range s.Decisions {
		if d.Action == "refuse" && d.Reason == "" {
			t.Errorf("refusal without a reason: %+v", d)
		}
	}
	if m.PeakAfter > m.PeakBefore {
		t.Errorf("%s: peak bytes %d -> %d", label, m.PeakBefore, m.PeakAfter)
	}
	t.Logf("%s: kernels %d -> %d, peak bytes unfused %d, fused %d, planned %d, allocations %d -> %d", label, len(s.Before), len(s.Kernels), m.PeakUnfused, m.PeakBefore, m.PeakAfter, m.AllocsBefore, m.AllocsAfter)
}

func load(t *testing.T, path string) []*stages.Unit {
	t.Helper()
	tr, err := trace.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	units, err := stages.Run(tr, "memory")
	if err != nil {
		t.Fatal(err)
	}
	return units
}

// kernelsOf counts the kernels computing the loop nodes that come from a
// functional-graph node (a softmax, a layer_norm): decomposed nodes keep
// it in From, loop nodes name their decomposed nodes in Origins.
func kernelsOf(u *stages.Unit, fn string) int {
	lp := u.Programs[0]
	from := map[string]bool{}
	for _, n := range lp.Graph.Nodes {
		for _, f := range origins(u, n) {
			if f == fn {
				from[n.Name] = true
			}
		}
	}
	count := 0
	for _, k := range lp.Schedule.Kernels {
		for _, n := range k.Nodes {
			if hasAny(n.Origins, from) {
				count++
				break
			}
		}
	}
	return count
}

func hasAny(names []string, set map[string]bool) bool {
	for _, n := range names {
		if set[n] {
			return true
		}
	}
	return false
}

// origins follows provenance back to the functional graph: a forward
// graph's node came from a joint node, which came from a decomposed node,
// which came from a functional node.
func origins(u *stages.Unit, n *ir.Node) []string {
	names := []string{n.Name}
	for _, g := range []*ir.Graph{u.Joint.Graph, u.Decomposed} {
		var next []string
		for _, name := range names {
			if m := g.Node(name); m != nil {
				next = append(next, m.From...)
			}
		}
		names = next
	}
	return names
}

func TestFixtureDoneCriteria(t *testing.T) {
	u := load(t, "../fixtures/sin_cos.json")[0]
	if len(u.Programs[0].Schedule.Kernels) != 1 {
		t.Errorf("sin_cos: %d kernels, want 1\n%s", len(u.Programs[0].Schedule.Kernels), u.Programs[0].Schedule.Log())
	}

	// The MLP trains, so this is its forward graph: three GEMMs, each with
	// its bias add (and relu) fused on as an epilogue. Other kernels compute
	// the tensors saved for backward.
	u = load(t, "../fixtures/mlp.json")[0]
	gemms := 0
	for _, k := range u.Programs[0].Schedule.Kernels {
		externs := 0
		for _, n := range k.Nodes {
			if n.Kind == loopir.Extern {
				externs++
			}
		}
		if externs == 0 {
			continue
		}
		gemms++
		if externs != 1 || len(k.Nodes) < 2 {
			t.Errorf("mlp: %s has %d extern calls in %d nodes, want a GEMM with its epilogue", k.Name, externs, len(k.Nodes))
		}
	}
	if gemms != 3 {
		t.Errorf("mlp: %d GEMM kernels, want 3\n%s", gemms, u.Programs[0].Schedule.Log())
	}

	u = load(t, "../fixtures/transformer_block.json")[0]
	for _, fn := range []string{"softmax", "ln_1", "ln_2"} {
		n := kernelsOf(u, fn)
		if n == 0 || n > 2 {
			t.Errorf("transformer_block: %s runs in %d kernels, want 1 or 2\n%s", fn, n, u.Programs[0].Schedule.Log())
		}
	}
	if log := u.Programs[0].Schedule.Log(); !strings.Contains(log, "cannot fuse") {
		t.Errorf("transformer_block: no refusal logged")
	}
}
