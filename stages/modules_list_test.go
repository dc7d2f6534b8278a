package stages

import (
	"fmt"
	"sort"
	"strings"
	"testing"

	"gcdbg/tensor"
	"gcdbg/trace"
)

// The unsupported-module error lists exactly the module types gcdbg
// normalizes: every entry of both module tables, nothing else.
func TestUnsupportedModuleListsTheModuleTable(t *testing.T) {
	x := tensor.FromFloats(tensor.Float32, []int{2}, []float64{1, 4})
	js := fmt.Sprintf(`{"format":"gcdbg.trace","version":1,"name":"t","graphs":[{"name":"g0","nodes":[
	 {"name":"x","op":"placeholder","target":"x"},
	 {"name":"m","op":"call_module","target":"m","args":[{"node":"x"}],"module":{"type":"torch.nn.Frobnicate","attrs":{},"params":{}}},
	 {"name":"output","op":"output","target":"output","args":[{"node":"m"}]}]}],
	 "tensors":{"x":%s}}`, tensorJSON(x))
	tr, err := trace.Parse([]byte(js), t.TempDir(), "t.json")
	if err != nil {
		t.Fatal(err)
	}
	_, err = Run(tr, "normalized")
	if err == nil {
		t.Fatal("an unknown module normalized")
	}
	msg := err.Error()
	i := strings.Index(msg, "(supported: ")
	if i < 0 || !strings.HasSuffix(msg, ")") {
		t.Fatalf("error does not list the supported modules: %v", err)
	}
	listed := strings.Split(strings.TrimSuffix(msg[i+len("(supported: "):], ")"), ", ")
	var want []string
	for k := range moduleRules {
		want = append(want, strings.TrimPrefix(k, "torch.nn."))
	}
	for k := range moduleRulesN {
		want = append(want, strings.TrimPrefix(k, "torch.nn."))
	}
	want = append(want, rnnModules...)
	sort.Strings(want)
	sort.Strings(listed)
	if strings.Join(listed, ",") != strings.Join(want, ",") {
		t.Errorf("supported list\n%v\nwant the module tables\n%v", listed, want)
	}
}
