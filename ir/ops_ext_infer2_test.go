package ir_test

import (
	"strings"
	"testing"

	"gcdbg/ir"
	"gcdbg/tensor"
)

// extInferOps are the ops of ops_ext*.go with a hand-written Infer.
const extInferOps = "asin acos atan sinh cosh asinh acosh atanh log2 log10 erfinv isinf fmod hardswish hardsigmoid " +
	"mish elu selu celu softplus leaky_relu log_sigmoid softsign tanhshrink hardshrink softshrink lerp addcmul addcdiv " +
	"hypot nan_to_num round_decimals cumsum cumprod logcumsumexp flip roll argsort logsumexp linalg_vector_norm norm " +
	"einsum embedding_bag logaddexp xlogy frac hardswish_ elu_ selu_ celu_ leaky_relu_ mish_ hardsigmoid_ hardtanh hardtanh_"

// The hand-written inference of the ext ops agrees with inference by
// example on the generic argument combinations (the fixtures hold none of
// these ops, so TestInferAgreesWithInferenceByExample reaches them only so).
func TestExtInferAgreesWithInferenceByExample(t *testing.T) {
	checked := 0
	for _, name := range strings.Fields(extInferOps) {
		d := ir.Lookup("aten." + name)
		if d == nil || d.Infer == nil {
			t.Errorf("%s: not registered with an Infer", name)
			continue
		}
		for _, c := range genericCases(d) {
			checked++
			if _, msg := compareInfer(d, c.vals); msg != "" {
				t.Errorf("%s at %s: %s", d.Name, c.where, msg)
			}
		}
	}
	if checked < 100 {
		t.Errorf("only %d cases", checked)
	}
}

// extSyntheticCases are argument sets of the ext ops for
// TestInferAgreesWithInferenceByExample (the generic pools bind at most two
// arguments, and no fixture holds these ops).
func extSyntheticCases() map[string][][]ir.Value {
	f32, f64, i64 := tensor.Float32, tensor.Float64, tensor.Int64
	x, y := tm(f32, []int{2, 3, 4}), tm(f32, []int{3, 4})
	xt := tm(f32, []int{4, 3, 2}, 1, 4, 12)
	d := tm(f64, []int{4})
	return map[string][][]ir.Value{
		"aten.addcmul":   {{x, y, d, 0.5}, {xt, xt, xt, int64(2)}},
		"aten.addcdiv":   {{x, y, d, 1.5}, {xt, tm(f32, []int{2}), xt, int64(1)}},
		"aten.lerp":      {{x, y, 0.25}, {x, y, tm(f32, []int{4})}, {d, d, d}},
		"aten.flip":      {{x, ir.List{int64(0), int64(2)}}, {xt, ir.List{int64(-1)}}, {tm(i64, []int{3}), ir.List{int64(0)}}},
		"aten.logsumexp": {{x, ir.List{int64(1)}, false}, {xt, ir.List{int64(0), int64(2)}, true}},
		"aten.einsum":    {{"bij,bjk->bik", ir.Tuple{x, tm(f32, []int{2, 4, 5})}}, {"ij->ji", ir.Tuple{y}}, {"i,i->", ir.Tuple{d, d}}},
	}
}
