package stages

import (
	"math"
	"strings"

	"gcdbg/ir"
)

// unbiasedOverload binds torch.var(x, True) / x.std(False): PyTorch's
// overload var(input, unbiased: bool), whose second positional argument is
// unbiased, not the canonical schema's dim. It returns n itself otherwise.
func unbiasedOverload(n *ir.Node, d *ir.OpDef) *ir.Node {
	if (d.Name != "aten.var" && d.Name != "aten.std") || len(n.Args) != 2 {
		return n
	}
	if _, ok := n.Args[1].(bool); !ok {
		return n
	}
	if _, ok := n.Kwarg("unbiased"); ok {
		return n
	}
	c := *n
	c.Args = n.Args[:1:1]
	c.Kwargs = append(append([]ir.Kwarg{}, n.Kwargs...), ir.Kwarg{Name: "unbiased", Value: n.Args[1]})
	return &c
}

// intHardtanhBounds: F.hardtanh and F.relu6 of an integer tensor keep its
// dtype (ATen clamps into an empty_like(self) result, truncating a float
// bound), where clamp with float bounds would promote to float. Since
// truncation is monotonic and integers are its fixed points,
// trunc(clamp(x, lo, hi)) = clamp(x, trunc(lo), trunc(hi)): the canonical
// clamp gets the truncated bounds as ints.
func intHardtanhBounds(al alias, args []ir.Arg) {
	if al.Op != "clamp" || !strings.HasPrefix(al.Schema, "hardtanh(") && !strings.HasPrefix(al.Schema, "relu6(") || len(args) < 3 {
		return
	}
	x, ok := args[0].(*ir.Node)
	if !ok || x.Meta.Tensor == nil || !x.Meta.Tensor.DType.IsInt() {
		return
	}
	for i := 1; i <= 2; i++ {
		if f, ok := args[i].(float64); ok && !math.IsNaN(f) && !math.IsInf(f, 0) {
			args[i] = int64(math.Trunc(f))
		}
	}
}

// floatHardtanh: F.hardtanh and F.relu6 (nn.Hardtanh, nn.ReLU6) of a
// floating tensor are the op hardtanh, not clamp: the values are clamp's,
// but PyTorch's hardtanh_backward passes the gradient only strictly inside
// (min_val, max_val), where clamp's passes it at the bounds too (a ReLU6 of
// exact zeros, a gate initialised to zero: review10 finding 4). Integer
// tensors keep clamp (intHardtanhBounds; they carry no gradient).
func floatHardtanh(al alias, d *ir.OpDef, args []ir.Arg) *ir.OpDef {
	if al.Op != "clamp" || !strings.HasPrefix(al.Schema, "hardtanh(") && !strings.HasPrefix(al.Schema, "relu6(") || len(args) < 3 {
		return d
	}
	// F.relu6(x, inplace=True) is clamp_
	if h := ir.Lookup("aten." + hardtanhOp(args[0], strings.HasSuffix(d.Name, "_"))); h != nil {
		return h
	}
	return d
}

// hardtanhOp is the canonical op of a hardtanh (F.hardtanh, F.relu6,
// nn.Hardtanh, nn.ReLU6) of x, in place or not: hardtanh for a floating x,
// clamp for an integer one (no gradient; clamp keeps its dtype).
func hardtanhOp(x ir.Arg, inplace bool) string {
	op := "clamp"
	if n, ok := x.(*ir.Node); ok && n.Meta.Tensor != nil && n.Meta.Tensor.DType.IsFloat() {
		op = "hardtanh"
	}
	if inplace {
		op += "_"
	}
	return op
}
