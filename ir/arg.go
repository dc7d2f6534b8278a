package ir

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"gcdbg/tensor"
)

// Arg is a value inside a node's args or kwargs. Its dynamic type is one of:
// nil (None), bool, int64, float64, string, *Node, Tuple, List, tensor.DType,
// Device, Slice, Ellipsis.
type Arg = any

// Tuple is a Python tuple (JSON array in the trace).
type Tuple []Arg

// List is a Python list where the difference from a tuple matters
// (advanced indexing x[[0, 2]]).
type List []Arg

// Device is a torch.device.
type Device string

// Slice is a Python slice; each part is nil, int64 or *Node.
type Slice struct{ Start, Stop, Step Arg }

// Ellipsis is Python's `...`.
type Ellipsis struct{}

// PyFloat formats a float as Python's repr does (2.0, 1e-05, inf).
func PyFloat(f float64) string {
	switch {
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	case math.IsNaN(f):
		return "nan"
	}
	a := math.Abs(f)
	if a != 0 && (a >= 1e16 || a < 1e-4) {
		s := strconv.FormatFloat(f, 'e', -1, 64)
		// Python writes 1e-05 where Go writes 1e-05 too; keep two exponent digits.
		return s
	}
	s := strconv.FormatFloat(f, 'f', -1, 64)
	if !strings.ContainsAny(s, ".") {
		s += ".0"
	}
	return s
}

// FormatArg prints an arg the way torch.fx prints it; nodeFmt prints a node
// reference (fx's graph form uses %name, generated code uses name).
func FormatArg(a Arg, nodeFmt func(*Node) string) string {
	switch v := a.(type) {
	case nil:
		return "None"
	case bool:
		if v {
			return "True"
		}
		return "False"
	case int64:
		return strconv.FormatInt(v, 10)
	case int:
		return strconv.Itoa(v)
	case float64:
		return PyFloat(v)
	case string:
		return strconv.Quote(v)
	case *Node:
		return nodeFmt(v)
	case Tuple:
		parts := formatArgs([]Arg(v), nodeFmt)
		if len(parts) == 1 {
			return "(" + parts[0] + ",)"
		}
		return "(" + strings.Join(parts, ", ") + ")"
	case List:
		return "[" + strings.Join(formatArgs([]Arg(v), nodeFmt), ", ") + "]"
	case tensor.DType:
		return "torch." + v.String()
	case Device:
		return "device(type='" + string(v) + "')"
	case Slice:
		return "slice(" + FormatArg(v.Start, nodeFmt) + ", " + FormatArg(v.Stop, nodeFmt) + ", " + FormatArg(v.Step, nodeFmt) + ")"
	case Ellipsis:
		return "Ellipsis"
	}
	return fmt.Sprintf("<%T>", a)
}

func formatArgs(as []Arg, nodeFmt func(*Node) string) []string {
	parts := make([]string, len(as))
	for i, a := range as {
		parts[i] = FormatArg(a, nodeFmt)
	}
	return parts
}

// MapArg rebuilds an arg with every node reference replaced by f(node).
// Stages use it to copy nodes into a new graph.
func MapArg(a Arg, f func(*Node) Arg) Arg {
	switch v := a.(type) {
	case *Node:
		return f(v)
	case Tuple:
		out := make(Tuple, len(v))
		for i, x := range v {
			out[i] = MapArg(x, f)
		}
		return out
	case List:
		out := make(List, len(v))
		for i, x := range v {
			out[i] = MapArg(x, f)
		}
		return out
	case Slice:
		return Slice{MapArg(v.Start, f), MapArg(v.Stop, f), MapArg(v.Step, f)}
	}
	return a
}
