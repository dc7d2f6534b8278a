package stages

import (
	"strings"

	"gcdbg/ir"
	"gcdbg/render"
)

// Provenance answers "where does this node live in every stage" for one
// Unit: the TUI's synced panes, the report's colouring and the graph
// drawing's kernel clusters all read it. It follows identities only: a
// graph stage's ir.Node.From names nodes of its Parent stage (Table), and
// the compiled programs' buffers, loop nodes and kernels name, through
// their Origins, nodes of the graph they were lowered from. No name is
// ever matched as a word of text.
type Provenance struct {
	graphs   []*ir.Graph           // per Table row: the stage's graph, nil for text stages
	nodes    []map[string]*ir.Node // per Table row: the graph's nodes by name
	parent   []int                 // per Table row: the stage From names refer to, -1 if none
	up, down map[NodeRef][]NodeRef
	progs    []*progIndex // per Unit.Programs
}

// NodeRef names one node of one graph stage: the stage's index in Table
// and the node's name in that stage's graph.
type NodeRef struct {
	Stage int
	Name  string
}

// progIndex resolves the names one compiled program prints.
type progIndex struct {
	role    string
	stage   int                 // the graph stage the program compiles, -1 if none
	origins map[string][]string // buffer, loop node or kernel -> graph node names
}

// NewProvenance indexes every graph stage and compiled program of u. A
// stage whose graph or printer fails on a half-built Unit has no graph.
func NewProvenance(u *Unit) *Provenance {
	p := &Provenance{
		graphs: make([]*ir.Graph, len(Table)),
		parent: make([]int, len(Table)),
		up:     map[NodeRef][]NodeRef{},
		down:   map[NodeRef][]NodeRef{},
	}
	p.nodes = make([]map[string]*ir.Node, len(Table))
	for i, st := range Table {
		p.graphs[i] = StageGraph(st, u)
		if g := p.graphs[i]; g != nil {
			p.nodes[i] = make(map[string]*ir.Node, len(g.Nodes))
			for _, n := range g.Nodes {
				p.nodes[i][n.Name] = n
			}
		}
	}
	for i, st := range Table {
		p.parent[i] = -1
		g := p.graphs[i]
		if g == nil {
			continue
		}
		par := -1
		if st.Parent != "" {
			for j := range Table {
				if Table[j].Name == st.Parent && p.graphs[j] != nil {
					par = j
				}
			}
		} else {
			for j := i - 1; j >= 0 && par < 0; j-- {
				if p.graphs[j] != nil {
					par = j
				}
			}
		}
		p.parent[i] = par
		if par < 0 {
			continue
		}
		inParent := p.nodes[par] // not pg.Node(f): its scan is quadratic on big graphs
		for _, n := range g.Nodes {
			child := NodeRef{i, n.Name}
			for _, f := range n.From {
				if inParent[f] == nil {
					continue
				}
				ref := NodeRef{par, f}
				p.up[child] = appendRef(p.up[child], ref)
				p.down[ref] = appendRef(p.down[ref], child)
			}
		}
	}
	if u != nil {
		for _, lp := range u.Programs {
			p.progs = append(p.progs, p.indexProgram(lp))
		}
	}
	return p
}

// StageGraph is st's graph for u, or nil: a text stage, no such graph
// (nothing requires grad), or a Graph function that fails on a Unit an
// earlier stage left half-built.
func StageGraph(st Stage, u *Unit) (g *ir.Graph) {
	if st.Graph == nil || u == nil {
		return nil
	}
	defer func() {
		if recover() != nil {
			g = nil
		}
	}()
	return st.Graph(u)
}

func appendRef(xs []NodeRef, r NodeRef) []NodeRef {
	for _, x := range xs {
		if x == r {
			return xs
		}
	}
	return append(xs, r)
}

func (p *Provenance) indexProgram(lp *LoopProgram) *progIndex {
	pi := &progIndex{role: lp.Role, stage: -1, origins: map[string][]string{}}
	for i, g := range p.graphs {
		if g != nil && g == lp.Graph {
			pi.stage = i
			break
		}
	}
	if lp.Loops != nil {
		for name, b := range lp.Loops.Buffers {
			if b != nil && b.Node != "" {
				pi.origins[name] = appendNew(pi.origins[name], aliasOf(lp, b.Node)...)
			}
		}
		for _, n := range lp.Loops.Nodes {
			for _, o := range n.Origins {
				pi.origins[n.Name] = appendNew(pi.origins[n.Name], aliasOf(lp, o)...)
			}
			if n.IRNode != "" {
				pi.origins[n.Name] = appendNew(pi.origins[n.Name], aliasOf(lp, n.IRNode)...)
			}
		}
	}
	if lp.Schedule != nil {
		for _, k := range lp.Schedule.Kernels {
			var ys []string // the members' origins, merged once (per member was quadratic in a kernel's size)
			for _, n := range k.Nodes {
				ys = append(ys, pi.origins[n.Name]...)
			}
			pi.origins[k.Name] = appendNew(pi.origins[k.Name], ys...)
		}
	}
	if lp.Source != nil {
		// The generated code's own identifiers: each kernel's C function
		// and each buffer's pointer, as the renderer names them.
		repeats := map[string][]string{} // a shared function's repeats' origins, merged once per function
		for _, k := range lp.Source.Kernels {
			pi.origins[k.Name] = appendNew(pi.origins[k.Name], k.Origins...)
			if k.Shares != "" { // the shared function computes this repeat too (render/kernel_share.go)
				repeats[k.Shares] = append(repeats[k.Shares], k.Origins...)
			}
		}
		for fn, ys := range repeats {
			pi.origins[fn] = appendNew(pi.origins[fn], ys...)
		}
		if lp.Loops != nil {
			for name := range lp.Loops.Buffers {
				if o := pi.origins[name]; len(o) > 0 {
					c := render.Ident("b_", name)
					pi.origins[c] = appendNew(pi.origins[c], o...)
				}
			}
		}
	}
	return pi
}

func appendNew(xs []string, ys ...string) []string {
	if len(xs)+len(ys) > 32 { // a set, not a scan per element
		seen := make(map[string]bool, len(xs)+len(ys))
		for _, x := range xs {
			seen[x] = true
		}
		for _, y := range ys {
			if !seen[y] {
				seen[y] = true
				xs = append(xs, y)
			}
		}
		return xs
	}
	for _, y := range ys {
		dup := false
		for _, x := range xs {
			dup = dup || x == y
		}
		if !dup {
			xs = append(xs, y)
		}
	}
	return xs
}

// Graph is stage i's graph, nil for a text stage.
func (p *Provenance) Graph(i int) *ir.Graph {
	if i < 0 || i >= len(p.graphs) {
		return nil
	}
	return p.graphs[i]
}

// Node is the node called name in stage i's graph, nil if none.
func (p *Provenance) Node(i int, name string) *ir.Node {
	if i < 0 || i >= len(p.nodes) {
		return nil
	}
	return p.nodes[i][name]
}

// Parent is the stage whose nodes stage i's From names, -1 if none.
func (p *Provenance) Parent(i int) int {
	if i < 0 || i >= len(p.parent) {
		return -1
	}
	return p.parent[i]
}

// Up lists the nodes r came from (in its Parent stage).
func (p *Provenance) Up(r NodeRef) []NodeRef { return p.up[r] }

// Down lists the nodes made from r (in the stages whose Parent is r's).
func (p *Provenance) Down(r NodeRef) []NodeRef { return p.down[r] }

// Related is every node the selection came from or became, transitively,
// in every stage (the selection included). A node also counts as the same
// value as a sibling of the same name made from the same parent: the
// partition copies a saved tensor into both the forward and the backward
// graph, and selecting one should light up the other.
func (p *Provenance) Related(sel ...NodeRef) map[NodeRef]bool {
	out := map[NodeRef]bool{}
	walk := func(start NodeRef, edges map[NodeRef][]NodeRef) {
		stack := []NodeRef{start}
		for len(stack) > 0 {
			n := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			for _, m := range edges[n] {
				if !out[m] {
					out[m] = true
					stack = append(stack, m)
				}
			}
		}
	}
	for _, s := range sel {
		out[s] = true
		walk(s, p.up)
		walk(s, p.down)
	}
	var twins []NodeRef
	for n := range out {
		for _, par := range p.up[n] {
			for _, sib := range p.down[par] {
				if sib.Name == n.Name && sib.Stage != n.Stage && !out[sib] {
					twins = append(twins, sib)
				}
			}
		}
	}
	for _, t := range twins {
		out[t] = true
		walk(t, p.down)
	}
	return out
}

// Ancestors are the nodes of stage `stage` that r came from, following Up
// transitively (r itself when it is in that stage).
func (p *Provenance) Ancestors(r NodeRef, stage int) []NodeRef {
	if r.Stage == stage {
		return []NodeRef{r}
	}
	var out []NodeRef
	seen := map[NodeRef]bool{r: true}
	stack := []NodeRef{r}
	for len(stack) > 0 {
		n := stack[0]
		stack = stack[1:]
		for _, m := range p.up[n] {
			if seen[m] {
				continue
			}
			seen[m] = true
			if m.Stage == stage {
				out = append(out, m)
				continue
			}
			stack = append(stack, m)
		}
	}
	return out
}

// Programs is how many compiled programs the Unit has (Unit.Programs).
func (p *Provenance) Programs() int { return len(p.progs) }

// ProgramRole is program i's role (inference, forward, backward).
func (p *Provenance) ProgramRole(i int) string { return p.progs[i].role }

// ProgramStage is the graph stage program i compiles, -1 if none.
func (p *Provenance) ProgramStage(i int) int { return p.progs[i].stage }

// maxNameParts bounds the underscore-separated parts of one buffer name
// (arg0_1) when a fused group's name is split into its members.
const maxNameParts = 3

// Resolve maps a name program i prints to the nodes of its graph stage: a
// graph node's own name, a buffer, loop node or kernel (through their
// Origins), or a fused group named by its members joined with "_"
// (buf0_buf1, as the scheduler names them). Anything else resolves to nil.
func (p *Provenance) Resolve(i int, name string) []NodeRef {
	if i < 0 || i >= len(p.progs) {
		return nil
	}
	pi := p.progs[i]
	if pi.stage < 0 {
		return nil
	}
	var names []string
	switch o, ok := pi.origins[name]; {
	case p.nodes[pi.stage][name] != nil:
		names = []string{name}
	case ok:
		names = o
	case strings.Contains(name, "_"):
		parts := strings.Split(name, "_")
		for k := 0; k < len(parts); {
			j := min(len(parts), k+maxNameParts)
			for ; j > k; j-- {
				if o, ok := pi.origins[strings.Join(parts[k:j], "_")]; ok {
					names = appendNew(names, o...)
					break
				}
			}
			if j == k { // a part no member name covers: not a group
				return nil
			}
			k = j
		}
	}
	out := make([]NodeRef, 0, len(names))
	for _, n := range names {
		out = append(out, NodeRef{pi.stage, n})
	}
	return out
}

// Kernels maps each node of stage `stage`'s graph to the fused kernel
// that computes it ("kernelN", prefixed "forward/" or "backward/" when
// the Unit has several programs): the kernel's loop nodes name nodes of
// the compiled graph, which lead up to the stage through provenance. A
// node several kernels compute goes to the first; nodes no kernel
// computes (placeholders, views folded into indexing) are absent.
func (p *Provenance) Kernels(u *Unit, stage int) map[string]string {
	if p.Graph(stage) == nil || u == nil {
		return nil
	}
	out := map[string]string{}
	for i, lp := range u.Programs {
		if i >= len(p.progs) || lp.Schedule == nil || p.progs[i].stage < 0 {
			continue
		}
		ps := p.progs[i].stage
		for _, k := range lp.Schedule.Kernels {
			label := k.Name
			if len(u.Programs) > 1 {
				label = lp.Role + "/" + k.Name
			}
			for _, ln := range k.Nodes {
				for _, o := range ln.Origins {
					for _, a := range p.Ancestors(NodeRef{ps, o}, stage) {
						if _, done := out[a.Name]; !done {
							out[a.Name] = label
						}
					}
				}
			}
		}
	}
	return out
}

// StageDiff is what a graph stage changed, by identity: its nodes against
// the Parent stage's nodes they came from (From), as GOSSAFUNC and
// Compiler Explorer's pipeline view show each pass's effect.
type StageDiff struct {
	Against int      // the stage compared with (Parent)
	Added   []string // new nodes: none of their origins in Against has their name
	Changed []string // nodes whose same-named origin differs (op, target, args, type)
	Removed []string // nodes of Against that nothing here came from
}

// Unchanged reports whether the stage changed nothing.
func (d *StageDiff) Unchanged() bool {
	return len(d.Added) == 0 && len(d.Changed) == 0 && len(d.Removed) == 0
}

// Diff compares graph stage i with its Parent; nil when i has no graph or
// no parent.
func (p *Provenance) Diff(i int) *StageDiff {
	g, par := p.Graph(i), p.Parent(i)
	if g == nil || par < 0 {
		return nil
	}
	pg := p.graphs[par]
	d := &StageDiff{Against: par}
	for _, n := range g.Nodes {
		same := false
		for _, u := range p.up[NodeRef{i, n.Name}] {
			same = same || u.Name == n.Name
		}
		switch {
		case !same:
			d.Added = append(d.Added, n.Name)
		case NodeSig(n) != NodeSig(p.nodes[par][n.Name]):
			d.Changed = append(d.Changed, n.Name)
		}
	}
	for _, n := range pg.Nodes {
		hasChild := false
		for _, c := range p.down[NodeRef{par, n.Name}] {
			hasChild = hasChild || c.Stage == i
		}
		if !hasChild {
			d.Removed = append(d.Removed, n.Name)
		}
	}
	return d
}

// NodeSig is what makes a node the same node, for every diff (a stage
// against its parent, a stage across two watch compiles): op, target,
// arguments (node references by name), the inferred type and a known
// value. The source frame is left out: moving a line is no change.
func NodeSig(n *ir.Node) string {
	if n == nil {
		return ""
	}
	var b strings.Builder
	name := func(x *ir.Node) string { return "%" + x.Name }
	b.WriteString(n.Op + " " + n.Target + "(")
	for _, a := range n.Args {
		b.WriteString(ir.FormatArg(a, name) + ", ")
	}
	for _, kv := range n.Kwargs {
		b.WriteString(kv.Name + "=" + ir.FormatArg(kv.Value, name) + ", ")
	}
	b.WriteString(") ")
	if m := n.Meta.Tensor; m != nil {
		b.WriteString(m.String())
	}
	for _, m := range n.Meta.Items {
		if m != nil {
			b.WriteString(" " + m.String())
		}
	}
	if n.Meta.HasValue {
		b.WriteString(" = " + ir.FormatArg(n.Meta.Value, name))
	}
	return b.String()
}

// DiffStages compares any two graph stages by identity: a node of stage b
// is unchanged when the nodes of stage a it is related to (came from or
// became, Related) include one of its name and signature, changed when
// one of its name differs, added when none has its name; nodes of a that
// nothing in b is related to are removed. nil when either has no graph.
func (p *Provenance) DiffStages(a, b int) *StageDiff {
	ga, gb := p.Graph(a), p.Graph(b)
	if ga == nil || gb == nil {
		return nil
	}
	d := &StageDiff{Against: a}
	reached := map[string]bool{} // nodes of a something in b is related to
	for _, n := range gb.Nodes {
		same := false
		for r := range p.Related(NodeRef{b, n.Name}) {
			if r.Stage != a {
				continue
			}
			reached[r.Name] = true
			same = same || r.Name == n.Name
		}
		switch {
		case !same:
			d.Added = append(d.Added, n.Name)
		case NodeSig(n) != NodeSig(p.nodes[a][n.Name]):
			d.Changed = append(d.Changed, n.Name)
		}
	}
	for _, n := range ga.Nodes {
		if !reached[n.Name] {
			d.Removed = append(d.Removed, n.Name)
		}
	}
	return d
}
