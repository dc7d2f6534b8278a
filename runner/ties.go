package runner

import (
	"math"
	"slices"

	"gcdbg/interp"
	"gcdbg/ir"
	"gcdbg/stages"
	"gcdbg/tensor"
	"gcdbg/verdict"
)

// Index outputs of sort, argsort, topk, kthvalue, median, argmax and argmin are only defined
// up to ties: PyTorch's sort (stable=False) leaves the order of equal
// elements unspecified, and two correct implementations return different
// indices for them. Two index tensors are equivalent when the values they
// select from the op's input are equal.

// tieSource is the op an index output came from: its input and the
// dimension the indices run along (-1 after flattening, for argmax/argmin
// without dim).
type tieSource struct {
	x       *tensor.Tensor
	dim     int
	flat    bool
	keepdim bool
}

// tieSourceOf finds where output i of the normalized graph comes from.
func tieSourceOf(u *stages.Unit, env map[*ir.Node]ir.Value, i int) *tieSource {
	out := u.Normalized.OutputNode()
	if out == nil || len(out.Args) == 0 || env == nil {
		return nil
	}
	var item ir.Arg
	switch x := out.Args[0].(type) {
	case ir.Tuple:
		if i < len(x) {
			item = x[i]
		}
	case ir.List:
		if i < len(x) {
			item = x[i]
		}
	default:
		if i == 0 {
			item = x
		}
	}
	n, ok := item.(*ir.Node)
	if !ok || n.Op != ir.CallFunction {
		return nil
	}
	op := n
	if n.Target == "operator.getitem" || n.Target == "aten.getitem" {
		src, ok := n.Args[0].(*ir.Node)
		if !ok || len(n.Args) < 2 || n.Args[1] != ir.Arg(int64(1)) {
			return nil
		}
		if src.Target != "aten.topk" && src.Target != "aten.sort" && src.Target != "aten.kthvalue" && src.Target != "aten.median" {
			return nil
		}
		op = src
	} else if n.Target != "aten.argsort" && n.Target != "aten.argmax" && n.Target != "aten.argmin" {
		return nil
	}
	d := ir.Lookup(op.Target)
	if d == nil {
		return nil
	}
	bound, err := d.Schema.Bind(op.Args, op.Kwargs)
	if err != nil || len(bound) == 0 {
		return nil
	}
	xn, ok := bound[0].(*ir.Node)
	if !ok {
		return nil
	}
	x, err := interp.AsTensor(env[xn])
	if err != nil {
		return nil
	}
	ts := &tieSource{x: x, dim: -1}
	dimArg := 1
	if op.Target == "aten.topk" || op.Target == "aten.kthvalue" {
		dimArg = 2
	}
	if dimArg < len(bound) {
		switch v := bound[dimArg].(type) {
		case int64:
			ts.dim = int(v)
		case nil:
			ts.flat = true
		}
	}
	switch op.Target {
	case "aten.argmax", "aten.argmin", "aten.median": // keepdim after dim
		if len(bound) > 2 {
			ts.keepdim, _ = bound[2].(bool)
		}
	case "aten.kthvalue":
		if len(bound) > 3 {
			ts.keepdim, _ = bound[3].(bool)
		}
	}
	if ts.dim < 0 {
		ts.dim += len(x.Shape)
	}
	return ts
}

// selected are the values of ts.x the indices idx pick.
func (ts *tieSource) selected(idx *tensor.Tensor) (*tensor.Tensor, bool) {
	x := ts.x
	if ts.flat {
		n := idx.Numel()
		out := tensor.New(tensor.Float64, n)
		for i := 0; i < n; i++ {
			k := int(idx.FlatInt(i))
			if k < 0 || k >= x.Numel() {
				return nil, false
			}
			out.SetFlat(i, x.Flat(k))
		}
		return out, true
	}
	if ts.dim < 0 || ts.dim >= len(x.Shape) {
		return nil, false
	}
	if len(idx.Shape) == len(x.Shape)-1 && !ts.keepdim {
		shape := append(append(append([]int{}, idx.Shape[:ts.dim]...), 1), idx.Shape[ts.dim:]...)
		r, err := tensor.Reshape(idx.Contiguous(), shape)
		if err != nil {
			return nil, false
		}
		idx = r
	}
	if len(idx.Shape) != len(x.Shape) {
		return nil, false
	}
	n := idx.Numel()
	for i := 0; i < n; i++ {
		if k := idx.FlatInt(i); k < 0 || int(k) >= x.Shape[ts.dim] {
			return nil, false
		}
	}
	g, err := tensor.Gather(x, ts.dim, idx)
	if err != nil {
		return nil, false
	}
	return g, true
}

// equivalentIndices reports whether got and want select equal values.
func (ts *tieSource) equivalentIndices(got, want *tensor.Tensor) bool {
	a, ok1 := ts.selected(got)
	b, ok2 := ts.selected(want)
	if !ok1 || !ok2 || a.Numel() != b.Numel() {
		return false
	}
	for i := 0; i < a.Numel(); i++ {
		x, y := a.Flat(i), b.Flat(i)
		if x == y || (math.IsNaN(x) && math.IsNaN(y)) {
			continue
		}
		// Near-ties: values a few float32 ulps apart, which rounding in
		// either implementation may order either way.
		if math.Abs(x-y) > 0x1p-20*math.Max(math.Abs(x), math.Abs(y)) {
			return false
		}
	}
	return true
}

// relaxTies turns an index mismatch that is only a different choice among
// ties into a match that says so.
func relaxTies(j *verdict.Judgement, ts *tieSource, got, want *tensor.Tensor) {
	if j == nil || j.Match || want == nil || !slices.Equal(got.Shape, want.Shape) || !ts.equivalentIndices(got, want) {
		return
	}
	j.Match, j.Why = true, ""
	j.Reference = "indices equal up to ties: they select equal values from the op's input (PyTorch leaves the order of equal elements unspecified)"
}
