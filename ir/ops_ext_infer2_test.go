package ir_test

import (
	"strings"
	"testing"

	"gcdbg/ir"
)

// extInferOps are the ops of ops_ext*.go with a hand-written Infer.
const extInferOps = "asin acos atan sinh cosh asinh acosh atanh log2 log10 erfinv isinf fmod hardswish hardsigmoid " +
	"mish elu selu celu softplus leaky_relu log_sigmoid softsign tanhshrink hardshrink softshrink lerp addcmul addcdiv " +
	"hypot nan_to_num round_decimals cumsum cumprod logcumsumexp flip roll argsort logsumexp linalg_vector_norm norm " +
	"einsum embedding_bag hardswish_ elu_ selu_ celu_ leaky_relu_ mish_ hardsigmoid_"

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
