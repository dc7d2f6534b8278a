package dynamo

import (
	"fmt"
	"strings"

	"gcdbg/ir"
	"gcdbg/loopir"
	"gcdbg/stages"
	"gcdbg/tensor"
)

// A dynamic entry is symbolic all the way down, as Inductor's is: not only
// the normalized graph but every graph after it (functional, decomposed,
// joint, forward, backward) carries s0 in its shapes, so the loop stages
// lower sizes to symbols and the renderer passes them to the kernels as
// ks0. One built program then serves every size along the dimension.
//
// The later graphs are made by stages that read sizes (decomposing
// flatten writes view(x, (8, 784))), so re-inferring their metadata at
// other sizes is not possible: their size arguments are plain ints.
// Instead the pipeline runs again, up to the partition, with each symbol
// at hint+1 and hint+2; the graphs must come out with the same nodes, and
// every size that moved is solved as a*s+b from the hint and hint+1 and
// verified at hint+2, as MakeSymbolic does for the normalized graph.

// loopStart is the first stage that lowers the compiled graphs: the graphs
// are made symbolic just before it.
const loopStart = "loopir"

// compileDynamic takes the graph through the pipeline on frame f (at the
// hints) with dims symbolic in every graph.
func (c *Cache) compileDynamic(f Frame, dims []SymDim) ([]*stages.Unit, error) {
	units, err := c.compileUntil(f, stagesBefore(loopStart))
	if err != nil {
		return nil, err
	}
	u := units[0]
	if err := MakeSymbolic(u.Normalized, dims); err != nil {
		return nil, err
	}
	// at[sym][k-1] is the unit compiled with sym at its hint+k.
	at := map[string][2]*stages.Unit{}
	for _, sd := range dims {
		if _, ok := at[sd.Sym]; ok {
			continue
		}
		var pair [2]*stages.Unit
		for k := 1; k <= 2; k++ {
			us, err := c.compileUntil(shifted(f, dims, sd.Sym, k), stagesBefore(loopStart))
			if err != nil {
				return nil, fmt.Errorf("compiling at %s = %d: %w", sd.Sym, sd.Hint+k, err)
			}
			pair[k-1] = us[0]
		}
		at[sd.Sym] = pair
	}
	varying := map[*ir.Graph]map[string]bool{}
	for _, lg := range laterGraphs(u) {
		sg := &symGraph{g: lg.g, label: lg.label, exprs: map[*ir.Node][][]string{}, varying: map[string]bool{}}
		for _, sd := range dims {
			if sg.done(sd.Sym) {
				continue
			}
			var alt [2]*ir.Graph
			for k := range alt {
				alt[k] = graphByLabel(at[sd.Sym][k], lg.label)
			}
			if err := sg.solve(alt, sd); err != nil {
				return nil, err
			}
		}
		sg.write()
		varying[lg.g] = sg.varying
	}
	if err := knownSymbols(u, dims); err != nil {
		return nil, err
	}
	if err := runFrom(u, loopStart); err != nil {
		return nil, err
	}
	return units, fixedFallbacks(u, varying)
}

// compileUntil is compile stopping after stage `until`.
func (c *Cache) compileUntil(f Frame, until string) ([]*stages.Unit, error) {
	tr, err := TraceWith(c.tr, c.Graph, f)
	if err != nil {
		return nil, err
	}
	units, err := stages.Run(tr, until)
	if err != nil {
		return nil, err
	}
	if len(units) != 1 {
		return nil, fmt.Errorf("%s: compiling %s gave %d units", c.tr.Name, c.Graph, len(units))
	}
	return units, nil
}

// stagesBefore is the name of the stage just before `name`.
func stagesBefore(name string) string {
	for i, st := range stages.Table {
		if st.Name == name && i > 0 {
			return stages.Table[i-1].Name
		}
	}
	return ""
}

// runFrom runs the stages from `name` on, as stages.Run would have.
func runFrom(u *stages.Unit, name string) error {
	on := false
	for _, st := range stages.Table {
		on = on || st.Name == name
		if on && st.Run != nil {
			if err := st.Run(u); err != nil {
				return fmt.Errorf("stage %s: %w", st.Name, err)
			}
		}
	}
	return nil
}

// shifted is f with every input dim of symbol sym at its hint+k (zeros:
// the stages read shapes, not values).
func shifted(f Frame, dims []SymDim, sym string, k int) Frame {
	out := make(Frame, len(f))
	for name, v := range f {
		out[name] = v
	}
	for _, sd := range dims {
		if sd.Sym != sym {
			continue
		}
		td := out[sd.Input].T
		shape := append([]int{}, td.T.Shape...)
		for _, o := range dims {
			if o.Input == sd.Input && o.Sym == sym {
				shape[o.Dim] = o.Hint + k
			}
		}
		out[sd.Input] = Value{T: &ir.TensorData{T: tensor.New(td.T.DType, shape...), RequiresGrad: td.RequiresGrad, Origin: "zeros"}}
	}
	return out
}

type labeled struct {
	label string
	g     *ir.Graph
}

// laterGraphs are the unit's graphs after the normalized one.
func laterGraphs(u *stages.Unit) []labeled {
	var out []labeled
	for _, l := range []string{"functional", "decomposed", "joint", "forward", "backward"} {
		if g := graphByLabel(u, l); g != nil {
			out = append(out, labeled{l, g})
		}
	}
	return out
}

func graphByLabel(u *stages.Unit, label string) *ir.Graph {
	switch label {
	case "functional":
		return u.Functional
	case "decomposed":
		return u.Decomposed
	case "joint":
		if u.Joint != nil {
			return u.Joint.Graph
		}
	case "forward", "backward":
		if u.Partition != nil {
			if label == "forward" {
				return u.Partition.Forward
			}
			return u.Partition.Backward
		}
	}
	return nil
}

// symGraph collects the symbolic sizes of one graph, symbol by symbol.
type symGraph struct {
	g       *ir.Graph
	label   string
	exprs   map[*ir.Node][][]string // [item][dim] -> "s0"
	varying map[string]bool         // nodes whose arguments change with a symbol
	seen    []string
}

func (s *symGraph) done(sym string) bool {
	for _, x := range s.seen {
		if x == sym {
			return true
		}
	}
	s.seen = append(s.seen, sym)
	return false
}

// solve compares the graph with its twins compiled at hint+1 and hint+2.
func (s *symGraph) solve(alt [2]*ir.Graph, sd SymDim) error {
	where := fmt.Sprintf("%s graph %q", s.label, s.g.Name)
	for k, a := range alt {
		if a == nil || len(a.Nodes) != len(s.g.Nodes) {
			return fmt.Errorf("%s: its nodes change with %s (compiled at %s = %d it has another structure); cannot compile it symbolically", where, sd.Sym, sd.Sym, sd.Hint+k+1)
		}
	}
	for i, n := range s.g.Nodes {
		n1, n2 := alt[0].Nodes[i], alt[1].Nodes[i]
		if n1.Name != n.Name || n2.Name != n.Name || n1.Target != n.Target || n2.Target != n.Target {
			return fmt.Errorf("%s: node %q: the graph changes with %s (at %s = %d node %d is %q %s); cannot compile it symbolically",
				where, n.Name, sd.Sym, sd.Sym, sd.Hint+1, i, n1.Name, n1.Target)
		}
		if argText(n) != argText(n1) {
			s.varying[n.Name] = true
		}
		m0, m1, m2 := metas(n), metas(n1), metas(n2)
		if len(m0) != len(m1) || len(m0) != len(m2) {
			return fmt.Errorf("%s: node %q: its result changes kind with %s", where, n.Name, sd.Sym)
		}
		for it := range m0 {
			a, b, c := m0[it], m1[it], m2[it]
			if a == nil || b == nil || c == nil {
				continue
			}
			if len(a.Shape) != len(b.Shape) || len(a.Shape) != len(c.Shape) {
				return fmt.Errorf("%s: node %q: the rank changes with %s; cannot express it symbolically", where, n.Name, sd.Sym)
			}
			for d := range a.Shape {
				v0, v1, v2 := a.Shape[d].Size, b.Shape[d].Size, c.Shape[d].Size
				if v0 == v1 && v1 == v2 {
					continue
				}
				coef := v1 - v0
				off := v0 - coef*sd.Hint
				if v2 != coef*(sd.Hint+2)+off {
					return fmt.Errorf("%s: node %q: cannot express dim %d symbolically: sizes %d, %d, %d at %s = %d, %d, %d are not affine in %s",
						where, n.Name, d, v0, v1, v2, sd.Sym, sd.Hint, sd.Hint+1, sd.Hint+2, sd.Sym)
				}
				if s.exprs[n] == nil {
					s.exprs[n] = make([][]string, len(m0))
				}
				if s.exprs[n][it] == nil {
					s.exprs[n][it] = make([]string, len(a.Shape))
				}
				if s.exprs[n][it][d] != "" {
					return fmt.Errorf("%s: node %q: cannot express dim %d symbolically: it depends on two symbols", where, n.Name, d)
				}
				s.exprs[n][it][d] = affine(coef, off, sd.Sym)
			}
		}
	}
	return nil
}

// write puts the symbolic sizes into the graph's metadata (fresh
// TensorMeta values: metadata may be shared between graphs).
func (s *symGraph) write() {
	for n, items := range s.exprs {
		for it, ds := range items {
			if ds == nil {
				continue
			}
			old := metaItem(n, it)
			m := *old
			m.Shape = append(ir.Shape{}, old.Shape...)
			for d, e := range ds {
				if e != "" {
					m.Shape[d] = ir.Dim{Size: old.Shape[d].Size, Sym: e}
				}
			}
			if n.Meta.Tensor != nil {
				n.Meta.Tensor = &m
			} else {
				items := append([]*ir.TensorMeta{}, n.Meta.Items...)
				items[it] = &m
				n.Meta.Items = items
			}
		}
	}
}

func metas(n *ir.Node) []*ir.TensorMeta {
	if n.Meta.Tensor != nil {
		return []*ir.TensorMeta{n.Meta.Tensor}
	}
	return n.Meta.Items
}

func argText(n *ir.Node) string {
	name := func(x *ir.Node) string { return x.Name }
	var b strings.Builder
	for _, a := range n.Args {
		b.WriteString(ir.FormatArg(a, name) + ",")
	}
	for _, kv := range n.Kwargs {
		b.WriteString(kv.Name + "=" + ir.FormatArg(kv.Value, name) + ",")
	}
	return b.String()
}

// knownSymbols checks the compiled graphs' symbolic sizes before they are
// lowered: each must parse as a polynomial (the loop IR parses 8*s0 into
// an expression, loopir.ParseSize) over the entry's own symbols, which
// the compiled program learns from the inputs' sizes.
func knownSymbols(u *stages.Unit, dims []SymDim) error {
	known := map[string]bool{}
	for _, sd := range dims {
		known[sd.Sym] = true
	}
	var gs []labeled
	if u.Partition != nil {
		gs = []labeled{{"forward", u.Partition.Forward}, {"backward", u.Partition.Backward}}
	} else if u.Decomposed != nil {
		gs = []labeled{{"decomposed", u.Decomposed}}
	}
	for _, lg := range gs {
		for _, n := range lg.g.Nodes {
			for _, m := range metas(n) {
				if m == nil {
					continue
				}
				for d, dim := range m.Shape {
					if dim.Sym == "" {
						continue
					}
					e, err := loopir.ParseSize(dim.Sym)
					if err != nil {
						return fmt.Errorf("%s graph %q: node %q: dim %d: %w", lg.label, lg.g.Name, n.Name, d, err)
					}
					for _, s := range symsOf(e) {
						if !known[s] {
							return fmt.Errorf("%s graph %q: node %q: dim %d is %s; %s is not a symbol of this entry", lg.label, lg.g.Name, n.Name, d, dim.Sym, s)
						}
					}
				}
			}
		}
	}
	return nil
}

// symsOf lists the symbols of a parsed size.
func symsOf(e loopir.Expr) []string {
	switch x := e.(type) {
	case loopir.Sym:
		return []string{x.Name}
	case *loopir.Sum:
		var out []string
		for _, t := range x.Terms {
			for _, f := range t.Factors {
				out = append(out, symsOf(f)...)
			}
		}
		return out
	}
	return nil
}

// fixedFallbacks refuses an eager fallback node whose arguments hold a
// size (they change with the symbol): the graph's arguments are ints at
// the hint, so the fallback would compute the hint's shape at every size.
// Views and loops take their sizes from the symbolic metadata instead.
func fixedFallbacks(u *stages.Unit, varying map[*ir.Graph]map[string]bool) error {
	for _, lp := range u.Programs {
		if lp.Loops == nil {
			continue
		}
		for _, n := range lp.Loops.Nodes {
			if n.Kind == loopir.Fallback && varying[lp.Graph][n.IRNode] {
				return fmt.Errorf("%s graph: node %q (%s) runs as an eager fallback with size arguments fixed at the hint", lp.Role, n.IRNode, n.Op)
			}
		}
	}
	return nil
}
