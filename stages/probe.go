package stages

import (
	"fmt"

	"gcdbg/ir"
)

// ProbeProgram is u's compiled program of the given role with the named
// nodes of its graph returned after its own outputs, taken through the
// same loop stages (lowering, fusion, memory plan, C): the verdict reads
// how the compiled backward decided the comparisons it recomputes from
// saved tensors (runner/flips.go), which no output of the program shows.
// A probe is only as good as its sameness: the caller checks that its
// own outputs are bit-identical to the judged program's. names lists the
// nodes returned, in order (a name the graph lacks, or a node the loop IR
// cannot return, is left out).
func (u *Unit) ProbeProgram(role string, want []string) (lp *LoopProgram, names []string, err error) {
	var base *LoopProgram
	for _, p := range u.Programs {
		if p.Role == role {
			base = p
		}
	}
	if base == nil || base.Graph == nil || base.Graph.OutputNode() == nil {
		return nil, nil, fmt.Errorf("graph %q: no %s program to probe", u.Captured.Name, role)
	}
	g := base.Graph
	outs := append(ir.Tuple{}, g.Outputs()...)
	for _, name := range want {
		n := g.Node(name)
		if n == nil || n.Op != ir.CallFunction || n.Meta.Tensor == nil {
			continue
		}
		outs = append(outs, n)
		names = append(names, name)
	}
	if len(names) == 0 {
		return nil, nil, fmt.Errorf("graph %q: the %s program computes none of the probed nodes", u.Captured.Name, role)
	}
	old := g.OutputNode()
	out := *old
	out.Args = []ir.Arg{outs}
	pg := *g
	pg.Nodes = append(append([]*ir.Node{}, g.Nodes[:len(g.Nodes)-1]...), &out)
	lp = &LoopProgram{Role: role, Graph: &pg}
	if err := lowerProgram(lp); err != nil {
		return nil, nil, err
	}
	if err := fuseProgram(u, lp); err != nil {
		return nil, nil, err
	}
	planProgram(lp)
	if err := renderProgram(u, lp); err != nil {
		return nil, nil, err
	}
	return lp, names, nil
}
