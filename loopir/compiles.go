package loopir

import (
	"gcdbg/ir"
	"gcdbg/tensor"
)

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
	case op == "slice_scatter": // scatter.go (scatter_add compiles only with a short index: not listed)
		return true
	case op == "cat" || op == "select_scatter": // cat.go (a cat of more than maxCatInputs inputs is a tree of cats)
		return true
	case op == "getitem":
		return true // picks a result of a tuple-valued extern
	}
	return d.Kind == ir.KindPointwise
}

// CompilesPartly says, for a core op that Compiles does not list but the
// loop IR compiles in its common forms, which forms those are ("" for any
// other op): gcdbg ops --coverage prints it.
func CompilesPartly(op string) string {
	return map[string]string{
		"scatter":        "without reduce= (generated C, scatter.go); reduce=, 16-bit floats, an index narrower than self off dim run as an eager fallback",
		"scatter_add":    "with a short index as a reduction, a long one as generated C (scatter.go); a long index into bool or 16-bit floats, an index narrower than self off dim run as an eager fallback",
		"scatter_reduce": "with reduce sum, prod, amax or amin on float32/float64 as generated C (scatter_reduce.go); mean, other dtypes, an index narrower than self off dim run as an eager fallback",
	}[op]
}

// RunBuffers executes p one kernel per node and returns every buffer it
// holds afterwards (inputs, constants and each node's result), by name:
// the values a debugger compares node by node with the eager interpreter.
func RunBuffers(p *Program, inputs map[string]*tensor.Tensor) (map[string]*tensor.Tensor, error) {
	r, err := run(p, nil, inputs)
	if err != nil {
		return nil, err
	}
	return r.bufs, nil
}
