package runner

import (
	"os"
	"path/filepath"
	"testing"

	"gcdbg/graphtext"
)

// Backward graphs must stay in the core op set so they compile: sigmoid's
// and tanh's derivatives once emitted rsub, which the C renderer has no
// spelling for.
func TestSigmoidTanhTrainCompiles(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "sig.py")
	src := `def forward(self, x: "f32[4, 8]"):
    w: "f32[8, 8]" = self.w
    h = torch.nn.functional.linear(x, w)
    return (torch.sigmoid(h) + torch.tanh(h) * torch.nn.functional.gelu(h, approximate="tanh"),)
`
	if err := os.WriteFile(path, []byte(src), 0o600); err != nil {
		t.Fatal(err)
	}
	tr, err := graphtext.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	res, err := Run(tr, Options{Device: "cpu", Runs: 1})
	if err != nil {
		t.Fatal(err)
	}
	if !res.OK || len(res.Graphs[0].Grads) != 1 || res.Graphs[0].Grads[0].VsEager == nil {
		t.Fatalf("compiled training graph: %+v", res.Graphs[0])
	}
}
