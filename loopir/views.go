package loopir

import (
	"fmt"
	"slices"

	"gcdbg/ir"
)

// view folds a view op into a new View of the same buffer: no node, no
// copy. Result sizes come from the node's meta (symbolic where the guards
// stage made them so); strides and offset are derived from the input's.
func (l *lowerer) view(n *ir.Node, op string, bound []ir.Arg) error {
	in, _, err := l.value(bound[0])
	if err != nil || in == nil {
		return fmt.Errorf("args[0]: not a tensor")
	}
	out := &View{Buffer: in.Buffer, DType: in.DType, Sizes: l.sizesOf(n.Meta.Tensor.Shape), Offset: in.Offset}
	if out.DType != n.Meta.Tensor.DType {
		return fmt.Errorf("a view that changes dtype is not an index transform")
	}
	rank := len(in.Sizes)
	dimArg := func(i, r int) (int, error) {
		d, ok := bound[i].(int64)
		if !ok {
			return 0, fmt.Errorf("args[%d]: expected an int", i)
		}
		if d < 0 {
			d += int64(r)
		}
		if d < 0 || int(d) >= r {
			return 0, fmt.Errorf("args[%d]: dim %d out of range", i, d)
		}
		return int(d), nil
	}
	switch op {
	case "alias", "detach": // detach: the same values, no gradient (the joint graph's business)
		out.Strides = in.Strides
	case "permute":
		dims, ok := bound[1].(ir.Tuple)
		if !ok || len(dims) != rank {
			return fmt.Errorf("args[1]: permutation")
		}
		for i := range dims {
			d, err := dimArg2(dims[i], rank)
			if err != nil {
				return err
			}
			out.Strides = append(out.Strides, in.Strides[d])
		}
	case "expand":
		k := len(out.Sizes) - rank
		if k < 0 {
			return fmt.Errorf("args[1]: expand to fewer dims")
		}
		for i := range out.Sizes {
			switch {
			case i < k:
				out.Strides = append(out.Strides, C(0))
			case in.Sizes[i-k].String() == "1" && out.Sizes[i].String() != "1":
				out.Strides = append(out.Strides, C(0)) // broadcast: the index drops out
			default:
				out.Strides = append(out.Strides, in.Strides[i-k])
			}
		}
	case "unsqueeze":
		d, err := dimArg(1, rank+1)
		if err != nil {
			return err
		}
		out.Strides = append(append(append([]Expr{}, in.Strides[:d]...), C(1)), in.Strides[d:]...)
	case "squeeze":
		var drop map[int]bool
		if bound[1] != nil {
			drop = map[int]bool{}
			ds, ok := bound[1].(ir.Tuple)
			if !ok {
				ds = ir.Tuple{bound[1]}
			}
			for _, x := range ds {
				d, err := dimArg2(x, rank)
				if err != nil {
					return err
				}
				drop[d] = true
			}
		}
		for i := range in.Sizes {
			if in.Sizes[i].String() == "1" && (drop == nil || drop[i]) {
				continue
			}
			out.Strides = append(out.Strides, in.Strides[i])
		}
	case "select":
		d, err := dimArg(1, rank)
		if err != nil {
			return err
		}
		i, ok := bound[2].(int64)
		if !ok {
			return fmt.Errorf("args[2]: expected an int")
		}
		idx := C(i)
		if i < 0 {
			idx = Add(in.Sizes[d], C(i))
		}
		out.Offset = Add(in.Offset, Mul(idx, in.Strides[d]))
		out.Strides = append(append([]Expr{}, in.Strides[:d]...), in.Strides[d+1:]...)
	case "slice":
		d, err := dimArg(1, rank)
		if err != nil {
			return err
		}
		start := C(0)
		if s, ok := bound[2].(int64); ok {
			start = C(s)
			if s < 0 {
				start = Add(in.Sizes[d], C(s))
			}
			if c, isC := in.Sizes[d].(Const); isC && s > c.V {
				start = c
			}
			if sc, isC := start.(Const); isC && sc.V < 0 {
				start = C(0)
			}
		}
		step := int64(1)
		if s, ok := bound[4].(int64); ok {
			step = s
		}
		out.Offset = Add(in.Offset, Mul(start, in.Strides[d]))
		out.Strides = append([]Expr{}, in.Strides...)
		out.Strides[d] = Mul(in.Strides[d], C(step))
	case "view":
		st, ok := l.viewStrides(in, out.Sizes)
		if !ok {
			return fmt.Errorf("view is not expressible as strides")
		}
		out.Strides = st
	default:
		return fmt.Errorf("%s is not a view op", op)
	}
	if len(out.Strides) != len(out.Sizes) {
		return fmt.Errorf("%s: %d strides for %d sizes", op, len(out.Strides), len(out.Sizes))
	}
	l.p.Values[n.Name] = out
	return nil
}

func dimArg2(a ir.Arg, r int) (int, error) {
	d, ok := a.(int64)
	if !ok {
		return 0, fmt.Errorf("expected an int dim, got %v", a)
	}
	if d < 0 {
		d += int64(r)
	}
	if d < 0 || int(d) >= r {
		return 0, fmt.Errorf("dim %d out of range", d)
	}
	return int(d), nil
}

// viewStrides is PyTorch's computeStride over expressions: sizes are
// compared symbolically for equality, and by their example values
// (the guards' hints) for order.
func (l *lowerer) viewStrides(in *View, newSizes []Expr) ([]Expr, bool) {
	old, oldSt := in.Sizes, in.Strides
	if len(old) == 0 {
		st := make([]Expr, len(newSizes))
		for i := range st {
			st[i] = C(1)
		}
		return st, true
	}
	hint := func(e Expr) int64 { return e.Eval(l.hints) }
	eq := func(a, b Expr) bool { return a.String() == b.String() }
	newSt := make([]Expr, len(newSizes))
	numel := int64(1)
	for _, e := range old {
		numel *= hint(e)
	}
	if numel == 0 && len(old) == len(newSizes) && slices.EqualFunc(old, newSizes, eq) {
		return append([]Expr{}, oldSt...), true
	}
	if numel == 0 { // computeStride: contiguous strides, a size 0 counting as 1
		for d := len(newSizes) - 1; d >= 0; d-- {
			switch {
			case d == len(newSizes)-1:
				newSt[d] = C(1)
			case hint(newSizes[d+1]) == 0:
				newSt[d] = newSt[d+1]
			default:
				newSt[d] = Mul(newSizes[d+1], newSt[d+1])
			}
		}
		return newSt, true
	}
	viewD := len(newSizes) - 1
	chunkBase := oldSt[len(oldSt)-1]
	tensorNumel, viewNumel := C(1), C(1)
	for td := len(old) - 1; td >= 0; td-- {
		tensorNumel = Mul(tensorNumel, old[td])
		if td == 0 || (!eq(old[td-1], C(1)) && !eq(oldSt[td-1], Mul(tensorNumel, chunkBase))) {
			for viewD >= 0 && (hint(viewNumel) < hint(tensorNumel) || eq(newSizes[viewD], C(1))) {
				newSt[viewD] = Mul(viewNumel, chunkBase)
				viewNumel = Mul(viewNumel, newSizes[viewD])
				viewD--
			}
			if !eq(viewNumel, tensorNumel) {
				return nil, false
			}
			if td > 0 {
				chunkBase = oldSt[td-1]
				tensorNumel, viewNumel = C(1), C(1)
			}
		}
	}
	return newSt, viewD == -1
}
