package stages

import (
	"strings"
	"testing"

	"gcdbg/trace"
)

func runFixture(t *testing.T, name string) []*Unit {
	t.Helper()
	tr, err := trace.Load("../fixtures/" + name)
	if err != nil {
		t.Fatal(err)
	}
	us, err := Run(tr, "")
	if err != nil {
		t.Fatal(err)
	}
	return us
}

func stageIdx(t *testing.T, name string) int {
	t.Helper()
	for i, st := range Table {
		if st.Name == name {
			return i
		}
	}
	t.Fatalf("no stage %s", name)
	return -1
}

// The Parent column decides where From points: both halves of the
// partition point into the joint graph, the joint graph into decomposed,
// and every graph stage of the MLP reaches back to the captured graph.
func TestProvenanceParents(t *testing.T) {
	u := runFixture(t, "mlp.json")[0]
	p := NewProvenance(u)
	for child, parent := range map[string]string{"normalized": "captured", "functional": "normalized",
		"decomposed": "functional", "joint": "decomposed", "forward": "joint", "backward": "joint"} {
		if got := p.Parent(stageIdx(t, child)); got != stageIdx(t, parent) {
			t.Errorf("%s: parent %d, want %s", child, got, parent)
		}
	}
	if p.Parent(stageIdx(t, "captured")) != -1 || p.Parent(stageIdx(t, "loopir")) != -1 {
		t.Error("captured and loopir have no parent graph")
	}
	// The first ReLU: captured -> aten.relu in decomposed -> joint -> forward,
	// and its backward (gt, where) in the joint graph.
	rel := p.Related(NodeRef{stageIdx(t, "captured"), "linear_relu_stack_1"})
	for _, want := range []NodeRef{{stageIdx(t, "normalized"), "linear_relu_stack_1"}, {stageIdx(t, "decomposed"), "linear_relu_stack_1"},
		{stageIdx(t, "joint"), "linear_relu_stack_1"}, {stageIdx(t, "forward"), "linear_relu_stack_1"}} {
		if !rel[want] {
			t.Errorf("the ReLU's related set lacks %s in stage %s", want.Name, Table[want.Stage].Name)
		}
	}
	for r := range rel {
		if r.Stage == stageIdx(t, "captured") && r.Name != "linear_relu_stack_1" {
			t.Errorf("the ReLU is related to captured node %s", r.Name)
		}
	}
	// Identity, not words: no node of another layer is related.
	if rel[NodeRef{stageIdx(t, "decomposed"), "linear_relu_stack_3"}] {
		t.Error("the first ReLU is related to the second")
	}
}

// Compiled programs' names resolve to their graph's nodes: a kernel to
// every node its loop nodes compute, a fused group (buf0_buf1) to its
// members, and an unknown word to nothing.
func TestProvenanceResolvesLoopNames(t *testing.T) {
	u := runFixture(t, "mlp.json")[0]
	p := NewProvenance(u)
	fwd := -1
	for i := 0; i < p.Programs(); i++ {
		if p.ProgramRole(i) == "forward" {
			fwd = i
		}
	}
	if fwd < 0 || p.ProgramStage(fwd) != stageIdx(t, "forward") {
		t.Fatalf("no forward program compiling the forward stage")
	}
	lp := u.Programs[fwd]
	k := lp.Schedule.Kernels[0]
	refs := p.Resolve(fwd, k.Name)
	if len(refs) == 0 {
		t.Fatalf("%s resolves to nothing", k.Name)
	}
	for _, r := range refs {
		if r.Stage != stageIdx(t, "forward") || p.Graph(r.Stage).Node(r.Name) == nil {
			t.Errorf("%s resolves to %v, not a forward-graph node", k.Name, r)
		}
	}
	if len(k.Nodes) >= 2 {
		group := k.Nodes[0].Name + "_" + k.Nodes[1].Name
		if got := p.Resolve(fwd, group); len(got) < 2 {
			t.Errorf("group %s resolves to %v", group, got)
		}
	}
	for _, w := range []string{"float", "x0", "kernel", "buf999", "relu"} {
		if got := p.Resolve(fwd, w); len(got) != 0 {
			t.Errorf("%q resolves to %v", w, got)
		}
	}
}

// The MLP's forward graph: each GEMM shares its kernel with its bias add
// and relu (the epilogue), and the three GEMMs are in different kernels.
// On the decomposed and captured graphs the same kernels are found through
// provenance.
func TestKernelClusters(t *testing.T) {
	u := runFixture(t, "mlp.json")[0]
	p := NewProvenance(u)
	for _, stage := range []string{"forward", "decomposed"} {
		cl := p.Kernels(u, stageIdx(t, stage))
		seen := map[string]bool{}
		for _, layer := range []string{"0", "2", "4"} {
			k := cl["linear_relu_stack_"+layer+"_mm"]
			if k == "" || cl["linear_relu_stack_"+layer] != k || seen[k] {
				t.Errorf("%s: layer %s: mm in %q, add in %q", stage, layer, k, cl["linear_relu_stack_"+layer])
			}
			seen[k] = true
		}
		if cl["linear_relu_stack_1"] != cl["linear_relu_stack_0_mm"] {
			t.Errorf("%s: relu not in the first GEMM's kernel: %v", stage, cl)
		}
	}
	dec := p.Kernels(u, stageIdx(t, "decomposed"))
	capt := p.Kernels(u, stageIdx(t, "captured"))
	if capt["linear_relu_stack_1"] == "" || capt["linear_relu_stack_1"] != dec["linear_relu_stack_1"] {
		t.Errorf("captured ReLU in %q, decomposed in %q", capt["linear_relu_stack_1"], dec["linear_relu_stack_1"])
	}
	if len(p.Kernels(u, stageIdx(t, "fusion"))) != 0 {
		t.Error("a text stage has kernel clusters")
	}
}

// Diff says what a stage changed against its parent, by identity: on the
// MLP, normalization changes the six module calls and adds each Linear's
// weight and bias; functionalization changes nothing; decomposition adds
// a permute and an mm per Linear and turns aten.linear into the bias add.
// DiffStages compares any two stages: the forward graph against the joint
// graph has lost the backward's nodes.
func TestStageDiff(t *testing.T) {
	u := runFixture(t, "mlp.json")[0]
	p := NewProvenance(u)
	norm := p.Diff(stageIdx(t, "normalized"))
	if len(norm.Added) != 6 || len(norm.Changed) != 6 || len(norm.Removed) != 0 {
		t.Errorf("normalized: %+v", norm)
	}
	if fn := p.Diff(stageIdx(t, "functional")); !fn.Unchanged() {
		t.Errorf("functional changed: %+v", fn)
	}
	dec := p.Diff(stageIdx(t, "decomposed"))
	added := strings.Join(dec.Added, " ")
	for _, want := range []string{"linear_relu_stack_0_permute", "linear_relu_stack_0_mm", "linear_relu_stack_4_mm"} {
		if !strings.Contains(added, want) {
			t.Errorf("decomposed does not add %s: %v", want, dec.Added)
		}
	}
	if !strings.Contains(strings.Join(dec.Changed, " "), "linear_relu_stack_0") {
		t.Errorf("decomposed does not change the linear: %v", dec.Changed)
	}
	if p.Diff(stageIdx(t, "captured")) != nil || p.Diff(stageIdx(t, "fusion")) != nil {
		t.Error("a stage without a parent graph has a diff")
	}
	fj := p.DiffStages(stageIdx(t, "joint"), stageIdx(t, "forward"))
	removed := strings.Join(fj.Removed, " ")
	// Nothing new in the forward; only its output changed (it returns
	// the saved tensors); the tangent and the backward's nodes are gone.
	if len(fj.Added) != 0 || strings.Join(fj.Changed, " ") != "output" || !strings.Contains(removed, "tangents_1") || !strings.Contains(removed, "where_1") {
		t.Errorf("forward vs joint: added %v, changed %v, removed %v", fj.Added, fj.Changed, fj.Removed)
	}
}
