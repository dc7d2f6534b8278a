package loopir

import "gcdbg/ir"

// Compiles reports whether Lower turns a call of the core op into compiled
// loops or a generated library call (true) rather than an eager fallback
// node (false), as Lower's call decides for a tensor-valued result.
func Compiles(op string) bool {
	d := ir.Lookup("aten." + op)
	if d == nil {
		return false
	}
	switch {
	case viewOps[op], reductionOps[op], externOps[op]:
		return true
	case op == "gather" || op == "index_select" || op == "full" || op == "arange" || op == "scalar_tensor":
		return true
	case op == "getitem":
		return true // picks a result of a tuple-valued extern
	}
	return d.Kind == ir.KindPointwise
}
