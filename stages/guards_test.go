package stages

import (
	"strings"
	"testing"

	"gcdbg/ir"
	"gcdbg/trace"
)

func mlpUnit(t *testing.T) *Unit {
	t.Helper()
	tr, err := trace.Load("../fixtures/mlp.json")
	if err != nil {
		t.Fatal(err)
	}
	u := &Unit{Trace: tr, Captured: tr.Graphs[0]}
	if err := deriveGuards(u); err != nil {
		t.Fatal(err)
	}
	return u
}

const ks = "Tensor, DispatchKeySet(CPU, BackendSelect, ADInplaceOrView, AutogradCPU), torch.float32, device=None, "

func TestDerivedGuardsMLP(t *testing.T) {
	u := mlpUnit(t)
	want := []string{
		"TENSOR_MATCH check_tensor(L['x'], " + ks + "requires_grad=False, size=[8, 28, 28], stride=[784, 28, 1])",
		"TENSOR_MATCH check_tensor(L['self'].linear_relu_stack[0].weight, " + ks + "requires_grad=True, size=[512, 784], stride=[784, 1])",
		"TENSOR_MATCH check_tensor(L['self'].linear_relu_stack[0].bias, " + ks + "requires_grad=True, size=[512], stride=[1])",
		"TENSOR_MATCH check_tensor(L['self'].linear_relu_stack[2].weight, " + ks + "requires_grad=True, size=[512, 512], stride=[512, 1])",
		"TENSOR_MATCH check_tensor(L['self'].linear_relu_stack[2].bias, " + ks + "requires_grad=True, size=[512], stride=[1])",
		"TENSOR_MATCH check_tensor(L['self'].linear_relu_stack[4].weight, " + ks + "requires_grad=True, size=[10, 512], stride=[512, 1])",
		"TENSOR_MATCH check_tensor(L['self'].linear_relu_stack[4].bias, " + ks + "requires_grad=True, size=[10], stride=[1])",
		"NO_TENSOR_ALIASING check_no_aliasing(L['x'], L['self'].linear_relu_stack[0].weight, L['self'].linear_relu_stack[0].bias, " +
			"L['self'].linear_relu_stack[2].weight, L['self'].linear_relu_stack[2].bias, L['self'].linear_relu_stack[4].weight, L['self'].linear_relu_stack[4].bias)",
	}
	got := u.Guards.Derived
	if len(got) != len(want) {
		t.Fatalf("got %d guards, want %d:\n%s", len(got), len(want), printGuards(u))
	}
	for i, g := range got {
		if s := g.Kind + " " + g.Text; s != want[i] {
			t.Errorf("guard %d:\n got %s\nwant %s", i, s, want[i])
		}
	}
	if !strings.Contains(printGuards(u), "recorded by the producer: none") {
		t.Errorf("printGuards does not say the producer recorded none:\n%s", printGuards(u))
	}
}

func TestDerivedGuardsDynamic(t *testing.T) {
	u := mlpUnit(t)
	if err := DeriveGuards(u, map[string]string{"x:0": "s0"}); err != nil {
		t.Fatal(err)
	}
	txt := printGuards(u)
	for _, w := range []string{"size=[None, 28, 28], stride=[784, 28, 1]", "SHAPE_ENV          2 <= L['x'].size()[0]", "s0 = L['x'].size()[0]"} {
		if !strings.Contains(txt, w) {
			t.Errorf("missing %q in\n%s", w, txt)
		}
	}
	// A dynamic inner dimension makes the strides to its left dynamic too.
	if err := DeriveGuards(u, map[string]string{"x:2": "s0"}); err != nil {
		t.Fatal(err)
	}
	if g := u.Guards.Derived[0].Text; !strings.Contains(g, "size=[8, 28, None], stride=[None, None, 1]") {
		t.Errorf("dynamic last dim: %s", g)
	}
}

func TestDerivedGuardsConstantsAndProducer(t *testing.T) {
	tr, err := trace.Load("../fixtures/clamp_min.json")
	if err != nil {
		t.Fatal(err)
	}
	g := *tr.Graphs[0]
	g.Guards = []ir.Guard{
		{Kind: "TENSOR_MATCH", Source: "L['a']", Text: "check_tensor(L['a'], ...)"},
		{Kind: "GRAD_MODE", Source: "global", Text: "___is_grad_enabled()"},
	}
	u := &Unit{Trace: tr, Captured: &g}
	if err := deriveGuards(u); err != nil {
		t.Fatal(err)
	}
	last := u.Guards.Derived[len(u.Guards.Derived)-1]
	if last.Kind != "EQUALS_MATCH" || last.Text != "L['b'] == 0" {
		t.Errorf("constant guard: %+v", last)
	}
	txt := printGuards(u)
	if !strings.Contains(txt, "check_tensor(L['a'], ...)    [derived too]") || !strings.Contains(txt, "___is_grad_enabled()    [no derived counterpart]") {
		t.Errorf("producer column:\n%s", txt)
	}
}

func TestDerivedGuardsMissingTensor(t *testing.T) {
	tr, err := trace.Load("../fixtures/mlp.json")
	if err != nil {
		t.Fatal(err)
	}
	g := *tr.Graphs[0]
	g.Tensors = map[string]*ir.TensorData{}
	err = deriveGuards(&Unit{Trace: tr, Captured: &g})
	if err == nil || !strings.Contains(err.Error(), `graph "g0": node "x": target: "x" has no tensor`) {
		t.Errorf("error %v", err)
	}
}
