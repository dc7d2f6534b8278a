package runner

import (
	"gcdbg/ir"
	"gcdbg/stages"
)

// returnedBuffers maps each mutated graph input (write-back) that the graph
// also returns as user output i to i. An out= call returns its buffer
// (`torch.addmm(a, b, c, out=buf)` is buf), and so does the exported
// function: PyTorch's value of that output is the very tensor it wrote,
// its value of the buffer after the run, even where the trace records no
// expected.buffers. The output is the buffer node itself or a copy_ into
// it (whose value is the buffer); a view of the buffer is not the buffer.
func returnedBuffers(u *stages.Unit) map[string]int {
	wbs := u.Writebacks()
	out := u.Normalized.OutputNode()
	if len(wbs) == 0 || out == nil || len(out.Args) == 0 {
		return nil
	}
	var items []ir.Arg
	switch x := out.Args[0].(type) {
	case ir.Tuple:
		items = x
	case ir.List:
		items = x
	default:
		items = []ir.Arg{x}
	}
	isWriteback := map[string]bool{}
	for _, wb := range wbs {
		isWriteback[wb.Target] = true
	}
	m := map[string]int{}
	for i, it := range items {
		n, ok := it.(*ir.Node)
		for ok && n.Op == ir.CallFunction && n.Target == "aten.copy_" && len(n.Args) > 0 {
			n, ok = n.Args[0].(*ir.Node)
		}
		if !ok || (n.Op != ir.Placeholder && n.Op != ir.GetAttr) || !isWriteback[n.Target] {
			continue
		}
		if _, seen := m[n.Target]; !seen {
			m[n.Target] = i
		}
	}
	return m
}
