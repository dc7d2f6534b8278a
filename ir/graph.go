// Package ir holds gcdbg's graph representation: torch.fx-shaped graphs of
// nodes whose values carry dtype, shape and stride, the op registry (schema,
// shape inference and reference semantics per canonical op), and the
// printers in the two forms PyTorch users know.
package ir

import (
	"fmt"

	"gcdbg/tensor"
)

// Op kinds of a node, as torch.fx names them.
const (
	Placeholder  = "placeholder"
	GetAttr      = "get_attr"
	CallFunction = "call_function"
	CallMethod   = "call_method"
	CallModule   = "call_module"
	Output       = "output"
)

// ValidOp reports whether op is one of the six fx node kinds.
func ValidOp(op string) bool {
	switch op {
	case Placeholder, GetAttr, CallFunction, CallMethod, CallModule, Output:
		return true
	}
	return false
}

// Node is one fx node. Args reference earlier nodes by pointer (*Node).
type Node struct {
	Name   string
	Op     string
	Target string
	Args   []Arg
	Kwargs []Kwarg
	Meta   Meta
	Module *Module
	// From is provenance: the names of the nodes of the previous stage this
	// node came from (empty for the captured graph).
	From []string
}

// Kwarg is one keyword argument; order is kept for printing.
type Kwarg struct {
	Name  string
	Value Arg
}

// Kwarg returns the keyword argument called name.
func (n *Node) Kwarg(name string) (Arg, bool) {
	for _, kv := range n.Kwargs {
		if kv.Name == name {
			return kv.Value, true
		}
	}
	return nil, false
}

// Module is the nn.Module a call_module node calls.
type Module struct {
	Type   string         // e.g. "torch.nn.Linear"
	Attrs  map[string]Arg // constructor attributes (in_features, ...)
	Params map[string]string
}

// Frame is one line of the user's stack, outermost first.
type Frame struct {
	File string `json:"file"`
	Line int    `json:"line"`
	Func string `json:"func"`
	Code string `json:"code"`
}

// TensorMeta describes a tensor value without its data.
type TensorMeta struct {
	DType        tensor.DType
	Shape        Shape
	Stride       []int // nil when unknown
	RequiresGrad bool
}

func (m *TensorMeta) String() string {
	return m.DType.Short() + m.Shape.String()
}

// Meta is what is known about a node's value. Tensor is nil for non-tensor
// values; Value then holds the Python value (int64, float64, bool, Tuple).
// Tuple-of-tensor results (split, sort) have Items.
type Meta struct {
	Tensor   *TensorMeta
	Items    []*TensorMeta
	Value    Arg
	HasValue bool
	Stack    []Frame
}

// Break says why the producer's capture stopped after a graph.
type Break struct {
	Reason string
	Stack  []Frame
}

// Guard is a check the producer recorded (or gcdbg derived) that must hold
// for a compiled graph to be reused.
type Guard struct {
	Kind   string `json:"kind"`
	Source string `json:"source"`
	Text   string `json:"text"`
}

// TensorData is a tensor value a graph reads: an example input, a
// parameter, a buffer or a folded constant.
type TensorData struct {
	T            *tensor.Tensor
	RequiresGrad bool
	// Origin says where the bytes came from: "data", "file:KEY" or "init:DIST".
	Origin string
}

// Expected holds the producer's own eager results for the example inputs.
type Expected struct {
	Outputs     []*tensor.Tensor
	GradOutputs []*tensor.Tensor // nil means "ones"
	Grads       map[string]*tensor.Tensor
	GradOrder   []string // keys of Grads in the order the trace lists them
	// Buffers are the values, after the graph ran, of the buffers it
	// mutates (BatchNorm's running stats), keyed by qualified name.
	Buffers     map[string]*tensor.Tensor
	BufferOrder []string // keys of Buffers in the order the trace lists them
	// Random holds, per random node of the captured graph, what PyTorch
	// drew: dropout's keep mask (bool), the drawn tensor otherwise.
	Random map[string]*tensor.Tensor
	// Unstable lists the values PyTorch's reference did not reproduce bit
	// for bit in a second identical run ("outputs/0", "grads/fc.weight",
	// "buffers/bn.running_mean" -> how they differed): no reference there.
	Unstable map[string]string
	// NoGrad names the targets PyTorch gave no gradient (None): zero by
	// structure, so gcdbg's gradient there must be zero.
	NoGrad map[string]bool
}

// Timing is the producer's eager timing (medians, milliseconds).
type Timing struct {
	Device          string  `json:"device"`
	Threads         int     `json:"threads"`
	Runs            int     `json:"runs"`
	EagerForwardMS  float64 `json:"eager_forward_ms"`
	EagerBackwardMS float64 `json:"eager_backward_ms"`
}

// Graph is one captured graph (one per graph break) and everything it needs.
type Graph struct {
	Name    string
	Nodes   []*Node
	Break   *Break
	Guards  []Guard
	Tensors map[string]*TensorData // every placeholder, get_attr and module param, by name
	// Values are non-tensor placeholder inputs (meta.value), by target.
	Expected *Expected
	Timing   *Timing
	// OutputKeys names the output's elements (the trace's optional
	// output_keys: a dict's keys, a namedtuple's fields), for display
	// only; nil when the trace has none.
	OutputKeys []string
}

// Node returns the node called name, or nil.
func (g *Graph) Node(name string) *Node {
	for _, n := range g.Nodes {
		if n.Name == name {
			return n
		}
	}
	return nil
}

// OutputNode is the graph's single output node (the last node).
func (g *Graph) OutputNode() *Node {
	if len(g.Nodes) == 0 {
		return nil
	}
	if n := g.Nodes[len(g.Nodes)-1]; n.Op == Output {
		return n
	}
	return nil
}

// Outputs lists the returned args of the output node, flattened one level
// (a tuple or list of nodes becomes its items).
func (g *Graph) Outputs() []Arg {
	out := g.OutputNode()
	if out == nil || len(out.Args) == 0 {
		return nil
	}
	switch v := out.Args[0].(type) {
	case Tuple:
		return []Arg(v)
	case List:
		return []Arg(v)
	default:
		return []Arg{v}
	}
}

// Placeholders returns the placeholder nodes in order.
func (g *Graph) Placeholders() []*Node {
	var ps []*Node
	for _, n := range g.Nodes {
		if n.Op == Placeholder {
			ps = append(ps, n)
		}
	}
	return ps
}

// Users counts, for each node, how many later nodes read it (fx's #users).
func (g *Graph) Users() map[*Node]int {
	u := make(map[*Node]int, len(g.Nodes))
	for _, n := range g.Nodes {
		seen := map[*Node]bool{}
		n.EachInput(func(in *Node) {
			if !seen[in] {
				seen[in] = true
				u[in]++
			}
		})
	}
	return u
}

// EachInput calls f for every node referenced in n's args and kwargs.
func (n *Node) EachInput(f func(*Node)) {
	for _, a := range n.Args {
		walkArg(a, f)
	}
	for _, kv := range n.Kwargs {
		walkArg(kv.Value, f)
	}
}

// Inputs lists the distinct nodes n reads, in first-use order.
func (n *Node) Inputs() []*Node {
	var ins []*Node
	seen := map[*Node]bool{}
	n.EachInput(func(in *Node) {
		if !seen[in] {
			seen[in] = true
			ins = append(ins, in)
		}
	})
	return ins
}

func walkArg(a Arg, f func(*Node)) {
	switch v := a.(type) {
	case *Node:
		f(v)
	case Tuple:
		for _, x := range v {
			walkArg(x, f)
		}
	case List:
		for _, x := range v {
			walkArg(x, f)
		}
	case Slice:
		walkArg(v.Start, f)
		walkArg(v.Stop, f)
		walkArg(v.Step, f)
	}
}

// Validate checks the structural rules every stage must keep: unique
// names, inputs defined earlier, exactly one output node, last.
func (g *Graph) Validate() error {
	seen := map[*Node]bool{}
	names := map[string]bool{}
	for i, n := range g.Nodes {
		if names[n.Name] {
			return fmt.Errorf("graph %q: node %q: name used twice", g.Name, n.Name)
		}
		names[n.Name] = true
		var bad *Node
		n.EachInput(func(in *Node) {
			if bad == nil && !seen[in] {
				bad = in
			}
		})
		if bad != nil {
			return fmt.Errorf("graph %q: node %q: args: reads %q before it is defined", g.Name, n.Name, bad.Name)
		}
		if n.Op == Output && i != len(g.Nodes)-1 {
			return fmt.Errorf("graph %q: node %q: op: output node is not last", g.Name, n.Name)
		}
		seen[n] = true
	}
	if g.OutputNode() == nil {
		return fmt.Errorf("graph %q: no output node", g.Name)
	}
	return nil
}
