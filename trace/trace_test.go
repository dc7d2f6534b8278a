package trace

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"gcdbg/ir"
	"gcdbg/tensor"
)

// doc wraps nodes (and optional extra graph fields / top-level tensors) in
// a one-graph trace called g0.
func doc(nodes, graphExtra, tensors string) string {
	if graphExtra != "" {
		graphExtra = "," + graphExtra
	}
	return fmt.Sprintf(`{"format":"gcdbg.trace","version":1,"name":"t",
"graphs":[{"name":"g0","nodes":[%s]%s}],"tensors":{%s}}`, nodes, graphExtra, tensors)
}

const (
	phX     = `{"name":"x","op":"placeholder","target":"x"}`
	outX    = `{"name":"output","op":"output","target":"output","args":[{"node":"x"}]}`
	tensorX = `"x":{"dtype":"float32","shape":[2],"data":"AAAAAAAAAAA="}`
)

// good is a small trace using every ARG kind, kwargs order, meta and a module.
var good = `{"format":"gcdbg.trace","version":1,"name":"good","future_field":{"x":1},
"producer":{"tool":"test","n":3},
"sources":[{"file":"m.py","text":"import torch\n"}],
"graphs":[{"name":"main","nodes":[
 {"name":"x","op":"placeholder","target":"x","args":[],"kwargs":{},
  "meta":{"dtype":"float32","shape":[2,3],"stride":[3,1],"requires_grad":true,
          "stack":[{"file":"m.py","line":4,"func":"forward","code":"y = x"}]}},
 {"name":"k","op":"placeholder","target":"k","meta":{"value":0}},
 {"name":"w","op":"get_attr","target":"fc.weight"},
 {"name":"f","op":"call_function","target":"torch.foo",
  "args":[{"node":"x"},null,true,42,3.0,1e3,-7,"mean",[1,[2,{"node":"w"}]],{"list":[0,2]},
          {"dtype":"bfloat16"},{"device":"cpu"},{"slice":[null,{"node":"k"},2]},{"ellipsis":true},
          {"float":"inf"},{"float":"-inf"},{"float":"nan"}],
  "kwargs":{"z":1,"a":{"node":"x"},"m":[]},
  "meta":{"items":[{"dtype":"float32","shape":[2],"stride":[1],"requires_grad":false},{"value":3}],"value":[2,3],"unknown":"ignored"}},
 {"name":"lin","op":"call_module","target":"fc","args":[{"node":"x"}],
  "module":{"type":"torch.nn.Linear","attrs":{"in_features":3,"out_features":2,"eps":1e-05},
            "params":{"weight":"fc.weight","bias":"fc.bias"}}},
 {"name":"output","op":"output","target":"output","args":[[{"node":"f"},{"node":"lin"}]]}],
 "break":{"reason":"why","stack":[{"file":"m.py","line":9,"func":"f","code":"if x:"}]},
 "guards":[{"kind":"TENSOR_MATCH","source":"L['x']","text":"check"}],
 "tensors":{"x":{"dtype":"float32","shape":[2,3],"init":{"dist":"arange"}}},
 "expected":{"outputs":[{"dtype":"int64","shape":[1],"data":"BwAAAAAAAAA="}],"grad_outputs":"ones",
             "grads":{"x":{"dtype":"float32","shape":[2,3],"init":{"dist":"zeros"}},
                      "fc.weight":{"dtype":"float32","shape":[2,3],"init":{"dist":"ones"}}}},
 "timing":{"device":"cpu","threads":2,"runs":20,"eager_forward_ms":0.5,"eager_backward_ms":1}
}],
"tensors":{
 "x":{"dtype":"float32","shape":[2,3],"init":{"dist":"zeros"}},
 "fc.weight":{"dtype":"float32","shape":[2,3],"init":{"dist":"normal","seed":1},"requires_grad":true},
 "fc.bias":{"dtype":"float16","shape":[2],"data":"ADwAQA==","requires_grad":true}}}`

func TestGoodRoundTrip(t *testing.T) {
	tr, err := Parse([]byte(good), t.TempDir(), "good.json")
	if err != nil {
		t.Fatal(err)
	}
	if tr.Name != "good" || tr.Producer["tool"] != "test" || tr.Producer["n"] != int64(3) {
		t.Errorf("name/producer: %q %v", tr.Name, tr.Producer)
	}
	if len(tr.Sources) != 1 || tr.Sources[0].File != "m.py" || tr.Sources[0].Text != "import torch\n" {
		t.Errorf("sources: %+v", tr.Sources)
	}
	g := tr.Graphs[0]
	if err := g.Validate(); err != nil {
		t.Fatal(err)
	}
	if g.Name != "main" || len(g.Nodes) != 6 {
		t.Fatalf("graph %q with %d nodes", g.Name, len(g.Nodes))
	}
	x, k, w, f, lin := g.Nodes[0], g.Nodes[1], g.Nodes[2], g.Nodes[3], g.Nodes[4]
	// meta
	if x.Meta.Tensor == nil || x.Meta.Tensor.DType != tensor.Float32 || !x.Meta.Tensor.Shape.Equal(ir.ShapeOf([]int{2, 3})) ||
		fmt.Sprint(x.Meta.Tensor.Stride) != "[3 1]" || !x.Meta.Tensor.RequiresGrad {
		t.Errorf("x meta: %+v", x.Meta.Tensor)
	}
	if len(x.Meta.Stack) != 1 || x.Meta.Stack[0] != (ir.Frame{File: "m.py", Line: 4, Func: "forward", Code: "y = x"}) {
		t.Errorf("x stack: %+v", x.Meta.Stack)
	}
	if !k.Meta.HasValue || k.Meta.Value != int64(0) || k.Meta.Tensor != nil {
		t.Errorf("k meta: %+v", k.Meta)
	}
	if len(f.Meta.Items) != 2 || f.Meta.Items[0] == nil || f.Meta.Items[1] != nil || !f.Meta.HasValue {
		t.Errorf("f meta: %+v", f.Meta)
	}
	if v, ok := f.Meta.Value.(ir.Tuple); !ok || len(v) != 2 || v[0] != int64(2) {
		t.Errorf("f meta.value: %#v", f.Meta.Value)
	}
	// args of every kind
	a := f.Args
	want := []any{x, nil, true, int64(42), 3.0, 1000.0, int64(-7), "mean"}
	for i, wv := range want {
		if a[i] != wv {
			t.Errorf("args[%d] = %#v, want %#v", i, a[i], wv)
		}
	}
	if tu, ok := a[8].(ir.Tuple); !ok || tu[0] != int64(1) || tu[1].(ir.Tuple)[1] != w {
		t.Errorf("args[8] = %#v", a[8])
	}
	if l, ok := a[9].(ir.List); !ok || len(l) != 2 || l[1] != int64(2) {
		t.Errorf("args[9] = %#v", a[9])
	}
	if a[10] != tensor.BFloat16 || a[11] != ir.Device("cpu") {
		t.Errorf("dtype/device: %#v %#v", a[10], a[11])
	}
	if s, ok := a[12].(ir.Slice); !ok || s.Start != nil || s.Stop != k || s.Step != int64(2) {
		t.Errorf("slice: %#v", a[12])
	}
	if a[13] != (ir.Ellipsis{}) {
		t.Errorf("ellipsis: %#v", a[13])
	}
	if !math.IsInf(a[14].(float64), 1) || !math.IsInf(a[15].(float64), -1) || !math.IsNaN(a[16].(float64)) {
		t.Errorf("non-finite: %v %v %v", a[14], a[15], a[16])
	}
	var kw []string
	for _, kv := range f.Kwargs {
		kw = append(kw, kv.Name)
	}
	if strings.Join(kw, ",") != "z,a,m" {
		t.Errorf("kwargs order %v", kw)
	}
	if v, _ := f.Kwarg("a"); v != x {
		t.Errorf("kwarg a = %#v", v)
	}
	// module
	m := lin.Module
	if m == nil || m.Type != "torch.nn.Linear" || m.Attrs["in_features"] != int64(3) || m.Attrs["eps"] != 1e-05 ||
		m.Params["weight"] != "fc.weight" || m.Params["bias"] != "fc.bias" {
		t.Errorf("module: %+v", m)
	}
	// tensors: graph-local x (arange) wins over the trace's x (zeros)
	tx := g.Tensors["x"]
	if tx == nil || fmt.Sprint(tx.T.Floats()) != "[0 1 2 3 4 5]" || !tx.RequiresGrad || tx.Origin != "init:arange" {
		t.Errorf("x tensor: %+v", tx)
	}
	if tw := g.Tensors["fc.weight"]; tw == nil || !tw.RequiresGrad || tw.T.DType != tensor.Float32 {
		t.Errorf("fc.weight: %+v", tw)
	}
	if tb := g.Tensors["fc.bias"]; tb == nil || fmt.Sprint(tb.T.Floats()) != "[1 2]" || tb.Origin != "data" {
		t.Errorf("fc.bias: %+v", tb)
	}
	if _, ok := g.Tensors["k"]; ok {
		t.Errorf("non-tensor placeholder k got a tensor")
	}
	// graph extras
	if g.Break == nil || g.Break.Reason != "why" || len(g.Break.Stack) != 1 {
		t.Errorf("break: %+v", g.Break)
	}
	if len(g.Guards) != 1 || g.Guards[0].Kind != "TENSOR_MATCH" {
		t.Errorf("guards: %+v", g.Guards)
	}
	if g.Timing == nil || g.Timing.Threads != 2 || g.Timing.Runs != 20 || g.Timing.EagerForwardMS != 0.5 || g.Timing.EagerBackwardMS != 1 {
		t.Errorf("timing: %+v", g.Timing)
	}
	ex := g.Expected
	if ex == nil || len(ex.Outputs) != 1 || ex.Outputs[0].Ints()[0] != 7 || ex.GradOutputs != nil ||
		strings.Join(ex.GradOrder, ",") != "x,fc.weight" || ex.Grads["fc.weight"].Floats()[5] != 1 {
		t.Errorf("expected: %+v", ex)
	}
	// the printer accepts what the loader built
	if s := ir.FXGraph(g); !strings.Contains(s, "torch.foo") {
		t.Errorf("FXGraph:\n%s", s)
	}
}

type ruleCase struct {
	name               string
	trace              string
	graph, node, field string
	msg                string
}

func ruleCases() []ruleCase {
	return []ruleCase{
		{"unknown format", `{"format":"onnx","version":1,"graphs":[]}`, "", "", "format", `unknown format "onnx"`},
		{"missing format", `{"version":1,"graphs":[]}`, "", "", "format", `missing`},
		{"unknown version", `{"format":"gcdbg.trace","version":2,"graphs":[]}`, "", "", "version", `unknown version 2`},
		{"float version", `{"format":"gcdbg.trace","version":1.0,"graphs":[]}`, "", "", "version", `unknown version 1.0`},
		{"no graphs", `{"format":"gcdbg.trace","version":1,"graphs":[]}`, "", "", "graphs", `at least one graph`},
		{"not json", `{"format":`, "", "", "", `invalid JSON`},
		{"no nodes", doc(``, "", ""), "g0", "", "nodes", "at least one node"},
		{"output_keys not an array", doc(phX+`,`+outX, `"output_keys":"loss"`, tensorX), "g0", "", "output_keys", "want an array of strings"},
		{"output key not a string", doc(phX+`,`+outX, `"output_keys":[3]`, tensorX), "g0", "", "output_keys[0]", "want a string"},
		{"duplicate node name", doc(phX+`,`+phX+`,`+outX, "", tensorX), "g0", "x", "name", `used twice`},
		{"undefined arg", doc(phX+`,{"name":"linear","op":"call_function","target":"torch.relu","args":[{"node":"x"},{"node":"fc9"}]},`+outX, "", tensorX),
			"g0", "linear", "args[1]", `node "fc9" is not defined before this node`},
		{"forward reference in kwargs", doc(phX+`,{"name":"a","op":"call_function","target":"f","kwargs":{"other":{"node":"b"}}},{"name":"b","op":"call_function","target":"f","args":[{"node":"a"}]},`+outX, "", tensorX),
			"g0", "a", `kwargs["other"]`, `node "b" is not defined before this node`},
		{"self reference", doc(phX+`,{"name":"a","op":"call_function","target":"f","args":[[{"slice":[{"node":"a"},null,null]}]]},`+outX, "", tensorX),
			"g0", "a", `args[0][0].slice[0]`, `node "a" is not defined`},
		{"no output", doc(phX, "", tensorX), "g0", "", "nodes", "no output node"},
		{"several outputs", doc(phX+`,`+outX+`,{"name":"output_1","op":"output","target":"output","args":[{"node":"x"}]}`, "", tensorX),
			"g0", "output_1", "op", "several output nodes"},
		{"output not last", doc(phX+`,`+outX+`,{"name":"y","op":"call_function","target":"torch.relu","args":[{"node":"x"}]}`, "", tensorX),
			"g0", "output", "op", "must be last"},
		{"unknown op", doc(phX+`,{"name":"y","op":"call_magic","target":"f"},`+outX, "", tensorX), "g0", "y", "op", `unknown op "call_magic"`},
		{"placeholder without tensor", doc(phX+`,`+outX, "", ""), "g0", "x", "target", `placeholder "x" has no tensor`},
		{"get_attr without tensor", doc(`{"name":"w","op":"get_attr","target":"fc.weight"},{"name":"output","op":"output","target":"output","args":[{"node":"w"}]}`, "", ""),
			"g0", "w", "target", `get_attr "fc.weight" has no tensor`},
		{"module param without tensor", doc(phX+`,{"name":"fc","op":"call_module","target":"fc","args":[{"node":"x"}],"module":{"type":"torch.nn.Linear","params":{"weight":"fc.weight"}}},`+outX, "", tensorX),
			"g0", "fc", `module.params["weight"]`, `parameter "fc.weight" has no tensor`},
		{"call_module without module", doc(phX+`,{"name":"fc","op":"call_module","target":"fc","args":[{"node":"x"}]},`+outX, "", tensorX),
			"g0", "fc", "module", "needs its module"},
		{"bytes do not match shape", doc(phX+`,`+outX, "", `"x":{"dtype":"float32","shape":[3],"data":"AAAAAAAAAAA="}`),
			"g0", "x", `tensors["x"].data`, "8 bytes of data for float32[3], want 12"},
		{"too much data", doc(phX+`,`+outX, "", `"x":{"dtype":"uint8","shape":[1],"data":"`+strings.Repeat("A", 400)+`"}`),
			"g0", "x", `tensors["x"].data`, "want 1"},
		{"bad base64", doc(phX+`,`+outX, "", `"x":{"dtype":"uint8","shape":[1],"data":"!!!!"}`),
			"g0", "x", `tensors["x"].data`, "base64"},
		{"negative dimension", doc(phX+`,`+outX, "", `"x":{"dtype":"float32","shape":[2,-1],"data":""}`),
			"g0", "x", `tensors["x"].shape`, "negative"},
		{"element count overflow", doc(phX+`,`+outX, "", `"x":{"dtype":"float32","shape":[1073741824,1073741824,1073741824,0],"data":""}`),
			"g0", "x", `tensors["x"].shape`, "overflows"},
		{"dimension overflows int64", doc(phX+`,`+outX, "", `"x":{"dtype":"float32","shape":[99999999999999999999],"data":""}`),
			"g0", "x", `tensors["x"].shape`, "overflows int64"},
		{"huge init", doc(phX+`,`+outX, "", `"x":{"dtype":"float32","shape":[1099511627776],"init":{"dist":"zeros"}}`),
			"g0", "x", `tensors["x"].init`, "exceeds"},
		{"unknown dtype", doc(phX+`,`+outX, "", `"x":{"dtype":"complex64","shape":[1],"data":"AAAAAAAAAAA="}`),
			"g0", "x", `tensors["x"].dtype`, `unknown dtype "complex64"`},
		{"data and init", doc(phX+`,`+outX, "", `"x":{"dtype":"float32","shape":[2],"data":"AAAAAAAAAAA=","init":{"dist":"zeros"}}`),
			"g0", "x", `tensors["x"]`, "exactly one of"},
		{"unknown init dist", doc(phX+`,`+outX, "", `"x":{"dtype":"float32","shape":[2],"init":{"dist":"cauchy"}}`),
			"g0", "x", `tensors["x"].init.dist`, `unknown distribution "cauchy"`},
		{"absolute file", doc(phX+`,`+outX, "", `"x":{"dtype":"float32","shape":[2],"file":"/etc/passwd","key":"x"}`),
			"g0", "x", `tensors["x"].file`, "absolute path"},
		{"dotdot file", doc(phX+`,`+outX, "", `"x":{"dtype":"float32","shape":[2],"file":"../x.safetensors","key":"x"}`),
			"g0", "x", `tensors["x"].file`, `leaves the trace's folder`},
		{"dotdot inside file", doc(phX+`,`+outX, "", `"x":{"dtype":"float32","shape":[2],"file":"a/../../x","key":"x"}`),
			"g0", "x", `tensors["x"].file`, `leaves the trace's folder`},
		{"missing file", doc(phX+`,`+outX, "", `"x":{"dtype":"float32","shape":[2],"file":"nope.safetensors","key":"x"}`),
			"g0", "x", `tensors["x"].file`, `does not exist`},
		{"unknown ARG object", doc(phX+`,{"name":"y","op":"call_function","target":"f","args":[{"tensor":1}]},`+outX, "", tensorX),
			"g0", "y", "args[0]", "unknown value"},
		{"bad float arg", doc(phX+`,{"name":"y","op":"call_function","target":"f","args":[{"float":"huge"}]},`+outX, "", tensorX),
			"g0", "y", "args[0].float", `unknown float "huge"`},
		{"int arg overflows", doc(phX+`,{"name":"y","op":"call_function","target":"f","args":[1,9223372036854775808]},`+outX, "", tensorX),
			"g0", "y", "args[1]", "overflows int64"},
		{"float slice part", doc(phX+`,{"name":"y","op":"call_function","target":"f","args":[{"slice":[1.5,null,null]}]},`+outX, "", tensorX),
			"g0", "y", "args[0].slice[0]", "float"},
		{"deep nesting", doc(phX+`,{"name":"y","op":"call_function","target":"f","args":[`+strings.Repeat("[", 100)+strings.Repeat("]", 100)+`]},`+outX, "", tensorX),
			"g0", "y", "args[0]" + strings.Repeat("[0]", 65), "deeper than"},
		{"negative meta dim", doc(`{"name":"x","op":"placeholder","target":"x","meta":{"dtype":"float32","shape":[-2]}},`+outX, "", tensorX),
			"g0", "x", "meta.shape", "negative"},
		{"node ref in meta.value", doc(phX+`,{"name":"y","op":"call_function","target":"f","meta":{"value":{"node":"x"}}},`+outX, "", tensorX),
			"g0", "y", "meta.value", "not allowed"},
		{"grads key unknown", doc(phX+`,`+outX, `"expected":{"outputs":[],"grads":{"w":{"dtype":"float32","shape":[2],"data":"AAAAAAAAAAA="}}}`, tensorX),
			"g0", "", `expected.grads["w"]`, `names no placeholder or parameter`},
		{"bad grad_outputs", doc(phX+`,`+outX, `"expected":{"outputs":[],"grad_outputs":"zeros"}`, tensorX),
			"g0", "", `expected.grad_outputs`, `unknown grad_outputs "zeros"`},
		{"bad expected output", doc(phX+`,`+outX, `"expected":{"outputs":[{"dtype":"float32","shape":[1],"data":""}]}`, tensorX),
			"g0", "", `expected.outputs[0].data`, `want 4`},
		{"unused bad tensor", doc(phX+`,`+outX, "", tensorX+`,"junk":{"dtype":"float32","shape":[1],"data":""}`),
			"", "", `tensors["junk"].data`, `want 4`},
		{"node name missing", doc(`{"op":"placeholder","target":"x"},`+outX, "", tensorX), "g0", "", "nodes[0].name", "missing"},
		{"duplicate JSON key", `{"format":"gcdbg.trace","format":"gcdbg.trace","version":1}`, "", "", "", "duplicate object key"},
	}
}

func TestRules(t *testing.T) {
	for _, c := range ruleCases() {
		t.Run(c.name, func(t *testing.T) {
			checkErr(t, c, t.TempDir())
		})
	}
}

func checkErr(t *testing.T, c ruleCase, dir string) {
	t.Helper()
	_, err := Parse([]byte(c.trace), dir, "t.json")
	if err == nil {
		t.Fatalf("no error")
	}
	var te *Error
	if !errors.As(err, &te) {
		t.Fatalf("error %T is not a *trace.Error: %v", err, err)
	}
	msg := err.Error()
	if te.File != "t.json" || !strings.HasPrefix(msg, "t.json: ") {
		t.Errorf("error does not name the file: %s", msg)
	}
	if te.Graph != c.graph || te.Node != c.node || te.Field != c.field {
		t.Errorf("error at graph %q node %q field %q, want %q %q %q: %s", te.Graph, te.Node, te.Field, c.graph, c.node, c.field, msg)
	}
	for _, part := range []string{fmt.Sprintf("graph %q: ", c.graph), fmt.Sprintf("node %q: ", c.node), c.field + ": "} {
		if part != `graph "": ` && part != `node "": ` && part != ": " && !strings.Contains(msg, part) {
			t.Errorf("message lacks %q: %s", part, msg)
		}
	}
	if !strings.Contains(msg, c.msg) {
		t.Errorf("message lacks %q: %s", c.msg, msg)
	}
}

func TestErrorFormat(t *testing.T) {
	e := &Error{File: "mlp.json", Graph: "g0", Node: "linear", Field: "args[1]", Msg: `node "fc9" is not defined before this node`}
	if got, want := e.Error(), `mlp.json: graph "g0": node "linear": args[1]: node "fc9" is not defined before this node`; got != want {
		t.Errorf("got %s\nwant %s", got, want)
	}
	if got := (&Error{File: "a.json", Msg: "m"}).Error(); got != "a.json: m" {
		t.Errorf("got %s", got)
	}
}

func TestDefaultGraphNameAndNonTensorPlaceholder(t *testing.T) {
	src := `{"format":"gcdbg.trace","version":1,"graphs":[{"nodes":[
{"name":"b","op":"placeholder","target":"b","meta":{"value":0}},
{"name":"output","op":"output","target":"output","args":[{"node":"b"}]}]}]}`
	tr, err := Parse([]byte(src), "", "x.json")
	if err != nil {
		t.Fatal(err)
	}
	if tr.Graphs[0].Name != "g0" || tr.Name != "x" {
		t.Errorf("names %q %q", tr.Graphs[0].Name, tr.Name)
	}
}

// --- safetensors --------------------------------------------------------

type stTensor struct {
	name, dtype string
	shape       []int
	data        []byte
}

// encodeST is a tiny safetensors writer.
func encodeST(ts []stTensor) []byte {
	hdr := map[string]any{"__metadata__": map[string]string{"format": "pt"}}
	off := 0
	var buf []byte
	for _, t := range ts {
		hdr[t.name] = map[string]any{"dtype": t.dtype, "shape": t.shape, "data_offsets": []int{off, off + len(t.data)}}
		off += len(t.data)
		buf = append(buf, t.data...)
	}
	hj, _ := json.Marshal(hdr)
	for len(hj)%8 != 0 {
		hj = append(hj, ' ')
	}
	out := binary.LittleEndian.AppendUint64(nil, uint64(len(hj)))
	out = append(out, hj...)
	return append(out, buf...)
}

func f32bytes(vs ...float32) []byte {
	var b []byte
	for _, v := range vs {
		b = binary.LittleEndian.AppendUint32(b, math.Float32bits(v))
	}
	return b
}

func rawST(header string, buf []byte) []byte {
	out := binary.LittleEndian.AppendUint64(nil, uint64(len(header)))
	out = append(out, header...)
	return append(out, buf...)
}

func TestSafetensorsSidecar(t *testing.T) {
	dir := t.TempDir()
	st := encodeST([]stTensor{
		{"w", "F32", []int{2, 2}, f32bytes(1, 2, 3, 4)},
		{"i", "I64", []int{1}, binary.LittleEndian.AppendUint64(nil, 9)},
	})
	if err := os.WriteFile(filepath.Join(dir, "w.safetensors"), st, 0o644); err != nil {
		t.Fatal(err)
	}
	src := doc(`{"name":"w","op":"get_attr","target":"w"},{"name":"i","op":"get_attr","target":"i"},{"name":"output","op":"output","target":"output","args":[[{"node":"w"},{"node":"i"}]]}`, "",
		`"w":{"dtype":"float32","shape":[2,2],"file":"w.safetensors","key":"w","requires_grad":true},"i":{"dtype":"int64","shape":[1],"file":"./w.safetensors","key":"i"}`)
	if err := os.WriteFile(filepath.Join(dir, "t.json"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	tr, err := Load(filepath.Join(dir, "t.json"))
	if err != nil {
		t.Fatal(err)
	}
	g := tr.Graphs[0]
	if w := g.Tensors["w"]; fmt.Sprint(w.T.Floats()) != "[1 2 3 4]" || !w.RequiresGrad || w.Origin != "file:w" {
		t.Errorf("w = %+v", w)
	}
	if i := g.Tensors["i"]; i.T.Ints()[0] != 9 {
		t.Errorf("i = %+v", i)
	}
	m, err := LoadSafetensors(filepath.Join(dir, "w.safetensors"))
	if err != nil || len(m) != 2 || m["w"].Shape[1] != 2 {
		t.Errorf("LoadSafetensors: %v %v", m, err)
	}
	// header disagreeing with the trace
	checkErr(t, ruleCase{trace: doc(`{"name":"w","op":"get_attr","target":"w"},{"name":"output","op":"output","target":"output","args":[{"node":"w"}]}`, "",
		`"w":{"dtype":"float32","shape":[4],"file":"w.safetensors","key":"w"}`), graph: "g0", node: "w", field: `tensors["w"].key`, msg: "float32[2 2]"}, dir)
	checkErr(t, ruleCase{trace: doc(`{"name":"w","op":"get_attr","target":"w"},{"name":"output","op":"output","target":"output","args":[{"node":"w"}]}`, "",
		`"w":{"dtype":"float32","shape":[2,2],"file":"w.safetensors","key":"nope"}`), graph: "g0", node: "w", field: `tensors["w"].key`, msg: `no tensor "nope"`}, dir)
}

func TestSidecarEscapes(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "trace")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	st := encodeST([]stTensor{{"x", "F32", []int{2}, f32bytes(1, 2)}})
	if err := os.WriteFile(filepath.Join(root, "outside.safetensors"), st, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(root, "outside.safetensors"), filepath.Join(dir, "link.safetensors")); err != nil {
		t.Skip("no symlinks:", err)
	}
	if err := os.Symlink(root, filepath.Join(dir, "up")); err != nil {
		t.Fatal(err)
	}
	for _, file := range []string{"link.safetensors", "up/outside.safetensors", "../outside.safetensors", filepath.Join(root, "outside.safetensors")} {
		c := ruleCase{trace: doc(phX+`,`+outX, "", `"x":{"dtype":"float32","shape":[2],"file":"`+file+`","key":"x"}`),
			graph: "g0", node: "x", field: `tensors["x"].file`, msg: "folder"}
		t.Run(file, func(t *testing.T) { checkErr(t, c, dir) })
	}
	// a symlink that stays inside is fine
	if err := os.WriteFile(filepath.Join(dir, "real.safetensors"), st, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("real.safetensors", filepath.Join(dir, "alias.safetensors")); err != nil {
		t.Fatal(err)
	}
	src := doc(phX+`,`+outX, "", `"x":{"dtype":"float32","shape":[2],"file":"alias.safetensors","key":"x"}`)
	if _, err := Parse([]byte(src), dir, "t.json"); err != nil {
		t.Errorf("inside symlink refused: %v", err)
	}
}

func TestHostileSafetensors(t *testing.T) {
	good := f32bytes(1, 2)
	cases := map[string][]byte{
		"too short":           {1, 2, 3},
		"header past the end": binary.LittleEndian.AppendUint64(nil, 1<<62),
		"header not JSON":     rawST("not json", nil),
		"header not object":   rawST("[1,2]", nil),
		"unknown dtype":       rawST(`{"x":{"dtype":"C64","shape":[1],"data_offsets":[0,8]}}`, good),
		"I16 dtype":           rawST(`{"x":{"dtype":"I16","shape":[4],"data_offsets":[0,8]}}`, good),
		"offset out of range": rawST(`{"x":{"dtype":"F32","shape":[2],"data_offsets":[4,12]}}`, good),
		"offsets reversed":    rawST(`{"x":{"dtype":"F32","shape":[0],"data_offsets":[8,0]}}`, good),
		"negative offset":     rawST(`{"x":{"dtype":"F32","shape":[2],"data_offsets":[-1,7]}}`, good),
		"size mismatch":       rawST(`{"x":{"dtype":"F32","shape":[3],"data_offsets":[0,8]}}`, good),
		"overlap":             rawST(`{"x":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},"y":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}}`, good),
		"gap":                 rawST(`{"x":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}}`, good),
		"not covering":        rawST(`{"x":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}}`, good),
		"shape overflow":      rawST(`{"x":{"dtype":"F32","shape":[4294967296,4294967296],"data_offsets":[0,8]}}`, good),
		"negative dim":        rawST(`{"x":{"dtype":"F32","shape":[-2],"data_offsets":[0,8]}}`, good),
		"huge offsets":        rawST(`{"x":{"dtype":"F32","shape":[2],"data_offsets":[0,99999999999999999999]}}`, good),
	}
	names := make([]string, 0, len(cases))
	for n := range cases {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		if _, err := ParseSafetensors(cases[n]); err == nil {
			t.Errorf("%s: no error", n)
		} else if _, ok := err.(*Error); !ok {
			t.Errorf("%s: %T", n, err)
		}
	}
	m, err := ParseSafetensors(rawST(`{"__metadata__":{"a":"b"},"x":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},"e":{"dtype":"BOOL","shape":[0],"data_offsets":[8,8]}}`, good))
	if err != nil || fmt.Sprint(m["x"].Floats()) != "[1 2]" || m["e"].Numel() != 0 {
		t.Errorf("good file: %v %v", m, err)
	}
}

// --- init -----------------------------------------------------------------

func initTensor(t *testing.T, spec string, shape string) *tensor.Tensor {
	t.Helper()
	src := doc(phX+`,`+outX, "", `"x":{"dtype":"float32","shape":`+shape+`,"init":`+spec+`}`)
	tr, err := Parse([]byte(src), "", "t.json")
	if err != nil {
		t.Fatal(err)
	}
	return tr.Graphs[0].Tensors["x"].T
}

func TestInitDeterminism(t *testing.T) {
	a := initTensor(t, `{"dist":"normal","seed":7,"mean":2.0,"std":0.5}`, "[10000]").Floats()
	b := initTensor(t, `{"dist":"normal","seed":7,"mean":2.0,"std":0.5}`, "[10000]").Floats()
	c := initTensor(t, `{"dist":"normal","seed":8,"mean":2.0,"std":0.5}`, "[10000]").Floats()
	if fmt.Sprint(a) != fmt.Sprint(b) {
		t.Errorf("same seed gave different values")
	}
	if fmt.Sprint(a) == fmt.Sprint(c) {
		t.Errorf("different seeds gave the same values")
	}
	var sum, sq float64
	for _, v := range a {
		sum += v
	}
	mean := sum / float64(len(a))
	for _, v := range a {
		sq += (v - mean) * (v - mean)
	}
	std := math.Sqrt(sq / float64(len(a)))
	if math.Abs(mean-2) > 0.03 || math.Abs(std-0.5) > 0.03 {
		t.Errorf("normal(2, 0.5): mean %v std %v", mean, std)
	}
	u := initTensor(t, `{"dist":"uniform","seed":1,"low":-1,"high":3}`, "[1000]").Floats()
	for _, v := range u {
		if v < -1 || v >= 3 {
			t.Fatalf("uniform value %v outside [-1, 3)", v)
		}
	}
	if o := initTensor(t, `{"dist":"ones"}`, "[2, 2]").Floats(); fmt.Sprint(o) != "[1 1 1 1]" {
		t.Errorf("ones: %v", o)
	}
	if z := initTensor(t, `{"dist":"zeros"}`, "[3]").Floats(); fmt.Sprint(z) != "[0 0 0]" {
		t.Errorf("zeros: %v", z)
	}
	if r := initTensor(t, `{"dist":"arange"}`, "[2, 2]").Floats(); fmt.Sprint(r) != "[0 1 2 3]" {
		t.Errorf("arange: %v", r)
	}
}

func TestFixturesLoad(t *testing.T) {
	files, _ := filepath.Glob("../fixtures/*.json")
	for _, f := range files {
		tr, err := Load(f)
		if err != nil {
			t.Errorf("%v", err)
			continue
		}
		for _, g := range tr.Graphs {
			if err := g.Validate(); err != nil {
				t.Errorf("%s: %v", f, err)
			}
		}
	}
}

// output_keys name the output's elements (a dict's keys); names that do
// not line up with the elements are dropped, not an error.
func TestOutputKeys(t *testing.T) {
	two := `{"name":"output","op":"output","target":"output","args":[[{"node":"x"},{"node":"x"}]]}`
	for _, c := range []struct {
		extra string
		want  []string
	}{
		{`"output_keys":["loss","logits"]`, []string{"loss", "logits"}},
		{`"output_keys":["loss"]`, nil},
		{``, nil},
	} {
		tr, err := Parse([]byte(doc(phX+`,`+two, c.extra, tensorX)), t.TempDir(), "t.json")
		if err != nil {
			t.Fatalf("%s: %v", c.extra, err)
		}
		if got := tr.Graphs[0].OutputKeys; !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: keys %q, want %q", c.extra, got, c.want)
		}
	}
}
