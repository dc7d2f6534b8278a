package trace

import "testing"

// expected.no_grad and expected.unstable (the exporter's): bad entries are
// refused naming the graph and the field, never loaded as a guess.
func TestExpectedNoGradAndUnstableRules(t *testing.T) {
	grad := `"grads":{"x":{"dtype":"float32","shape":[2],"data":"AAAAAAAAAAA="}}`
	for _, c := range []ruleCase{
		{"no_grad not a list", doc(phX+`,`+outX, `"expected":{"outputs":[],"no_grad":"x"}`, tensorX),
			"g0", "", "expected.no_grad", "want a list"},
		{"no_grad unknown name", doc(phX+`,`+outX, `"expected":{"outputs":[],"no_grad":["w"]}`, tensorX),
			"g0", "", "expected.no_grad[0]", "names no placeholder or parameter"},
		{"no_grad with a grad", doc(phX+`,`+outX, `"expected":{"outputs":[],`+grad+`,"no_grad":["x"]}`, tensorX),
			"g0", "", "expected.no_grad[0]", "expected.grads too"},
		{"unstable not an object", doc(phX+`,`+outX, `"expected":{"outputs":[],"unstable":["grads/x"]}`, tensorX),
			"g0", "", "expected.unstable", "want an object"},
		{"unstable unknown key", doc(phX+`,`+outX, `"expected":{"outputs":[],"unstable":{"foo":"d"}}`, tensorX),
			"g0", "", `expected.unstable["foo"]`, "want outputs/<i>"},
		{"unstable output out of range", doc(phX+`,`+outX, `"expected":{"outputs":[],"unstable":{"outputs/3":"d"}}`, tensorX),
			"g0", "", `expected.unstable["outputs/3"]`, "names no output"},
		{"unstable not a string", doc(phX+`,`+outX, `"expected":{"outputs":[],"unstable":{"grads/x":1}}`, tensorX),
			"g0", "", `expected.unstable["grads/x"]`, "want a string"},
	} {
		t.Run(c.name, func(t *testing.T) { checkErr(t, c, t.TempDir()) })
	}
	tr, err := Parse([]byte(doc(phX+`,`+outX, `"expected":{"outputs":[],"no_grad":["x"],"unstable":{"grads/y":"2 of 2 elements differ"}}`, tensorX)), t.TempDir(), "t.json")
	if err != nil {
		t.Fatal(err)
	}
	if ex := tr.Graphs[0].Expected; !ex.NoGrad["x"] || ex.Unstable["grads/y"] != "2 of 2 elements differ" {
		t.Errorf("no_grad %v, unstable %v", ex.NoGrad, ex.Unstable)
	}
}
