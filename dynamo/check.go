package dynamo

import (
	"fmt"

	"gcdbg/ir"
	"gcdbg/stages"
	"gcdbg/tensor"
)

// Check evaluates guards compiled for inputs `ins` on the frame f and
// returns "" when all hold, else the first failure in Dynamo's own words
// (torch/csrc/dynamo/guards.cpp TensorCheck::check_verbose for tensors,
// the guard's code for constants and shape-env guards). Order follows
// Dynamo: constants and tensor checks in input order (uniqueness checked
// along the way), then the shape-env guards on symbolic sizes.
func Check(ins []stages.GuardInput, f Frame) string {
	storages := map[*tensor.Storage]string{}
	for _, in := range ins {
		v, ok := f[in.Name]
		if !ok {
			return fmt.Sprintf("%s is missing from the call", in.Source)
		}
		if !in.Tensor {
			if v.T != nil || !sameConst(in.Value, v.Const) {
				return constText(in)
			}
			continue
		}
		if v.T == nil {
			return fmt.Sprintf("expected type of '%s' to be a tensor type, but found %s", in.Source, pyType(v.Const))
		}
		if v.T.T.Numel() > 0 {
			if prev, dup := storages[v.T.T.S]; dup {
				return fmt.Sprintf("Duplicate tensor found where not expected! %s should not alias to anything, but is aliased (to %s)", in.Source, prev)
			}
			storages[v.T.T.S] = in.Source
		}
		if msg := checkTensor(in, v.T); msg != "" {
			return fmt.Sprintf("tensor '%s' %s", in.Source, msg)
		}
	}
	for _, sc := range stages.ShapeChecks(ins) {
		size := f[sc.Input].T.T.Shape[sc.Dim]
		if sc.EqInput == "" && size < 2 || sc.EqInput != "" && size != f[sc.EqInput].T.T.Shape[sc.EqDim] {
			return sc.Text
		}
	}
	return ""
}

// checkTensor is TensorCheck::check_verbose: dtype, requires_grad, rank,
// then size and stride per dimension (None skips the dimension).
func checkTensor(in stages.GuardInput, td *ir.TensorData) string {
	t := td.T
	switch {
	case t.DType != in.DType:
		return fmt.Sprintf("dtype mismatch. expected %s, actual %s", scalarType(in.DType), scalarType(t.DType))
	case td.RequiresGrad != in.RequiresGrad:
		return fmt.Sprintf("requires_grad mismatch. expected requires_grad=%d", b2i(in.RequiresGrad))
	case len(t.Shape) != len(in.Sizes):
		return fmt.Sprintf("rank mismatch. expected %d, actual %d", len(in.Sizes), len(t.Shape))
	}
	for i := range t.Shape {
		if in.Sizes[i] >= 0 && in.Sizes[i] != t.Shape[i] {
			return fmt.Sprintf("size mismatch at index %d. expected %d, actual %d", i, in.Sizes[i], t.Shape[i])
		}
		if i < len(in.Strides) && in.Strides[i] >= 0 && in.Strides[i] != t.Strides[i] {
			return fmt.Sprintf("stride mismatch at index %d. expected %d, actual %d", i, in.Strides[i], t.Strides[i])
		}
	}
	return ""
}

// scalarType is c10's ScalarType name, which Dynamo's message prints.
func scalarType(d tensor.DType) string {
	switch d {
	case tensor.Float32:
		return "Float"
	case tensor.Float64:
		return "Double"
	case tensor.Float16:
		return "Half"
	case tensor.BFloat16:
		return "BFloat16"
	case tensor.Int64:
		return "Long"
	case tensor.Int32:
		return "Int"
	case tensor.Int8:
		return "Char"
	case tensor.Uint8:
		return "Byte"
	case tensor.Bool:
		return "Bool"
	}
	return d.String()
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// sameConst is Python's == plus Dynamo's type check: 0 and 0.0 and False
// are equal in Python, but EQUALS_MATCH also guards the type.
func sameConst(a, b ir.Arg) bool {
	if fmt.Sprintf("%T", a) != fmt.Sprintf("%T", b) {
		return false
	}
	return ir.ArgEqual(a, b)
}

func constText(in stages.GuardInput) string { return stages.ConstGuard(in).Text }

func pyType(v ir.Arg) string {
	switch v.(type) {
	case nil:
		return "<class 'NoneType'>"
	case bool:
		return "<class 'bool'>"
	case int64:
		return "<class 'int'>"
	case float64:
		return "<class 'float'>"
	}
	return fmt.Sprintf("<class '%T'>", v)
}
