package trace

import (
	"fmt"
	"strings"
)

// Error is what Load and Parse return for a trace that breaks the contract.
// It names the place: the file, the graph, the node and the field (a path
// such as args[1], kwargs["dim"], meta.shape[0] or tensors["fc1.weight"].data).
// Empty parts are left out of the message:
//
//	mlp.json: graph "g0": node "linear": args[1]: node "fc9" is not defined before this node
type Error struct {
	File, Graph, Node, Field, Msg string
}

func (e *Error) Error() string {
	var b strings.Builder
	if e.File != "" {
		b.WriteString(e.File)
		b.WriteString(": ")
	}
	if e.Graph != "" {
		fmt.Fprintf(&b, "graph %q: ", e.Graph)
	}
	if e.Node != "" {
		fmt.Fprintf(&b, "node %q: ", e.Node)
	}
	if e.Field != "" {
		b.WriteString(e.Field)
		b.WriteString(": ")
	}
	b.WriteString(e.Msg)
	return b.String()
}

// key formats a map key inside a field path: tensors["fc1.weight"].
func key(k string) string { return fmt.Sprintf("[%q]", k) }

func idx(i int) string { return fmt.Sprintf("[%d]", i) }
