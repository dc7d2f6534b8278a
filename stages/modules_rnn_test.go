package stages

import (
	"fmt"
	"strings"
	"testing"

	"gcdbg/tensor"
	"gcdbg/trace"
)

// nn.LSTM/GRU/RNN calls gcdbg cannot reproduce are refused at the
// normalized stage with the node, the field and what to change, never run
// with a guessed default: dropout between layers in training (a draw the
// trace does not hold), proj_size, a trace without num_layers, an unknown
// nonlinearity, a missing weight.
func TestRNNModuleRefusals(t *testing.T) {
	x := tensor.New(tensor.Float32, 5, 2, 3)
	for _, tc := range []struct {
		name, typ, attrs, params string
		want                     []string
	}{
		{"dropout in training", "torch.nn.LSTM", `"hidden_size":4,"num_layers":2,"bidirectional":false,"batch_first":false,"dropout":0.5,"training":true`, `{}`,
			[]string{`node "m"`, "module.attrs.dropout", "nn.LSTM(dropout=0.5) in training", "nn.Dropout between single-layer"}},
		{"dropout without the training flag", "torch.nn.GRU", `"hidden_size":4,"num_layers":2,"bidirectional":false,"batch_first":false,"dropout":0.5`, `{}`,
			[]string{"module.training", "re-export"}},
		{"proj_size", "torch.nn.LSTM", `"hidden_size":4,"num_layers":1,"bidirectional":false,"batch_first":false,"proj_size":2`, `{}`,
			[]string{"module.attrs.proj_size", "proj_size=0"}},
		{"no num_layers (an older exporter)", "torch.nn.GRU", `"hidden_size":4,"batch_first":false`, `{}`,
			[]string{"module.attrs.num_layers", "re-export"}},
		{"unknown nonlinearity", "torch.nn.RNN", `"hidden_size":4,"num_layers":1,"bidirectional":false,"batch_first":false,"nonlinearity":"gelu"`, `{}`,
			[]string{"module.attrs.nonlinearity", "'tanh' or 'relu'"}},
		{"missing weight", "torch.nn.GRU", `"hidden_size":4,"num_layers":1,"bidirectional":false,"batch_first":false`, `{}`,
			[]string{"module.params.weight_ih_l0", "re-export"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			js := fmt.Sprintf(`{"format":"gcdbg.trace","version":1,"name":"t","graphs":[{"name":"g0","nodes":[
			 {"name":"x","op":"placeholder","target":"x"},
			 {"name":"m","op":"call_module","target":"m","args":[{"node":"x"}],"module":{"type":%q,"attrs":{%s},"params":%s}},
			 {"name":"output","op":"output","target":"output","args":[{"node":"m"}]}]}],
			 "tensors":{"x":%s}}`, tc.typ, tc.attrs, tc.params, tensorJSON(x))
			tr, err := trace.Parse([]byte(js), t.TempDir(), "t.json")
			if err != nil {
				t.Fatal(err)
			}
			_, err = Run(tr, "normalized")
			if err == nil {
				t.Fatalf("%s normalized", tc.name)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
		})
	}
}
