package stages

import (
	"fmt"
	"strings"
	"testing"

	"gcdbg/ir"
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

// nn.LSTM, nn.GRU and nn.RNN project every step's input in one linear per
// layer and direction (ATen's FullLayer on the CPU: inputs_w =
// linear_ih(inputs), each cell with pre_compute_input), not one per step:
// weight_ih is read by exactly one node, over the whole sequence. That the
// unrolled modules still match PyTorch's outputs and gradients is
// cmd/gcdbg's TestReal2ModelsMatchPyTorch on the same traces (real2_lstm:
// 2 layers, batch_first, given hx, an unbatched nn.RNN(relu); real2_gru:
// bidirectional 2 layers) and runner's TestLongCatCompilesAndMatchesPyTorch
// (nn.GRU over 100 steps, compiled).
func TestRNNInputProjectionOncePerLayer(t *testing.T) {
	for _, name := range []string{"real2_lstm", "real2_gru"} {
		units := real2Units(t, name, "normalized")
		uses, over := map[string]int{}, map[string]int{} // weight_ih node -> readers, readers over > 2-D inputs
		for _, u := range units {
			for _, n := range u.Normalized.Nodes {
				if n.Target != "aten.linear" || len(n.Args) < 2 {
					continue
				}
				w, ok := n.Args[1].(*ir.Node)
				if !ok || !strings.Contains(w.Name, "weight_ih") {
					continue
				}
				uses[w.Name]++
				if x, ok := n.Args[0].(*ir.Node); ok && x.Meta.Tensor != nil && len(x.Meta.Tensor.Shape) == 3 {
					over[w.Name]++
				}
			}
		}
		if len(uses) == 0 {
			t.Fatalf("%s: no linear reads a weight_ih", name)
		}
		for w, k := range uses {
			if k != 1 || over[w] != 1 {
				t.Errorf("%s: %s is read by %d linears (%d over the whole sequence), want one over the sequence", name, w, k, over[w])
			}
		}
	}
}

// The weight_hh gradient of an unrolled nn.LSTM/GRU (one product per time
// step, summed) is one GEMM over every step's gate gradients and states,
// concatenated (joint_sums.go), as ATen's RNN backward computes it, not
// one GEMM per step added up: every weight_hh gradient of real2_lstm and
// real2_gru reaches exactly one mm through its adds, permutes and views.
// That the folded gradients still match PyTorch is cmd/gcdbg's
// TestReal2ModelsMatchPyTorch on the same traces (and real2_decoder's
// GRUCell with tied weights, folded the same way).
func TestRNNWeightGradientOneGEMM(t *testing.T) {
	for _, name := range []string{"real2_lstm", "real2_gru"} {
		units := real2Units(t, name, "joint")
		checked := 0
		for _, u := range units {
			j := u.Joint
			if j == nil {
				continue
			}
			outs := j.Graph.Outputs()
			if len(outs) == 1 {
				if tu, ok := outs[0].(ir.Tuple); ok {
					outs = tu
				}
			}
			for i, target := range j.GradTargets {
				if !strings.Contains(target, "weight_hh") {
					continue
				}
				g, ok := outs[j.NumOutputs+i].(*ir.Node)
				if !ok {
					t.Fatalf("%s: grad of %s is not a node", name, target)
				}
				mms, seen := 0, map[*ir.Node]bool{}
				var walk func(n *ir.Node)
				walk = func(n *ir.Node) {
					if seen[n] {
						return
					}
					seen[n] = true
					switch n.Target {
					case "aten.mm":
						mms++
					case "aten.add", "aten.permute", "aten.view":
						n.EachInput(walk)
					}
				}
				walk(g)
				checked++
				if mms != 1 {
					t.Errorf("%s: the gradient of %s sums %d GEMMs, want one over every step", name, target, mms)
				}
			}
		}
		if checked == 0 {
			t.Fatalf("%s: no weight_hh gradient", name)
		}
	}
}

// The gradient of the hoisted input projection, read through one select
// per step, is the stack of the steps' gate gradients (joint_sums.go,
// copied input by input by render/cat_copy.go), not a sum of one
// select_scatter of zeros per step: no four select_scatters of one shape
// and dim remain in real2_lstm's and real2_gru's joint graphs (the ones
// left are the given h_0/c_0 selects of fewer steps). Values: cmd/gcdbg's
// TestReal2ModelsMatchPyTorch.
func TestRNNInputGradientOneStack(t *testing.T) {
	for _, name := range []string{"real2_lstm", "real2_gru"} {
		units := real2Units(t, name, "joint")
		groups := map[string]int{}
		for _, u := range units {
			if u.Joint == nil {
				continue
			}
			for _, n := range u.Joint.Graph.Nodes {
				if n.Target == "aten.select_scatter" && n.Meta.Tensor != nil && len(n.Args) > 2 {
					groups[fmt.Sprintf("%s %s dim %v", u.Captured.Name, n.Meta.Tensor.Shape, n.Args[2])]++
				}
			}
		}
		for k, c := range groups {
			if c >= 4 {
				t.Errorf("%s: %d select_scatters of %s summed, want one stack", name, c, k)
			}
		}
	}
}

// real2Units runs testdata/real2/NAME.json's stages until until.
func real2Units(t *testing.T, name, until string) []*Unit {
	t.Helper()
	tr, err := trace.Load("testdata/real2/" + name + ".json")
	if err != nil {
		t.Fatal(err)
	}
	units, err := Run(tr, until)
	if err != nil {
		t.Fatal(err)
	}
	return units
}
