package stages

import (
	"strings"

	"gcdbg/ir"
	"gcdbg/tensor"
)

// A boolean-mask selection whose mask is a constant of the graph has a
// static shape: SimCLR's info_nce_loss (sthalles/SimCLR, examples/review8,
// helper-89) drops the diagonal of its similarity matrix with
// `sim[~torch.eye(n, dtype=torch.bool)].view(n, -1)` and picks the
// positives with a mask built from torch.arange comparisons; the
// selection's length is the mask's true count, the same on every call. So
// x[mask] with a mask computed from creation ops alone (no input,
// parameter, buffer or random draw) is x flattened over the mask's dims
// and index_select of the true elements' positions, in row-major order as
// PyTorch lists them: any reader may use its shape (a view, cat, ...), and
// its gradient is index_select's.

// constPrefix names the constants the normalizer makes from trace data
// (new_tensor's data, a constant mask's positions).
const constPrefix = "_const_"

// constNode adds constant t to the normalized graph as a get_attr node
// made for captured node n.
func (nz *normalizer) constNode(n *ir.Node, key string, t *tensor.Tensor) (*ir.Node, error) {
	nz.addTensor(key, t)
	ga := &ir.Node{Name: nz.fresh(key), Op: ir.GetAttr, Target: key}
	tm := &ir.TensorMeta{DType: t.DType, Shape: ir.ShapeOf(t.Shape), Stride: tensor.ContiguousStrides(t.Shape)}
	ga.Meta.Tensor = tm
	nz.metas[ga] = tm
	if err := nz.addFrom(ga, n); err != nil {
		return nil, err
	}
	return ga, nil
}

// constValue evaluates normalized node c when its value depends on no
// input, parameter, buffer or random draw (ok false otherwise); memo
// caches the nodes seen.
func (nz *normalizer) constValue(c *ir.Node, memo map[*ir.Node]ir.Value, depth int) (ir.Value, bool) {
	if v, ok := memo[c]; ok {
		return v, v != nil
	}
	memo[c] = nil
	if depth > 64 {
		return nil, false
	}
	switch c.Op {
	case ir.GetAttr:
		td := nz.out.Tensors[c.Target]
		if !strings.HasPrefix(c.Target, constPrefix) || td == nil || td.T == nil {
			return nil, false
		}
		memo[c] = td.T
		return td.T, true
	case ir.CallFunction:
	default:
		return nil, false
	}
	d := ir.Lookup(c.Target)
	if d == nil || d.Inplace || randomOps[d.Name] {
		return nil, false
	}
	bound, err := d.Schema.Bind(c.Args, nil)
	if err != nil {
		return nil, false
	}
	ok := true
	vals := make([]ir.Value, len(bound))
	for i, a := range bound {
		vals[i] = ir.MapArg(a, func(in *ir.Node) ir.Arg {
			v, k := nz.constValue(in, memo, depth+1)
			ok = ok && k
			return v
		})
	}
	if !ok {
		return nil, false
	}
	v, err := ir.Call(d, vals)
	if err != nil {
		return nil, false
	}
	memo[c] = v
	return v, true
}

// constMaskPick normalizes x[m] (pickMask's form) when m is a constant:
// index_select of x flattened over m's dims; false when m is not one.
func (nz *normalizer) constMaskPick(n, m *ir.Node) (bool, error) {
	mc, _ := nz.mapped[m].(*ir.Node)
	if mc == nil {
		return false, nil
	}
	v, ok := nz.constValue(mc, map[*ir.Node]ir.Value{}, 0)
	mt, isT := v.(*tensor.Tensor)
	if !ok || !isT || mt.DType != tensor.Bool {
		return false, nil
	}
	var pos []float64
	for i := 0; i < mt.Numel(); i++ {
		if mt.Flat(i) != 0 {
			pos = append(pos, float64(i))
		}
	}
	idx, err := nz.constNode(n, constPrefix+n.Name+"_positions", tensor.FromFloats(tensor.Int64, []int{len(pos)}, pos))
	if err != nil {
		return true, err
	}
	xs := n.Args[0].(*ir.Node).Meta.Tensor.Shape.Sizes()
	flat, err := nz.callFor(n, "aten.reshape", nz.mapArg(n.Args[0]), sizesArg(append([]int{mt.Numel()}, xs[len(mt.Shape):]...)))
	if err != nil {
		return true, err
	}
	c, err := nz.callFor(n, "aten.index_select", flat, int64(0), idx)
	if err != nil {
		return true, err
	}
	nz.mapped[n] = c
	return true, checkMeta(n, c.Meta.Tensor)
}
