package conformance

import (
	"bytes"
	"os/exec"
	"strings"
	"testing"
)

// Every entry of the committed xfail.tsv names a sample of the committed
// results store that is judged wrong there: one that passes now is stale,
// one that is missing names no sample, one that fails otherwise is not a
// PyTorch artefact.
func TestXFailEntries(t *testing.T) {
	xf, err := ReadXFail("xfail.tsv")
	if err != nil {
		t.Fatal(err)
	}
	if len(xf) == 0 {
		t.Fatal("xfail.tsv lists nothing")
	}
	st, err := ReadStore("results.tsv")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range CheckXFail(st.Outs, xf, true) {
		t.Error(e)
	}
}

// The evidence xfail.tsv cites holds in the system PyTorch: the same inputs
// give NaN in the vector lanes and the float64 value in the scalar tail
// (fmod, remainder, floor division); layer_norm's float32 value of a
// one-element row is its fused multiply-add's rounding error; bfloat16
// layer_norm means, nll_loss sums, softmin gradients and float16
// embedding_bag gradients change with the order of the same values;
// bfloat16 instance_norm gradients with the layout of the same grad_output;
// a bfloat16 running mean is ATen's bfloat16 update chain bit for bit.
func TestXFailEvidence(t *testing.T) {
	py := pythonWithTorch(t)
	out, err := exec.Command(py, "testdata/xfail_evidence.py").CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if n := strings.Count(string(out), "ok  "); n != 36 {
		t.Errorf("%d checks passed, want 36:\n%s", n, out)
	}
}

// The table shows a listed wrong sample in the column "xfail (PyTorch)"
// with its reason, not as passed and not as wrong; the store keeps it
// wrong; a listed sample that passes, fails otherwise or is missing is
// reported.
func TestXFailTable(t *testing.T) {
	outs := []Outcome{
		{ID: "fmod/bfloat16/3", OpInfo: "fmod", DType: "bfloat16", Status: Wrong, Stage: "eager", Reason: "output 0 vs PyTorch: NaN/Inf at other positions"},
		{ID: "fmod/bfloat16/4", OpInfo: "fmod", DType: "bfloat16", Status: Wrong, Stage: "eager", Reason: "output 0 vs PyTorch: rmse"},
		{ID: "fmod/bfloat16/0", OpInfo: "fmod", DType: "bfloat16", Status: Pass},
		{ID: "cos/float32/0", OpInfo: "cos", DType: "float32", Status: Pass},
		{ID: "cos/float32/1", OpInfo: "cos", DType: "float32", Status: Error, Stage: "eager", Reason: "boom"},
	}
	xf := map[string]string{"fmod/bfloat16/3": "vector lanes NaN, tail exact (evidence)"}
	shown := ApplyXFail(outs, xf)
	if outs[0].Status != Wrong {
		t.Fatal("ApplyXFail changed its input (the store's outcome)")
	}
	if shown[0].Status != XFailed || shown[1].Status != Wrong || shown[2].Status != Pass {
		t.Fatalf("statuses %s %s %s, want xfail wrong pass", shown[0].Status, shown[1].Status, shown[2].Status)
	}
	var b bytes.Buffer
	if err := WriteMarkdown(&b, RunInfo{Torch: "1.13"}, shown); err != nil {
		t.Fatal(err)
	}
	md := b.String()
	for _, want := range []string{
		"| samples | passed | wrong | xfail (PyTorch) | refused | failed (error / panic / timeout) | OpInfos |",
		"| 5 | 2 (40.0%) | 1 | 1 | 0 | 1 (1 / 0 / 0) | 2 |",
		"| bfloat16 | 3 | 1 (33.3%) | 1 | 1 | 0 | 0 |",
		"| fmod | 3 | 1 | 1 | 1 | 0 | 0 |",
		"1× xfail (PyTorch): vector lanes NaN, tail exact (evidence) (e.g. `fmod/bfloat16/3`)",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("table lacks %q:\n%s", want, md)
		}
	}
	if bad := CheckXFail(outs, xf, true); len(bad) != 0 {
		t.Errorf("a listed wrong sample is reported: %v", bad)
	}
	stale := map[string]string{"fmod/bfloat16/0": "r", "cos/float32/1": "r", "fmod/bfloat16/99": "r"}
	bad := CheckXFail(outs, stale, true)
	if len(bad) != 3 || !strings.Contains(bad[0], "not wrong") || !strings.Contains(bad[1], "stale") || !strings.Contains(bad[2], "no such sample") {
		t.Errorf("CheckXFail: %q", bad)
	}
	if bad := CheckXFail(outs, map[string]string{"fmod/bfloat16/99": "r"}, false); len(bad) != 0 {
		t.Errorf("a run that did not judge a listed sample reports it: %v", bad)
	}
}
