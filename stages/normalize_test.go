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

func loadUnits(t *testing.T, path string) []*Unit {
	t.Helper()
	tr, err := trace.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	units, err := Run(tr, "normalized")
	if err != nil {
		t.Fatal(err)
	}
	return units
}

// After normalization only canonical ops remain, every node keeps
// provenance to a captured node, and every tensor value has inferred metadata
// that agrees with the producer's recorded meta.
func TestNormalizedGraphsAreCanonical(t *testing.T) {
	paths, _ := filepath.Glob("../fixtures/*.json")
	zoo, _ := filepath.Glob("testdata/*.json")
	for _, p := range append(paths, zoo...) {
		for _, u := range loadUnits(t, p) {
			captured := map[string]*ir.Node{}
			for _, n := range u.Captured.Nodes {
				captured[n.Name] = n
			}
			for _, n := range u.Normalized.Nodes {
				switch n.Op {
				case ir.CallFunction:
					if ir.Lookup(n.Target) == nil {
						t.Errorf("%s: node %s: target %s is not canonical", p, n.Name, n.Target)
					}
				case ir.CallMethod, ir.CallModule:
					t.Errorf("%s: node %s: %s survived normalization", p, n.Name, n.Op)
				}
				if len(n.From) == 0 || captured[n.From[0]] == nil {
					t.Errorf("%s: node %s: provenance %v does not name a captured node", p, n.Name, n.From)
				}
				if c := captured[n.Name]; c != nil && c.Meta.Tensor != nil && n.Meta.Tensor != nil {
					if !c.Meta.Tensor.Shape.Equal(n.Meta.Tensor.Shape) || c.Meta.Tensor.DType != n.Meta.Tensor.DType {
						t.Errorf("%s: node %s: inferred %s, recorded %s", p, n.Name, n.Meta.Tensor, c.Meta.Tensor)
					}
				}
			}
		}
	}
}

// Each module type becomes the functional op torch.nn's forward calls.
func TestModulesBecomeFunctionalCalls(t *testing.T) {
	u := loadUnits(t, "testdata/zoo_modules.json")[0]
	want := map[string]string{
		"conv": "aten.conv2d", "dw": "aten.conv2d", "bn": "aten.batch_norm", "relu": "aten.relu",
		"maxpool": "aten.max_pool2d", "avgpool": "aten.avg_pool2d", "adapt": "aten.adaptive_avg_pool2d",
		"flatten": "aten.flatten", "fc": "aten.linear", "ln": "aten.layer_norm", "gelu": "aten.gelu",
		"silu": "aten.silu", "tanh": "aten.tanh", "sig": "aten.sigmoid", "drop": "aten.dropout",
		"emb": "aten.embedding", "softmax": "aten.softmax", "logsoftmax": "aten.log_softmax",
	}
	for name, target := range want {
		n := u.Normalized.Node(name)
		if n == nil {
			t.Errorf("module node %s missing after normalization", name)
			continue
		}
		if n.Target != target {
			t.Errorf("%s became %s, want %s", name, n.Target, target)
		}
	}
	if u.Normalized.Node("ident") != nil {
		t.Errorf("Identity should vanish (its users read its input)")
	}
	// BatchNorm's buffers are read through get_attr nodes made from module params.
	var attrs []string
	for _, n := range u.Normalized.Nodes {
		if n.Op == ir.GetAttr && strings.HasPrefix(n.Target, "bn.") {
			attrs = append(attrs, n.Target)
		}
	}
	if len(attrs) != 4 {
		t.Errorf("bn params as get_attr: %v, want weight, bias, running_mean, running_var", attrs)
	}
}

// graphOf builds a one-op graph over x [2,3] (and y [2,3]) with the given
// captured node, runs it through normalization and the interpreter.
func runOne(t *testing.T, op, target string, args string, kwargs string) (*ir.Node, *tensor.Tensor, error) {
	t.Helper()
	x := tensor.FromFloats(tensor.Float32, []int{2, 3}, []float64{-1.5, 0.25, 2, 3, -0.5, 1})
	y := tensor.FromFloats(tensor.Float32, []int{2, 3}, []float64{0.5, -2, 1, 4, 2, -1})
	js := fmt.Sprintf(`{"format":"gcdbg.trace","version":1,"name":"t","graphs":[{"name":"g0","nodes":[
	 {"name":"x","op":"placeholder","target":"x"},
	 {"name":"y","op":"placeholder","target":"y"},
	 {"name":"r","op":%q,"target":%q,"args":%s,"kwargs":%s},
	 {"name":"output","op":"output","target":"output","args":[{"node":"r"}]}]}],
	 "tensors":{"x":%s,"y":%s}}`, op, target, args, kwargs, tensorJSON(x), tensorJSON(y))
	tr, err := trace.Parse([]byte(js), t.TempDir(), "t.json")
	if err != nil {
		t.Fatal(err)
	}
	units, err := Run(tr, "normalized")
	if err != nil {
		return nil, nil, err
	}
	g := units[0].Normalized
	vals, err := interp.Run(g, nil)
	if err != nil {
		t.Fatal(err)
	}
	return g.Node("r"), vals[0].(*tensor.Tensor), nil
}

func tensorJSON(t *tensor.Tensor) string {
	return fmt.Sprintf(`{"dtype":"float32","shape":%s,"data":%q}`, strings.ReplaceAll(fmt.Sprint(t.Shape), " ", ","), b64(t.Bytes()))
}

// Every spelling of one op normalizes to the same canonical op with the
// same result.
func TestAliasesAgree(t *testing.T) {
	groups := []struct {
		canonical string
		spellings [][4]string // op, target, args, kwargs
	}{
		{"aten.add", [][4]string{
			{"call_function", "operator.add", `[{"node":"x"},{"node":"y"}]`, `{}`},
			{"call_function", "torch.add", `[{"node":"x"},{"node":"y"}]`, `{}`},
			{"call_method", "add", `[{"node":"x"},{"node":"y"}]`, `{}`},
			{"call_function", "torch.ops.aten.add.Tensor", `[{"node":"x"},{"node":"y"}]`, `{}`},
			{"call_function", "torch.Tensor.add", `[{"node":"x"}]`, `{"other":{"node":"y"}}`},
		}},
		{"aten.div", [][4]string{
			{"call_function", "operator.truediv", `[{"node":"x"},{"node":"y"}]`, `{}`},
			{"call_function", "torch.div", `[{"node":"x"},{"node":"y"}]`, `{}`},
			{"call_function", "torch.true_divide", `[{"node":"x"},{"node":"y"}]`, `{}`},
			{"call_method", "div", `[{"node":"x"},{"node":"y"}]`, `{}`},
		}},
		{"aten.relu", [][4]string{
			{"call_function", "torch.relu", `[{"node":"x"}]`, `{}`},
			{"call_function", "torch.nn.functional.relu", `[{"node":"x"}]`, `{"inplace":false}`},
			{"call_method", "relu", `[{"node":"x"}]`, `{}`},
			{"call_function", "torch.ops.aten.relu.default", `[{"node":"x"}]`, `{}`},
		}},
		{"aten.softmax", [][4]string{
			{"call_function", "torch.softmax", `[{"node":"x"},1]`, `{}`},
			{"call_function", "torch.nn.functional.softmax", `[{"node":"x"}]`, `{"dim":1,"_stacklevel":5}`},
			{"call_method", "softmax", `[{"node":"x"}]`, `{"dim":-1}`},
			{"call_function", "torch.ops.aten._softmax.default", `[{"node":"x"},1,false]`, `{}`},
		}},
		{"aten.linear", [][4]string{
			{"call_function", "torch._C._nn.linear", `[{"node":"x"},{"node":"y"}]`, `{}`},
			{"call_function", "torch.nn.functional.linear", `[{"node":"x"},{"node":"y"}]`, `{}`},
		}},
		{"aten.gelu", [][4]string{
			{"call_function", "torch._C._nn.gelu", `[{"node":"x"}]`, `{}`},
			{"call_function", "torch.nn.functional.gelu", `[{"node":"x"}]`, `{"approximate":"none"}`},
		}},
		{"aten.to_dtype", [][4]string{
			{"call_method", "double", `[{"node":"x"}]`, `{}`},
			{"call_method", "to", `[{"node":"x"},{"dtype":"float64"}]`, `{}`},
			{"call_method", "to", `[{"node":"x"}]`, `{"dtype":{"dtype":"float64"}}`},
		}},
	}
	for _, grp := range groups {
		var first *tensor.Tensor
		for _, sp := range grp.spellings {
			n, got, err := runOne(t, sp[0], sp[1], sp[2], sp[3])
			if err != nil {
				t.Errorf("%s %s: %v", sp[0], sp[1], err)
				continue
			}
			if n.Target != grp.canonical {
				t.Errorf("%s %s normalized to %s, want %s", sp[0], sp[1], n.Target, grp.canonical)
			}
			if first == nil {
				first = got
				continue
			}
			if c := interp.Compare(got, first, interp.Tolerance{}); !c.Match {
				t.Errorf("%s %s gives a different result: %+v", sp[0], sp[1], c)
			}
		}
	}
}

func TestInplaceKwargSelectsInplaceOp(t *testing.T) {
	n, _, err := runOne(t, "call_function", "torch.nn.functional.relu", `[{"node":"x"}]`, `{"inplace":true}`)
	if err != nil {
		t.Fatal(err)
	}
	if n.Target != "aten.relu_" {
		t.Fatalf("F.relu(inplace=True) became %s", n.Target)
	}
}

func TestUnsupportedTargetIsNamed(t *testing.T) {
	_, _, err := runOne(t, "call_function", "torch.fft.fft", `[{"node":"x"}]`, `{}`)
	if err == nil {
		t.Fatal("an unknown target was accepted")
	}
	for _, want := range []string{`graph "g0"`, `node "r"`, "target", "torch.fft.fft", "eager fallback"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
	_, _, err = runOne(t, "call_method", "frobnicate", `[{"node":"x"}]`, `{}`)
	if err == nil || !strings.Contains(err.Error(), `"frobnicate"`) {
		t.Errorf("unknown method: %v", err)
	}
}

func TestBadArgumentsAreErrorsNotPanics(t *testing.T) {
	for _, c := range [][4]string{
		{"call_function", "torch.sum", `[{"node":"x"}]`, `{"dimension":1}`},
		{"call_function", "torch.sum", `[{"node":"x"},5]`, `{}`},
		{"call_method", "view", `[{"node":"x"},7]`, `{}`},
		{"call_function", "torch.matmul", `[{"node":"x"},{"node":"y"}]`, `{}`},
		{"call_function", "torch.cat", `[{"node":"x"}]`, `{}`},
		{"call_function", "operator.getitem", `[{"node":"x"},9]`, `{}`},
		{"call_function", "torch.nn.functional.embedding", `[{"node":"x"},{"node":"y"}]`, `{}`},
	} {
		_, _, err := runOne(t, c[0], c[1], c[2], c[3])
		if err == nil {
			t.Errorf("%s(%s, %s) was accepted", c[1], c[2], c[3])
			continue
		}
		if !strings.Contains(err.Error(), `node "r"`) {
			t.Errorf("%s: error does not name the node: %v", c[1], err)
		}
	}
}

func TestMetaDisagreementIsReported(t *testing.T) {
	js := `{"format":"gcdbg.trace","version":1,"graphs":[{"name":"g0","nodes":[
	 {"name":"x","op":"placeholder","target":"x","meta":{"dtype":"float32","shape":[2]}},
	 {"name":"s","op":"call_function","target":"torch.sin","args":[{"node":"x"}],"meta":{"dtype":"float32","shape":[3]}},
	 {"name":"output","op":"output","target":"output","args":[{"node":"s"}]}]}],
	 "tensors":{"x":{"dtype":"float32","shape":[2],"init":{"dist":"ones"}}}}`
	tr, err := trace.Parse([]byte(js), t.TempDir(), "m.json")
	if err != nil {
		t.Fatal(err)
	}
	_, err = Run(tr, "")
	if err == nil || !strings.Contains(err.Error(), `node "s"`) || !strings.Contains(err.Error(), "meta.shape") {
		t.Fatalf("want a meta.shape disagreement naming node s, got %v", err)
	}
}
