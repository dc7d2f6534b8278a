package stages

import (
	"fmt"
	"slices"

	"gcdbg/ir"
	"gcdbg/tensor"
	"gcdbg/termsafe"
)

// A boolean-mask selection x[mask] has a data-dependent shape [K, r...]
// (K = the number of true elements of the mask, r = x's dims after the
// mask's). Where nothing that reads it needs K — every reader reduces it
// (sum, mean, a loss with reduction "sum" or "mean") or computes from it
// elementwise for a later such reader — it is taken in its padded form:
// where(mask, x, 0) flattened over the mask's dims to [M, r...] (M = the
// mask's element count), row i standing for the mask's i-th element in
// row-major order, as the selection lists them. Elementwise ops (Tensor.to
// too), losses with reduction="none", softmax/log_softmax along a row,
// sums/means over dims other than the first, views that keep the rows
// (x[m][:, :2], unsqueeze(-1)) and cat/stack of selections past the rows
// run on the padded rows unchanged (their results are padded selections
// too); every
// reduction over the first dim masks the rows where the mask is false first
// — where(mask, v, 0), which drops their values and passes them no
// gradient — and a mean divides by the count PyTorch divides by: the mask's
// true count times the reduced dims' sizes, or for nll_loss/cross_entropy
// with class indices the sum of the selected targets' class weights
// (1 without weights) over the targets that are not ignore_index. An empty
// selection's mean is 0/0 = NaN as PyTorch's, with zero gradients. The
// selection itself is where(mask, x, 0), so x's unselected NaN/Inf never
// reach a value or a gradient, and the gradient at the selected positions is
// index's. x[m].numel() and x[m].size(0) are the count (times the rows'
// size) as a 0-d int64 tensor where only tensor arithmetic reads them
// (loss.sum() / x[m].numel()). Anything else reading such a value (the
// graph's output, another index, cat, max, cumsum, the length as a Python
// number, ...) keeps the refusal, naming that reader.

// selRole is what a captured node is in a masked-selection region.
type selRole int

const (
	selNone   selRole = iota
	selPick           // x[mask]: a padded selection
	selElem           // computed from selections of one mask row by row: a padded selection
	selReduce         // reduces padded selections over their first dim: a static shape
	selLen            // x[m].numel(), x[m].size(0) read as a divisor: the count, a 0-d tensor
)

// maskedSels is the normalizer's state for the masked-selection regions.
type maskedSels struct {
	users map[*ir.Node][]*ir.Node
	role  map[*ir.Node]selPlanned
	masks map[*ir.Node]*selMask // per captured mask
	zero  map[*ir.Node]bool     // padded selections whose unselected rows are 0
}

type selPlanned struct {
	role selRole
	mask *ir.Node
}

// padded reports whether captured node a is planned as a padded selection
// (a pick, or a row-by-row value computed from picks).
func (ms *maskedSels) padded(a *ir.Node) bool {
	r := ms.role[a].role
	return r == selPick || r == selElem
}

// selMask is a mask's flattened form, [M] (canonical), and its views of
// rank r ([M, 1, ...]) for masking padded values.
type selMask struct {
	flat ir.Arg
	rank map[int]ir.Arg
}

// selExcluded are pointwise ops that do not act row by row on a padded
// selection: random draws, a weight over dim 1 of any rank, a split of a
// dim, a triangle of the rows' indices, in-place writes.
var selExcluded = map[string]bool{
	"aten.prelu": true, "aten.glu": true, "aten.dropout": true, "aten.feature_dropout": true,
	"aten.feature_alpha_dropout": true, "aten.alpha_dropout": true, "aten.dropout_masked": true, "aten.alpha_dropout_masked": true,
	"aten.rrelu": true, "aten.rrelu_noised": true, "aten.bernoulli": true, "aten.philox_uniform": true,
	"aten.tril": true, "aten.triu": true, "aten.copy_": true, "aten.fill_": true,
}

// selLosses are the losses taken over padded selections: the elementwise
// ones (true), nll_loss and cross_entropy (false: input [K, C, ...], a
// class-index or probability target).
var selLosses = map[string]bool{
	"aten.mse_loss": true, "aten.l1_loss": true, "aten.smooth_l1_loss": true, "aten.huber_loss": true,
	"aten.binary_cross_entropy": true, "aten.binary_cross_entropy_with_logits": true, "aten.soft_margin_loss": true,
	"aten.nll_loss": false, "aten.cross_entropy": false,
}

func (nz *normalizer) sels() *maskedSels {
	if nz.masked == nil {
		ms := &maskedSels{users: map[*ir.Node][]*ir.Node{}, role: map[*ir.Node]selPlanned{},
			masks: map[*ir.Node]*selMask{}, zero: map[*ir.Node]bool{}}
		for _, u := range nz.src.Nodes {
			seen := map[*ir.Node]bool{}
			u.EachInput(func(in *ir.Node) {
				if !seen[in] {
					seen[in] = true
					ms.users[in] = append(ms.users[in], u)
				}
			})
		}
		nz.masked = ms
	}
	return nz.masked
}

// pickMask is the mask of x[mask] when n is one gcdbg can pad: a bool mask
// over x's leading dims with x's sizes.
func pickMask(n *ir.Node) *ir.Node {
	if boolMaskIndex(n) == "" || n.Op != ir.CallFunction || len(n.Args) != 2 || len(n.Kwargs) != 0 {
		return nil
	}
	x, ok1 := n.Args[0].(*ir.Node)
	m, ok2 := n.Args[1].(*ir.Node)
	if !ok1 || !ok2 || x.Meta.Tensor == nil || m.Meta.Tensor == nil || m.Meta.Tensor.DType != tensor.Bool ||
		n.Meta.Tensor == nil || len(n.Meta.Tensor.Shape) == 0 {
		return nil
	}
	xs, ms := x.Meta.Tensor.Shape.Sizes(), m.Meta.Tensor.Shape.Sizes()
	if len(ms) == 0 || len(ms) > len(xs) || !slices.Equal(ms, xs[:len(ms)]) {
		return nil
	}
	return m
}

// maskedSel normalizes n when it is in a masked-selection region: a
// selection whose readers all qualify (planned here, when the region's
// first selection comes), or a reader planned with it.
func (nz *normalizer) maskedSel(n *ir.Node) (bool, error) {
	if n.Op != ir.CallFunction && n.Op != ir.CallMethod {
		return false, nil
	}
	ms := nz.masked
	var p selPlanned
	if ms != nil {
		p = ms.role[n]
	}
	if p.role == selNone {
		m := pickMask(n)
		if m == nil {
			return false, nil
		}
		ms = nz.sels()
		region, at, why := nz.selPlan(n, m)
		if why != "" {
			if n.Meta.Tensor.Shape.Equal(selPadded(n, m)) {
				return false, nil // all true: the normal path's shapes hold
			}
			if ok, err := nz.constMaskPick(n, m); ok { // normalize_const_mask.go
				return true, err
			}
			return true, maskShapeError(n, m.Name, n.Meta.Tensor.Shape, fmt.Sprintf("node %q%s %s", at.Name, sourceLine(at), why))
		}
		for u, r := range region {
			ms.role[u] = selPlanned{r, m}
		}
		p = selPlanned{selPick, m}
	}
	switch p.role {
	case selLen:
		return true, nz.selLength(n, p.mask)
	case selPick:
		return true, nz.selPick(n, p.mask)
	case selElem:
		return true, nz.selElem(n, p.mask)
	default:
		return true, nz.selReduce(n, p.mask)
	}
}

// selPadded is the padded shape of x[m]: [M, r...].
func selPadded(n, m *ir.Node) ir.Shape {
	xs := n.Args[0].(*ir.Node).Meta.Tensor.Shape.Sizes()
	return ir.ShapeOf(append([]int{numelOf(m.Meta.Tensor.Shape.Sizes())}, xs[len(m.Meta.Tensor.Shape):]...))
}

// selPlan classifies every node that reads a value of the region of mask
// m, whose first selection is n (x[m]): every selection by m, and in graph
// order every node computed from them. why says why the region cannot be
// taken, at the node that reads it.
func (nz *normalizer) selPlan(n, m *ir.Node) (map[*ir.Node]selRole, *ir.Node, string) {
	ms := nz.sels()
	region := map[*ir.Node]selRole{}
	k := n.Meta.Tensor.Shape[0].Size
	inRegion := func(a *ir.Node) bool { r := region[a]; return r == selPick || r == selElem }
	isSel := func(a *ir.Node) (bool, string) {
		if inRegion(a) {
			return true, ""
		}
		if ms.padded(a) {
			return false, fmt.Sprintf("combines it with a selection by the mask %q", ms.role[a].mask.Name)
		}
		if pm := pickMask(a); pm != nil && pm != m {
			return false, fmt.Sprintf("combines it with a selection by the mask %q", pm.Name)
		}
		if boolMaskIndex(a) != "" {
			return false, fmt.Sprintf("combines it with the boolean-mask index %q", a.Name)
		}
		return false, ""
	}
	for _, u := range nz.src.Nodes {
		reads := false
		u.EachInput(func(in *ir.Node) { reads = reads || inRegion(in) })
		if pickMask(u) == m {
			if reads { // a selection of a selection
				return nil, u, "selects from it again"
			}
			region[u] = selPick
			continue
		}
		if !reads {
			continue
		}
		r, why := selReader(u, k, isSel, ms.users[u])
		if why != "" {
			return nil, u, why
		}
		region[u] = r
	}
	return region, nil, ""
}

// selReader classifies u, a reader of a padded selection with K = k rows.
func selReader(u *ir.Node, k int, isSel func(*ir.Node) (bool, string), users []*ir.Node) (selRole, string) {
	if u.Op == ir.Output {
		return selNone, "returns it from the graph"
	}
	if u.Op != ir.CallFunction && u.Op != ir.CallMethod {
		return selNone, fmt.Sprintf("reads it (%s %s)", termsafe.String(u.Op), termsafe.String(u.Target))
	}
	if u.Op == ir.CallMethod && u.Target == "to" { // x[m].to(dtype): normalizer.to
		for i, a := range u.Args {
			if an, ok := a.(*ir.Node); ok && i > 0 && an.Meta.Tensor != nil {
				if sel, why := isSel(an); sel || why != "" {
					return selNone, "reads it with Tensor.to of another selection"
				}
			}
		}
		if t := u.Meta.Tensor; t == nil || len(t.Shape) == 0 || t.Shape[0].Size != k {
			return selNone, "reads it with Tensor.to, whose result does not keep the selection's rows"
		}
		return selElem, ""
	}
	d, al, ok := canonicalFor(u)
	if !ok {
		return selNone, fmt.Sprintf("reads it with %s, which gcdbg does not take over a selection", termsafe.String(u.Target))
	}
	_, args, err := bindAlias(u, d, al)
	if err != nil {
		return selNone, fmt.Sprintf("reads it with %s: %s", termsafe.String(u.Target), termsafe.String(err.Error()))
	}
	if d.Name == "aten.cat" || d.Name == "aten.stack" {
		return selJoin(u, d.Name, args, k, isSel)
	}
	var selAt []int
	selRank := 0
	for i, a := range args {
		an, isNode := a.(*ir.Node)
		if !isNode {
			nested := ""
			ir.MapArg(a, func(x *ir.Node) ir.Arg {
				if ok, why := isSel(x); ok || why != "" {
					nested = "reads it in a list"
				}
				return x
			})
			if nested != "" {
				return selNone, fmt.Sprintf("%s (%s), which gcdbg does not take over a selection", nested, d.Name)
			}
			continue
		}
		ok, why := isSel(an)
		if why != "" {
			return selNone, why
		}
		if ok {
			r := len(an.Meta.Tensor.Shape)
			if len(selAt) == 0 {
				selRank = r
			}
			// Selections of two ranks broadcast along the rows, except
			// for nll_loss/cross_entropy's class-index target.
			if elementwise, isLoss := selLosses[d.Name]; r != selRank && !(i == 1 && isLoss && !elementwise && r == selRank-1) {
				return selNone, fmt.Sprintf("reads it with %s beside a selection of another rank, which would broadcast along the selection's rows", d.Name)
			}
			selAt = append(selAt, i)
		}
	}
	// Other tensors broadcast against the rows' dims only (their shapes are
	// checked again when the node is written, selArgs).
	for i, a := range args {
		if an, isNode := a.(*ir.Node); isNode && !slices.Contains(selAt, i) && an.Meta.Tensor != nil && len(an.Meta.Tensor.Shape) >= selRank {
			return selNone, fmt.Sprintf("reads it with %s beside %q of shape %s, which would broadcast along the selection's rows", d.Name, an.Name, an.Meta.Tensor.Shape)
		}
	}
	role := selNone
	switch {
	case d.Name == "aten.sum" || d.Name == "aten.mean":
		dims, ok := reducedDims(args[1], selRank)
		if !slices.Equal(selAt, []int{0}) || !ok || (d.Name == "aten.mean" && args[3] != nil) {
			return selNone, fmt.Sprintf("reads it with %s of these arguments, which gcdbg does not take over a selection", d.Name)
		}
		role = selElem
		if dims == nil || slices.Contains(dims, 0) {
			role = selReduce
		}
	case d.Name == "aten.softmax" || d.Name == "aten.log_softmax": // along a row
		dims, ok := reducedDims(args[1], selRank)
		if !slices.Equal(selAt, []int{0}) || !ok || len(dims) != 1 || dims[0] == 0 {
			return selNone, fmt.Sprintf("reads it with %s across the selection's rows", d.Name)
		}
		role = selElem
	case d.Name == "aten.getitem" || d.Name == "aten.unsqueeze" || d.Name == "aten.squeeze" || d.Name == "aten.flatten":
		if !slices.Equal(selAt, []int{0}) || !keepsRows(d.Name, args, selRank) {
			return selNone, fmt.Sprintf("reads it with %s of its rows (dim 0), whose length depends on the mask's values", d.Name)
		}
		role = selElem
	case d.Name == "aten.detach" || d.Name == "aten.alias" ||
		(d.Kind == ir.KindPointwise && !d.Inplace && !selExcluded[d.Name]):
		role = selElem
	default:
		elementwise, isLoss := selLosses[d.Name]
		switch {
		case isLoss:
		case d.Name == "aten.max" || d.Name == "aten.min" || d.Name == "aten.amax" || d.Name == "aten.amin":
			return selNone, fmt.Sprintf("reads it with %s: PyTorch raises for an empty selection's maximum or minimum, which compiled code cannot do; write torch.where(mask, x, float(\"-inf\")).max() (+inf and min for a minimum), the same value wherever the mask has a true element", d.Name)
		case d.Name == "aten.numel" || d.Name == "aten.size":
			first := d.Name == "aten.numel"
			if !first {
				dims, ok := reducedDims(args[1], selRank)
				first = ok && slices.Equal(dims, []int{0})
			}
			if first {
				if why := selLenReaders(users); why != "" {
					return selNone, why
				}
				return selLen, ""
			}
			return selNone, fmt.Sprintf("reads its shape with %s, a Python value that depends on the mask's values; count the mask instead (mask.sum(), a tensor)", d.Name)
		default:
			return selNone, fmt.Sprintf("reads it with %s, which gcdbg does not take over a selection (its result's shape or value would depend on the selection's length)", d.Name)
		}
		red, _ := args[paramIndex(d.Schema, "reduction", false)].(string)
		nonSel := !slices.Contains(selAt, 0) || !slices.Contains(selAt, 1)
		if !elementwise { // nll_loss/cross_entropy: the class weight is no selection
			nonSel = nonSel || slices.Contains(selAt, 2) || args[3] != nil || args[5] != nil || selRank < 2
		}
		switch {
		case nonSel:
			return selNone, fmt.Sprintf("reads it with %s of other arguments than two selections by the same mask (input and target)", d.Name)
		case red == "none":
			role = selElem
		case red == "mean" || red == "sum":
			role = selReduce
		default:
			return selNone, fmt.Sprintf("reads it with %s(reduction=%q)", d.Name, red)
		}
	}
	if role == selElem {
		if t := u.Meta.Tensor; t == nil || len(t.Shape) == 0 || t.Shape[0].Size != k {
			return selNone, fmt.Sprintf("reads it with %s, whose result does not keep the selection's rows", d.Name)
		}
	}
	return role, ""
}

// selLenReaders says why the length that x[m].numel() or x[m].size(0)
// reads cannot be the mask's count as a 0-d int64 tensor: one of its
// readers (users) computes a Python number or a shape from it. Tensor arithmetic
// (loss.sum() / x[m].numel()) computes the same with the tensor.
func selLenReaders(users []*ir.Node) string {
	for _, r := range users {
		d, _, ok := canonicalFor(r)
		if r.Op == ir.Output || !ok || r.Meta.Tensor == nil || d.Kind != ir.KindPointwise {
			return fmt.Sprintf("reads its length, a Python number that depends on the mask's values, and node %q%s uses it as one; divide by it in tensor arithmetic (loss.sum() / x[mask].numel()) or count the mask (mask.sum(), a tensor)", r.Name, sourceLine(r))
		}
	}
	return ""
}

// selJoin classifies cat/stack reading a selection: a row-by-row op when
// every tensor joined is a selection by the mask, all of one rank, joined
// along a dim past the rows (torch.stack([x1[pos], y1[pos]], -1)).
func selJoin(u *ir.Node, op string, args []ir.Arg, k int, isSel func(*ir.Node) (bool, string)) (selRole, string) {
	r := -1
	for _, x := range seqArgs(args[0]) {
		xn, ok := x.(*ir.Node)
		if !ok || xn.Meta.Tensor == nil {
			return selNone, fmt.Sprintf("reads it with %s of other values than selections", op)
		}
		if sel, why := isSel(xn); !sel {
			if why == "" {
				why = fmt.Sprintf("reads it with %s beside %q, which is no selection by the same mask", op, xn.Name)
			}
			return selNone, why
		}
		if r >= 0 && len(xn.Meta.Tensor.Shape) != r {
			return selNone, fmt.Sprintf("reads it with %s of selections of two ranks", op)
		}
		r = len(xn.Meta.Tensor.Shape)
	}
	rank := r // cat's dims
	if op == "aten.stack" {
		rank = r + 1
	}
	if d, ok := argDim(args[1], rank); !ok || r < 1 || d == 0 {
		return selNone, fmt.Sprintf("reads it with %s along its rows (dim 0), whose length depends on the mask's values", op)
	}
	if t := u.Meta.Tensor; t == nil || len(t.Shape) == 0 || t.Shape[0].Size != k {
		return selNone, fmt.Sprintf("reads it with %s, whose result does not keep the selection's rows", op)
	}
	return selElem, ""
}

// keepsRows reports whether view op (getitem, unsqueeze, squeeze,
// flatten) of a value of rank r keeps its dim 0 as the result's dim 0,
// untouched: x[:, :2], x[..., 0], x.unsqueeze(-1), x.squeeze(1),
// x.flatten(1).
func keepsRows(op string, args []ir.Arg, r int) bool {
	switch op {
	case "aten.unsqueeze":
		d, ok := argDim(args[1], r+1)
		return ok && d > 0
	case "aten.squeeze", "aten.flatten":
		d, ok := argDim(args[1], r)
		return ok && d > 0
	}
	idx := seqArgs(args[1])
	if len(idx) == 0 {
		return false
	}
	used := 0 // the dims the entries after the first index into
	for _, e := range idx[1:] {
		switch e.(type) {
		case int64, ir.Slice:
			used++
		case nil:
		default:
			return false // a tensor, a second Ellipsis: not along the row dims only
		}
	}
	switch v := idx[0].(type) {
	case ir.Slice:
		return v.Start == nil && v.Stop == nil && v.Step == nil
	case ir.Ellipsis:
		return used < r
	}
	return false
}

// seqArgs is a list or tuple arg's elements, or the arg alone.
func seqArgs(a ir.Arg) []ir.Arg {
	switch v := a.(type) {
	case ir.List:
		return v
	case ir.Tuple:
		return v
	}
	return []ir.Arg{a}
}

// reducedDims are a reduction's dims over a value of rank r, each in
// [0, r); nil for all of them.
func reducedDims(a ir.Arg, r int) ([]int, bool) {
	xs := seqArgs(a)
	if a == nil || len(xs) == 0 {
		return nil, true
	}
	ds := make([]int, len(xs))
	for i, x := range xs {
		d, ok := argDim(x, r)
		if !ok {
			return nil, false
		}
		ds[i] = d
	}
	return ds, true
}

// argDim is dim arg a (an int) normalized for a value of rank r.
func argDim(a ir.Arg, r int) (int, bool) {
	d, ok := a.(int64)
	if !ok {
		return 0, false
	}
	nd, err := tensor.NormDim(int(d), r)
	return nd, err == nil
}

// selPick writes x[m] as where(m, x, 0), flattened over m's dims.
func (nz *normalizer) selPick(n, m *ir.Node) error {
	ms := nz.sels()
	x := n.Args[0].(*ir.Node)
	xs, msz := x.Meta.Tensor.Shape.Sizes(), m.Meta.Tensor.Shape.Sizes()
	var mask ir.Arg = nz.mapArg(m)
	for i := len(msz); i < len(xs); i++ {
		u, err := nz.moduleCall(n, "aten.unsqueeze", mask, int64(-1))
		if err != nil {
			return err
		}
		mask = u
	}
	c, err := nz.moduleCall(n, "aten.where", mask, nz.mapArg(x), castNumber(0.0, x.Meta.Tensor.DType))
	if err != nil {
		return err
	}
	if len(msz) != 1 {
		if c, err = nz.moduleCall(n, "aten.reshape", c, sizesArg(selPadded(n, m).Sizes())); err != nil {
			return err
		}
	}
	if ms.masks[m] == nil {
		flat := nz.mapArg(m)
		if len(msz) != 1 {
			if flat, err = nz.moduleCall(n, "aten.reshape", flat, sizesArg([]int{numelOf(msz)})); err != nil {
				return err
			}
		}
		ms.masks[m] = &selMask{flat: flat, rank: map[int]ir.Arg{1: flat}}
	}
	ms.zero[n] = true
	return nz.selResult(n, c)
}

// selResult makes c stand for the captured region node n: n's name, and
// n's recorded dtype and shape, the first dim padded for a selection.
func (nz *normalizer) selResult(n, c *ir.Node) error {
	nz.rename(c, n)
	nz.mapped[n] = c
	want, got := n.Meta.Tensor, c.Meta.Tensor
	if want == nil || got == nil {
		return nil
	}
	if p := nz.masked.role[n]; p.role != selReduce {
		shape := slices.Clone(want.Shape)
		shape[0] = ir.Dim{Size: got.Shape[0].Size}
		want = &ir.TensorMeta{DType: want.DType, Shape: shape}
	}
	if want.DType != got.DType || !want.Shape.Equal(got.Shape) {
		return fmt.Errorf("meta: gcdbg's masked selection form is %s %s where the trace says %s %s (internal error)", got.DType, got.Shape, want.DType, want.Shape)
	}
	return nil
}

// selPaddedAs is shape with its first dim the padded rows of selection
// value sel.
func (nz *normalizer) selPaddedAs(sel *ir.Node, shape ir.Shape) ir.Shape {
	out := slices.Clone(shape)
	if c, ok := nz.mapped[sel].(*ir.Node); ok && c.Meta.Tensor != nil {
		out[0] = ir.Dim{Size: c.Meta.Tensor.Shape[0].Size}
	}
	return out
}

// selArgs binds region node n's args to its canonical op and maps them
// (canonical args, and the captured ones), checking that the tensors beside
// the selections have the shapes the trace recorded (a padded value of
// another region would not).
func (nz *normalizer) selArgs(n *ir.Node) (*ir.OpDef, []ir.Arg, []ir.Arg, error) {
	d, al, _ := canonicalFor(n)
	d, capt, err := bindAlias(n, d, al)
	if err != nil {
		return nil, nil, nil, err
	}
	args := make([]ir.Arg, len(capt))
	for i, a := range capt {
		args[i] = nz.mapArg(a)
		an, ok := a.(*ir.Node)
		if !ok || nz.masked.padded(an) {
			continue
		}
		c, ok := args[i].(*ir.Node)
		if ok && an.Meta.Tensor != nil && c.Meta.Tensor != nil && !an.Meta.Tensor.Shape.Equal(c.Meta.Tensor.Shape) {
			return nil, nil, nil, fmt.Errorf("args: %q (%s here, %s in the trace) is computed from another data-dependent selection; gcdbg does not combine it with a selection by a mask", an.Name, c.Meta.Tensor.Shape, an.Meta.Tensor.Shape)
		}
	}
	return d, args, capt, nil
}

// selCall appends op d of bound args for region node n.
func (nz *normalizer) selCall(n *ir.Node, d *ir.OpDef, args []ir.Arg) (*ir.Node, error) {
	c := &ir.Node{Name: nz.fresh(n.Name + "_" + d.Schema.Name), Op: ir.CallFunction, Target: d.Name,
		Args: d.Schema.Trim(args), Meta: ir.Meta{Stack: n.Meta.Stack}}
	return c, nz.add(c, n)
}

// selElem computes n row by row on the padded rows.
func (nz *normalizer) selElem(n, m *ir.Node) error {
	if n.Op == ir.CallMethod && n.Target == "to" {
		c := *n
		tm := *n.Meta.Tensor
		tm.Shape = nz.selPaddedAs(n.Args[0].(*ir.Node), tm.Shape)
		c.Meta.Tensor = &tm
		if err := nz.to(&c); err != nil {
			return err
		}
		nz.mapped[n] = nz.mapped[&c]
		delete(nz.mapped, &c)
		return nil
	}
	d, args, capt, err := nz.selArgs(n)
	if err != nil {
		return err
	}
	if err := nz.selOperandRows(n, m, d, args, capt); err != nil {
		return err
	}
	c, err := nz.selCall(n, d, args)
	if err != nil {
		return err
	}
	return nz.selResult(n, c)
}

// selOperandRows masks the floating tensors that a row-by-row op (args,
// bound from captured capt) combines with padded selections: each becomes
// where(mask, w, 0) broadcast over the rows, so its gradient sums the
// selected rows only. Unselected rows may hold Inf or NaN (log of a padded
// 0) where the gradient reaching them is 0, and 0 times them would
// otherwise reach w's gradient as NaN. nll_loss/cross_entropy's class
// weight is no row operand.
func (nz *normalizer) selOperandRows(n, m *ir.Node, d *ir.OpDef, args, capt []ir.Arg) error {
	if elementwise, isLoss := selLosses[d.Name]; isLoss && !elementwise {
		return nil
	}
	r := 0
	for _, a := range capt {
		if an, ok := a.(*ir.Node); ok && nz.masked.padded(an) {
			r = max(r, len(an.Meta.Tensor.Shape))
		}
	}
	for i, a := range capt {
		an, ok := a.(*ir.Node)
		if !ok || nz.masked.padded(an) {
			continue
		}
		w, ok := args[i].(*ir.Node)
		if !ok || w.Meta.Tensor == nil || !w.Meta.Tensor.DType.IsFloat() {
			continue
		}
		mw, err := nz.maskRowsOf(n, m, w, r)
		if err != nil {
			return err
		}
		args[i] = mw
	}
	return nil
}

// maskRows is where(mask, v, 0) for a padded value v of mask m: the rows
// the selection does not have hold 0 and pass no gradient.
func (nz *normalizer) maskRows(n, m *ir.Node, v *ir.Node) (*ir.Node, error) {
	return nz.maskRowsOf(n, m, v, len(v.Meta.Tensor.Shape))
}

// maskRowsOf is where(mask, v, 0) with the mask viewed as rank r.
func (nz *normalizer) maskRowsOf(n, m *ir.Node, v *ir.Node, r int) (*ir.Node, error) {
	sm := nz.masked.masks[m]
	for k := 2; k <= r; k++ {
		if _, ok := sm.rank[k]; ok {
			continue
		}
		u, err := nz.moduleCall(n, "aten.unsqueeze", sm.rank[k-1], int64(-1))
		if err != nil {
			return nil, err
		}
		sm.rank[k] = u
	}
	return nz.moduleCall(n, "aten.where", sm.rank[r], v, castNumber(0.0, v.Meta.Tensor.DType))
}

// maskedSum is the sum of padded value v over the rows where mask m holds.
func (nz *normalizer) maskedSum(n, m *ir.Node, v *ir.Node) (*ir.Node, error) {
	z, err := nz.maskRows(n, m, v)
	if err != nil {
		return nil, err
	}
	return nz.moduleCall(n, "aten.sum", z)
}

// selCount is the mask's true count times r, int64.
func (nz *normalizer) selCount(n, m *ir.Node, r int) (*ir.Node, error) {
	c, err := nz.moduleCall(n, "aten.sum", nz.masked.masks[m].flat)
	if err != nil || r == 1 {
		return c, err
	}
	return nz.moduleCall(n, "aten.mul", c, int64(r))
}

// selLength is x[m].numel() (the mask's count times the rows' size) or
// x[m].size(0) (the count) as a 0-d int64 tensor.
func (nz *normalizer) selLength(n, m *ir.Node) error {
	d, _, capt, err := nz.selArgs(n)
	if err != nil {
		return err
	}
	r := 1
	if d.Name == "aten.numel" {
		r = numelOf(capt[0].(*ir.Node).Meta.Tensor.Shape.Sizes()[1:])
	}
	c, err := nz.selCount(n, m, r)
	if err != nil {
		return err
	}
	nz.rename(c, n)
	nz.mapped[n] = c
	return nil
}

// selReduce writes a reduction over the padded rows: sum or mean (of the
// rows where the mask holds), or a loss with reduction "sum" or "mean" (its
// reduction="none" form, masked, summed, divided by what PyTorch divides by).
func (nz *normalizer) selReduce(n, m *ir.Node) error {
	d, args, capt, err := nz.selArgs(n)
	if err != nil {
		return err
	}
	v := args[0].(*ir.Node)
	if d.Name == "aten.sum" || d.Name == "aten.mean" {
		if !nz.masked.zero[capt[0].(*ir.Node)] {
			if v, err = nz.maskRows(n, m, v); err != nil {
				return err
			}
		}
		num, err := nz.selCall(n, ir.Lookup("aten.sum"), []ir.Arg{v, args[1], args[2], args[3]})
		if err != nil {
			return err
		}
		if d.Name == "aten.sum" {
			return nz.selResult(n, num)
		}
		sizes := v.Meta.Tensor.Shape.Sizes()
		dims, _ := reducedDims(args[1], len(sizes))
		r := 1
		for i := 1; i < len(sizes); i++ {
			if dims == nil || slices.Contains(dims, i) {
				r *= sizes[i]
			}
		}
		cnt, err := nz.selCount(n, m, r)
		if err != nil {
			return err
		}
		res, err := nz.moduleCall(n, "aten.div", num, cnt)
		if err != nil {
			return err
		}
		return nz.selResult(n, res)
	}
	if err := nz.selOperandRows(n, m, d, args, capt); err != nil {
		return err
	}
	ri := paramIndex(d.Schema, "reduction", false)
	red := args[ri]
	args[ri] = "none"
	l, err := nz.selCall(n, d, args)
	if err != nil {
		return err
	}
	s, err := nz.maskedSum(n, m, l)
	if err != nil {
		return err
	}
	if red == "sum" {
		return nz.selResult(n, s)
	}
	var den *ir.Node
	t := args[1].(*ir.Node)
	switch {
	case !selLosses[d.Name] && !t.Meta.Tensor.DType.IsFloat() && args[2] == nil:
		// Class indices without weights: the selected targets that are
		// not ignore_index.
		kept, err := nz.moduleCall(n, "aten.ne", t, args[4])
		if err != nil {
			return err
		}
		if den, err = nz.maskedSum(n, m, kept); err != nil {
			return err
		}
	case !selLosses[d.Name] && !t.Meta.Tensor.DType.IsFloat():
		// nll_loss of -1 everywhere is each target's class weight, 0
		// where it is ignore_index: what a mean divides by, summed over
		// the selected targets.
		neg, err := nz.moduleCall(n, "aten.full", sizesArg(v.Meta.Tensor.Shape.Sizes()), -1.0, v.Meta.Tensor.DType)
		if err != nil {
			return err
		}
		w, err := nz.moduleCall(n, "aten.nll_loss", neg, args[1], args[2], nil, args[4], nil, "none")
		if err != nil {
			return err
		}
		if den, err = nz.maskedSum(n, m, w); err != nil {
			return err
		}
	default:
		if den, err = nz.selCount(n, m, numelOf(l.Meta.Tensor.Shape.Sizes()[1:])); err != nil {
			return err
		}
	}
	res, err := nz.moduleCall(n, "aten.div", s, den)
	if err != nil {
		return err
	}
	return nz.selResult(n, res)
}

// maskShapeError refuses x[mask] (n) for its data-dependent shape, saying
// which reader (why) keeps gcdbg from taking it padded, when one does.
func maskShapeError(n *ir.Node, mask string, shape ir.Shape, why string) error {
	if why != "" {
		why = "; gcdbg takes such a selection where only reductions read it (sums, means, losses with reduction \"sum\" or \"mean\", and elementwise ops and losses before them), but " + why
	}
	return fmt.Errorf("meta.shape: indexing with the boolean mask %q%s gives a shape that depends on the mask's values (%s in this trace)%s; gcdbg compiles graphs of static shapes and does not take data-dependent ones (a mask computed from constants alone, as ~torch.eye(n, dtype=torch.bool), it takes): keep the shape and mask the values instead, e.g. torch.where(mask, x, 0) and a masked reduction (((p - t) ** 2 * mask).sum() / mask.sum() for a masked MSE)", mask, sourceLine(n), shape, why)
}
