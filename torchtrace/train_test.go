package torchtrace

import (
	"encoding/binary"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"gcdbg/runner"
	"gcdbg/stages"
	"gcdbg/tensor"
	"gcdbg/trace"
)

// The PyTorch 2.6 training logs of testdata/pt2 (gen_train_logs.py: each
// model compiled with torch.compile, Inductor, and trained one SGD step on
// a cross-entropy loss; input_grad differentiates a loss with respect to
// an input). Parameters are inputs of Dynamo's graph there.
var trainLogs = []struct {
	file   string
	params []string // the trainable inputs, in the graph's order
	input  string   // the batch: an input that does not require grad
}{
	{"mlp_train.log", []string{"L_fn_modules_0_parameters_weight_", "L_fn_modules_0_parameters_bias_",
		"L_fn_modules_2_parameters_weight_", "L_fn_modules_2_parameters_bias_"}, "L_args_0_"},
	{"convnet_train.log", []string{"L_fn_modules_0_parameters_weight_", "L_fn_modules_0_parameters_bias_",
		"L_fn_modules_4_parameters_weight_", "L_fn_modules_4_parameters_bias_"}, "L_args_0_"},
	{"classifier_train.log", []string{"L_self_modules_fc1_parameters_weight_", "L_self_modules_fc1_parameters_bias_",
		"L_self_modules_fc2_parameters_weight_", "L_self_modules_fc2_parameters_bias_"}, "L_x_"},
	// no parameters: an input that requires grad, beside one that does not
	{"input_grad.log", []string{"L_x_"}, "L_s_"},
}

// A training log gets gcdbg's own joint, forward and backward graphs: the
// lifted parameters require grad (aot_backward_graph says so), the batch
// does not, and every gradient gcdbg computes (min-cut forward then
// backward) matches the .grad PyTorch's compiled training step left on
// that parameter (the expected sidecar), with the loss's real gradient
// as the tangent.
func TestTrainingLogsBuildAndJudgeBackward(t *testing.T) {
	for _, tl := range trainLogs {
		t.Run(tl.file, func(t *testing.T) {
			im, err := ImportLog(filepath.Join("testdata", "pt2", tl.file))
			if err != nil {
				t.Fatal(err)
			}
			if len(im.Trace.Graphs) != 1 {
				t.Fatalf("%d graphs, want 1 (%v)", len(im.Trace.Graphs), im.Trace.Producer["not_imported"])
			}
			g := im.Trace.Graphs[0]
			c := im.Compiles[0]
			got, from := c.trainableInputs()
			if from != "aot_backward_graph" || len(got) != len(tl.params) {
				t.Errorf("trainable %v from %q, want %v from aot_backward_graph", got, from, tl.params)
			}
			for _, p := range tl.params {
				if td := g.Tensors[p]; td == nil || !td.RequiresGrad {
					t.Errorf("parameter %s does not require grad", p)
				}
			}
			if td := g.Tensors[tl.input]; td == nil || td.RequiresGrad {
				t.Errorf("batch %s: %v, want an input without grad", tl.input, td)
			}
			refs := References(im.Trace)[g.Name]
			var names []string
			for _, r := range refs {
				names = append(names, r.Name)
			}
			for _, want := range []string{"aot_joint_graph", "aot_forward_graph", "aot_backward_graph", "saved for backward (PyTorch)"} {
				if !slices.Contains(names, want) {
					t.Errorf("PyTorch's artifacts %v lack %s", names, want)
				}
			}

			units, err := stages.Run(im.Trace, "backward")
			if err != nil {
				t.Fatal(err)
			}
			u := units[0]
			if u.Joint == nil || u.Partition == nil || u.SaveAll == nil {
				t.Fatal("no joint graph or partition: gcdbg compiled an inference graph")
			}
			if !slices.Equal(u.Joint.GradTargets, tl.params) {
				t.Errorf("gcdbg differentiates %v, want %v", u.Joint.GradTargets, tl.params)
			}
			if len(u.Partition.Backward.Nodes) < len(tl.params)+2 {
				t.Errorf("backward graph has %d nodes", len(u.Partition.Backward.Nodes))
			}
			// Beside PyTorch's own partition of the same graph (Inductor's
			// min-cut, read from aot_backward_graph): gcdbg saves no more.
			_, pt, ok := c.PyTorchSaved()
			if !ok || pt <= 0 {
				t.Fatalf("PyTorch's saved bytes unreadable: %d %v", pt, ok)
			}
			if u.Partition.SavedBytes > pt {
				t.Errorf("gcdbg's min-cut saves %d bytes, PyTorch's partition %d", u.Partition.SavedBytes, pt)
			}
			t.Logf("saved for backward: gcdbg min-cut %d bytes, save-everything %d, PyTorch %d", u.Partition.SavedBytes, u.SaveAll.SavedBytes, pt)

			if g.Expected == nil || len(g.Expected.Grads) != len(tl.params) || len(g.Expected.GradOutputs) != 1 {
				t.Fatalf("expected sidecar not read: %+v", g.Expected)
			}
			res, err := runner.RunUnits(im.Trace, units, runner.Options{Runs: 1, Device: "eager"})
			if err != nil {
				t.Fatal(err)
			}
			gr := res.Graphs[0]
			if !res.OK || len(gr.Grads) != len(tl.params) {
				t.Fatalf("run not ok or %d grads: %+v", len(gr.Grads), res)
			}
			for _, gd := range gr.Grads {
				if gd.VsExpected == nil || gd.VsEager == nil {
					t.Errorf("grad %s not judged against PyTorch and gcdbg's eager joint: %+v", gd.Name, gd)
				}
			}
		})
	}
}

// The judgement is real: one element of one PyTorch gradient off by 1e-3
// (relative) makes the run fail.
func TestTrainingLogWrongGradFails(t *testing.T) {
	im, err := ImportLog(filepath.Join("testdata", "pt2", "mlp_train.log"))
	if err != nil {
		t.Fatal(err)
	}
	g := im.Trace.Graphs[0]
	w := g.Expected.Grads["L_fn_modules_2_parameters_weight_"]
	bad := tensor.New(w.DType, w.Shape...)
	k := 0
	for i := 0; i < w.Numel(); i++ {
		bad.SetFlat(i, w.Flat(i))
		if abs(w.Flat(i)) > abs(w.Flat(k)) {
			k = i
		}
	}
	bad.SetFlat(k, w.Flat(k)*(1+1e-3))
	g.Expected.Grads["L_fn_modules_2_parameters_weight_"] = bad
	res, err := runner.Run(im.Trace, runner.Options{Runs: 1, Device: "eager"})
	if err != nil {
		t.Fatal(err)
	}
	if res.OK {
		t.Fatal("a gradient 1e-3 off PyTorch's passed")
	}
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}

// Without the sidecars (a log alone, as TORCH_TRACE writes it) gcdbg still
// builds its own backward on random inputs and judges it against its eager
// joint graph only: nothing claims a comparison with PyTorch.
func TestTrainingLogWithoutSidecars(t *testing.T) {
	dir := t.TempDir()
	// (the classifier needs its targets: random ints in [0, 10) are no class of 5)
	data, err := os.ReadFile(filepath.Join("testdata", "pt2", "convnet_train.log"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "c.log"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	tr, _, err := Import(filepath.Join(dir, "c.log"))
	if err != nil {
		t.Fatal(err)
	}
	if tr.Graphs[0].Expected != nil {
		t.Fatal("expected values without a sidecar")
	}
	res, err := runner.Run(tr, runner.Options{Runs: 1, Device: "eager"})
	if err != nil {
		t.Fatal(err)
	}
	gr := res.Graphs[0]
	if !res.OK || len(gr.Grads) != 4 {
		t.Fatalf("ok %v, %d grads", res.OK, len(gr.Grads))
	}
	for _, gd := range gr.Grads {
		if gd.VsExpected != nil || gd.VsEager == nil {
			t.Errorf("grad %s: vs PyTorch %v, vs eager %v", gd.Name, gd.VsExpected, gd.VsEager)
		}
	}
}

// An expected sidecar that does not fit the graph is refused with a reason
// naming the compile and the file; so is one without the inputs it was
// computed on.
func TestExpectedSidecarRefused(t *testing.T) {
	src := filepath.Join("testdata", "pt2")
	for _, tc := range []struct {
		name    string
		tensors map[string]*tensor.Tensor
		inputs  bool
		want    string
	}{
		{"wrong shape", map[string]*tensor.Tensor{"outputs/0": tensor.New(tensor.Float32, 3)}, true, `"outputs/0": is f32[3]`},
		{"unknown input", map[string]*tensor.Tensor{"outputs/0": tensor.New(tensor.Float32), "grads/nope": tensor.New(tensor.Float32)}, true, `no input "nope"`},
		{"bad key", map[string]*tensor.Tensor{"weird": tensor.New(tensor.Float32)}, true, `want outputs/I`},
		{"no inputs", map[string]*tensor.Tensor{"outputs/0": tensor.New(tensor.Float32)}, false, "need PyTorch's inputs"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			copyFile(t, filepath.Join(src, "classifier_train.log"), filepath.Join(dir, "c.log"))
			if tc.inputs {
				copyFile(t, filepath.Join(src, "classifier_train-0_0.safetensors"), filepath.Join(dir, "c-0_0.safetensors"))
			}
			if err := os.WriteFile(filepath.Join(dir, "c-0_0.expected.safetensors"), safetensorsBytes(t, tc.tensors), 0o644); err != nil {
				t.Fatal(err)
			}
			im, err := ImportLog(filepath.Join(dir, "c.log"))
			if err != nil {
				t.Fatal(err)
			}
			c := im.Compiles[0]
			if len(im.Trace.Graphs) != 0 || !strings.Contains(c.ImportError, "[0/0]: c-0_0.expected.safetensors") || !strings.Contains(c.ImportError, tc.want) {
				t.Errorf("graphs %d, import error %q, want one containing %q", len(im.Trace.Graphs), c.ImportError, tc.want)
			}
		})
	}
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	data, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// safetensorsBytes writes float32 tensors as a safetensors file.
func safetensorsBytes(t *testing.T, ts map[string]*tensor.Tensor) []byte {
	t.Helper()
	header := map[string]any{}
	var blob []byte
	keys := make([]string, 0, len(ts))
	for k := range ts {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		x := ts[k]
		if x.DType != tensor.Float32 {
			t.Fatalf("%s: only float32", k)
		}
		start := len(blob)
		for i := 0; i < x.Numel(); i++ {
			blob = binary.LittleEndian.AppendUint32(blob, math.Float32bits(float32(x.Flat(i))))
		}
		header[k] = map[string]any{"dtype": "F32", "shape": x.Shape, "data_offsets": []int{start, len(blob)}}
	}
	h, err := json.Marshal(header)
	if err != nil {
		t.Fatal(err)
	}
	for len(h)%8 != 0 {
		h = append(h, ' ')
	}
	out := binary.LittleEndian.AppendUint64(nil, uint64(len(h)))
	out = append(append(out, h...), blob...)
	if _, err := trace.ParseSafetensors(out); err != nil {
		t.Fatal(err)
	}
	return out
}

// Which inputs are trainable, from each source a log may have.
func TestTrainableInputs(t *testing.T) {
	graph := "class GraphModule(torch.nn.Module):\n    def forward(self, L_w_: \"f32[4, 3][3, 1]cpu\", L_x_: \"f32[2, 3][3, 1]cpu\", s0: \"Sym(s0)\"):\n        return (L_x_,)\n"
	guards := []GuardText{{Kind: "dynamo_guards", Text: "check_tensor(L['w'], Parameter, DispatchKeySet(CPU), torch.float32, device=None, requires_grad=True, size=[4, 3], stride=[3, 1])\n" +
		"check_tensor(L['x'], Tensor, DispatchKeySet(CPU), torch.float32, device=None, requires_grad=False, size=[2, 3], stride=[3, 1])"}}
	for _, tc := range []struct {
		name string
		refs map[string]string
		want []string
		from string
	}{
		{"guards only (aot_eager-less backend)", nil, []string{"L_w_"}, "guards"},
		{"backward graph", map[string]string{"aot_backward_graph": "def forward(self, tangents_1):\n    return (None, mm, None)\n"}, []string{"L_x_"}, "aot_backward_graph"},
		{"joint graph", map[string]string{"aot_joint_graph": "def forward(self, primals, tangents):\n    primals_1: \"f32[4, 3]\"; primals_2: \"f32[2, 3]\"; primals_3: \"Sym(s0)\"; tangents_1: \"f32[2, 3]\";\n    return pytree.tree_unflatten([add, mm, None, None], self._out_spec)\n"}, []string{"L_w_"}, "aot_joint_graph"},
		{"backward graph of another arity falls back to guards", map[string]string{"aot_backward_graph": "def forward(self, tangents_1):\n    return (mm, None)\n"}, []string{"L_w_"}, "guards"},
		{"inference graph: no gradients", map[string]string{"aot_inference_graph": "def forward(self, arg0_1):\n    return (arg0_1,)\n"}, nil, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := &Compile{ID: "[0/0]", Graph: graph, Guards: guards, Reference: tc.refs}
			got, from := c.trainableInputs()
			var names []string
			for _, p := range forwardParams(graph) {
				if got[p] {
					names = append(names, p)
				}
			}
			if !slices.Equal(names, tc.want) || from != tc.from {
				t.Errorf("trainable %v from %q, want %v from %q", names, from, tc.want, tc.from)
			}
			text := c.graphText()
			for _, p := range []string{"L_w_", "L_x_"} {
				has := strings.Contains(text, "# gcdbg: requires_grad "+p+"\n")
				if has != slices.Contains(tc.want, p) {
					t.Errorf("graph text directive for %s: %v\n%s", p, has, text)
				}
			}
		})
	}
}

// PyTorch's saved tensors are read from aot_backward_graph's signature.
func TestPyTorchSaved(t *testing.T) {
	im, err := ImportLog(filepath.Join("testdata", "pt2", "classifier_train.log"))
	if err != nil {
		t.Fatal(err)
	}
	saved, total, ok := im.Compiles[0].PyTorchSaved()
	var names []string
	for _, s := range saved {
		names = append(names, s.Name)
	}
	want := []string{"primals_3", "primals_6", "tanh", "convert_element_type", "exp_1", "permute_2"}
	if !ok || total != 4420 || !slices.Equal(names, want) {
		t.Errorf("saved %v = %d bytes (ok %v), want %v = 4420", names, total, ok, want)
	}
	c := &Compile{Reference: map[string]string{"aot_backward_graph": "def forward(self, a: \"f32[s0, 4]\", b: \"Sym(s0)\", tangents_1: \"f32[s0, 4]\"):\n"}}
	if saved, total, ok := c.PyTorchSaved(); !ok || total != -1 || len(saved) != 2 || saved[1].Bytes != 0 {
		t.Errorf("symbolic: %+v %d %v", saved, total, ok)
	}
	if _, _, ok := (&Compile{}).PyTorchSaved(); ok {
		t.Error("no backward graph, yet ok")
	}
}

// The AOT graph readers never panic on a damaged payload: every prefix of
// the real joint and backward graphs, and of the forward signature, reads
// as some answer or none.
func TestAOTReadersOnTruncatedText(t *testing.T) {
	im, err := ImportLog(filepath.Join("testdata", "pt2", "classifier_train.log"))
	if err != nil {
		t.Fatal(err)
	}
	c := im.Compiles[0]
	for _, key := range []string{"aot_joint_graph", "aot_backward_graph"} {
		text := c.Reference[key]
		for i := 0; i <= len(text); i += 1 + i%29 { // prefixes ending at varied characters
			aotGrads(key, text[:i])
			cut := &Compile{Graph: c.Graph[:min(i, len(c.Graph))], Reference: map[string]string{key: text[:i]}, Guards: c.Guards}
			cut.PyTorchSaved()
			cut.trainableInputs()
			forwardParams(cut.Graph)
		}
	}
}
