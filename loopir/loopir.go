// Package loopir is gcdbg's define-by-run loop IR, in the spirit of
// Inductor's: every core op of a decomposed graph becomes a Node whose
// inner function loads from buffers at index expressions, computes, and
// stores — a Pointwise or Reduction node — or an Extern call (GEMM,
// convolution) or an eager Fallback. Views, transposes, broadcasts and
// expands never copy: they fold into the index expressions of the loads
// that read through them.
//
// This file is the contract between the lowering (lower.go), the printer
// (print.go), the interpreter (interp.go) and the scheduler (package sched).
package loopir

import (
	"gcdbg/ir"
	"gcdbg/tensor"
)

// NodeKind says how a node computes.
type NodeKind string

const (
	Pointwise NodeKind = "pointwise"
	Reduction NodeKind = "reduction"
	Extern    NodeKind = "extern"   // a whole-op call: mm, bmm, conv2d (bias/activation epilogues fuse after it), sort, topk
	Fallback  NodeKind = "fallback" // run by the eager interpreter (pools, cat, index, ...): a mixed program
)

// BufferKind says where a buffer's storage comes from.
type BufferKind string

const (
	Input        BufferKind = "input"        // a graph placeholder (arg0_1 ...)
	Constant     BufferKind = "constant"     // a get_attr parameter/buffer
	Intermediate BufferKind = "intermediate" // written by one node, read by later ones
	Output       BufferKind = "output"       // returned by the graph (also written by a node unless it is an input)
)

// Buffer is a named, dense, row-major storage (a layout with sizes and
// strides; sizes may be symbolic).
type Buffer struct {
	Name    string // arg0_1, buf3 ...
	Kind    BufferKind
	DType   tensor.DType
	Sizes   []Expr
	Strides []Expr
	// Node is the ir node (of the decomposed graph) whose value this buffer holds.
	Node string
}

// Dep is one memory access of a node, as Inductor's MemoryDep: which
// buffer, at which index expression of the node's loop variables.
type Dep struct {
	Buffer string
	Index  Expr
}

// Node is one scheduler node (a kernel before fusion).
type Node struct {
	Name string // the buffer it writes: buf0, buf1 ...
	Kind NodeKind
	// Ranges are the pointwise iteration ranges (loop variables x0, x1, ...);
	// ReduceRanges the reduction ranges (r0, r1, ...) for Reduction nodes.
	Ranges       []Expr
	ReduceRanges []Expr
	// Body is the inner function (Pointwise/Reduction), one statement per line.
	Body []Stmt
	// Extern/Fallback nodes name the core op and its ir node instead of a body.
	Op      string
	IRNode  string
	Reads   []Dep
	Writes  []Dep
	Origins []string // decomposed-graph nodes this node computes (for provenance)
	// Cat, on a cat's node, lists its inputs so that a renderer can copy
	// each into its range instead of selecting among all of them at every
	// point (cat_copy.go); nil on every other node.
	Cat *CatCopy
}

// Stmt is one line of an inner function: Dst = Op(Args...) where Args are
// earlier temporaries (tmpN), loads, constants or index expressions.
// Ops: "load" (Buffer, Index), "store" (Buffer, Index, value),
// "reduction" (ReduceOp, value) and "store_reduction", "constant",
// "index_expr" (an index expression as a value), "to_dtype", and the
// pointwise prims named as the core ops (add, mul, exp, where, ...).
type Stmt struct {
	Dst      string // tmpN ("" for stores)
	Op       string
	Args     []string // temporaries by name
	Buffer   string
	Index    Expr
	Value    float64 // for constant
	DType    tensor.DType
	ReduceOp string // sum, max, min, prod, argmax, argmin
}

// Program is a lowered graph: its buffers and nodes in execution order.
type Program struct {
	Graph   *ir.Graph // the decomposed graph it came from
	Buffers map[string]*Buffer
	Order   []string // buffer names in definition order (inputs, constants, then nodes)
	Nodes   []*Node
	Outputs []string // buffer names returned, in output order
	// Values maps each tensor node of the graph to its value: a buffer seen
	// through a strided layout (views fold here, never copy). Extern and
	// fallback nodes read their arguments through it. (Added by lower.go.)
	Values map[string]*View
}

// Kernel is a fused group of nodes the scheduler decided to run as one loop
// nest (or a single node). Buffers written and read only inside a kernel
// are not materialized.
type Kernel struct {
	Name  string
	Nodes []*Node
}

// Expr is an index expression over loop variables (x0.., r0..) and size
// symbols (s0..): sums, products with constants, floor division and modulo
// (reshapes), simplified on construction (expr.go). Two expressions are
// equal when their String forms are.
type Expr interface {
	String() string
	// Eval computes the expression for the given variable and symbol values.
	Eval(env map[string]int64) int64
}
