package trace

import (
	"testing"

	"gcdbg/tensor"
)

// bnDoc is a one-graph trace with a BatchNorm1d module (training given by
// trainingField, e.g. `,"training":true`), a dropout function node, and
// expected fields given by expectedExtra.
func bnDoc(trainingField, expectedExtra string) string {
	nodes := `{"name":"x","op":"placeholder","target":"x","meta":{"dtype":"float32","shape":[2,2]}},
{"name":"bn","op":"call_module","target":"bn","args":[{"node":"x"}],
 "module":{"type":"torch.nn.BatchNorm1d","attrs":{"num_features":2}` + trainingField + `,
 "params":{"running_mean":"bn.running_mean","running_var":"bn.running_var","num_batches_tracked":"bn.num_batches_tracked"}},
 "meta":{"dtype":"float32","shape":[2,2]}},
{"name":"drop","op":"call_function","target":"torch.nn.functional.dropout","args":[{"node":"bn"}],"kwargs":{"p":0.5,"training":true},
 "meta":{"dtype":"float32","shape":[2,2]}},
{"name":"output","op":"output","target":"output","args":[{"node":"drop"}]}`
	extra := ""
	if expectedExtra != "" {
		extra = `"expected":{` + expectedExtra + `}`
	}
	return doc(nodes, extra, `"x":{"dtype":"float32","shape":[2,2],"init":{"dist":"arange"}},
"bn.running_mean":{"dtype":"float32","shape":[2],"init":{"dist":"zeros"}},
"bn.running_var":{"dtype":"float32","shape":[2],"init":{"dist":"ones"}},
"bn.num_batches_tracked":{"dtype":"int64","shape":[],"data":"AAAAAAAAAAA="}`)
}

func TestTrainingFields(t *testing.T) {
	src := bnDoc(`,"training":true`, `"buffers":{"bn.running_mean":{"dtype":"float32","shape":[2],"data":"AACAPwAAAEA="},
"bn.num_batches_tracked":{"dtype":"int64","shape":[],"data":"AQAAAAAAAAA="}},
"random":{"drop":{"dtype":"bool","shape":[2,2],"data":"AQABAQ=="}}`)
	tr, err := Parse([]byte(src), t.TempDir(), "t.json")
	if err != nil {
		t.Fatal(err)
	}
	g := tr.Graphs[0]
	bn := g.Node("bn")
	if v, ok := bn.Module.Attrs[TrainingAttr].(bool); !ok || !v {
		t.Errorf("module training = %v (%T), want true", bn.Module.Attrs[TrainingAttr], bn.Module.Attrs[TrainingAttr])
	}
	ex := g.Expected
	if got := ex.BufferOrder; len(got) != 2 || got[0] != "bn.running_mean" || got[1] != "bn.num_batches_tracked" {
		t.Errorf("buffer order %v", got)
	}
	if rm := ex.Buffers["bn.running_mean"]; rm == nil || rm.Flat(0) != 1 || rm.Flat(1) != 2 {
		t.Errorf("running_mean after the step = %v, want [1 2]", rm)
	}
	if nb := ex.Buffers["bn.num_batches_tracked"]; nb == nil || nb.DType != tensor.Int64 || nb.Flat(0) != 1 {
		t.Errorf("num_batches_tracked = %v, want 1", nb)
	}
	m := ex.Random["drop"]
	if m == nil || m.DType != tensor.Bool || m.Flat(0) != 1 || m.Flat(1) != 0 || m.Flat(3) != 1 {
		t.Errorf("dropout mask = %v, want [[1 0] [1 1]]", m)
	}
	// Without the flag the module has no training attr: the normalized
	// stage refuses it, naming the node (stages tests).
	tr, err = Parse([]byte(bnDoc("", "")), t.TempDir(), "t.json")
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := tr.Graphs[0].Node("bn").Module.Attrs[TrainingAttr]; ok {
		t.Errorf("training attr present without module.training")
	}
}

func TestTrainingFieldRules(t *testing.T) {
	cases := []ruleCase{
		{"training not a bool", bnDoc(`,"training":"yes"`, ""), "g0", "bn", "module.training", "want true or false"},
		{"training disagrees with attrs", bnDocAttrs(`"num_features":2,"training":false`, `,"training":true`), "g0", "bn", "module.training", "module.attrs.training says false"},
		{"buffers not an object", bnDoc(`,"training":true`, `"buffers":[1]`), "g0", "", "expected.buffers", "want an object"},
		{"buffer unknown", bnDoc(`,"training":true`, `"buffers":{"bn.nope":{"dtype":"float32","shape":[2],"data":"AACAPwAAAEA="}}`),
			"g0", "", `expected.buffers["bn.nope"]`, "names no buffer"},
		{"buffer wrong shape", bnDoc(`,"training":true`, `"buffers":{"bn.running_mean":{"dtype":"float32","shape":[1],"data":"AACAPw=="}}`),
			"g0", "", `expected.buffers["bn.running_mean"]`, "float32[1]"},
		{"buffer bad bytes", bnDoc(`,"training":true`, `"buffers":{"bn.running_mean":{"dtype":"float32","shape":[2],"data":"AACAPw=="}}`),
			"g0", "", `expected.buffers["bn.running_mean"].data`, "want 8"},
		{"random unknown node", bnDoc(`,"training":true`, `"random":{"nope":{"dtype":"bool","shape":[2,2],"data":"AQABAQ=="}}`),
			"g0", "", `expected.random["nope"]`, "names no call node"},
		{"random on a placeholder", bnDoc(`,"training":true`, `"random":{"x":{"dtype":"bool","shape":[2,2],"data":"AQABAQ=="}}`),
			"g0", "", `expected.random["x"]`, "names no call node"},
		{"random wrong shape", bnDoc(`,"training":true`, `"random":{"drop":{"dtype":"bool","shape":[4],"data":"AQABAQ=="}}`),
			"g0", "drop", `expected.random["drop"]`, "node's meta says [2 2]"},
		{"dropout mask not bool", bnDoc(`,"training":true`, `"random":{"drop":{"dtype":"uint8","shape":[2,2],"data":"AQABAQ=="}}`),
			"g0", "drop", `expected.random["drop"]`, "dtype bool"},
		{"random not an object", bnDoc(`,"training":true`, `"random":3`), "g0", "", "expected.random", "want an object"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { checkErr(t, c, t.TempDir()) })
	}
}

// bnDocAttrs is bnDoc with the module's attrs object given.
func bnDocAttrs(attrs, trainingField string) string {
	nodes := `{"name":"x","op":"placeholder","target":"x"},
{"name":"bn","op":"call_module","target":"bn","args":[{"node":"x"}],
 "module":{"type":"torch.nn.BatchNorm1d","attrs":{` + attrs + `}` + trainingField + `,"params":{}}},
{"name":"output","op":"output","target":"output","args":[{"node":"bn"}]}`
	return doc(nodes, "", `"x":{"dtype":"float32","shape":[2,2],"init":{"dist":"arange"}}`)
}
