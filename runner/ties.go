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
	if !ok {
		return nil
	}
	return tieSourceAt(u.Normalized, env, n)
}

// tieSourceOfBuffer finds where the final value of the mutated graph input
// target (a write-back) comes from.
func tieSourceOfBuffer(u *stages.Unit, env map[*ir.Node]ir.Value, target string) *tieSource {
	if env == nil {
		return nil
	}
	for _, n := range u.Normalized.Nodes {
		if (n.Op == ir.Placeholder || n.Op == ir.GetAttr) && n.Target == target {
			return tieSourceAt(u.Normalized, env, n)
		}
	}
	return nil
}

// copiedValue follows a value through the copies that only move it: an
// out= call (`torch.topk(x, k, out=(v, i))`) is normalized into the
// functional op and a copy_ of each result into its buffer
// (stages/functionalize_out.go), and the graph returns the buffer, or the
// copy_, which is the buffer. A buffer whose only reader, the output aside,
// is one copy_ into it of a value of its own dtype and shape holds that
// value; a buffer anything else reads or writes (a view, another in-place
// op, a second copy) is not followed, nor is a copy that casts or
// broadcasts.
func copiedValue(g *ir.Graph, n *ir.Node) *ir.Node {
	var readers map[*ir.Node][]*ir.Node
	for hops := 0; hops < 16; hops++ {
		if n.Op == ir.CallFunction && n.Target == "aten.clone" && len(n.Args) > 0 {
			src, ok := n.Args[0].(*ir.Node)
			if !ok {
				return n
			}
			n = src
			continue
		}
		if n.Op == ir.CallFunction && n.Target == "aten.copy_" {
			buf, ok := n.Args[0].(*ir.Node)
			if !ok {
				return n
			}
			n = buf // the copy_'s value is its buffer: followed below
			continue
		}
		if readers == nil {
			readers = map[*ir.Node][]*ir.Node{}
			for _, m := range g.Nodes {
				if m.Op == ir.Output {
					continue
				}
				for _, in := range m.Inputs() {
					readers[in] = append(readers[in], m)
				}
			}
		}
		rs := readers[n]
		if len(rs) != 1 || rs[0].Op != ir.CallFunction || rs[0].Target != "aten.copy_" || len(rs[0].Args) < 2 || rs[0].Args[0] != ir.Arg(n) {
			return n
		}
		src, ok := rs[0].Args[1].(*ir.Node)
		if !ok || src == n || !sameTensorMeta(n.Meta.Tensor, src.Meta.Tensor) {
			return n
		}
		n = src
	}
	return n
}

func sameTensorMeta(a, b *ir.TensorMeta) bool {
	return a != nil && b != nil && a.DType == b.DType && a.Shape.Equal(b.Shape)
}

// tieSourceAt finds the sort/topk-like op whose index output the value of
// n is, following copies (copiedValue).
func tieSourceAt(g *ir.Graph, env map[*ir.Node]ir.Value, n *ir.Node) *tieSource {
	op, bound, xn := tieOp(copiedValue(g, n))
	if op == nil {
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

// tieOp is the op whose input's ties decide n's values — n itself
// (argsort, argmax, argmin) or, for the indices of topk, sort, kthvalue or
// median (getitem 1), that op — with its bound arguments and its input
// node; nil when n's values do not depend on ties.
func tieOp(n *ir.Node) (op *ir.Node, bound []ir.Arg, input *ir.Node) {
	if n.Op != ir.CallFunction {
		return nil, nil, nil
	}
	op = n
	if n.Target == "operator.getitem" || n.Target == "aten.getitem" {
		src, ok := n.Args[0].(*ir.Node)
		if !ok || len(n.Args) < 2 || n.Args[1] != ir.Arg(int64(1)) {
			return nil, nil, nil
		}
		if src.Target != "aten.topk" && src.Target != "aten.sort" && src.Target != "aten.kthvalue" && src.Target != "aten.median" {
			return nil, nil, nil
		}
		op = src
	} else if n.Target != "aten.argsort" && n.Target != "aten.argmax" && n.Target != "aten.argmin" {
		return nil, nil, nil
	}
	d := ir.Lookup(op.Target)
	if d == nil {
		return nil, nil, nil
	}
	bound, err := d.Schema.Bind(op.Args, op.Kwargs)
	if err != nil || len(bound) == 0 {
		return nil, nil, nil
	}
	input, ok := bound[0].(*ir.Node)
	if !ok {
		return nil, nil, nil
	}
	return op, bound, input
}

// tieInputs are the nodes of g whose values tieSourceAt may read: the
// inputs of every op whose indices are defined up to ties. The native
// reference run keeps these (and the outputs) instead of every value.
func tieInputs(g *ir.Graph) map[*ir.Node]bool {
	keep := map[*ir.Node]bool{}
	for _, n := range g.Nodes {
		if _, _, in := tieOp(n); in != nil {
			keep[in] = true
		}
	}
	return keep
}

// selected are the values of ts.x the indices idx pick.
func (ts *tieSource) selected(idx *tensor.Tensor) (*tensor.Tensor, bool) {
	x := ts.x
	if ts.flat {
		n := idx.Numel()
		out := tensor.New(x.DType, n)
		for i := 0; i < n; i++ {
			k := int(idx.FlatInt(i))
			if k < 0 || k >= x.Numel() {
				return nil, false
			}
			if x.DType.IsFloat() {
				out.SetFlat(i, x.Flat(k))
			} else {
				out.SetFlatInt(i, x.FlatInt(k))
			}
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
	if !ts.x.DType.IsFloat() {
		// Integers and bools: a tie is an equal value, exactly (no
		// rounding to excuse, and no float64 conversion past 2^53).
		for i := 0; i < a.Numel(); i++ {
			if a.FlatInt(i) != b.FlatInt(i) {
				return false
			}
		}
		return true
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

// relaxBufferTies judges a write-back up to ties as an output is: an out=
// buffer of topk or sort holds its index output.
func (r *references) relaxBufferTies(u *stages.Unit, b *BufferResult, got *tensor.Tensor) {
	if got.DType.IsFloat() || r.native == nil {
		return
	}
	if ts := tieSourceOfBuffer(u, r.native.Env, b.Name); ts != nil {
		w := what{kind: "buffer", name: b.Name}
		relaxTies(b.VsExpected, ts, got, r.expected(w))
		relaxTies(b.VsEager, ts, got, w.pick(r.native))
	}
}
