package exporter_test

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// bench_eager.py rebuilds the traced graph in PyTorch to time it; a node
// whose only keyword is dtype= or device= (torch.zeros_like(pad,
// dtype=torch.float32), which nn.MultiheadAttention's traced masks use)
// made it fail, and `gcdbg bench` used the time recorded at export. The
// rebuilt graph must compute PyTorch's recorded outputs and grads, bit for
// bit (the same CPU ops in the same order).
func TestBenchEagerRebuildsSingleKwargNodes(t *testing.T) {
	py := python(t)
	out := filepath.Join(t.TempDir(), "single_kwarg.json")
	if b, err := exec.Command(py, "gcdbg_export.py", "testdata/single_kwarg.py", "-o", out, "--runs", "0").CombinedOutput(); err != nil {
		t.Fatalf("export failed: %v\n%s", err, b)
	}
	check := `
import json, os, sys, torch
import bench_eager as b
path = sys.argv[1]
tr = json.load(open(path))
g = tr["graphs"][0]
ts = b.Tensors(os.path.dirname(path))
(name, gm, inputs, params, grads), = b.Bench().graphs(path)
outs = gm(*inputs)
outs = outs if isinstance(outs, (tuple, list)) else (outs,)
exp = g["expected"]
n = 0
for i, (o, e) in enumerate(zip(outs, exp["outputs"])):
    e = ts.load(e)
    assert torch.equal(o.detach(), e), "output %d: %s vs %s" % (i, o, e)
    n += 1
torch.autograd.backward([o for o in outs if o.requires_grad], [torch.ones_like(o) for o in outs if o.requires_grad])
for qual, p in params.items():
    e = ts.load(exp["grads"][qual])
    assert torch.equal(p.grad, e), "grad %s: %s vs %s" % (qual, p.grad, e)
    n += 1
print("checked", n)
`
	b, err := exec.Command(py, "-c", check, out).CombinedOutput()
	if err != nil {
		t.Fatalf("bench_eager.py's rebuilt graph: %v\n%s", err, b)
	}
	if !strings.Contains(string(b), "checked 4") { // 2 outputs, lin.weight, lin.bias
		t.Errorf("compared %s, want 2 outputs and 2 grads", b)
	}
	b, err = exec.Command(py, "bench_eager.py", out, "--runs", "1").CombinedOutput()
	if err != nil || !strings.Contains(string(b), "eager_forward_ms") {
		t.Errorf("bench_eager.py could not time the graph: %v: %s", err, b)
	}
}

// An nn.MultiheadAttention leaf in an inference trace (examples/review9
// finding 2): its params include out_proj's, "out_proj.weight", which the
// rebuild registered as a dotted parameter name (KeyError), so `gcdbg
// bench` timed PyTorch from the recorded time. The rebuilt graph must
// compute PyTorch's recorded output, and bench_eager.py time it.
func TestBenchEagerRebuildsMultiheadAttentionLeaf(t *testing.T) {
	py := python(t)
	out := filepath.Join(t.TempDir(), "mha_eval.json")
	if b, err := exec.Command(py, "gcdbg_export.py", "testdata/mha_eval.py", "-o", out, "--runs", "0").CombinedOutput(); err != nil {
		t.Fatalf("export failed: %v\n%s", err, b)
	}
	check := `
import json, os, sys, torch
import bench_eager as b
path = sys.argv[1]
g = json.load(open(path))["graphs"][0]
ts = b.Tensors(os.path.dirname(path))
(name, gm, inputs, params, grads), = b.Bench().graphs(path)
with torch.no_grad():
    out = gm(*inputs)
out = out[0] if isinstance(out, (tuple, list)) else out
e = ts.load(g["expected"]["outputs"][0])
assert torch.allclose(out, e, rtol=0, atol=1e-6), "output: %s vs %s" % (out, e)
print("checked", len(params))
`
	b, err := exec.Command(py, "-c", check, out).CombinedOutput()
	if err != nil || !strings.Contains(string(b), "checked") {
		t.Fatalf("bench_eager.py's rebuilt graph: %v\n%s", err, b)
	}
	b, err = exec.Command(py, "bench_eager.py", out, "--runs", "1").CombinedOutput()
	if err != nil || !strings.Contains(string(b), "eager_forward_ms") {
		t.Errorf("bench_eager.py could not time the graph: %v: %s", err, b)
	}
}
