package stages_test

import (
	"testing"

	"gcdbg/graphtext"
	"gcdbg/stages"
)

// softmax's decomposition scales each row by the reciprocal of its sum, as
// PyTorch's CPU kernel does (SoftMaxKernel.cpp, _vec_softmax_lastdim:
// `tmp_sum = 1 / tmp_sum`, then a multiply): one reciprocal per row, a
// multiply per element, no division over the row. log_softmax keeps its
// log(sum). runner's TestRowReciprocalMatchesPyTorch checks the compiled
// values against PyTorch's.
func TestSoftmaxScalesByRowReciprocal(t *testing.T) {
	src := `def forward(self, x: "f32[3, 5]"):
    a = torch.nn.functional.softmax(x, -1)
    b = torch.nn.functional.log_softmax(x, -1)
    return (a, b)
`
	tr, err := graphtext.Parse([]byte(src), "", "sm.py")
	if err != nil {
		t.Fatal(err)
	}
	units, err := stages.Run(tr, "decomposed")
	if err != nil {
		t.Fatal(err)
	}
	if u := units[0]; u.Failure != nil {
		t.Fatalf("stopped: %v", u.Failure)
	}
	count := map[string]int{}
	for _, n := range units[0].Decomposed.Nodes {
		count[n.Target]++
	}
	if count["aten.reciprocal"] != 1 || count["aten.div"] != 0 || count["aten.log"] != 1 {
		t.Errorf("decomposed ops %v: want one reciprocal (softmax's row sum), no div, one log (log_softmax's)", count)
	}
	if n := units[0].Decomposed.Node("a"); n == nil || n.Target != "aten.mul" {
		t.Errorf("softmax's result is %+v, want the multiply by the row reciprocal", n)
	}
}
