package stages

import (
	"fmt"
	"strings"

	"gcdbg/trace"
)

// The "pytorch" stage shows, beside gcdbg's own stages, what PyTorch's own
// compiler made of the same graph, when the trace was imported from a
// TORCH_TRACE log (package torchtrace): Dynamo's guards, AOTAutograd's
// graphs, Inductor's post-grad graph and output code, the compilation
// metrics and the recompile reasons. It transforms nothing; it is there so
// a user can hold gcdbg's stage next to PyTorch's.
//
// The artifacts live on the trace (trace.Trace.Artifacts), set by the
// TORCH_TRACE importer.

// Reference is one artifact PyTorch's own compiler produced for a graph.
type Reference = trace.Artifact

// SetReferences records PyTorch's artifacts for tr's graphs, by graph name
// (ir.Graph.Name), in the order the pytorch stage prints them.
func SetReferences(tr *trace.Trace, byGraph map[string][]Reference) { tr.Artifacts = byGraph }

// ReferencesOf returns what SetReferences recorded for tr; nil if nothing.
func ReferencesOf(tr *trace.Trace) map[string][]Reference {
	if tr == nil {
		return nil
	}
	return tr.Artifacts
}

// NoReferences is what the pytorch stage prints for a trace that was not
// imported from a TORCH_TRACE log.
const NoReferences = "no PyTorch artifacts (this trace is not a TORCH_TRACE import)"

func printPyTorch(u *Unit) string {
	all := ReferencesOf(u.Trace)
	if all == nil {
		return NoReferences + "\n"
	}
	refs := all[u.Captured.Name]
	if len(refs) == 0 {
		return fmt.Sprintf("no PyTorch artifacts for graph %q in the log\n", u.Captured.Name)
	}
	var b strings.Builder
	for i, r := range refs {
		if i > 0 {
			b.WriteByte('\n')
		}
		fmt.Fprintf(&b, "== %s ==\n", r.Name)
		b.WriteString(strings.TrimLeft(strings.TrimRight(r.Text, "\n \t"), "\n"))
		b.WriteByte('\n')
	}
	return b.String()
}
