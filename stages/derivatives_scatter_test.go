package stages

import (
	"math"
	"slices"
	"strings"
	"testing"

	"gcdbg/interp"
	"gcdbg/ir"
	"gcdbg/tensor"
)

// Gradchecks of scatter and scatter_reduce (derivatives_scatter.go), the
// latter on repeated indices; ir/testdata/ext_cases.json's float64 scatter_reduce
// cases (every reduction, with and without self, zeros in prod's sources)
// are gradchecked by TestExtDecompositionsMatchPyTorch, and the OpInfo
// samples compare the gradients with PyTorch's (docs/conformance.md).
func init() {
	gradCases["scatter"] = func(gc *gradGraph) {
		// no index repeats within a row: which write wins is unspecified,
		// and PyTorch's src gradient passes grad to every writer
		idx := gc.ints([]int{2, 3}, 0, 3, 1, 1, 0, 2)
		gc.output(gc.call("scatter", gc.rand(3, 4), int64(1), idx, gc.rand(2, 3)),
			gc.call("scatter", gc.rand(3, 4), int64(1), idx, nil, 1.5))
	}
	gradCases["scatter_reduce"] = func(gc *gradGraph) {
		idx := gc.ints([]int{2, 3}, 0, 3, 0, 1, 1, 2)
		var outs []*ir.Node
		for _, red := range []string{"sum", "prod", "mean", "amax", "amin"} {
			for _, inc := range []bool{true, false} {
				outs = append(outs, gc.call("scatter_reduce", gc.rand(3, 4), int64(1), idx, gc.rand(2, 3), red, inc))
			}
		}
		gc.output(outs...)
	}
}

// TestScatterReduceTiesShareTheGradient: amax splits the gradient evenly
// among the values equal to the result, and (PyTorch 1.13's
// scatter_reduce_backward) counts self among them even with
// include_self=False. The expected values are PyTorch's:
//
//	x = [1., 3.]; src = [3., 3., 2.]; idx = [0, 0, 1]
//	x.scatter_reduce(0, idx, src, "amax").sum().backward()  # x.grad [0, 1], src.grad [.5, .5, 0]
//	x = [3., 3.]; same with include_self=False             # x.grad [0, 0], src.grad [1/3, 1/3, 1]
func TestScatterReduceTiesShareTheGradient(t *testing.T) {
	for _, c := range []struct {
		x        []float64
		inc      bool
		gx, gsrc []float64
	}{
		{[]float64{1, 3}, true, []float64{0, 1}, []float64{0.5, 0.5, 0}},
		{[]float64{3, 3}, false, []float64{0, 0}, []float64{1.0 / 3, 1.0 / 3, 1}},
	} {
		gc := newGradGraph("ties")
		x := gc.input(tensor.FromFloats(tensor.Float64, []int{2}, c.x), true)
		src := gc.input(tensor.FromFloats(tensor.Float64, []int{3}, []float64{3, 3, 2}), true)
		gc.output(gc.call("scatter_reduce", x, int64(0), gc.ints([]int{3}, 0, 0, 1), src, "amax", c.inc))
		if gc.err != nil {
			t.Fatal(gc.err)
		}
		j, err := newJointBuilder(gc.g).build()
		if err != nil {
			t.Fatal(err)
		}
		tangents := interp.Inputs{}
		for _, p := range j.Graph.Placeholders() {
			if strings.HasPrefix(p.Target, "tangents_") {
				if tangents[p.Target], err = tensor.Full(p.Meta.Tensor.Shape.Sizes(), 1, tensor.Float64); err != nil {
					t.Fatal(err)
				}
			}
		}
		out, err := interp.Run(j.Graph, tangents)
		if err != nil {
			t.Fatal(err)
		}
		want := map[string][]float64{x.Target: c.gx, src.Target: c.gsrc}
		for gi, target := range j.GradTargets {
			got, _ := interp.AsTensor(out[j.NumOutputs+gi])
			if w := want[target]; !slices.EqualFunc(got.Floats(), w, func(a, b float64) bool { return math.Abs(a-b) < 1e-15 }) {
				t.Errorf("include_self=%v: grad of %s = %v, want %v (PyTorch 1.13)", c.inc, target, got.Floats(), w)
			}
		}
		if len(j.GradTargets) != 2 {
			t.Errorf("grad targets %v, want both inputs", j.GradTargets)
		}
	}
}

// TestIndexPutMaskGradcheck: index_put through a bool mask (the values'
// gradient built with static shapes, indexPutMaskGrad), values one row per
// true element or broadcast over them, accumulate either way; the mask
// selects rows 0 and 2 of 3, or no row at all.
func TestIndexPutMaskGradcheck(t *testing.T) {
	for _, rows := range [][]int64{{1, 0, 1}, {0, 0, 0}} {
		for _, acc := range []bool{false, true} {
			for _, vshape := range [][]int{{2, 4}, {4}, {1, 4}} {
				if rows[0] == 0 && vshape[0] == 2 {
					continue // no row selected: values must broadcast
				}
				gc := newGradGraph("index_put_mask")
				x := gc.rand(3, 4)
				m := gc.input(tensor.FromInts(tensor.Bool, []int{3}, rows), false)
				v := gc.rand(vshape...)
				gc.output(gc.call("index_put", x, ir.Tuple{m}, v, acc))
				if gc.err != nil {
					t.Fatal(gc.err)
				}
				if gradcheck(t, "index_put mask", gc.g) != 2 {
					t.Errorf("rows %v values %v accumulate=%v: not both inputs gradchecked", rows, vshape, acc)
				}
			}
		}
	}
}
