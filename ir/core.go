package ir

// CoreOps is the documented core op set that the decomposition stage
// lowers every graph to, and the only ops the joint-graph autodiff,
// the partitioner and the loop IR must understand. Everything else in the
// canonical set has a decomposition into these (stages/decompose.go).
//
//   - pointwise prims: arithmetic, comparisons, transcendental functions,
//     where, dtype conversion, clone;
//   - reductions: sum, amax, amin, prod, argmax, argmin;
//   - matmul-like: mm, bmm (bias adds are separate pointwise adds, so they
//     can fuse as GEMM epilogues);
//   - convolution and pooling: conv2d, max_pool2d, avg_pool2d, adaptive_avg_pool2d
//     (plus the backward ops the joint graph emits for them);
//   - views: view, permute, expand, slice, select, unsqueeze, squeeze, alias;
//   - indexing: index_select, gather, scatter_add, index_put, slice_scatter,
//     select_scatter, index;
//   - creation: full, arange, scalar_tensor; joining: cat; sorting: sort, topk.
var CoreOps = map[string]bool{}

// coreNames lists the core ops by canonical name; ops registered later by
// other files (backward ops, scatter ops) add themselves with MarkCore.
var coreNames = []string{
	// pointwise
	"add", "sub", "mul", "div", "neg", "abs", "exp", "log", "log1p", "expm1", "sqrt", "rsqrt",
	"sin", "cos", "tan", "tanh", "erf", "sigmoid", "relu", "reciprocal", "pow", "maximum", "minimum",
	"where", "eq", "ne", "lt", "le", "gt", "ge", "logical_not", "logical_and", "logical_or", "logical_xor",
	"bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_not", "floor_divide", "remainder", "sign",
	"floor", "ceil", "round", "trunc", "isnan", "atan2", "to_dtype", "clone",
	// reductions
	"sum", "amax", "amin", "prod", "argmax", "argmin",
	// matmul-like, convolution, pooling
	"mm", "bmm", "conv2d", "max_pool2d", "avg_pool2d", "adaptive_avg_pool2d",
	// views
	"view", "permute", "expand", "slice", "select", "unsqueeze", "squeeze", "alias",
	// creation, joining, sorting, indexing
	"full", "arange", "scalar_tensor", "cat", "sort", "topk", "getitem",
}

func init() {
	for _, n := range coreNames {
		CoreOps["aten."+n] = true
	}
}

// MarkCore adds a canonical op (by full name, "aten.x") to the core set.
func MarkCore(name string) { CoreOps[name] = true }

// IsCore reports whether op is in the core set.
func IsCore(name string) bool { return CoreOps[name] }
