package loopir

import "gcdbg/tensor"

// A cat node's body selects, at every output point, among all its inputs
// (catBody: k loads and k wheres per element). For a renderer that can
// write loops of its own, the node also carries what the cat is: one copy
// per input into its range along the dim. The C renderer writes it so
// (render/cat_copy.go): an nn.LSTM's stack of 24 states took 5.2 ms as 24
// loads per element.

// CatCopy describes a cat node: Dim, and the node's Ranges and store
// index as lowered (a renderer checks that no later pass changed them).
type CatCopy struct {
	Dim    int
	Ranges []Expr
	Store  Expr
	Parts  []CatCopyPart
}

// CatCopyPart is one input: its buffer and dtype, where it starts along
// Dim and its size there, and its load index at the point whose Dim
// variable counts from Start (the node's other variables unchanged).
type CatCopyPart struct {
	Buffer      string
	DType       tensor.DType
	Start, Size int64
	Index       Expr
}

// catCopy is the CatCopy of a cat over vars (the node's loop variables)
// storing at store.
func catCopy(parts []catPart, vars []Expr, ranges []Expr, dim int, store Expr) *CatCopy {
	c := &CatCopy{Dim: dim, Ranges: ranges, Store: store}
	for _, p := range parts {
		pv := append([]Expr{}, vars...)
		if v, ok := vars[dim].(Var); ok && p.size > 1 {
			pv[dim] = V(v.Name, C(p.size))
		} else {
			pv[dim] = C(0)
		}
		c.Parts = append(c.Parts, CatCopyPart{Buffer: p.v.Buffer, DType: p.v.DType, Start: p.start, Size: p.size, Index: p.v.Index(pv)})
	}
	return c
}
