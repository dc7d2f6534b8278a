package stages

import (
	"slices"
	"testing"

	"gcdbg/trace"
)

// A kernel that repeats an earlier one's code calls that one's function
// (render/kernel_share.go): the function's name stands for every repeat's
// nodes too, so selecting a later step's node in the captured graph lights
// the shared function's lines in the kernels stage (an LSTMCell over 12
// steps, exported from PyTorch).
func TestSharedKernelFunctionResolvesToEveryRepeat(t *testing.T) {
	tr, err := trace.Load("../runner/testdata/rnn_share_train.json")
	if err != nil {
		t.Fatal(err)
	}
	units, err := Run(tr, "")
	if err != nil {
		t.Fatal(err)
	}
	u := units[0]
	p := NewProvenance(u)
	checked := 0
	for i, lp := range u.Programs {
		if lp.Source == nil {
			t.Fatalf("%s: not rendered", lp.Role)
		}
		for _, k := range lp.Source.Kernels {
			if k.Shares == "" || len(k.Origins) == 0 {
				continue
			}
			var got []string
			for _, r := range p.Resolve(i, k.Shares) {
				got = append(got, r.Name)
			}
			for _, o := range k.Origins {
				want := p.Resolve(i, o)
				if len(want) == 0 {
					continue
				}
				if !slices.Contains(got, want[0].Name) {
					t.Errorf("%s: %s (called for kernel %s) does not stand for %s", lp.Role, k.Shares, k.Name, want[0].Name)
				}
				checked++
			}
		}
	}
	if checked == 0 {
		t.Fatal("no repeated kernel's origins checked: no kernel shares a function")
	}
}
