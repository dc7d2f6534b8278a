package render

import "gcdbg/tensor"

// Dialect is everything that differs between the C-like languages the one
// renderer (cstyle.go) writes: pure data, in the spirit of tinygrad's
// renderer/cstyle.py, where CUDA or OpenCL is a table of spellings rather
// than a second code generator.
type Dialect struct {
	Name   string // c, cuda, opencl
	Device string // the manifest's device: cpu, cuda, opencl
	Ext    string // file extension of the generated source

	// Prelude is written once at the top of the file (includes, helpers).
	Prelude string
	// KernelPrefix starts every kernel definition ("static void",
	// `extern "C" __global__ void`, "__kernel void").
	KernelPrefix string
	// BufferQualifier precedes a buffer parameter ("", "__global ").
	BufferQualifier string
	// Restrict is the no-alias qualifier a parameter gets when the kernel
	// writes it and no other parameter shares its storage.
	Restrict  string
	SharedMem string // shared-memory qualifier (GPU dialects)
	Barrier   string // work-group barrier (GPU dialects)
	GlobalIdx string // the flat thread index of a GPU kernel; "" = CPU loops
	// The rest of a SIMT kernel's geometry (simt.go): grid size in
	// threads, thread index in its block, block size, block index, blocks.
	GlobalSize, LocalIdx, LocalSize, GroupIdx, NumGroups string
	// Shuffle, when set, finishes a block reduction inside one warp of
	// WarpSize lanes: a template over the value $0 and the lane offset $1.
	Shuffle     string
	WarpSize    int
	ParallelFor string // pragma of an outer parallel loop; "" = none
	SIMD        string // pragma of a vectorizable innermost loop; "" = none
	// ParallelMin is the number of points above which a CPU loop nest runs
	// in parallel (below it, thread start-up costs more than the work).
	ParallelMin int64
	// Entry says whether the dialect gets C wrapper entry points
	// (gcdbg_segN) in the same file; GPU dialects are launched by a host.
	Entry bool

	Types map[tensor.DType]string
	// Narrow lists the dtypes stored as 16-bit words and computed in
	// float (float16, bfloat16: narrow.go); Types spells their storage.
	Narrow map[tensor.DType]narrowFloat
	// Math spells a unary function by dtype: Math["exp"][Float32] = "expf".
	Math map[string]map[tensor.DType]string
	// Ops spells the remaining ops as templates over the operands $0, $1,
	// $2 (the renderer substitutes rendered values): comparisons, where,
	// NaN-propagating maximum/minimum, floor division. A key "op:int"
	// overrides "op" for integer and bool operands.
	Ops map[string]string
	// Float literal suffix by dtype ("f" for float32).
	FloatSuffix map[tensor.DType]string
	Inf, NaN    string // spellings of +infinity and NaN (for float32 literals, cast)
}

// unaryFloat lists the libm functions the float ops map to, by op name;
// float32 uses the f-suffixed function.
var unaryFloat = map[string]string{
	"exp": "exp", "log": "log", "log1p": "log1p", "expm1": "expm1", "sqrt": "sqrt", "sin": "sin",
	"cos": "cos", "tan": "tan", "tanh": "tanh", "erf": "erf", "floor": "floor", "ceil": "ceil",
	"round": "nearbyint", "trunc": "trunc", "abs": "fabs", "pow": "pow", "atan2": "atan2",
	"asin": "asin", "acos": "acos", "atan": "atan", "sinh": "sinh", "cosh": "cosh", "asinh": "asinh",
	"acosh": "acosh", "atanh": "atanh", "log2": "log2", "log10": "log10", "fmod": "fmod",
}

func mathTable(f32, f64 func(string) string) map[string]map[tensor.DType]string {
	m := map[string]map[tensor.DType]string{}
	for op, fn := range unaryFloat {
		m[op] = map[tensor.DType]string{tensor.Float32: f32(fn), tensor.Float64: f64(fn)}
	}
	return m
}

// commonOps are the operator templates every C-like dialect shares.
func commonOps() map[string]string {
	return map[string]string{
		"add": "($0 + $1)", "sub": "($0 - $1)", "mul": "($0 * $1)", "div": "($0 / $1)",
		"neg": "(-$0)", "reciprocal": "(1 / $0)", "square": "($0 * $0)",
		"eq": "($0 == $1)", "ne": "($0 != $1)", "lt": "($0 < $1)", "le": "($0 <= $1)",
		"gt": "($0 > $1)", "ge": "($0 >= $1)",
		"logical_and": "(($0 != 0) && ($1 != 0))", "logical_or": "(($0 != 0) || ($1 != 0))",
		"logical_xor": "(($0 != 0) != ($1 != 0))", "logical_not": "($0 == 0)",
		"bitwise_and": "($0 & $1)", "bitwise_or": "($0 | $1)", "bitwise_xor": "($0 ^ $1)",
		"bitwise_not": "(~$0)", "bitwise_not:bool": "(!$0)",
		"where": "($0 ? $1 : $2)",
		// PyTorch's maximum/minimum/relu propagate NaN: a NaN operand wins.
		"maximum": "(($0 > $1 || $0 != $0) ? $0 : $1)", "minimum": "(($0 < $1 || $0 != $0) ? $0 : $1)",
		"relu":    "(($0 > 0 || $0 != $0) ? $0 : 0)",
		"sign":    "(($0 > 0) - ($0 < 0))",
		"isnan":   "($0 != $0)",
		"abs:int": "($0 < 0 ? -$0 : $0)",
		// Python floor division and modulo (the sign follows the divisor);
		// an integer division by zero yields 0 instead of trapping.
		"floor_divide:int": "gcdbg_floordiv_i64($0, $1)", "remainder:int": "gcdbg_mod_i64($0, $1)",
		"floor_divide": "FLOOR($0 / $1)", "remainder": "($0 - FLOOR($0 / $1) * $1)",
		"sigmoid": "(1 / (1 + EXP(-$0)))", "rsqrt": "(1 / SQRT($0))", "silu": "($0 / (1 + EXP(-$0)))",
		"pow": "POW($0, $1)", "atan2": "ATAN2($0, $1)",
		"pow:int":   "gcdbg_pow_i64($0, $1)",
		"floor:int": "$0", "ceil:int": "$0", "round:int": "$0", "trunc:int": "$0",
		"isinf": "isinf($0)", "isinf:int": "0", "fmod:int": "($1 == 0 ? 0 : $0 % $1)",
	}
}

var cTypes = map[tensor.DType]string{
	tensor.Bool: "bool", tensor.Uint8: "uint8_t", tensor.Int8: "int8_t", tensor.Int32: "int32_t",
	tensor.Int64: "int64_t", tensor.Float32: "float", tensor.Float64: "double",
}

// C is C11 with OpenMP for the CPU: one shared object per program, loaded
// by the worker. float16 and bfloat16 buffers hold 16-bit words and
// compute in float (narrow.go).
var C = Dialect{
	Name: "c", Device: "cpu", Ext: ".c",
	Prelude:      cPrelude + philoxPreludeC + expfPreludeC + erfTanhPreludeC + geluPreludeC,
	KernelPrefix: "static void", Restrict: "restrict",
	ParallelFor: "#pragma omp parallel for", SIMD: "#pragma omp simd",
	ParallelMin: 32768, Entry: true,
	Types:       withNarrowStorage(cTypes),
	Narrow:      cNarrow,
	Math:        withNarrowMath(withInlineErfTanh(withPyDivMod(mathTable(func(f string) string { return f + "f" }, func(f string) string { return f })))),
	Ops:         withPhilox(commonOps()),
	FloatSuffix: map[tensor.DType]string{tensor.Float32: "f", tensor.Float16: "f", tensor.BFloat16: "f"},
	Inf:         "INFINITY", NaN: "NAN",
}

// withNarrowStorage adds the narrow floats' storage (uint16_t) to types.
func withNarrowStorage(types map[tensor.DType]string) map[tensor.DType]string {
	m := map[tensor.DType]string{tensor.Float16: "uint16_t", tensor.BFloat16: "uint16_t"}
	for dt, t := range types {
		m[dt] = t
	}
	return m
}

// withPyDivMod spells floating floor division and remainder as the C
// prelude's gcdbg_floordiv / gcdbg_remainder (PyTorch's formulas through
// fmod) instead of the templates over FLOOR(a / b).
func withPyDivMod(m map[string]map[tensor.DType]string) map[string]map[tensor.DType]string {
	m["floor_divide"] = map[tensor.DType]string{tensor.Float32: "gcdbg_floordivf", tensor.Float64: "gcdbg_floordiv"}
	m["remainder"] = map[tensor.DType]string{tensor.Float32: "gcdbg_remainderf", tensor.Float64: "gcdbg_remainder"}
	return m
}

// withNarrowMath spells the narrow floats' functions as float32's: they
// compute in float.
func withNarrowMath(m map[string]map[tensor.DType]string) map[string]map[tensor.DType]string {
	for _, fns := range m {
		fns[tensor.Float16], fns[tensor.BFloat16] = fns[tensor.Float32], fns[tensor.Float32]
	}
	return m
}

// CUDA spells the same kernels for nvcc/NVRTC; the host launches each
// kernel over a flat grid (one thread per output point).
var CUDA = Dialect{
	Name: "cuda", Device: "cuda", Ext: ".cu",
	Prelude:      cudaPrelude + philoxPreludeCUDA,
	KernelPrefix: `extern "C" __global__ void`, Restrict: "__restrict__",
	SharedMem: "__shared__", Barrier: "__syncthreads();",
	GlobalIdx:  "((int64_t)blockIdx.x * blockDim.x + threadIdx.x)",
	GlobalSize: "((int64_t)gridDim.x * blockDim.x)", LocalIdx: "((int64_t)threadIdx.x)",
	LocalSize: "((int64_t)blockDim.x)", GroupIdx: "((int64_t)blockIdx.x)", NumGroups: "((int64_t)gridDim.x)",
	Shuffle: "__shfl_down_sync(0xffffffffu, $0, $1)", WarpSize: 32,
	Types:       cTypes,
	Math:        mathTable(func(f string) string { return f + "f" }, func(f string) string { return f }),
	Ops:         withPhilox(commonOps()),
	FloatSuffix: map[tensor.DType]string{tensor.Float32: "f"},
	Inf:         "INFINITY", NaN: "NAN",
}

// OpenCL C: overloaded math builtins, __global buffers, no bool buffers
// (bool is stored as uchar).
var OpenCL = Dialect{
	Name: "opencl", Device: "opencl", Ext: ".cl",
	Prelude:      clPrelude + philoxPreludeOpenCL,
	KernelPrefix: "__kernel void", BufferQualifier: "__global ", Restrict: "restrict",
	SharedMem: "__local", Barrier: "barrier(CLK_LOCAL_MEM_FENCE);",
	GlobalIdx: "((long)get_global_id(0))", GlobalSize: "((long)get_global_size(0))",
	LocalIdx: "((long)get_local_id(0))", LocalSize: "((long)get_local_size(0))",
	GroupIdx: "((long)get_group_id(0))", NumGroups: "((long)get_num_groups(0))",
	Types: map[tensor.DType]string{
		tensor.Bool: "uchar", tensor.Uint8: "uchar", tensor.Int8: "char", tensor.Int32: "int",
		tensor.Int64: "long", tensor.Float32: "float", tensor.Float64: "double",
	},
	Math:        clMath(),
	Ops:         withPhilox(commonOps()),
	FloatSuffix: map[tensor.DType]string{tensor.Float32: "f"},
	Inf:         "INFINITY", NaN: "NAN",
}

// clMath is OpenCL C's overloaded builtins; it has rint (round half to
// even, as PyTorch rounds) but no nearbyint.
func clMath() map[string]map[tensor.DType]string {
	m := mathTable(func(f string) string { return f }, func(f string) string { return f })
	m["round"] = map[tensor.DType]string{tensor.Float32: "rint", tensor.Float64: "rint"}
	return m
}

// Dialects lists the dialects by name.
var Dialects = map[string]Dialect{"c": C, "cuda": CUDA, "opencl": OpenCL}
