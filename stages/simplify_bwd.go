package stages

import (
	"sort"
	"strconv"
	"strings"

	"gcdbg/ir"
)

// simplifySums rewrites the sums of a backward graph before it is lowered
// to the loop IR (lowerLoops, after cseGraph), so that sibling reductions
// over one tensor become one reduction of each distinct summand:
//
//   - a factor constant over the summed dims comes out of the sum:
//     sum(a * b, D) = b * sum(a, D) when b has size 1 in every dim of D
//     (b may be an expand of such a tensor, a Python number, a divisor, a
//     negation; a summand that is constant over D altogether is b * |D|);
//   - a sum distributes over add and sub when that leaves no more distinct
//     reductions than pulling the factors alone (at most eight terms);
//   - sums of the same summands over the same dims are one node.
//
// BatchNorm's backward through its decomposition (batch_norm_functional,
// decompose_train.go) makes five sums of [N, C, H, W] tensors per
// BatchNorm: sum(g), sum(g * xhat), sum(g * w * xc), sum(-(g * w * rstd))
// and sum(-(e * xc + e * xc)) where e is a per-channel factor computed from
// the third sum, so the fifth needs a second pass over the tensor. After
// the rewrite they are rstd * sum(g * xc), w * sum(g * xc), -(w * rstd) *
// sum(g), -e * sum(xc) - e * sum(xc): three reductions, sum(g), sum(g * xc)
// and sum(xc), all of the gradient and the input only, which the fusion
// stage computes in one pass (PyTorch's native_batch_norm_backward: sum(g)
// and sum(g * xc)), followed by one pointwise pass for dx. layer_norm's
// decomposition (GroupNorm's rows) gives the same shape over its rows.
//
// The values are those of the joint graph reassociated: a per-channel factor
// multiplies the channel's sum instead of each element (as PyTorch's own
// formula does), so they differ by float32 rounding, and the verdict judges
// them against the joint graph run in float64 (docs/verdict.md). NaN
// propagates as before: a NaN summand or factor makes the sum NaN either
// way. An infinite pulled factor times a sum whose summands include zeros
// is infinite where the element-wise form gave NaN (inf * 0); such a
// factor (an infinite weight or rstd) already makes the channel's values
// non-finite.
//
// A sum the graph returns directly is left alone (two outputs never share
// a node), and so is a sum with a dtype argument, of non-float values or
// of a dynamic (symbolic) size.
// Nodes the rewrite leaves without users are dropped. The node holding a
// rewritten sum's value takes the sum's name; the other new nodes share
// its From, and aliases maps each of them (and each reduction another sum
// reuses) to the input graph's sums they compute, for provenance
// (LoopProgram.Aliases).
func simplifySums(g *ir.Graph) (_ *ir.Graph, aliases map[string][]string) {
	if g == nil || g.OutputNode() == nil {
		return g, nil
	}
	s := &sumSimplifier{
		b:        &jointBuilder{src: g, g: &ir.Graph{}, names: map[string]bool{}, suffix: map[string]int{}, bwd: map[*ir.Node]bool{}},
		reds:     map[string]*ir.Node{},
		alias:    map[string][]string{},
		returned: map[*ir.Node]bool{},
		index:    map[*ir.Node]int{},
	}
	for _, n := range g.Nodes {
		s.b.names[n.Name] = true
	}
	g.OutputNode().EachInput(func(n *ir.Node) { s.returned[n] = true })
	repl := map[*ir.Node]ir.Arg{}
	var replaced []*ir.Node // the rewritten sums' inputs: candidates for removal
	nodes := make([]*ir.Node, 0, len(g.Nodes))
	for _, n := range g.Nodes {
		c := remapNode(n, repl) // cse.go
		if c.Target == "aten.sum" && !s.returned[n] {
			if made, r := s.rewrite(c); r != nil {
				nodes = append(nodes, made...)
				for _, m := range made {
					s.index[m] = len(s.index)
				}
				repl[n] = r
				replaced = append(replaced, c.Inputs()...)
				continue
			}
		}
		s.index[c] = len(s.index)
		nodes = append(nodes, c)
	}
	if len(replaced) == 0 {
		return g, nil
	}
	ng := *g
	ng.Nodes = dropUnused(nodes, replaced)
	return &ng, s.alias
}

// dropUnused removes the call nodes of from (and then their inputs) that
// nothing reads any more.
func dropUnused(nodes []*ir.Node, from []*ir.Node) []*ir.Node {
	users := map[*ir.Node]int{}
	for _, n := range nodes {
		for _, in := range n.Inputs() {
			users[in]++
		}
	}
	dead := map[*ir.Node]bool{}
	for len(from) > 0 {
		n := from[len(from)-1]
		from = from[:len(from)-1]
		if dead[n] || users[n] > 0 || n.Op != ir.CallFunction {
			continue
		}
		dead[n] = true
		for _, in := range n.Inputs() {
			users[in]--
			from = append(from, in)
		}
	}
	if len(dead) == 0 {
		return nodes
	}
	kept := nodes[:0]
	for _, n := range nodes {
		if !dead[n] {
			kept = append(kept, n)
		}
	}
	return kept
}

type sumSimplifier struct {
	b        *jointBuilder       // emits the new nodes (names unique in the graph, meta inferred)
	reds     map[string]*ir.Node // sum(summand, D, keepdim=True) by sumKey
	alias    map[string][]string // new or shared node -> the input graph's sums it computes
	returned map[*ir.Node]bool
	index    map[*ir.Node]int // program order of the nodes so far
}

// sumTerm is sign * prod(consts) / prod(divs) * sum(prod(vars), D).
type sumTerm struct {
	neg    bool
	consts []ir.Arg // nodes constant over D, or Python numbers
	divs   []ir.Arg
	vars   []*ir.Node
}

// Limits of the expansion: terms of one sum, and the depth of the
// expression walked below it.
const (
	sumMaxTerms = 8
	sumMaxDepth = 8
)

// sumSpace is one sum being rewritten: its input's sizes, the summed dims
// and its float dtype.
type sumSpace struct {
	xs   []int
	dims []int
	in   map[int]bool
	dt   string
}

// rewrite returns the nodes that compute sum node n in the simplified form
// and the node holding its value, or nil when n stays as it is (it is then
// recorded, so later sums of the same summand reuse it).
func (s *sumSimplifier) rewrite(n *ir.Node) ([]*ir.Node, *ir.Node) {
	sp, x, keep, ok := s.space(n)
	if !ok {
		return nil, nil
	}
	pulled, okP := s.expand(sp, x, false, 0)
	spread, okS := s.expand(sp, x, true, 0)
	// Spread over add and sub, the terms sum one product (sameSummand):
	// no more reductions than pulling the factors alone, and they depend on
	// no more (BatchNorm's fifth sum then no longer waits for the third).
	var cands [][]sumTerm
	if okS {
		cands = append(cands, spread)
	}
	if okP {
		cands = append(cands, pulled)
	}
	for _, ts := range cands {
		if t := ts[0]; len(ts) == 1 && !t.neg && len(t.consts) == 0 && len(t.divs) == 0 {
			// Nothing to pull: n stays, unless an earlier sum is the same.
			k := sumKey(sp, t.vars)
			if s.reds[k] != nil {
				return s.build(n, sp, ts, keep)
			}
			if keep {
				s.reds[k] = n
			}
			return nil, nil
		}
		if made, r := s.build(n, sp, ts, keep); r != nil {
			return made, r
		}
	}
	return nil, nil
}

// space checks that n is a sum this pass rewrites: a float tensor input
// whose dims are constants, no dtype argument.
func (s *sumSimplifier) space(n *ir.Node) (sp sumSpace, x *ir.Node, keep, ok bool) {
	def := ir.Lookup(n.Target)
	if def == nil || n.Meta.Tensor == nil {
		return sp, nil, false, false
	}
	a, err := def.Schema.Bind(n.Args, n.Kwargs)
	if err != nil || len(a) != 4 || a[3] != nil {
		return sp, nil, false, false
	}
	x, _ = a[0].(*ir.Node)
	kd, isBool := a[2].(bool)
	if x == nil || x.Meta.Tensor == nil || !isBool || !x.Meta.Tensor.DType.IsFloat() || x.Meta.Tensor.DType != n.Meta.Tensor.DType {
		return sp, nil, false, false
	}
	for _, d := range x.Meta.Tensor.Shape {
		if d.Sym != "" { // a dynamic size: the new views and counts would fix it
			return sp, nil, false, false
		}
	}
	sp.xs = x.Meta.Tensor.Shape.Sizes()
	sp.dt = x.Meta.Tensor.DType.String()
	var raw []ir.Arg
	switch d := a[1].(type) {
	case ir.Tuple:
		raw = d
	case ir.List:
		raw = d
	case int64:
		raw = []ir.Arg{d}
	default:
		return sp, nil, false, false // None: every dim (a scalar sum, nothing to pull)
	}
	sp.in = map[int]bool{}
	for _, r := range raw {
		d, isInt := r.(int64)
		if !isInt {
			return sp, nil, false, false
		}
		if d < 0 {
			d += int64(len(sp.xs))
		}
		if d < 0 || int(d) >= len(sp.xs) || sp.in[int(d)] {
			return sp, nil, false, false
		}
		sp.in[int(d)] = true
		sp.dims = append(sp.dims, int(d))
	}
	if len(sp.dims) == 0 {
		return sp, nil, false, false
	}
	sort.Ints(sp.dims)
	return sp, x, kd, true
}

// constant reports whether a (a node or a Python number) has size 1 in
// every summed dim, aligned to the sum's input from the right as
// broadcasting aligns it.
func (sp sumSpace) constant(a ir.Arg) bool {
	switch v := a.(type) {
	case float64, int64:
		return true
	case *ir.Node:
		m := v.Meta.Tensor
		if m == nil || m.DType.String() != sp.dt {
			return false
		}
		sz := m.Shape.Sizes()
		off := len(sp.xs) - len(sz)
		if off < 0 {
			return false
		}
		for _, d := range sp.dims {
			if d >= off && sz[d-off] != 1 {
				return false
			}
		}
		return true
	}
	return false
}

// variable reports whether node v can be a summand's factor: the sum's
// dtype and rank, the sum's sizes in the summed dims.
func (sp sumSpace) variable(v *ir.Node) bool {
	m := v.Meta.Tensor
	if m == nil || m.DType.String() != sp.dt {
		return false
	}
	sz := m.Shape.Sizes()
	if len(sz) != len(sp.xs) {
		return false
	}
	for _, d := range sp.dims {
		if sz[d] != sp.xs[d] {
			return false
		}
	}
	return true
}

// expand writes a as a list of terms. It looks through mul, neg, div by a
// constant and expand of a constant; with spread also through add and
// sub (alpha 1). Anything else is one variable factor.
func (s *sumSimplifier) expand(sp sumSpace, a ir.Arg, spread bool, depth int) ([]sumTerm, bool) {
	if sp.constant(a) {
		return []sumTerm{{consts: []ir.Arg{a}}}, true
	}
	n, _ := a.(*ir.Node)
	if n == nil {
		return nil, false
	}
	leaf := func() ([]sumTerm, bool) {
		if !sp.variable(n) {
			return nil, false
		}
		return []sumTerm{{vars: []*ir.Node{n}}}, true
	}
	if depth >= sumMaxDepth || n.Op != ir.CallFunction {
		return leaf()
	}
	def := ir.Lookup(n.Target)
	if def == nil {
		return leaf()
	}
	args, err := def.Schema.Bind(n.Args, n.Kwargs)
	if err != nil {
		return leaf()
	}
	switch n.Target {
	case "aten.expand":
		if src, ok := args[0].(*ir.Node); ok && sp.constant(src) {
			return []sumTerm{{consts: []ir.Arg{src}}}, true
		}
	case "aten.neg":
		ts, ok := s.expand(sp, args[0], spread, depth+1)
		if !ok {
			return leaf()
		}
		for i := range ts {
			ts[i].neg = !ts[i].neg
		}
		return ts, true
	case "aten.mul":
		l, okL := s.expand(sp, args[0], spread, depth+1)
		r, okR := s.expand(sp, args[1], spread, depth+1)
		if !okL || !okR || len(l)*len(r) > sumMaxTerms {
			return leaf()
		}
		var ts []sumTerm
		for _, p := range l {
			for _, q := range r {
				ts = append(ts, sumTerm{neg: p.neg != q.neg, consts: cat(p.consts, q.consts), divs: cat(p.divs, q.divs), vars: cat(p.vars, q.vars)})
			}
		}
		return ts, true
	case "aten.div":
		if args[2] != nil || !sp.constant(args[1]) {
			return leaf()
		}
		ts, ok := s.expand(sp, args[0], spread, depth+1)
		if !ok {
			return leaf()
		}
		for i := range ts {
			ts[i].divs = append(cat(ts[i].divs, nil), args[1])
		}
		return ts, true
	case "aten.add", "aten.sub":
		if !spread || !isOne(args[2]) {
			return leaf()
		}
		l, okL := s.expand(sp, args[0], spread, depth+1)
		r, okR := s.expand(sp, args[1], spread, depth+1)
		if !okL || !okR || len(l)+len(r) > sumMaxTerms || !sameSummand(append(cat(l, nil), r...)) {
			return leaf()
		}
		if n.Target == "aten.sub" {
			for i := range r {
				r[i].neg = !r[i].neg
			}
		}
		return append(cat(l, nil), r...), true
	}
	return leaf()
}

// sameSummand reports whether every term sums the same product of
// variables (e * xc + e * xc): spread over add and sub, such a sum is one
// reduction times a sum of factors. Terms of different summands are not
// spread: sum(x - mean) as sum(x) - n * mean would subtract two large
// rounded sums where the element-wise differences were small and exact.
func sameSummand(ts []sumTerm) bool {
	for _, t := range ts {
		if len(t.vars) == 0 || !sameNodes(t.vars, ts[0].vars) {
			return false
		}
	}
	return true
}

// sameNodes compares two factor lists as multisets.
func sameNodes(a, b []*ir.Node) bool {
	if len(a) != len(b) {
		return false
	}
	count := map[*ir.Node]int{}
	for _, n := range a {
		count[n]++
	}
	for _, n := range b {
		if count[n]--; count[n] < 0 {
			return false
		}
	}
	return true
}

func cat[T any](a, b []T) []T { return append(append(make([]T, 0, len(a)+len(b)), a...), b...) }

func isOne(a ir.Arg) bool {
	switch v := a.(type) {
	case int64:
		return v == 1
	case float64:
		return v == 1
	}
	return false
}

// sumKey names sum(prod(vars), D, keepdim=True).
func sumKey(sp sumSpace, vars []*ir.Node) string {
	names := make([]string, len(vars))
	for i, v := range vars {
		names[i] = v.Name
	}
	sort.Strings(names)
	var b strings.Builder
	for _, d := range sp.dims {
		b.WriteString(strconv.Itoa(d) + ",")
	}
	b.WriteString("|" + strings.Join(names, "*"))
	return b.String()
}

// fresh counts the distinct reductions ts needs that do not exist yet.
func (s *sumSimplifier) fresh(sp sumSpace, ts []sumTerm) int {
	seen := map[string]bool{}
	for _, t := range ts {
		if len(t.vars) == 0 {
			continue
		}
		k := sumKey(sp, t.vars)
		if s.reds[k] == nil && !seen[k] {
			seen[k] = true
		}
	}
	return len(seen)
}

// build emits ts as nodes standing for sum node n; nil when a shape or
// dtype does not work out (n then stays).
func (s *sumSimplifier) build(n *ir.Node, sp sumSpace, ts []sumTerm, keep bool) ([]*ir.Node, *ir.Node) {
	b := s.b
	b.g.Nodes, b.err, b.cur = nil, nil, n
	made := map[string]*ir.Node{}
	dims := make(ir.Tuple, len(sp.dims))
	for i, d := range sp.dims {
		dims[i] = int64(d)
	}
	var total *ir.Node
	var reused []*ir.Node // reductions made for earlier sums
	for _, t := range ts {
		var v ir.Arg
		if len(t.vars) > 0 {
			k := sumKey(sp, t.vars)
			red := s.reds[k]
			if red != nil {
				reused = append(reused, red)
			} else {
				red = made[k]
			}
			if red == nil {
				vs := cat(t.vars, nil)
				sort.SliceStable(vs, func(i, j int) bool { return s.index[vs[i]] < s.index[vs[j]] })
				p := vs[0]
				for _, q := range vs[1:] {
					p = b.emit("mul", p, q)
				}
				red = b.emit("sum", p, dims, true)
				made[k] = red
			}
			v = red
		} else {
			count := 1
			for _, d := range sp.dims {
				count *= sp.xs[d]
			}
			v = float64(count)
		}
		for _, c := range t.consts {
			v = s.mulArg(v, c)
		}
		for _, d := range t.divs {
			if vn, ok := v.(*ir.Node); ok {
				v = b.emit("div", vn, d)
			} else if dn, ok := d.(*ir.Node); ok {
				v = b.emit("div", b.emit("full", ir.Tuple{}, v, n.Meta.Tensor.DType), dn)
			} else {
				return nil, nil // a Python number: no tensor to build
			}
		}
		vn, ok := v.(*ir.Node)
		if !ok || b.err != nil {
			return nil, nil
		}
		switch {
		case total == nil && t.neg:
			total = b.emit("neg", vn)
		case total == nil:
			total = vn
		case t.neg:
			total = b.emit("sub", total, vn)
		default:
			total = b.emit("add", total, vn)
		}
	}
	if b.err != nil || total == nil || total.Meta.Tensor == nil {
		return nil, nil
	}
	want := n.Meta.Tensor.Shape.Sizes()
	kept := append([]int{}, sp.xs...)
	for _, d := range sp.dims {
		kept[d] = 1
	}
	if !jointSameSizes(total.Meta.Tensor.Shape.Sizes(), kept) || total.Meta.Tensor.DType != n.Meta.Tensor.DType {
		return nil, nil
	}
	if !keep {
		total = b.emit("view", total, jointSizes(want))
	}
	if b.err != nil {
		return nil, nil
	}
	for k, r := range made {
		s.reds[k] = r
	}
	for _, m := range b.g.Nodes {
		s.alias[m.Name] = []string{n.Name}
	}
	if len(b.g.Nodes) > 0 && total == b.g.Nodes[len(b.g.Nodes)-1] {
		delete(s.alias, total.Name)
		total.Name = n.Name // the value of sum n, under its name
	}
	for _, r := range reused {
		if s.alias[r.Name] == nil {
			s.alias[r.Name] = []string{r.Name}
		}
		s.alias[r.Name] = appendNew(s.alias[r.Name], n.Name)
	}
	return b.g.Nodes, total
}

// mulArg is v * c, v and c each a node or a Python number.
func (s *sumSimplifier) mulArg(v, c ir.Arg) ir.Arg {
	if vn, ok := v.(*ir.Node); ok {
		return s.b.emit("mul", vn, c)
	}
	if cn, ok := c.(*ir.Node); ok {
		return s.b.emit("mul", cn, v)
	}
	vf, cf := numFloat(v), numFloat(c)
	return vf * cf
}

func numFloat(a ir.Arg) float64 {
	switch v := a.(type) {
	case float64:
		return v
	case int64:
		return float64(v)
	}
	return 0
}

// aliasOf is the nodes of lp's graph that node name of the compiled graph
// computes: itself, or what the backward's sum rewrite made it for.
func aliasOf(lp *LoopProgram, name string) []string {
	if a, ok := lp.Aliases[name]; ok {
		return a
	}
	return []string{name}
}

// describeSums lists, for the loop IR stage, the reductions the backward's
// sum rewrite made or shared, each with the sums of lp's graph it stands
// for; "" when it changed nothing.
func describeSums(lp *LoopProgram) string {
	if len(lp.Aliases) == 0 || lp.Lowered == nil || lp.Lowered.Graph == nil {
		return ""
	}
	var lines []string
	for _, n := range lp.Lowered.Graph.Nodes {
		a, ok := lp.Aliases[n.Name]
		if !ok || n.Target != "aten.sum" || len(n.Args) == 0 {
			continue
		}
		in, _ := n.Args[0].(*ir.Node)
		if in == nil {
			continue
		}
		lines = append(lines, "#   "+n.Name+" = sum("+in.Name+"): for "+strings.Join(a, ", "))
	}
	if len(lines) == 0 {
		return ""
	}
	return "# sums rewritten before lowering (stages/simplify_bwd.go): factors constant over the summed dims pulled out, one reduction per distinct summand\n" +
		strings.Join(lines, "\n") + "\n"
}
