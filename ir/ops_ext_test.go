package ir_test

import (
	"fmt"
	"testing"

	"gcdbg/ir"
	"gcdbg/ir/extcases"
	"gcdbg/tensor"
)

// Every op of ir/ops_ext*.go computes what PyTorch 1.13 computes on the
// cases of testdata/ext_cases.json (gen_ext.py), and refuses what it refuses.
func TestExtOpsMatchPyTorch(t *testing.T) {
	cases, err := extcases.Load()
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]int{}
	for i, c := range cases {
		name := fmt.Sprintf("%s#%d", c.Op, i)
		seen[c.Op]++
		d := ir.Lookup(c.Op)
		if d == nil {
			t.Errorf("%s: not registered", name)
			continue
		}
		args := make([]ir.Arg, len(c.Args))
		copy(args, c.Args)
		bound, err := d.Schema.Bind(args, nil)
		if err != nil {
			t.Errorf("%s: binding: %v", name, err)
			continue
		}
		out, err := ir.Call(d, bound)
		if c.Error {
			if err == nil {
				t.Errorf("%s: PyTorch refuses (%s) but gcdbg computes a result", name, c.Why)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		outs := []ir.Value{out}
		if tu, ok := out.(ir.Tuple); ok {
			outs = tu
		}
		if len(outs) != len(c.Outputs) {
			t.Errorf("%s: %d outputs, PyTorch %d", name, len(outs), len(c.Outputs))
			continue
		}
		for k, o := range outs {
			g, _ := o.(*tensor.Tensor)
			if err := extcases.Close(g, c.Outputs[k], 1); err != nil {
				t.Errorf("%s: output %d: %v", name, k, err)
			}
		}
	}
	if len(seen) < 40 {
		t.Errorf("only %d ops have PyTorch cases", len(seen))
	}
}
