package stages

import (
	"errors"
	"fmt"
	"regexp"
	"runtime/debug"
	"strconv"
	"strings"

	"gcdbg/ir"
	"gcdbg/termsafe"
)

// Failure is why a graph stopped in the pipeline: the stages before Stage
// keep their artifacts (explore, dump, report and run --json still show
// them), the stages from Stage on have none and print this instead.
type Failure struct {
	Stage string // the stage whose Run failed
	Index int    // its row in Table
	// Node is the node of the stage's input graph the error names ("" when
	// the error names none); Target is that node's target in the captured
	// graph when it is found there.
	Node, Target string
	Err          error
	Suggestion   string // what the user can write instead, when there is a known rewrite
}

func (f *Failure) Error() string { return f.Err.Error() }
func (f *Failure) Unwrap() error { return f.Err }

// Reason is the error without the location prefix the stage put in front
// (the graph and node are fields of their own).
func (f *Failure) Reason() string {
	s := f.Err.Error()
	if i := strings.LastIndex(s, fmt.Sprintf("node %q: ", f.Node)); f.Node != "" && i >= 0 {
		return s[i+len(fmt.Sprintf("node %q: ", f.Node)):]
	}
	return s
}

// InternalError is a panic inside the pipeline, caught so that it never
// kills the process: it names the stage, graph and (when known) node; the
// stack is kept for a file (the CLI writes it, see cmd/gcdbg).
type InternalError struct {
	Stage, Graph, Node string
	Value              any
	Stack              []byte
	// StackFile is where the stack was written, once it was.
	StackFile string
}

func (e *InternalError) Error() string {
	var b strings.Builder
	b.WriteString("internal error (a gcdbg bug)")
	if e.Stage != "" {
		fmt.Fprintf(&b, " in stage %s", e.Stage)
	}
	if e.Graph != "" {
		fmt.Fprintf(&b, ", graph %q", e.Graph)
	}
	if e.Node != "" {
		fmt.Fprintf(&b, ", node %q", e.Node)
	}
	fmt.Fprintf(&b, ": panic: %v", e.Value)
	if e.StackFile != "" {
		fmt.Fprintf(&b, " (stack in %s)", e.StackFile)
	}
	return b.String()
}

// AsInternal returns the InternalError in err's chain, if any.
func AsInternal(err error) (*InternalError, bool) {
	var ie *InternalError
	ok := errors.As(err, &ie)
	return ie, ok
}

// CatchPanic turns a panic into *err = an InternalError (stage and graph
// filled later by Run; node from node() when it names one). Use as
// `defer CatchPanic(&err, func() string { return cur })`.
func CatchPanic(err *error, node func() string) {
	r := recover()
	if r == nil {
		return
	}
	ie := &InternalError{Value: r, Stack: debug.Stack()}
	if node != nil {
		ie.Node = node()
	}
	*err = ie
}

// runStage runs one stage's Run, turning a panic into an InternalError
// naming the stage, graph and (when the stage tracked it) node.
func runStage(st *Stage, u *Unit) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = &InternalError{Value: r, Stack: debug.Stack()}
		}
		if ie, ok := AsInternal(err); ok {
			ie.Stage, ie.Graph = st.Name, u.Captured.Name
			if ie.Node == "" {
				ie.Node = nodeNamed(err)
			}
		}
	}()
	return st.Run(u)
}

var nodeRE = regexp.MustCompile(`node ("(?:[^"\\]|\\.)*")`)

// nodeNamed finds the last node an error message names (`node "relu6": ...`).
func nodeNamed(err error) string {
	ms := nodeRE.FindAllStringSubmatch(err.Error(), -1)
	if len(ms) == 0 {
		return ""
	}
	s, uerr := strconv.Unquote(ms[len(ms)-1][1])
	if uerr != nil {
		return ""
	}
	return s
}

// newFailure describes the failure of stage i on u.
func newFailure(u *Unit, i int, err error) *Failure {
	f := &Failure{Stage: Table[i].Name, Index: i, Err: err, Node: nodeNamed(err)}
	if ie, ok := AsInternal(err); ok && ie.Node != "" {
		f.Node = ie.Node
	}
	if f.Node != "" && u.Captured != nil {
		if n := u.Captured.Node(f.Node); n != nil {
			f.Target = n.Target
			if n.Module != nil && n.Module.Type != "" {
				f.Target = n.Module.Type
			}
		}
	}
	f.Suggestion = suggestionFor(f.Target, f.Reason())
	return f
}

// suggestions: rewrites a user can make for ops gcdbg does not take, keyed by
// the end of the captured target (module type, function or method name).
var suggestions = map[string]string{
	"ReLU6":       "write torch.clamp(x, 0, 6) (ReLU6 is clamp(0, 6))",
	"relu6":       "write torch.clamp(x, 0, 6) (relu6 is clamp(0, 6))",
	"Hardtanh":    "write torch.clamp(x, min_val, max_val)",
	"hardtanh":    "write torch.clamp(x, min_val, max_val)",
	"Hardsigmoid": "write torch.clamp(x / 6 + 0.5, 0, 1)",
	"hardsigmoid": "write torch.clamp(x / 6 + 0.5, 0, 1)",
	"Hardswish":   "write x * torch.clamp(x + 3, 0, 6) / 6",
	"hardswish":   "write x * torch.clamp(x + 3, 0, 6) / 6",
	"Softplus":    "write torch.log1p(torch.exp(-x.abs())) + torch.relu(x) (softplus with beta=1)",
	"softplus":    "write torch.log1p(torch.exp(-x.abs())) + torch.relu(x) (softplus with beta=1)",
	"Mish":        "write x * torch.tanh(F.softplus(x))",
	"mish":        "write x * torch.tanh(F.softplus(x))",
	"SiLU":        "write x * torch.sigmoid(x)",
	"silu":        "write x * torch.sigmoid(x)",
	"norm":        "write (x * x).sum(dim).sqrt() for the 2-norm",
	"square":      "write x * x",
	// higher-order ops and wrappers gcdbg does not model (TORCH_TRACE logs)
	"cond":            "gcdbg does not model torch.cond: compute both branches and pick with torch.where(pred, a, b) when they are cheap",
	"flex_attention":  "gcdbg does not model flex_attention: F.scaled_dot_product_attention with an explicit attn_mask computes the same for a mask-only score_mod",
	"invoke_subgraph": "gcdbg does not model invoke_subgraph: call the function without torch.compiler.nested_compile_region",
	"_enter_autocast": "gcdbg does not model autocast regions: cast explicitly (x.to(torch.bfloat16)) instead of torch.autocast",
	"_exit_autocast":  "gcdbg does not model autocast regions: cast explicitly (x.to(torch.bfloat16)) instead of torch.autocast",
}

func suggestionFor(target, reason string) string {
	if target == "" || !strings.Contains(reason, "unsupported") && !strings.Contains(reason, "not supported") {
		return ""
	}
	t := target
	if i := strings.LastIndexByte(t, '.'); i >= 0 {
		t = t[i+1:]
	}
	return suggestions[t]
}

// Reached reports whether stage i ran to completion on u (always true when
// nothing failed).
func (u *Unit) Reached(i int) bool { return u.Failure == nil || i < u.Failure.Index }

// notReached is what a stage at or after the failed one prints.
func notReached(u *Unit, i int) string {
	f := u.Failure
	var b strings.Builder
	if i == f.Index {
		fmt.Fprintf(&b, "# stage %s failed on graph %s", f.Stage, u.Captured.Name)
	} else {
		fmt.Fprintf(&b, "# not reached: stage %s failed on graph %s", f.Stage, u.Captured.Name)
	}
	if f.Node != "" {
		fmt.Fprintf(&b, " at node %s", termsafe.String(f.Node))
		if f.Target != "" {
			fmt.Fprintf(&b, " (%s)", termsafe.String(f.Target))
		}
	}
	b.WriteString("\n# reason: " + termsafe.String(f.Reason()) + "\n")
	if f.Suggestion != "" {
		b.WriteString("# suggestion: " + f.Suggestion + "\n")
	}
	b.WriteString("# the stages before it keep their artifacts; the captured graph marks the node\n")
	return b.String()
}

// guardPrint wraps a stage printer: a stage not reached prints the failure,
// and a printer's panic becomes a line naming it instead of a crash.
func guardPrint(i int, p func(*Unit) string) func(*Unit) string {
	return func(u *Unit) (s string) {
		if u.Failure != nil && i >= u.Failure.Index && i > 0 {
			return notReached(u, i)
		}
		defer func() {
			if r := recover(); r != nil {
				s = fmt.Sprintf("# internal error (a gcdbg bug) printing stage %s of graph %s: panic: %v\n", Table[i].Name, termsafe.String(u.Captured.Name), r)
			}
		}()
		return p(u)
	}
}

// guardGraph wraps a stage's Graph accessor the same way: nil when not reached.
func guardGraph(i int, g func(*Unit) *ir.Graph) func(*Unit) *ir.Graph {
	return func(u *Unit) *ir.Graph {
		if u.Failure != nil && i >= u.Failure.Index && i > 0 {
			return nil
		}
		return g(u)
	}
}

func init() {
	for i := range Table {
		if Table[i].Print != nil {
			Table[i].Print = guardPrint(i, Table[i].Print)
		}
		if Table[i].Graph != nil {
			Table[i].Graph = guardGraph(i, Table[i].Graph)
		}
	}
}
