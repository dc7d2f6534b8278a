package stages

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"gcdbg/interp"
	"gcdbg/ir"
	"gcdbg/tensor"
	"gcdbg/trace"
)

// jointVariants builds the joint graph of every graph of a trace twice: from
// the decomposed graph (the pipeline's path) and from the normalized graph
// (the non-core derivative entries: linear, softmax, layer_norm, ...).
func jointVariants(t *testing.T, path string) map[string][]*Unit {
	t.Helper()
	tr, err := trace.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	dec, err := Run(tr, "joint")
	if err != nil {
		t.Fatal(err)
	}
	norm, err := Run(tr, "normalized")
	if err != nil {
		t.Fatal(err)
	}
	for _, u := range norm {
		u.Decomposed = u.Normalized
		if err := buildJoint(u); err != nil {
			t.Fatalf("%s: joint of the normalized graph: %v", path, err)
		}
	}
	return map[string][]*Unit{"decomposed": dec, "normalized": norm}
}

// runJoint runs a joint graph with ones as every tangent (the fixtures'
// expected grads are those of sum(out * ones)).
func runJoint(t *testing.T, j *Joint) []ir.Value {
	t.Helper()
	in := interp.Inputs{}
	for _, p := range j.Graph.Placeholders() {
		if strings.HasPrefix(p.Target, "tangents_") {
			ones, err := tensor.Full(p.Meta.Tensor.Shape.Sizes(), 1, p.Meta.Tensor.DType)
			if err != nil {
				t.Fatal(err)
			}
			in[p.Target] = ones
		}
	}
	out, err := interp.Run(j.Graph, in)
	if err != nil {
		t.Fatal(err)
	}
	if len(out) != j.NumOutputs+len(j.GradTargets) {
		t.Fatalf("joint returns %d values, want %d outputs + %d grads", len(out), j.NumOutputs, len(j.GradTargets))
	}
	return out
}

func TestJointMatchesPyTorchGrads(t *testing.T) {
	paths, _ := filepath.Glob("../fixtures/*.json")
	checked := 0
	for _, p := range paths {
		for variant, units := range jointVariants(t, p) {
			for _, u := range units {
				exp := u.Captured.Expected
				if exp == nil || len(exp.Grads) == 0 {
					continue
				}
				name := fmt.Sprintf("%s/%s/%s", filepath.Base(p), u.Captured.Name, variant)
				if u.Joint == nil {
					t.Errorf("%s: no joint graph for a training graph", name)
					continue
				}
				out := runJoint(t, u.Joint)
				for i, want := range exp.Outputs {
					got, err := interp.AsTensor(out[i])
					if err != nil {
						t.Fatalf("%s: output %d: %v", name, i, err)
					}
					if c := interp.Compare(got, want, interp.DefaultTolerance(want.DType)); !c.Match {
						t.Errorf("%s: output %d: %+v", name, i, c)
					}
				}
				var worstAbs, worstRel float64
				for i, target := range u.Joint.GradTargets {
					want := exp.Grads[target]
					if want == nil {
						t.Errorf("%s: grad of %s: PyTorch recorded none", name, target)
						continue
					}
					got, _ := interp.AsTensor(out[u.Joint.NumOutputs+i])
					c := interp.Compare(got, want, interp.Tolerance{Rtol: 1e-4, Atol: 1e-5})
					if !c.Match {
						t.Errorf("%s: grad of %s: %+v", name, target, c)
					}
					worstAbs, worstRel = max(worstAbs, c.MaxAbsErr), max(worstRel, c.MaxRelErr)
					checked++
				}
				for target := range exp.Grads {
					if !contains(u.Joint.GradTargets, target) {
						t.Errorf("%s: PyTorch has a grad for %s, the joint graph does not", name, target)
					}
				}
				t.Logf("%s: %d grads, max abs err %.3g, max rel err %.3g", name, len(u.Joint.GradTargets), worstAbs, worstRel)
			}
		}
	}
	if checked == 0 {
		t.Fatal("no fixture with expected grads")
	}
}

// The joint graph's structure: primals then tangents, forward nodes copied
// with provenance, backward nodes pointing at the forward node they
// differentiate, only core ops when built from the decomposed graph, no
// dead backward nodes.
func TestJointGraphStructure(t *testing.T) {
	paths, _ := filepath.Glob("../fixtures/*.json")
	for _, p := range paths {
		for _, u := range jointVariants(t, p)["decomposed"] {
			if u.Joint == nil {
				continue
			}
			g := u.Joint.Graph
			if err := g.Validate(); err != nil {
				t.Fatal(err)
			}
			dec := map[string]bool{}
			for _, n := range u.Decomposed.Nodes {
				dec[n.Name] = true
			}
			users := g.Users()
			seenTangent := false
			for i, n := range g.Nodes {
				switch {
				case n.Op == ir.Placeholder && strings.HasPrefix(n.Name, "primals_"):
					if seenTangent {
						t.Errorf("%s: %s after a tangent", p, n.Name)
					}
					if n.Name != fmt.Sprintf("primals_%d", i+1) || !dec[n.From[0]] {
						t.Errorf("%s: %s: bad order or provenance %v", p, n.Name, n.From)
					}
				case n.Op == ir.Placeholder:
					seenTangent = true
					if !strings.HasPrefix(n.Target, "tangents_") {
						t.Errorf("%s: placeholder %s is neither a primal nor a tangent", p, n.Name)
					}
				case n.Op == ir.CallFunction:
					if !ir.IsCore(n.Target) {
						t.Errorf("%s: node %s: %s is not a core op", p, n.Name, n.Target)
					}
					if len(n.From) != 1 || !dec[n.From[0]] {
						t.Errorf("%s: node %s: provenance %v does not name a decomposed node", p, n.Name, n.From)
					}
					if users[n] == 0 && !isForwardCopy(n, u.Decomposed) {
						t.Errorf("%s: backward node %s is dead", p, n.Name)
					}
				}
			}
			if !strings.HasPrefix(printJoint(u), "def forward(self, primals, tangents):\n") {
				t.Errorf("%s: joint printout does not start like aot_joint_graph", p)
			}
		}
	}
}

func isForwardCopy(n *ir.Node, dec *ir.Graph) bool {
	src := dec.Node(n.From[0])
	return src != nil && src.Target == n.Target && src.Name == n.Name
}

// clamp_min from the slides: d/da (clamp_min(a, 0) * 3).sum() is 3 where
// a > 0, and the folded int b leaves one primal and one tangent.
func TestJointClampMinLikeSlides(t *testing.T) {
	tr, err := trace.Load("../fixtures/clamp_min.json")
	if err != nil {
		t.Fatal(err)
	}
	units, err := Run(tr, "joint")
	if err != nil {
		t.Fatal(err)
	}
	j := units[0].Joint
	if j == nil || len(j.Graph.Placeholders()) != 2 || j.Tangents[0] != "tangents_1" || len(j.GradTargets) != 1 {
		t.Fatalf("want primals_1, tangents_1 and one grad, got %+v", j)
	}
	out := runJoint(t, j)
	g, _ := interp.AsTensor(out[1])
	if f := g.Floats(); f[0] != 3 || f[1] != 0 {
		t.Errorf("grad of a = %v, want [3 0]", f)
	}
	txt := printJoint(units[0])
	for _, want := range []string{"primals_1, tangents_1, = fx_pytree", "return pytree.tree_unflatten([mul, "} {
		if !strings.Contains(txt, want) {
			t.Errorf("printout lacks %q:\n%s", want, txt)
		}
	}
}

// Inference graphs (nothing requires grad) get no joint graph.
func TestInferenceGraphsHaveNoJoint(t *testing.T) {
	paths, _ := filepath.Glob("../fixtures/*.json")
	inference := 0
	for _, p := range paths {
		for _, u := range jointVariants(t, p)["decomposed"] {
			needs := false
			for _, td := range u.Decomposed.Tensors {
				needs = needs || td.RequiresGrad
			}
			for _, n := range u.Decomposed.Placeholders() {
				needs = needs || (n.Meta.Tensor != nil && n.Meta.Tensor.RequiresGrad)
			}
			if !needs {
				inference++
				if u.Joint != nil {
					t.Errorf("%s: graph %s: nothing requires grad but a joint graph was built", p, u.Captured.Name)
				}
				if !strings.Contains(printJoint(u), "no joint graph") {
					t.Errorf("%s: printJoint of an inference graph: %q", p, printJoint(u))
				}
			}
		}
	}
	if inference == 0 {
		t.Fatal("no inference fixture")
	}
}

// An op without a derivative on the gradient path is an error naming the node.
func TestJointErrorNamesNode(t *testing.T) {
	gc := newGradGraph("noderiv")
	x := gc.input(tensor.FromFloats(tensor.Float64, []int{2, 3}, []float64{1, 2, 3, 4, 5, 6}), true)
	y := gc.call("var", x)
	gc.output(y)
	_, err := newJointBuilder(gc.g).build()
	if err == nil || !strings.Contains(err.Error(), `node "var_`) || !strings.Contains(err.Error(), "aten.var") {
		t.Errorf("err = %v, want one naming node var and aten.var", err)
	}
}
