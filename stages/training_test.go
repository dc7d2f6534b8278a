package stages

import (
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"gcdbg/interp"
	"gcdbg/ir"
	"gcdbg/tensor"
	"gcdbg/trace"
)

// Decomposition cases for the rows of decompose_train.go, and gradcheck
// cases for the derivative rows of derivatives_train.go.
func init() {
	bn := []*tensor.Tensor{dseq(tf32, 3, 2, 2, 2), dseq(tf32, 2), tensor.FromFloats(tf32, []int{2}, []float64{1, 2}), dseq(tf32, 2), dseq(tf32, 2)}
	mask := tensor.FromInts(tensor.Bool, []int{2, 3}, []int64{1, 0, 1, 1, 0, 0})
	decompCases = append(decompCases,
		opCase{"aten.batch_norm", bn, []ir.Arg{inp(0), nil, nil, inp(3), inp(4), true, 0.1, 1e-5}},
		opCase{"aten.batch_norm", []*tensor.Tensor{dseq(tf64, 4, 3)}, []ir.Arg{inp(0), nil, nil, nil, nil, true, 0.1, 1e-3}},
		opCase{"aten.batch_norm_functional", bn, []ir.Arg{inp(0), inp(1), inp(2), inp(3), inp(4), 0.3, 1e-5}},
		opCase{"aten.batch_norm_functional", []*tensor.Tensor{dseq(tf64, 5, 3), dseq(tf64, 3), tensor.FromFloats(tf64, []int{3}, []float64{1, 2, 3}), tensor.Scalar(tf64, 0.25)},
			[]ir.Arg{inp(0), inp(1), inp(2), nil, nil, inp(3), 1e-5}},
		opCase{"aten.feature_dropout", []*tensor.Tensor{dseq(tf32, 2, 3, 2)}, []ir.Arg{inp(0), 0.3, false}},
		opCase{"aten.dropout_masked", []*tensor.Tensor{dseq(tf32, 2, 3), mask}, []ir.Arg{inp(0), inp(1), 0.1}},
		opCase{"aten.dropout_masked", []*tensor.Tensor{dseq(tf64, 2, 3), mask}, []ir.Arg{inp(0), inp(1), 1.0}},
		opCase{"aten.philox_rand", nil, []ir.Arg{ir.Tuple{int64(3), int64(5)}, int64(2), int64(16)}},
		opCase{"aten.philox_rand", nil, []ir.Arg{ir.Tuple{int64(6)}, int64(0), int64(0), tensor.Float64}},
		opCase{"aten.philox_randn", nil, []ir.Arg{ir.Tuple{int64(3), int64(5)}, int64(2), int64(16)}},
		opCase{"aten.philox_randn", nil, []ir.Arg{ir.Tuple{int64(7)}, int64(0), int64(0), tensor.Float64}},
		opCase{"aten.rand_like", []*tensor.Tensor{dseq(tf32, 2, 3)}, []ir.Arg{inp(0)}},
		opCase{"aten.rand_like", []*tensor.Tensor{dseq(tf32, 4)}, []ir.Arg{inp(0), tensor.Float64}},
		opCase{"aten.randn_like", []*tensor.Tensor{dseq(tf64, 3, 3)}, []ir.Arg{inp(0)}},
		opCase{"aten.bernoulli", []*tensor.Tensor{tensor.FromFloats(tf32, []int{5}, []float64{0, 0.2, 0.5, 0.9, 1})}, []ir.Arg{inp(0)}},
		opCase{"aten.bernoulli", []*tensor.Tensor{dseq(tf32, 2, 3)}, []ir.Arg{inp(0), 0.5}},
	)

	gradCases["batch_norm"] = func(gc *gradGraph) {
		x := gc.rand(4, 3, 2)
		rm, rv := gc.input(gc.values([]int{3}, false), false), gc.input(gc.values([]int{3}, true), false)
		gc.output(gc.call("batch_norm", x, rm, rv, gc.rand(3), gc.rand(3), false, 0.1, 1e-5),
			gc.call("batch_norm", x, nil, nil, gc.rand(3), gc.rand(3), true, 0.1, 1e-5),
			gc.call("batch_norm", gc.rand(5, 2), nil, nil, nil, nil, true, 0.1, 1e-3))
	}
	gradCases["batch_norm_functional"] = func(gc *gradGraph) {
		rm, rv := gc.input(gc.values([]int{2}, false), false), gc.input(gc.values([]int{2}, true), false)
		f := gc.call("batch_norm_functional", gc.rand(3, 2, 2, 2), rm, rv, gc.rand(2), gc.rand(2), 0.1, 1e-5)
		gc.output(gc.call("getitem", f, int64(0)))
	}
	gradCases["dropout_masked"] = func(gc *gradGraph) {
		m := gc.input(tensor.FromInts(tensor.Bool, []int{2, 3}, []int64{1, 0, 1, 1, 0, 0}), false)
		gc.output(gc.call("dropout_masked", gc.rand(2, 3), m, 0.25))
	}
	gradCases["feature_dropout"] = func(gc *gradGraph) {
		x := gc.rand(2, 3, 2)
		gc.output(gc.call("feature_dropout", x, 0.4, false), gc.call("feature_dropout", x, 0.0, true))
	}
	gradCases["cross_entropy"] = func(gc *gradGraph) {
		x := gc.rand(4, 5)
		t := gc.ints([]int{4}, 1, 4, 0, 1)
		gc.output(gc.call("cross_entropy", x, t),
			gc.call("cross_entropy", x, gc.ints([]int{4}, 2, -100, 3, 3), nil, nil, int64(-100), nil, "sum", 0.1),
			gc.call("cross_entropy", gc.rand(2, 3, 2), gc.ints([]int{2, 2}, 0, 2, 1, 1), nil, nil, int64(-100), nil, "none"))
	}
}

func trainUnits(t *testing.T, path, until string) []*Unit {
	t.Helper()
	tr, err := trace.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	units, err := Run(tr, until)
	if err != nil {
		t.Fatal(err)
	}
	return units
}

// closeTo compares got with PyTorch's want (float32 results: a loose
// tolerance; exact for integers).
func closeTo(got ir.Value, want *tensor.Tensor) error {
	g, err := interp.AsTensor(got)
	if err != nil {
		return err
	}
	if !sameInts(g.Shape, want.Shape) {
		return fmt.Errorf("shape %v, want %v", g.Shape, want.Shape)
	}
	for i := 0; i < want.Numel(); i++ {
		a, b := g.Flat(i), want.Flat(i)
		if math.Abs(a-b) > 2e-5+2e-4*math.Abs(b) || math.IsNaN(a) != math.IsNaN(b) {
			return fmt.Errorf("element %d: %v, want %v", i, a, b)
		}
	}
	return nil
}

// The training fixtures, made by PyTorch 1.13 (fixtures/models): the
// pipeline's forward and backward graphs (interpreted) reproduce PyTorch's
// outputs, grads and the buffers after the step, and so does the eager
// reference (the normalized graph, which mutates the buffers in place).
func TestTrainingFixturesMatchPyTorch(t *testing.T) {
	for _, name := range []string{"bn_dropout_train", "frozen_bn", "mlp_bn_cumulative", "random_ops", "group_instance_norm", "feature_dropout"} {
		for _, u := range trainUnits(t, "../fixtures/"+name+".json", "backward") {
			ex := u.Captured.Expected
			where := name + "/" + u.Captured.Name
			outs, grads, err := u.RunPipeline()
			if err != nil {
				t.Fatalf("%s: %v", where, err)
			}
			n := u.UserOutputs()
			if len(ex.Outputs) != n {
				t.Fatalf("%s: %d user outputs, PyTorch %d", where, n, len(ex.Outputs))
			}
			for i := 0; i < n; i++ {
				if err := closeTo(outs[i], ex.Outputs[i]); err != nil {
					t.Errorf("%s: output %d: %v", where, i, err)
				}
			}
			if len(ex.Grads) == 0 || len(grads) != len(u.Joint.GradTargets) {
				t.Fatalf("%s: %d grads for %d targets (PyTorch has %d)", where, len(grads), len(u.Joint.GradTargets), len(ex.Grads))
			}
			for i, tg := range u.Joint.GradTargets {
				if err := closeTo(grads[i], ex.Grads[tg]); err != nil {
					t.Errorf("%s: grad of %s: %v", where, tg, err)
				}
			}
			wbs := u.FunctionalInfo().Writebacks
			if len(wbs) != len(ex.Buffers) {
				t.Errorf("%s: %d write-backs, PyTorch mutated %d buffers %v", where, len(wbs), len(ex.Buffers), ex.BufferOrder)
			}
			for _, wb := range wbs {
				want := ex.Buffers[wb.Target]
				if want == nil {
					t.Errorf("%s: write-back %q is no buffer PyTorch mutated (%v)", where, wb.Target, ex.BufferOrder)
					continue
				}
				if err := closeTo(outs[wb.Output], want); err != nil {
					t.Errorf("%s: buffer %s after the step (pipeline): %v", where, wb.Target, err)
				}
			}
			// The eager reference mutates the buffers in place, as PyTorch does.
			env, err := interp.Eval(u.Normalized, nil)
			if err != nil {
				t.Fatalf("%s: eager: %v", where, err)
			}
			for _, nd := range u.Normalized.Nodes {
				if want := ex.Buffers[nd.Target]; nd.Op == ir.GetAttr && want != nil {
					if err := closeTo(env[nd], want); err != nil {
						t.Errorf("%s: buffer %s after the step (eager): %v", where, nd.Target, err)
					}
				}
			}
			for _, d := range u.RandomDraws() {
				if !d.Replayed {
					t.Errorf("%s: node %s drew its own numbers although the trace records PyTorch's", where, d.Node)
				}
			}
			if name == "bn_dropout_train" || name == "random_ops" || name == "feature_dropout" {
				if len(u.RandomDraws()) == 0 {
					t.Errorf("%s: no random node found", where)
				}
			}
		}
	}
}

// BatchNorm in training is functionalized as PyTorch does: the functional
// graph has batch_norm_functional and write-backs named by the buffers'
// qualified names (the keys of expected.buffers); a frozen BatchNorm (eval
// mode) keeps batch_norm with its running stats and writes nothing back.
func TestBatchNormFunctionalized(t *testing.T) {
	u := trainUnits(t, "../fixtures/frozen_bn.json", "functional")[0]
	var targets []string
	for _, wb := range u.FunctionalInfo().Writebacks {
		targets = append(targets, wb.Target)
	}
	if got := strings.Join(targets, ","); got != "bn.num_batches_tracked,bn.running_mean,bn.running_var" {
		t.Errorf("write-backs %s", got)
	}
	p := printFunctional(u)
	for _, want := range []string{"self.bn.running_mean.copy_(outputs[", "self.bn.num_batches_tracked.copy_(outputs[", "batch_norm_functional"} {
		if !strings.Contains(p, want) {
			t.Errorf("functional stage lacks %q:\n%s", want, p)
		}
	}
	frozen := u.Normalized.Node("frozen")
	if frozen == nil || frozen.Target != "aten.batch_norm" || (len(frozen.Args) > 5 && frozen.Args[5] != false) {
		t.Errorf("frozen BatchNorm normalized to %v", frozen)
	}
	for _, n := range u.Functional.Nodes {
		if n.Op == ir.GetAttr && strings.HasPrefix(n.Target, "frozen.") && strings.Contains(p, "self."+n.Target+".copy_") {
			t.Errorf("frozen BatchNorm's %s is written back", n.Target)
		}
	}
	// momentum=None: the factor is 1 / num_batches_tracked after the increment.
	u = trainUnits(t, "../fixtures/mlp_bn_cumulative.json", "normalized")[0]
	if n := u.Normalized.Node("_1_reciprocal"); n == nil {
		t.Errorf("momentum=None: no 1/num_batches_tracked node:\n%s", ir.Readable(u.Normalized))
	}
}

// A module whose forward depends on its training flag is refused without
// it, naming the node.
func TestTrainingFlagRequired(t *testing.T) {
	for _, typ := range []string{"torch.nn.BatchNorm1d", "torch.nn.Dropout"} {
		src := fmt.Sprintf(`{"format":"gcdbg.trace","version":1,"name":"t","graphs":[{"name":"g0","nodes":[
{"name":"x","op":"placeholder","target":"x"},
{"name":"m","op":"call_module","target":"m","args":[{"node":"x"}],"module":{"type":%q,"attrs":{"num_features":2},
 "params":{"running_mean":"m.running_mean","running_var":"m.running_var"}}},
{"name":"output","op":"output","target":"output","args":[{"node":"m"}]}]}],
"tensors":{"x":{"dtype":"float32","shape":[3,2],"init":{"dist":"arange"}},
"m.running_mean":{"dtype":"float32","shape":[2],"init":{"dist":"zeros"}},
"m.running_var":{"dtype":"float32","shape":[2],"init":{"dist":"ones"}}}}`, typ)
		tr, err := trace.Parse([]byte(src), t.TempDir(), "t.json")
		if err != nil {
			t.Fatal(err)
		}
		_, err = Run(tr, "normalized")
		if err == nil || !strings.Contains(err.Error(), `node "m": module.training:`) || !strings.Contains(err.Error(), "does not record") {
			t.Errorf("%s without training: %v", typ, err)
		}
		tr, _ = trace.Parse([]byte(strings.Replace(src, `"attrs":{"num_features":2},`, `"attrs":{"num_features":2},"training":false,`, 1)), t.TempDir(), "t.json")
		if _, err := Run(tr, "backward"); err != nil {
			t.Errorf("%s in eval mode: %v", typ, err)
		}
	}
}

// Without recorded draws gcdbg draws its own numbers: the graph says so
// (Unit.OwnRandom), eager and pipeline agree elementwise, and a dropout
// keeps about 1 - p of its input.
func TestOwnRandomDraws(t *testing.T) {
	u := trainUnits(t, "../fixtures/own_draws/random_own.json", "backward")[0]
	if got := strings.Join(u.OwnRandom(), ","); got != "drop,dropout,randn_like" {
		t.Errorf("own draws %q", got)
	}
	eager, err := u.RunEager()
	if err != nil {
		t.Fatal(err)
	}
	outs, _, err := u.RunPipeline()
	if err != nil {
		t.Fatal(err)
	}
	if err := closeTo(outs[0], eager[0].(*tensor.Tensor)); err != nil {
		t.Errorf("pipeline vs eager: %v", err)
	}
	again, _ := u.RunEager()
	if a, b := eager[0].(*tensor.Tensor), again[0].(*tensor.Tensor); a.Floats()[0] != b.Floats()[0] {
		t.Errorf("two eager runs draw differently")
	}
	for _, n := range u.Decomposed.Nodes {
		if strings.HasPrefix(n.Target, "aten.rand") || n.Target == "aten.philox_randn" {
			t.Errorf("decomposed graph keeps %s", n.Target)
		}
	}
	// Statistics of a big own-draw dropout: keep fraction near 1 - p.
	x, _ := tensor.Full([]int{100, 100}, 1, tensor.Float32)
	g := &ir.Graph{Name: "g0", Tensors: map[string]*ir.TensorData{"x": {T: x, Origin: "data"}}}
	ph := &ir.Node{Name: "x", Op: ir.Placeholder, Target: "x"}
	dr := &ir.Node{Name: "d", Op: ir.CallFunction, Target: "torch.nn.functional.dropout", Args: []ir.Arg{ph, 0.3, true}}
	g.Nodes = []*ir.Node{ph, dr, {Name: "output", Op: ir.Output, Target: "output", Args: []ir.Arg{dr}}}
	units, err := Run(&trace.Trace{Name: "t", Graphs: []*ir.Graph{g}}, "backward")
	if err != nil {
		t.Fatal(err)
	}
	vals, err := units[0].RunEager()
	if err != nil {
		t.Fatal(err)
	}
	out := vals[0].(*tensor.Tensor)
	kept := 0
	for i := 0; i < out.Numel(); i++ {
		switch v := out.Flat(i); {
		case v == 0:
		case math.Abs(v-1/0.7) < 1e-6:
			kept++
		default:
			t.Fatalf("dropout output %v is neither 0 nor 1/(1-p)", v)
		}
	}
	if f := float64(kept) / 1e4; math.Abs(f-0.7) > 0.02 {
		t.Errorf("kept fraction %v, want about 0.7", f)
	}
}

// Embedding(padding_idx): the padding row's gradient stays zero in the
// joint graph (eager) and the partition (what gets compiled).
func TestEmbeddingPaddingGrad(t *testing.T) {
	paths, _ := filepath.Glob("../fixtures/embedding_padding.json")
	if len(paths) == 0 {
		t.Fatal("no fixtures/embedding_padding.json")
	}
	for _, u := range trainUnits(t, paths[0], "backward") {
		ex := u.Captured.Expected
		_, jgrads, err := u.RunJoint()
		if err != nil {
			t.Fatal(err)
		}
		_, pgrads, err := u.RunPipeline()
		if err != nil {
			t.Fatal(err)
		}
		found := false
		for i, tg := range u.Joint.GradTargets {
			if !strings.HasSuffix(tg, ".weight") || !strings.Contains(tg, "emb") {
				continue
			}
			found = true
			for k, g := range map[string]ir.Value{"joint": jgrads[i], "pipeline": pgrads[i]} {
				if err := closeTo(g, ex.Grads[tg]); err != nil {
					t.Errorf("%s grad of %s: %v", k, tg, err)
				}
				gt := g.(*tensor.Tensor)
				row := gt.Shape[1]
				for j := 0; j < row; j++ { // padding_idx = 0: row 0
					if gt.Flat(j) != 0 {
						t.Errorf("%s grad of %s: padding row element %d = %v, want 0", k, tg, j, gt.Flat(j))
					}
				}
			}
		}
		if !found {
			t.Errorf("no embedding weight grad in %v", u.Joint.GradTargets)
		}
	}
}

// A recorded draw must belong to a node that draws: a mask recorded for a
// dropout that gcdbg's graph runs in eval mode is refused, naming the node.
func TestRecordedDrawForNonRandomNode(t *testing.T) {
	src := `{"format":"gcdbg.trace","version":1,"name":"t","graphs":[{"name":"g0","nodes":[
{"name":"x","op":"placeholder","target":"x","meta":{"dtype":"float32","shape":[2,2]}},
{"name":"d","op":"call_function","target":"torch.nn.functional.dropout","args":[{"node":"x"}],"kwargs":{"p":0.5,"training":false}},
{"name":"output","op":"output","target":"output","args":[{"node":"d"}]}],
"expected":{"random":{"d":{"dtype":"bool","shape":[2,2],"data":"AQABAQ=="}}}}],
"tensors":{"x":{"dtype":"float32","shape":[2,2],"init":{"dist":"arange"}}}}`
	tr, err := trace.Parse([]byte(src), t.TempDir(), "t.json")
	if err != nil {
		t.Fatal(err)
	}
	_, err = Run(tr, "normalized")
	if err == nil || !strings.Contains(err.Error(), `node "d": expected.random["d"]`) {
		t.Errorf("got %v", err)
	}
	// In training mode the same mask is replayed: kept elements scaled by 2.
	tr, _ = trace.Parse([]byte(strings.Replace(src, `"training":false`, `"training":true`, 1)), t.TempDir(), "t.json")
	units, err := Run(tr, "backward")
	if err != nil {
		t.Fatal(err)
	}
	out, err := units[0].RunEager()
	if err != nil {
		t.Fatal(err)
	}
	want := []float64{0, 0, 4, 6} // x = arange: [[0 1] [2 3]], mask [[1 0] [1 1]]
	for i, w := range want {
		if g := out[0].(*tensor.Tensor).Flat(i); g != w {
			t.Errorf("element %d = %v, want %v", i, g, w)
		}
	}
	outs, _, err := units[0].RunPipeline()
	if err != nil {
		t.Fatal(err)
	}
	if err := closeTo(outs[0], out[0].(*tensor.Tensor)); err != nil {
		t.Errorf("pipeline: %v", err)
	}
}

// Embedding(max_norm) renormalizes the rows it looks up with norm_type's
// norm: a trace without norm_type is refused, naming the node and the attr,
// rather than run with a guessed norm (stages/decomp_embedding.go; the
// values against PyTorch: ir/testdata/ext_cases_embed.json, real2_emb).
func TestEmbeddingMaxNormRefused(t *testing.T) {
	src := `{"format":"gcdbg.trace","version":1,"name":"t","graphs":[{"name":"g0","nodes":[
{"name":"i","op":"placeholder","target":"i"},
{"name":"emb","op":"call_module","target":"emb","args":[{"node":"i"}],"training":true,
 "module":{"type":"torch.nn.Embedding","attrs":{"num_embeddings":3,"embedding_dim":2,"max_norm":1.0},"params":{"weight":"emb.weight"}}},
{"name":"output","op":"output","target":"output","args":[{"node":"emb"}]}]}],
"tensors":{"i":{"dtype":"int64","shape":[2],"data":"AAAAAAAAAAACAAAAAAAAAA=="},
"emb.weight":{"dtype":"float32","shape":[3,2],"init":{"dist":"arange"}}}}`
	tr, err := trace.Parse([]byte(src), t.TempDir(), "t.json")
	if err != nil {
		t.Fatal(err)
	}
	_, err = Run(tr, "normalized")
	if err == nil || !strings.Contains(err.Error(), `node "emb": module.attrs.norm_type:`) {
		t.Errorf("got %v", err)
	}
	tr, err = trace.Parse([]byte(strings.Replace(src, `"max_norm":1.0`, `"max_norm":1.0,"norm_type":2.0`, 1)), t.TempDir(), "t.json")
	if err != nil {
		t.Fatal(err)
	}
	if _, err = Run(tr, "decomposed"); err != nil {
		t.Errorf("with norm_type: %v", err)
	}
}

// The decomposed forms are differentiated by the core ops' derivatives:
// gradcheck the decomposed graph of each training op too (finite
// differences on float64 inputs).
func TestDecomposedTrainingOpsGradcheck(t *testing.T) {
	for _, op := range []string{"batch_norm", "batch_norm_functional", "dropout_masked"} {
		gc := newGradGraph(op)
		gradCases[op](gc)
		if gc.err != nil {
			t.Fatalf("%s: %v", op, gc.err)
		}
		dg, err := decomposeGraph(gc.g)
		if err != nil {
			t.Fatalf("%s: %v", op, err)
		}
		for _, n := range dg.Nodes {
			if n.Op == ir.CallFunction && !ir.IsCore(n.Target) {
				t.Errorf("%s: decomposed graph keeps %s", op, n.Target)
			}
		}
		if gradcheck(t, op+" (decomposed)", dg) == 0 {
			t.Errorf("%s: nothing gradchecked", op)
		}
	}
}

// Hostile module attributes in the training modules are errors naming the
// node, never panics.
func TestTrainingModulesHostileAttrs(t *testing.T) {
	cases := []struct{ typ, attrs, params, shape string }{
		{"torch.nn.BatchNorm2d", `"momentum":"fast"`, `"running_mean":"m.rm","running_var":"m.rv","num_batches_tracked":"m.nbt"`, "[2,2,2,2]"},
		{"torch.nn.BatchNorm2d", `"eps":"tiny"`, `"running_mean":"m.rm","running_var":"m.rv"`, "[2,2,2,2]"},
		{"torch.nn.BatchNorm2d", ``, `"running_mean":"m.rm"`, "[2,2,2,2]"},
		{"torch.nn.BatchNorm1d", ``, `"running_mean":"m.rm","running_var":"m.rv"`, "[2,2,2,2]"},
		{"torch.nn.BatchNorm1d", ``, `"running_mean":"m.rm","running_var":"m.rv"`, "[1,2]"},
		{"torch.nn.BatchNorm1d", ``, `"running_mean":"m.r3","running_var":"m.rv"`, "[4,2]"},
		{"torch.nn.GroupNorm", `"num_groups":0`, ``, "[2,2,2,2]"},
		{"torch.nn.GroupNorm", `"num_groups":3`, ``, "[2,2,2,2]"},
		{"torch.nn.GroupNorm", `"num_groups":"two"`, ``, "[2,2,2,2]"},
		{"torch.nn.GroupNorm", ``, ``, "[2,2,2,2]"},
		{"torch.nn.InstanceNorm2d", ``, `"running_mean":"m.rm","running_var":"m.rv"`, "[2,2,2]"},
		{"torch.nn.InstanceNorm2d", `"momentum":null`, `"running_mean":"m.rm","running_var":"m.rv"`, "[2,2,2,2]"},
		{"torch.nn.Dropout", `"p":2.0`, ``, "[2,2]"},
		{"torch.nn.Dropout", `"p":"half"`, ``, "[2,2]"},
	}
	for i, c := range cases {
		src := fmt.Sprintf(`{"format":"gcdbg.trace","version":1,"name":"t","graphs":[{"name":"g0","nodes":[
{"name":"x","op":"placeholder","target":"x"},
{"name":"m","op":"call_module","target":"m","args":[{"node":"x"}],
 "module":{"type":%q,"attrs":{%s},"training":true,"params":{%s}}},
{"name":"output","op":"output","target":"output","args":[{"node":"m"}]}]}],
"tensors":{"x":{"dtype":"float32","shape":%s,"init":{"dist":"normal","seed":1}},
"m.rm":{"dtype":"float32","shape":[2],"init":{"dist":"zeros"}},"m.r3":{"dtype":"float32","shape":[3],"init":{"dist":"zeros"}},
"m.rv":{"dtype":"float32","shape":[2],"init":{"dist":"ones"}},"m.nbt":{"dtype":"int64","shape":[],"data":"AAAAAAAAAAA="}}}`,
			c.typ, c.attrs, c.params, c.shape)
		tr, err := trace.Parse([]byte(src), t.TempDir(), "t.json")
		if err != nil {
			t.Fatalf("case %d: %v", i, err)
		}
		func() {
			defer func() {
				if r := recover(); r != nil {
					t.Errorf("case %d (%s %s): panic %v", i, c.typ, c.attrs, r)
				}
			}()
			units, err := Run(tr, "backward")
			if err == nil {
				_, err = units[0].RunEager()
			}
			t.Logf("case %d: %v", i, err)
			if err == nil || !strings.Contains(err.Error(), `node "m`) {
				t.Errorf("case %d (%s %s %s): want an error naming node m, got %v", i, c.typ, c.attrs, c.shape, err)
			}
		}()
	}
}

// Dropout2d without a recorded mask: gcdbg's own draw zeroes whole
// channels (one draw per sample and channel), about p of them.
func TestFeatureDropoutOwnDraws(t *testing.T) {
	src := `{"format":"gcdbg.trace","version":1,"name":"t","graphs":[{"name":"g0","nodes":[
{"name":"x","op":"placeholder","target":"x"},
{"name":"d","op":"call_module","target":"d","args":[{"node":"x"}],
 "module":{"type":"torch.nn.Dropout2d","attrs":{"p":0.25},"training":true,"params":{}}},
{"name":"output","op":"output","target":"output","args":[{"node":"d"}]}]}],
"tensors":{"x":{"dtype":"float32","shape":[20,10,3,3],"init":{"dist":"ones"}}}}`
	tr, err := trace.Parse([]byte(src), t.TempDir(), "t.json")
	if err != nil {
		t.Fatal(err)
	}
	units, err := Run(tr, "backward")
	if err != nil {
		t.Fatal(err)
	}
	u := units[0]
	if got := strings.Join(u.OwnRandom(), ","); got != "d" {
		t.Errorf("own draws %q", got)
	}
	vals, err := u.RunEager()
	if err != nil {
		t.Fatal(err)
	}
	out := vals[0].(*tensor.Tensor)
	dropped := 0
	for ch := 0; ch < 200; ch++ {
		first := out.Flat(ch * 9)
		if first != 0 && math.Abs(first-1/0.75) > 1e-6 {
			t.Fatalf("channel %d: %v is neither 0 nor 1/(1-p)", ch, first)
		}
		for k := 1; k < 9; k++ {
			if out.Flat(ch*9+k) != first {
				t.Fatalf("channel %d is not dropped as a whole", ch)
			}
		}
		if first == 0 {
			dropped++
		}
	}
	if dropped < 30 || dropped > 70 {
		t.Errorf("%d of 200 channels dropped, want about 50", dropped)
	}
	outs, _, err := u.RunPipeline()
	if err != nil {
		t.Fatal(err)
	}
	if err := closeTo(outs[0], out); err != nil {
		t.Errorf("pipeline vs eager: %v", err)
	}
}
