// Package compiler turns scheduled loop IR into machine code and runs it:
// the renderer's C source is built by cc into a shared object (cached by
// content hash), and a worker process — gcdbg re-executed — loads it with
// purego and runs it on buffers shared with the parent, so a crashing
// kernel takes down only the worker.
//
// This file is the contract between the builder (build.go), the worker
// (worker.go) and the runner: the manifest of a compiled program and the
// C ABI of its entry points.
package compiler

// ABI of every generated entry point (one per segment of compiled kernels):
//
//	void gcdbg_segN(char **bufs, const int64_t *syms,
//	                double *kernel_seconds, volatile int32_t *current_kernel);
//
// bufs[i] points at buffer slot i (Manifest.Buffers[i]); syms holds the
// values of the symbolic sizes (ks0, ks1, ... in Manifest.Symbols order);
// kernel_seconds, when not NULL, receives each kernel's wall time (indexed
// by KernelSpec.Index); current_kernel is set to a kernel's index before it
// starts, so that a crash can be blamed on the right kernel.

// Manifest describes one compiled program (an inference, forward or
// backward graph). It is written as manifest.json beside the library by
// `gcdbg compile` and read back by `gcdbg run DIR`.
type Manifest struct {
	Format  string       `json:"format"` // "gcdbg.compiled"
	Version int          `json:"version"`
	Trace   string       `json:"trace"`
	Graph   string       `json:"graph"`
	Role    string       `json:"role"`    // inference, forward, backward
	Device  string       `json:"device"`  // cpu, opencl, cuda
	Library string       `json:"library"` // shared object (or kernel source for GPU dialects), relative to the manifest
	Hash    string       `json:"hash"`    // content hash of source + compiler + flags
	Buffers []BufferSpec `json:"buffers"`
	Symbols []string     `json:"symbols"` // symbolic sizes passed as kernel arguments (ks0 ...)
	Steps   []Step       `json:"steps"`
	Inputs  []int        `json:"inputs"`  // buffer slots of the graph's inputs, in placeholder order
	Outputs []int        `json:"outputs"` // buffer slots of the graph's outputs, in output order
}

// BufferSpec is one buffer slot.
type BufferSpec struct {
	Name  string   `json:"name"`  // loop IR buffer name (buf3, arg0_1, fc1_weight)
	Kind  string   `json:"kind"`  // input, constant, intermediate, output, arena (ArenaKind)
	DType string   `json:"dtype"` // float32 ...
	Sizes []string `json:"sizes"` // ints or size expressions in the symbols ("8", "ks0", "8*ks0")
	// Target is the graph tensor a constant or input slot is filled from
	// (its placeholder/get_attr target).
	Target string `json:"target,omitempty"`
	// Arena is the byte offset in the memory plan's arena for intermediates
	// (-1 when the slot has its own allocation).
	Arena int64 `json:"arena"`
}

// Step is one step of the program: a segment of compiled kernels run by
// the worker, or a fallback node run by the eager interpreter in the parent.
type Step struct {
	Kind    string       `json:"kind"` // "segment" or "fallback"
	Entry   string       `json:"entry,omitempty"`
	Kernels []KernelSpec `json:"kernels,omitempty"`
	// Fallback: the core op, its arguments and the slots it writes.
	Op     string    `json:"op,omitempty"`
	Args   []ArgSpec `json:"args,omitempty"`
	Writes []int     `json:"writes,omitempty"`
	IRNode string    `json:"ir_node,omitempty"`
}

// ArgSpec is one argument of a fallback op: a strided view of a buffer
// slot, or a constant (JSON value as the trace's ARG encoding).
type ArgSpec struct {
	Slot    *int    `json:"slot,omitempty"`
	Sizes   []int64 `json:"sizes,omitempty"`
	Strides []int64 `json:"strides,omitempty"`
	Offset  int64   `json:"offset,omitempty"`
	Const   any     `json:"const,omitempty"`
	IsConst bool    `json:"is_const,omitempty"`
	// Items is a list or tuple argument that holds tensors (cat's list),
	// one ArgSpec per element; IsList says it was a list, not a tuple.
	Items []ArgSpec `json:"items,omitempty"`
	// SymSizes, SymStrides and SymOffset replace Sizes, Strides and Offset
	// when the view has symbolic sizes: expressions over Manifest.Symbols
	// (EvalSize evaluates them).
	SymSizes   []string `json:"sym_sizes,omitempty"`
	SymStrides []string `json:"sym_strides,omitempty"`
	SymOffset  string   `json:"sym_offset,omitempty"`
	IsList     bool     `json:"is_list,omitempty"`
}

// KernelSpec is one generated kernel function.
type KernelSpec struct {
	Index   int      `json:"index"`
	Name    string   `json:"name"` // the C function (k0_relu_addmm)
	Kind    string   `json:"kind"` // pointwise, reduction, extern, fused
	Origins []string `json:"origins"`
	Stack   []string `json:"stack,omitempty"` // user source lines ("mlp.py:22: x = self.flatten(x)")
	Bytes   int64    `json:"bytes"`           // bytes read + written (for GB/s)
	Flops   int64    `json:"flops"`           // floating-point operations (for GFLOP/s)
	Line    int      `json:"line"`            // first line of the kernel in the generated source
	// Alternatives are the ways the kernel can run, chosen by measurement
	// (autotune.go; render/choice.go); none or one: nothing to choose.
	Alternatives []Alternative `json:"alternatives,omitempty"`
	// Key identifies the kernel's code (its source and the prelude it
	// calls) in the choice cache.
	Key string `json:"key,omitempty"`
	// Shares names the C function this call site runs when the kernel
	// repeats an earlier one's code with other buffers (an unrolled
	// recurrence's step: render/kernel_share.go); Name is then not defined
	// in the source, and Line is that function's.
	Shares string `json:"shares,omitempty"`
}
