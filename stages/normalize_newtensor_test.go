package stages

import (
	"strings"
	"testing"

	"gcdbg/ir"
	"gcdbg/tensor"
)

func TestNestedShapeRowMajorAndRagged(t *testing.T) {
	var vals []ir.Arg
	s, err := nestedShape(ir.List{ir.List{int64(1), 2.5}, ir.List{true, int64(4)}, ir.List{5.0, 6.0}}, 0, &vals)
	if err != nil || len(s) != 2 || s[0] != 3 || s[1] != 2 || len(vals) != 6 || vals[1] != 2.5 || vals[2] != true {
		t.Fatalf("shape %v, values %v, err %v", s, vals, err)
	}
	vals = nil
	if _, err := nestedShape(ir.List{ir.List{1.0, 2.0}, ir.List{3.0}}, 0, &vals); err == nil || !strings.Contains(err.Error(), "ragged") {
		t.Errorf("ragged data: err %v", err)
	}
	vals = nil
	if _, err := nestedShape(ir.List{1.0, "a"}, 0, &vals); err == nil || !strings.Contains(err.Error(), "not a number") {
		t.Errorf("a string in the data: err %v", err)
	}
}

func TestTensorTypeNames(t *testing.T) {
	for s, want := range map[string]tensor.DType{"torch.FloatTensor": tensor.Float32, "torch.cuda.DoubleTensor": tensor.Float64, "torch.LongTensor": tensor.Int64} {
		if got, ok := tensorTypeName(s); !ok || got != want {
			t.Errorf("%s: %v %v", s, got, ok)
		}
	}
	if _, ok := tensorTypeName("torch.SparseTensor"); ok {
		t.Error("torch.SparseTensor accepted")
	}
}
