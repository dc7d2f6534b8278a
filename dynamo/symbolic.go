package dynamo

import (
	"fmt"
	"strconv"

	"gcdbg/ir"
	"gcdbg/tensor"
)

// SymDim marks one input dimension symbolic, as Dynamo's s0.
type SymDim struct {
	Input string // placeholder target
	Dim   int
	Sym   string
	Hint  int // the size it was compiled at
}

// MakeSymbolic gives the normalized graph g symbolic shapes. gcdbg's shape
// inference is numeric, so instead of a symbolic engine this re-infers
// every node's metadata with each symbol at its hint and at hint+1, solves
// each dimension that moved as a*s+b, and verifies the formula at hint+2
// (s*s or s//2 are refused: "cannot express dim ... symbolically"). One
// symbol per dimension is enough for batch-style dynamism. Nothing is
// written unless every node succeeds. Strides keep their hint values.
func MakeSymbolic(g *ir.Graph, dims []SymDim) error {
	if len(dims) == 0 {
		return nil
	}
	base, err := inferAt(g, dims, "", 0)
	if err != nil {
		return fmt.Errorf("graph %q: re-inferring at the hints: %w", g.Name, err)
	}
	// exprs[node][item][dim] is the symbolic text of that output dimension.
	exprs := map[*ir.Node][][]string{}
	done := map[string]bool{}
	for _, sd := range dims {
		if done[sd.Sym] { // a duck-sized symbol shared by several input dims
			continue
		}
		done[sd.Sym] = true
		at := [3]map[*ir.Node][]*ir.TensorMeta{base}
		for k := 1; k <= 2; k++ {
			m, err := inferAt(g, dims, sd.Sym, k)
			if err != nil {
				return fmt.Errorf("graph %q: %s = %d: %w", g.Name, sd.Sym, sd.Hint+k, err)
			}
			at[k] = m
		}
		for _, n := range g.Nodes {
			ms := base[n]
			for it := range ms {
				a, b, c := ms[it], at[1][n][it], at[2][n][it]
				if len(a.Shape) != len(b.Shape) || len(a.Shape) != len(c.Shape) {
					return fmt.Errorf("graph %q: node %q: the rank changes with %s; cannot express it symbolically", g.Name, n.Name, sd.Sym)
				}
				for d := range a.Shape {
					v0, v1, v2 := a.Shape[d].Size, b.Shape[d].Size, c.Shape[d].Size
					if v0 == v1 && v1 == v2 {
						continue
					}
					coef := v1 - v0
					off := v0 - coef*sd.Hint
					if v2 != coef*(sd.Hint+2)+off {
						return fmt.Errorf("graph %q: node %q: cannot express dim %d symbolically: sizes %d, %d, %d at %s = %d, %d, %d are not affine in %s",
							g.Name, n.Name, d, v0, v1, v2, sd.Sym, sd.Hint, sd.Hint+1, sd.Hint+2, sd.Sym)
					}
					if exprs[n] == nil {
						exprs[n] = make([][]string, len(ms))
					}
					if exprs[n][it] == nil {
						exprs[n][it] = make([]string, len(a.Shape))
					}
					if exprs[n][it][d] != "" {
						return fmt.Errorf("graph %q: node %q: cannot express dim %d symbolically: it depends on two symbols", g.Name, n.Name, d)
					}
					exprs[n][it][d] = affine(coef, off, sd.Sym)
				}
			}
		}
	}
	for _, n := range g.Nodes {
		if err := checkHint(n, base[n]); err != nil {
			return fmt.Errorf("graph %q: node %q: %w", g.Name, n.Name, err)
		}
	}
	for n, items := range exprs {
		for it, ds := range items {
			if ds == nil {
				continue
			}
			old := metaItem(n, it)
			m := *old
			m.Shape = append(ir.Shape{}, old.Shape...)
			for d, e := range ds {
				if e != "" {
					m.Shape[d] = ir.Dim{Size: old.Shape[d].Size, Sym: e}
				}
			}
			if n.Meta.Tensor != nil {
				n.Meta.Tensor = &m
			} else {
				items := append([]*ir.TensorMeta{}, n.Meta.Items...)
				items[it] = &m
				n.Meta.Items = items
			}
		}
	}
	return nil
}

// affine writes a*s+b the way sympy prints it: s0, 2*s0, s0 + 1, 784*s0 - 3.
func affine(a, b int, s string) string {
	var t string
	switch a {
	case 1:
		t = s
	case -1:
		t = "-" + s
	default:
		t = strconv.Itoa(a) + "*" + s
	}
	switch {
	case b > 0:
		return t + " + " + strconv.Itoa(b)
	case b < 0:
		return t + " - " + strconv.Itoa(-b)
	}
	return t
}

func metaItem(n *ir.Node, it int) *ir.TensorMeta {
	if n.Meta.Tensor != nil {
		return n.Meta.Tensor
	}
	return n.Meta.Items[it]
}

// checkHint makes sure the re-inference at the hints agrees with the
// graph's own metadata: the formulas are only meaningful if it does.
func checkHint(n *ir.Node, ms []*ir.TensorMeta) error {
	var have []*ir.TensorMeta
	if n.Meta.Tensor != nil {
		have = []*ir.TensorMeta{n.Meta.Tensor}
	} else {
		have = n.Meta.Items
	}
	if len(have) != len(ms) {
		return fmt.Errorf("meta: re-inference gives %d tensors, the graph records %d", len(ms), len(have))
	}
	for i := range ms {
		if !intsEqual(have[i].Shape.Sizes(), ms[i].Shape.Sizes()) || have[i].DType != ms[i].DType {
			return fmt.Errorf("meta: re-inference gives %s, the graph records %s", ms[i], have[i])
		}
	}
	return nil
}

// inferAt infers every node's tensor metadata with every symbol at its
// hint except `sym`, which is at hint+delta.
func inferAt(g *ir.Graph, dims []SymDim, sym string, delta int) (map[*ir.Node][]*ir.TensorMeta, error) {
	vals := map[*ir.Node]ir.Value{}
	out := map[*ir.Node][]*ir.TensorMeta{}
	for _, n := range g.Nodes {
		var v ir.Value
		switch n.Op {
		case ir.Placeholder, ir.GetAttr:
			if n.Meta.Tensor == nil {
				v = n.Meta.Value
				break
			}
			td := g.Tensors[n.Target]
			if td == nil {
				return nil, fmt.Errorf("node %q: target: %q has no tensor", n.Name, n.Target)
			}
			sizes := append([]int{}, td.T.Shape...)
			for _, sd := range dims {
				if sd.Input == n.Target && n.Op == ir.Placeholder && sd.Dim < len(sizes) {
					sizes[sd.Dim] = sd.Hint
					if sd.Sym == sym {
						sizes[sd.Dim] += delta
					}
				}
			}
			v = &ir.TensorMeta{DType: td.T.DType, Shape: ir.ShapeOf(sizes), Stride: tensor.ContiguousStrides(sizes), RequiresGrad: td.RequiresGrad}
		case ir.CallFunction:
			d := ir.Lookup(n.Target)
			if d == nil {
				return nil, fmt.Errorf("node %q: target: %q is not a canonical op", n.Name, n.Target)
			}
			bound, err := d.Schema.Bind(n.Args, n.Kwargs)
			if err != nil {
				return nil, fmt.Errorf("node %q: %w", n.Name, err)
			}
			args := make([]ir.Value, len(bound))
			for i, b := range bound {
				args[i] = resolveMeta(b, vals)
			}
			if v, err = ir.InferMeta(d, args); err != nil {
				return nil, fmt.Errorf("node %q: %w", n.Name, err)
			}
		default:
			continue
		}
		vals[n] = v
		switch x := v.(type) {
		case *ir.TensorMeta:
			out[n] = []*ir.TensorMeta{x}
		case ir.Tuple:
			for _, it := range x {
				if tm, ok := it.(*ir.TensorMeta); ok {
					out[n] = append(out[n], tm)
				}
			}
			if len(out[n]) != len(x) {
				out[n] = nil
			}
		}
	}
	return out, nil
}

func resolveMeta(a ir.Arg, vals map[*ir.Node]ir.Value) ir.Value {
	switch v := a.(type) {
	case *ir.Node:
		return vals[v]
	case ir.Tuple:
		out := make(ir.Tuple, len(v))
		for i, x := range v {
			out[i] = resolveMeta(x, vals)
		}
		return out
	case ir.List:
		out := make(ir.List, len(v))
		for i, x := range v {
			out[i] = resolveMeta(x, vals)
		}
		return out
	case ir.Slice:
		return ir.Slice{Start: resolveMeta(v.Start, vals), Stop: resolveMeta(v.Stop, vals), Step: resolveMeta(v.Step, vals)}
	}
	return a
}
