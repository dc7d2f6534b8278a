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

// A mask is a constant only when nothing it depends on is an input, a
// parameter or buffer, or a random draw.
func TestConstValueRefusesInputsAndDraws(t *testing.T) {
	nz := &normalizer{out: &ir.Graph{Tensors: map[string]*ir.TensorData{}}}
	eye := &ir.Node{Name: "eye", Op: ir.CallFunction, Target: "aten.eye", Args: []ir.Arg{int64(3)}}
	inv := &ir.Node{Name: "inv", Op: ir.CallFunction, Target: "aten.logical_not", Args: []ir.Arg{eye}}
	v, ok := nz.constValue(inv, map[*ir.Node]ir.Value{}, 0)
	if mt, isT := v.(*tensor.Tensor); !ok || !isT || mt.Numel() != 9 || mt.Flat(0) != 0 || mt.Flat(1) != 1 {
		t.Fatalf("~eye(3): %v %v", v, ok)
	}
	x := &ir.Node{Name: "x", Op: ir.Placeholder, Target: "x"}
	if _, ok := nz.constValue(&ir.Node{Name: "gt", Op: ir.CallFunction, Target: "aten.gt", Args: []ir.Arg{x, 0.0}}, map[*ir.Node]ir.Value{}, 0); ok {
		t.Error("a mask of an input was taken as a constant")
	}
	w := &ir.Node{Name: "w", Op: ir.GetAttr, Target: "weight"}
	nz.out.Tensors["weight"] = &ir.TensorData{T: tensor.New(tensor.Float32, 3)}
	if _, ok := nz.constValue(&ir.Node{Name: "gt", Op: ir.CallFunction, Target: "aten.gt", Args: []ir.Arg{w, 0.0}}, map[*ir.Node]ir.Value{}, 0); ok {
		t.Error("a mask of a parameter was taken as a constant")
	}
	r := &ir.Node{Name: "r", Op: ir.CallFunction, Target: "aten.dropout", Args: []ir.Arg{eye, 0.5, true}}
	if _, ok := nz.constValue(r, map[*ir.Node]ir.Value{}, 0); ok {
		t.Error("a random draw was taken as a constant")
	}
}
