package ir_test

import (
	"fmt"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"gcdbg/ir"
	"gcdbg/stages"
	"gcdbg/tensor"
	"gcdbg/trace"
)

// Every hand-written Infer must agree with inference by example (the op
// evaluated on tensors of ones with the arguments' shapes, dtypes and
// strides) on dtype, shape and strides, on every call of every graph stage
// of every fixture and op zoo, plus the synthetic cases below that reach
// non-contiguous inputs, scalars and in-place ops.

// fallbackOps keep inference by example: their result shape depends on the
// index's contents (getitem on a tensor, index, index_put), on Python values
// the probe can't shrink (arange), or they are rare enough that evaluating
// them costs nothing that matters (losses). A newly registered op must
// either get an Infer or be listed here.
var fallbackOps = map[string]bool{
	"aten.index": true, "aten.arange": true,
	"aten.nll_loss": true, "aten.cross_entropy": true,
	// random ops: the normalized stage replaces each by its draw, so no
	// stage graph holds one (ops_train.go)
	"aten.rand_like": true, "aten.randn_like": true,
}

type inferCase struct {
	where string
	vals  []ir.Value
}

func TestEveryOpHasInferOrIsAListedFallback(t *testing.T) {
	for _, d := range ir.Ops() {
		if d.Infer == nil && !fallbackOps[d.Name] {
			t.Errorf("%s: no hand-written Infer and not listed in fallbackOps", d.Name)
		}
		if d.Infer != nil && fallbackOps[d.Name] {
			t.Errorf("%s: has an Infer but is listed in fallbackOps", d.Name)
		}
	}
}

func TestInferAgreesWithInferenceByExample(t *testing.T) {
	cases := map[string][]inferCase{}
	for _, path := range fixturePaths(t) {
		collectCases(t, path, cases)
	}
	for name, cs := range syntheticCases() {
		cases[name] = append(cases[name], cs...)
	}
	var uncovered []string
	checked := 0
	for _, d := range ir.Ops() {
		if d.Infer == nil {
			continue
		}
		cs := cases[d.Name]
		if len(cs) == 0 {
			cs = genericCases(d)
		}
		agreed := 0
		for _, c := range cs {
			checked++
			if len(c.vals) != len(d.Schema.Params) { // ops evaluate bound arguments only (Schema.Bind)
				t.Errorf("%s at %s: %d values for the %d parameters of %s", d.Name, c.where, len(c.vals), len(d.Schema.Params), d.Schema.Name)
				continue
			}
			ok, msg := compareInfer(d, c.vals)
			if msg != "" {
				t.Errorf("%s at %s: %s", d.Name, c.where, msg)
			}
			if ok {
				agreed++
			}
		}
		if agreed == 0 {
			uncovered = append(uncovered, d.Name)
		}
	}
	sort.Strings(uncovered)
	if len(uncovered) > 0 {
		t.Errorf("ops with an Infer that no case evaluates successfully: %v", uncovered)
	}
	t.Logf("compared %d calls", checked)
	if checked < 500 {
		t.Errorf("only %d calls compared: are the fixtures loading?", checked)
	}
}

// compareInfer runs both inferences; msg is "" when they agree (an error
// on both sides counts as agreement: the messages may differ), ok is true
// when both succeeded and agree.
func compareInfer(d *ir.OpDef, vals []ir.Value) (ok bool, msg string) {
	want, werr := ir.InferByExample(d, vals)
	got, gerr := d.Infer(ir.Args{Op: d, V: vals})
	switch {
	case werr != nil && gerr != nil:
		return false, ""
	case werr != nil:
		if strings.Contains(werr.Error(), "too large for shape inference by example") {
			return false, ""
		}
		return false, fmt.Sprintf("by example fails (%v) but Infer gives %s", werr, show(got))
	case gerr != nil:
		return false, fmt.Sprintf("Infer fails (%v) but by example gives %s", gerr, show(want))
	}
	if !sameValue(got, want) {
		return false, fmt.Sprintf("Infer gives %s, by example %s (args %s)", show(got), show(want), show(ir.Tuple(vals)))
	}
	return true, ""
}

// genericCases binds pools of tensors and scalars to an op's leading
// parameters (the rest take their defaults): for the pointwise and
// in-place ops no fixture calls.
func genericCases(d *ir.OpDef) []inferCase {
	pools := [][]ir.Arg{
		{tm(tensor.Float32, []int{2, 3}), tm(tensor.Float32, []int{3, 2}, 1, 3), tm(tensor.Int64, []int{2, 3}), tm(tensor.Bool, []int{2, 3})},
		{tm(tensor.Float32, []int{2, 3}, 1, 2), 2.0, int64(3), tm(tensor.Int64, []int{}), tm(tensor.Bool, []int{3})},
	}
	n := min(len(d.Schema.Params), len(pools))
	var out []inferCase
	var rec func(args []ir.Arg)
	rec = func(args []ir.Arg) {
		if len(args) == n {
			bound, err := d.Schema.Bind(args, nil)
			if err == nil {
				vals := make([]ir.Value, len(bound))
				copy(vals, bound)
				out = append(out, inferCase{fmt.Sprintf("generic %s", show(ir.Tuple(vals))), vals})
			}
			return
		}
		for _, a := range pools[len(args)] {
			rec(append(append([]ir.Arg{}, args...), a))
		}
	}
	rec(nil)
	return out
}

func sameValue(a, b ir.Value) bool {
	switch x := a.(type) {
	case *ir.TensorMeta:
		y, ok := b.(*ir.TensorMeta)
		return ok && x.DType == y.DType && reflect.DeepEqual(x.Shape.Sizes(), y.Shape.Sizes()) &&
			reflect.DeepEqual(append([]int{}, x.Stride...), append([]int{}, y.Stride...))
	case ir.Tuple:
		y, ok := b.(ir.Tuple)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !sameValue(x[i], y[i]) {
				return false
			}
		}
		return true
	}
	return reflect.DeepEqual(a, b)
}

func show(v ir.Value) string {
	switch x := v.(type) {
	case *ir.TensorMeta:
		return fmt.Sprintf("%s%v stride %v", x.DType.Short(), x.Shape.Sizes(), x.Stride)
	case ir.Tuple:
		parts := make([]string, len(x))
		for i, it := range x {
			parts[i] = show(it)
		}
		return "(" + strings.Join(parts, ", ") + ")"
	case ir.List:
		return show(ir.Tuple(x))
	}
	return fmt.Sprintf("%v", v)
}

func fixturePaths(t *testing.T) []string {
	paths, err := filepath.Glob("../fixtures/*.json")
	if err != nil || len(paths) == 0 {
		t.Fatalf("no fixtures: %v", err)
	}
	return append(paths, "../stages/testdata/zoo_modules.json", "../stages/testdata/zoo_functions.json")
}

// collectCases runs a trace through the graph stages and records the bound
// argument metadata of every call node of every graph.
func collectCases(t *testing.T, path string, cases map[string][]inferCase) {
	tr, err := trace.Load(path)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	units, err := stages.Run(tr, "forward")
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	for _, u := range units {
		for _, st := range stages.Table {
			if st.Graph == nil || st.Name == "captured" {
				continue
			}
			g := st.Graph(u)
			if g == nil {
				continue
			}
			for _, n := range g.Nodes {
				if n.Op != ir.CallFunction {
					continue
				}
				d := ir.Lookup(n.Target)
				if d == nil {
					continue
				}
				bound, err := d.Schema.Bind(n.Args, n.Kwargs)
				if err != nil {
					t.Errorf("%s %s/%s node %q: %v", path, g.Name, st.Name, n.Name, err)
					continue
				}
				vals := make([]ir.Value, len(bound))
				for i, b := range bound {
					vals[i] = resolve(b)
				}
				where := fmt.Sprintf("%s %s/%s node %q", filepath.Base(path), g.Name, st.Name, n.Name)
				cases[d.Name] = append(cases[d.Name], inferCase{where, vals})
			}
		}
	}
}

func resolve(a ir.Arg) ir.Value {
	switch v := a.(type) {
	case *ir.Node:
		switch {
		case v.Meta.Tensor != nil:
			return v.Meta.Tensor
		case v.Meta.Items != nil:
			out := make(ir.Tuple, len(v.Meta.Items))
			for i, m := range v.Meta.Items {
				out[i] = m
			}
			return out
		}
		return v.Meta.Value
	case ir.Tuple:
		out := make(ir.Tuple, len(v))
		for i, x := range v {
			out[i] = resolve(x)
		}
		return out
	case ir.List:
		out := make(ir.List, len(v))
		for i, x := range v {
			out[i] = resolve(x)
		}
		return out
	case ir.Slice:
		return ir.Slice{Start: resolve(v.Start), Stop: resolve(v.Stop), Step: resolve(v.Step)}
	}
	return a
}

func tm(dt tensor.DType, sizes []int, strides ...int) *ir.TensorMeta {
	if strides == nil {
		strides = tensor.ContiguousStrides(sizes)
	}
	return &ir.TensorMeta{DType: dt, Shape: ir.ShapeOf(sizes), Stride: strides}
}

// syntheticCases reach what the fixtures may not: transposed and expanded
// inputs, size-1 dims, Python scalars and 0-dim tensors in promotion,
// integer and bool dtypes, in-place ops, and errors on both sides.
func syntheticCases() map[string][]inferCase {
	f32, i64, bl, f16 := tensor.Float32, tensor.Int64, tensor.Bool, tensor.Float16
	x := tm(f32, []int{2, 3, 4})
	xt := tm(f32, []int{4, 3, 2}, 1, 4, 12) // x.permute(2, 1, 0)
	xe := tm(f32, []int{2, 3, 4}, 0, 1, 0)  // expanded
	xs := tm(f32, []int{2, 1, 4}, 8, 8, 1)  // a size-1 dim with an odd stride
	xi := tm(i64, []int{2, 3, 4})
	z := tm(f32, []int{})
	zi := tm(i64, []int{})
	m := tm(bl, []int{3, 4})
	sets := map[string][][]ir.Value{}
	add := func(op string, vals ...ir.Value) { sets["aten."+op] = append(sets["aten."+op], vals) }
	add("feature_dropout", x, 0.3, false, false)                                                                            // eval: the input itself (ops_train.go)
	add("feature_dropout", tm(f32, []int{2, 3, 4}, 1, 2, 6), 0.0, true, false)                                              // p = 0: the input itself
	add("feature_alpha_dropout", x, 0.3, false, false)                                                                      // eval: the input itself (ops_train_alpha.go)
	add("feature_alpha_dropout", xi, 0.5, false, false)                                                                     // eval takes any dtype
	add("alpha_dropout_masked", x, tm(bl, []int{2, 3, 1}), 0.5)                                                             // a [N, C, 1] keep mask
	add("alpha_dropout", x, 0.3, false, false)                                                                              // eval: the input itself (ops_train_alpha.go)
	add("grid_sample", tm(f32, []int{2, 3, 4, 5}), tm(f32, []int{2, 6, 7, 2}), "bilinear", "zeros", nil)                    // ops_grid_sample.go
	add("grid_sample", tm(f32, []int{2, 3, 4, 5}, 60, 1, 15, 3), tm(f32, []int{2, 6, 7, 2}), "nearest", "reflection", true) // channels_last input
	add("affine_grid", tm(f32, []int{2, 2, 3}), ir.List{int64(2), int64(3), int64(4), int64(5)}, false)
	add("alpha_dropout", xi, 0.5, false, false)                 // eval takes any dtype
	add("alpha_dropout_masked", x, tm(bl, []int{2, 3, 4}), 0.5) // an elementwise keep mask (alpha_dropout)
	add("alpha_dropout_masked", x, tm(bl, []int{2, 3, 4}), 1.0) // p = 1: x * 0
	add("rrelu", x, 0.1, 0.3, false, false)                     // eval: leaky_relu (ops_train_rrelu.go)
	add("rrelu_noised", x, tm(f32, []int{2, 3, 4}))             // the drawn slopes
	add("_scaled_dot_product_attention", tm(f32, []int{2, 4, 6}), tm(f32, []int{2, 3, 6}), tm(f32, []int{2, 3, 6}), nil, 0.0, true, false)
	for _, op := range []string{"rand", "randn"} { // factory draws (ops_train_factory.go)
		add(op, ir.Tuple{int64(2), int64(3)}, nil, nil, nil, nil, nil, false)
		add(op, ir.Tuple{ir.Tuple{int64(4)}}, nil, tensor.Float64, nil, nil, nil, false)
		add(op, ir.Tuple{int64(2)}, nil, tensor.Int64, nil, nil, nil, false) // floating only: both refuse
	}
	// creation from scalars (ops_linspace.go): sizes 0, 1, 2 and more, dtypes
	add("linspace", int64(0), int64(10), int64(7), nil, nil, nil, nil, false)
	add("linspace", -1.5, 2.0, int64(1), tensor.Float64, nil, nil, nil, false)
	add("linspace", int64(3), int64(-3), int64(0), i64, nil, nil, nil, false)
	add("logspace", 0.0, 3.0, int64(5), 2.0, nil, nil, nil, nil, false)
	add("logspace", int64(1), int64(2), int64(3), 10.0, tensor.Int32, nil, nil, nil, false)
	add("linspace", 0.0, 1.0, int64(-1), nil, nil, nil, nil, false) // both refuse a negative count
	add("eye", int64(4), nil, nil, nil, nil, nil, false)
	add("eye", int64(3), int64(5), bl, nil, nil, nil, false)
	add("eye", int64(0), int64(2), f16, nil, nil, nil, false)
	add("eye", int64(-2), nil, nil, nil, nil, nil, false)
	// index_add / index_copy / index_fill (ops_index_add.go, ops_index_fill_copy.go): along dims
	// 1 and 0, an int64 self, a scalar fill; randperm (ops_randperm.go) with and without a dtype
	add("index_add", x, int64(1), tm(i64, []int{2}), tm(f32, []int{2, 2, 4}), int64(1))
	add("index_add", xi, int64(0), tm(i64, []int{1}), tm(i64, []int{1, 3, 4}), int64(2))
	add("index_copy", x, int64(-1), tm(i64, []int{3}), tm(f32, []int{2, 3, 3}))
	add("index_fill", x, int64(1), tm(i64, []int{2}), 2.5)
	add("index_fill", xt, int64(0), tm(i64, []int{}), int64(-1))
	add("randperm", int64(5), nil, nil, nil, nil, nil, false)
	add("randperm", int64(3), nil, tensor.Int32, nil, nil, nil, false)
	for _, op := range []string{"philox_rand", "philox_randn"} { // gcdbg's own draws (ops_train.go)
		add(op, ir.Tuple{int64(2), int64(3)}, int64(0), int64(8), nil)
		add(op, ir.Tuple{int64(4)}, int64(1), int64(0), tensor.Float64)
	}
	// scatter and index_put infer without running the index (ops_ext_nn.go, ops_functional.go)
	add("scatter", tm(f32, []int{3, 4}), int64(0), tm(i64, []int{2, 4}), tm(f32, []int{2, 5}), nil, nil)
	add("scatter", tm(i64, []int{3, 4}, 1, 3), int64(1), tm(i64, []int{3, 2}), nil, 2.0, nil)
	add("scatter_reduce", tm(f32, []int{3, 4}, 1, 3), int64(-1), tm(i64, []int{3, 2}), tm(f32, []int{3, 4}), "amax", false)
	add("index_put", tm(f32, []int{3, 4}), ir.Tuple{tm(i64, []int{2})}, tm(f32, []int{2, 4}), false)
	add("index_put", tm(i64, []int{3, 4}, 1, 3), ir.Tuple{ir.Slice{}, tm(i64, []int{2})}, tm(i64, []int{3, 1}), true)
	add("masked_scatter", tm(f32, []int{3, 4}), tm(bl, []int{4}), tm(f32, []int{12}))
	add("masked_scatter", tm(i64, []int{4}), tm(bl, []int{2, 4}), tm(i64, []int{3, 3}))
	add("scatter_", tm(f32, []int{3, 4}, 1, 3), int64(0), tm(i64, []int{2, 4}), tm(f32, []int{2, 5}), nil, nil)
	add("scatter_reduce_", tm(f32, []int{3, 4}), int64(1), tm(i64, []int{3, 2}), tm(f32, []int{3, 4}), "mean", true)
	add("index_put_", tm(f32, []int{3, 4}), ir.Tuple{tm(i64, []int{2})}, tm(f32, []int{4}), true)
	add("masked_scatter_", tm(f32, []int{3, 4}), tm(bl, []int{4}), tm(f32, []int{12}))
	// multi_margin_loss infers by shapes (ops_loss.go); threshold_ (in place)
	add("multi_margin_loss", tm(f32, []int{3, 5}), tm(i64, []int{3}), int64(1), 1.0, nil, "none")
	add("multi_margin_loss", tm(f32, []int{5}), tm(i64, []int{}), int64(2), 1.0, tm(f32, []int{5}), "mean")
	add("multilabel_margin_loss", tm(f32, []int{3, 5}), tm(i64, []int{3, 5}), "none")
	add("multilabel_margin_loss", tm(f32, []int{5}), tm(i64, []int{5}), "sum")
	// ctc_loss infers by shapes (ops_ctc.go)
	add("ctc_loss", tm(f32, []int{6, 3, 5}), tm(i64, []int{3, 4}), tm(i64, []int{3}), tm(i64, []int{3}), int64(0), "none", false)
	add("ctc_loss", tm(f32, []int{6, 3, 5}), tm(i64, []int{3, 4}), tm(i64, []int{3}), tm(i64, []int{3}), int64(0), "mean", true)
	add("threshold_", tm(f32, []int{3, 4}, 1, 3), 0.5, -1.0)
	add("threshold_", tm(i64, []int{3, 4}), int64(0), int64(-2))
	for _, in := range []*ir.TensorMeta{x, xt, xe, xs, xi, tm(bl, []int{3})} {
		for _, op := range []string{"neg", "exp", "relu", "sigmoid", "abs", "logical_not", "bitwise_not", "isnan", "sign", "floor", "silu", "square"} {
			add(op, in)
		}
		add("clone", in, nil)
		add("contiguous", in, nil)
		add("to_dtype", in, f32)
		add("to_dtype", in, f16)
		add("sum", in, nil, false, nil)
		add("sum", in, ir.List{int64(-1)}, true, nil)
		add("mean", in, ir.List{int64(0), int64(2)}, false, nil)
		add("prod", in, ir.List{int64(1)}, false, i64)
		add("amax", in, ir.List{int64(1)}, true)
		add("any", in, ir.List{}, false)
		add("all", in, ir.List{int64(0)}, true)
		add("argmax", in, nil, false)
		add("argmax", in, int64(1), true)
		add("argmin", in, nil, true)
		add("max", in, int64(-1), false)
		add("min", in, nil, false)
		add("var", in, ir.List{int64(1)}, nil, true, nil)
		add("std", in, nil, false, false, nil)
		add("softmax", in, int64(-1), nil)
		add("log_softmax", in, int64(0), f16)
		add("view", in, ir.Tuple{int64(-1)})
		add("view", in, ir.Tuple{int64(6), int64(4)})
		add("reshape", in, ir.Tuple{int64(4), int64(-1)})
		add("flatten", in, int64(0), int64(1))
		add("flatten", in, int64(1), int64(-1))
		add("permute", in, ir.Tuple{int64(2), int64(0), int64(1)})
		add("transpose", in, int64(0), int64(-1))
		add("numpy_T", in)
		add("expand", in, ir.Tuple{int64(5), int64(-1), int64(-1), int64(-1)})
		add("expand", in, ir.Tuple{int64(2), int64(7), int64(4)})
		add("unsqueeze", in, int64(1))
		add("unsqueeze", in, int64(-1))
		add("squeeze", in, nil)
		add("squeeze", in, ir.Tuple{int64(1)})
		add("select", in, int64(2), int64(-1))
		add("narrow", in, int64(0), int64(1), int64(1))
		add("slice", in, int64(2), int64(1), nil, int64(2))
		add("slice", in, int64(-1), int64(-3), int64(100), int64(1))
		add("split", in, int64(2), int64(-1))
		add("split", in, ir.List{int64(1), int64(2)}, int64(1))
		add("chunk", in, int64(3), int64(2))
		add("sort", in, int64(-1), true, nil)
		add("topk", in, int64(2), int64(-1), true, true)
		add("cat", ir.List{in, x}, int64(0))
		add("stack", ir.List{in, in}, int64(1))
		add("triu", in, int64(0))
		add("size", in, nil)
		add("size", in, int64(-1))
		add("numel", in)
		add("zeros_like", in, nil, nil, nil, nil, nil, false)
		add("empty_like", in, nil, nil, nil, nil, nil, false)
		add("full_like", in, 2.5, nil, nil, nil, nil, nil, false)
		add("add", in, xt, int64(1))
		add("add_", in, xt, int64(1))
		add("mul_", in, 2.0)
		add("mul", in, 2.5)
		add("mul", in, int64(2))
		add("div", in, zi, nil)
		add("div", in, int64(2), "floor")
		add("add", in, z, 2.0)
		add("sub", in, z, int64(1))
		add("rsub", in, int64(1), int64(1))
		add("pow", in, 2.0)
		add("where", m, in, 0.0)
		add("clamp", in, 0.0, nil)
		add("clamp_min", in, zi)
		add("masked_fill", in, m, z)
		add("masked_fill_", in, m, 1.0)
		add("copy_", in, x)
		add("eq", in, int64(1))
		add("bitwise_and", in, xi)
		add("maximum", in, xs)
		add("dropout", in, 0.5, false, false)
		add("gelu", in, "tanh")
	}
	add("view", xt, ir.Tuple{int64(-1)}) // not viewable: both must fail
	add("add", x, tm(f32, []int{5}), int64(1))
	add("add", int64(2), int64(3), int64(1)) // Python arithmetic
	add("floor_divide", int64(7), int64(-2))
	add("mm", tm(f32, []int{3, 4}), tm(f32, []int{4, 5}))
	add("mm", tm(f32, []int{3, 4}), tm(f32, []int{5, 4}))
	add("mm", tm(f32, []int{3, 4}), tm(f16, []int{4, 5}))
	add("bmm", tm(f32, []int{2, 3, 4}), tm(f32, []int{2, 4, 5}))
	add("matmul", tm(f32, []int{4}), tm(f32, []int{4}))
	add("matmul", tm(f32, []int{4}), tm(f32, []int{2, 4, 5}))
	add("matmul", tm(f32, []int{7, 1, 3, 4}), tm(f32, []int{2, 4, 5}))
	add("matmul", tm(f32, []int{3, 4}), tm(f32, []int{4}))
	add("linear", tm(f32, []int{2, 3, 4}), tm(f32, []int{5, 4}), tm(f32, []int{5}))
	add("linear", tm(f32, []int{4}), tm(f32, []int{5, 4}), nil)
	add("addmm", tm(f32, []int{5}), tm(f32, []int{3, 4}), tm(f32, []int{4, 5}), int64(1), int64(1))
	add("baddbmm", tm(f32, []int{2, 1, 5}), tm(f32, []int{2, 3, 4}), tm(f32, []int{2, 4, 5}), int64(1), int64(1))
	img := tm(f32, []int{2, 3, 8, 8})
	w := tm(f32, []int{4, 3, 3, 3})
	add("conv2d", img, w, tm(f32, []int{4}), ir.Tuple{int64(2), int64(1)}, ir.Tuple{int64(1), int64(0)}, int64(1), int64(1))
	add("conv2d", img, w, nil, int64(1), "same", int64(2), int64(1))
	add("conv2d", tm(f32, []int{3, 8, 8}), w, nil, int64(1), int64(0), int64(1), int64(1))
	add("max_pool2d", img, int64(3), nil, int64(1), int64(1), true, false)
	add("avg_pool2d", img, ir.Tuple{int64(2), int64(2)}, ir.Tuple{}, int64(0), false, true, nil)
	add("adaptive_avg_pool2d", img, ir.Tuple{int64(3), int64(2)})
	g := tm(f32, []int{2, 4, 6, 6})
	add("conv2d_backward_input", g, w, ir.Tuple{int64(2), int64(3), int64(8), int64(8)}, int64(1), int64(0), int64(1), int64(1))
	add("conv2d_backward_weight", g, img, ir.Tuple{int64(4), int64(3), int64(3), int64(3)}, int64(1), int64(0), int64(1), int64(1))
	add("max_pool2d_backward", tm(f32, []int{2, 3, 4, 4}), img, int64(2), nil, int64(0), int64(1), false)
	add("avg_pool2d_backward", tm(f32, []int{2, 3, 4, 4}), img, int64(2), nil, int64(0), false, true, nil)
	add("adaptive_avg_pool2d_backward", tm(f32, []int{2, 3, 3, 2}), img)
	add("layer_norm", x, ir.Tuple{int64(4)}, tm(f32, []int{4}), tm(f32, []int{4}), 1e-5)
	add("layer_norm", x, ir.Tuple{int64(3), int64(4)}, nil, nil, 1e-5)
	add("batch_norm", img, tm(f32, []int{3}), tm(f32, []int{3}), nil, nil, false, 0.1, 1e-5)
	add("embedding", tm(i64, []int{2, 5}), tm(f32, []int{10, 4}), nil, nil, 2.0)
	add("embedding", tm(i64, []int{3}), tm(f32, []int{10, 4}), int64(-1), 1.0, 2.0) // max_norm: the renormed rows
	add("index_select", x, int64(1), tm(i64, []int{5}))
	add("gather", x, int64(2), tm(i64, []int{2, 3, 1}))
	add("slice_scatter", x, tm(f32, []int{2, 3, 2}), int64(2), int64(0), int64(4), int64(2))
	add("select_scatter", x, tm(f32, []int{2, 4}), int64(1), int64(0))
	add("scatter_add", x, int64(0), tm(i64, []int{1, 3, 4}), tm(f32, []int{1, 3, 4}))
	add("full", ir.Tuple{int64(2), int64(3)}, int64(1), nil, nil, nil, nil, false)
	add("full", ir.Tuple{int64(2), int64(3)}, true, nil, nil, nil, nil, false)
	add("zeros", ir.Tuple{int64(4)}, nil, nil, nil, nil, false)
	add("ones", ir.Tuple{int64(4), int64(0)}, i64, nil, nil, nil, false)
	add("scalar_tensor", 2.0, nil, nil, nil, nil)
	add("getitem", ir.Tuple{x, xi}, int64(1))
	add("getitem", x, ir.Tuple{int64(0), ir.Slice{Start: int64(1)}})
	add("setitem", x, int64(0), 1.0)
	add("dim", x)
	add("dtype", xi)
	add("view_as", x, tm(f32, []int{24}))
	add("reshape_as", xt, tm(f32, []int{24}))
	add("expand_as", tm(f32, []int{3, 1}), x)
	add("t", tm(f32, []int{3, 4}, 1, 3))
	add("t", tm(f32, []int{3}))
	add("detach", xt)
	add("alias", xs)
	add("type_as", xi, x)
	for op, vs := range extSyntheticCases() { // ops_ext_infer2_test.go
		sets[op] = append(sets[op], vs...)
	}
	for op, vs := range poolSyntheticCases() { // ops_pool_infer_test.go
		sets[op] = append(sets[op], vs...)
	}
	out := map[string][]inferCase{}
	for op, vs := range sets {
		for i, v := range vs {
			out[op] = append(out[op], inferCase{fmt.Sprintf("synthetic #%d", i), v})
		}
	}
	return out
}
