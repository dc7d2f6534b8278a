package stages

import (
	"fmt"
	"strings"

	"gcdbg/ir"
)

// The partitioner splits the joint graph into a forward and a backward
// graph, deciding which forward values cross over (are saved for backward,
// costing memory between the two) and which the backward recomputes.
//
// Two partitions are built:
//   - save-everything (AOTAutograd's default_partition): every forward value
//     the backward reads is saved;
//   - min-cut (AOTAutograd's min_cut_rematerialization_partition): each node
//     becomes an edge n_in → n_out whose capacity is the bytes of its value;
//     primals hang off a source and every tangent-dependent node off a sink,
//     all other edges are infinite. A minimum s-t cut then is a cheapest set
//     of values from which the backward can compute everything it needs.
//     Cheap ops (pointwise, views, reductions) may land on the backward
//     side, i.e. be recomputed; expensive ones (matmul, conv, sort, pools,
//     indexing, random) are tied to the source, so if the backward needs
//     them they are saved.

// partition fills u.Partition (min-cut) and u.SaveAll from u.Joint.
func partition(u *Unit) error {
	if u.Joint == nil {
		return nil
	}
	jg, err := newJointInfo(u.Joint)
	if err != nil {
		return err
	}
	all, err := jg.saveAll()
	if err != nil {
		return fmt.Errorf("save-everything partition: %w", err)
	}
	mc, err := jg.minCut()
	if err != nil {
		return fmt.Errorf("min-cut partition: %w", err)
	}
	u.SaveAll, u.Partition = all, mc
	return nil
}

// jointInfo is the joint graph classified the way the partitioner needs.
type jointInfo struct {
	j                 *Joint
	g                 *ir.Graph
	primals, tangents []*ir.Node
	fwdOuts, bwdOuts  []ir.Arg
	requiredFw        map[*ir.Node]bool // computed by the forward outputs from the primals
	requiredBw        map[*ir.Node]bool // the tangents and everything depending on them
	users             map[*ir.Node][]*ir.Node
	order             map[*ir.Node]int
}

func newJointInfo(j *Joint) (*jointInfo, error) {
	g := j.Graph
	if g == nil {
		return nil, fmt.Errorf("joint graph is nil")
	}
	if err := g.Validate(); err != nil {
		return nil, err
	}
	outs := g.Outputs()
	if j.NumOutputs < 0 || j.NumOutputs+len(j.GradTargets) != len(outs) {
		return nil, fmt.Errorf("graph %q: node %q: returns %d values, want %d outputs + %d grads",
			g.Name, g.OutputNode().Name, len(outs), j.NumOutputs, len(j.GradTargets))
	}
	jg := &jointInfo{j: j, g: g, fwdOuts: outs[:j.NumOutputs], bwdOuts: outs[j.NumOutputs:],
		requiredFw: map[*ir.Node]bool{}, requiredBw: map[*ir.Node]bool{},
		users: map[*ir.Node][]*ir.Node{}, order: map[*ir.Node]int{}}
	isTangent := map[string]bool{}
	for _, t := range j.Tangents {
		isTangent[t] = true
	}
	for i, n := range g.Nodes {
		jg.order[n] = i
		for _, in := range n.Inputs() {
			jg.users[in] = append(jg.users[in], n)
		}
		switch {
		case n.Op == ir.Placeholder && (isTangent[n.Target] || strings.HasPrefix(n.Name, "tangents")):
			jg.tangents = append(jg.tangents, n)
			jg.requiredBw[n] = true
		case n.Op == ir.Placeholder:
			jg.primals = append(jg.primals, n)
		case n.Op != ir.Output:
			for _, in := range n.Inputs() {
				if jg.requiredBw[in] {
					jg.requiredBw[n] = true
				}
			}
		}
	}
	fw, err := jg.needed(jg.fwdOuts, jg.primals)
	if err != nil {
		return nil, fmt.Errorf("forward outputs: %w", err)
	}
	for n := range fw {
		jg.requiredFw[n] = true
	}
	for _, p := range jg.primals {
		jg.requiredFw[p] = true
	}
	return jg, nil
}

// needed walks back from outs, stopping at inputs, and returns every node
// the outputs depend on (inputs included when reached). Reaching a
// placeholder that is not an input is an error: that value is unavailable.
func (jg *jointInfo) needed(outs []ir.Arg, inputs []*ir.Node) (map[*ir.Node]bool, error) {
	isInput := map[*ir.Node]bool{}
	for _, n := range inputs {
		isInput[n] = true
	}
	seen := map[*ir.Node]bool{}
	var stack []*ir.Node
	for _, a := range outs {
		ir.MapArg(a, func(n *ir.Node) ir.Arg { stack = append(stack, n); return n })
	}
	for len(stack) > 0 {
		n := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if seen[n] {
			continue
		}
		seen[n] = true
		if isInput[n] {
			continue
		}
		if n.Op == ir.Placeholder {
			return nil, fmt.Errorf("graph %q: node %q: needed but neither an input nor computable from the inputs", jg.g.Name, n.Name)
		}
		stack = append(stack, n.Inputs()...)
	}
	return seen, nil
}

// extract builds the graph computing outs from inputs, copying the joint
// nodes it needs in joint order. The forward's inputs are the joint's
// primals and keep their Target (their value is found in Tensors); the
// backward's saved inputs get their joint name as Target, so the backward
// reads nothing but what it is handed. Tangents keep "tangents_i".
func (jg *jointInfo) extract(name string, inputs []*ir.Node, outs []ir.Arg, keepTarget bool) (*ir.Graph, error) {
	need, err := jg.needed(outs, inputs)
	if err != nil {
		return nil, err
	}
	out := &ir.Graph{Name: jg.g.Name + "." + name, Tensors: jg.g.Tensors}
	copied := map[*ir.Node]*ir.Node{}
	mapArg := func(a ir.Arg) ir.Arg {
		return ir.MapArg(a, func(n *ir.Node) ir.Arg { return copied[n] })
	}
	for _, n := range inputs {
		c := &ir.Node{Name: n.Name, Op: ir.Placeholder, Target: n.Target, Meta: n.Meta, From: []string{n.Name}}
		if !keepTarget && !jg.requiredBw[n] {
			c.Target = n.Name
		}
		copied[n] = c
		out.Nodes = append(out.Nodes, c)
	}
	for _, n := range jg.g.Nodes {
		if !need[n] || copied[n] != nil || n.Op == ir.Output {
			continue
		}
		c := &ir.Node{Name: n.Name, Op: n.Op, Target: n.Target, Meta: n.Meta, Module: n.Module, From: []string{n.Name}}
		for _, a := range n.Args {
			c.Args = append(c.Args, mapArg(a))
		}
		for _, kv := range n.Kwargs {
			c.Kwargs = append(c.Kwargs, ir.Kwarg{Name: kv.Name, Value: mapArg(kv.Value)})
		}
		copied[n] = c
		out.Nodes = append(out.Nodes, c)
	}
	ret := make(ir.Tuple, len(outs))
	for i, a := range outs {
		ret[i] = mapArg(a)
	}
	// the joint's own output name, which no node of it has: a node named
	// output (Meta's LLaMA names its LM head self.output) keeps its name
	on := jg.g.OutputNode().Name
	out.Nodes = append(out.Nodes, &ir.Node{Name: on, Op: ir.Output, Target: "output",
		Args: []ir.Arg{ret}, From: []string{on}})
	return out, out.Validate()
}

// build makes the Partition that saves exactly `saved` (in joint order).
func (jg *jointInfo) build(saved []*ir.Node) (*Partition, error) {
	sortByOrder(saved, jg.order)
	var savedArgs []ir.Arg
	for _, n := range saved {
		savedArgs = append(savedArgs, n)
	}
	fwd, err := jg.extract("forward", jg.primals, append(append([]ir.Arg{}, jg.fwdOuts...), savedArgs...), true)
	if err != nil {
		return nil, err
	}
	bwd, err := jg.extract("backward", append(append([]*ir.Node{}, saved...), jg.tangents...), jg.bwdOuts, false)
	if err != nil {
		return nil, err
	}
	p := &Partition{Forward: fwd, Backward: bwd}
	for _, n := range saved {
		b := valueBytes(n)
		if b < 0 {
			return nil, fmt.Errorf("graph %q: node %q: a tuple cannot be saved (save its items)", jg.g.Name, n.Name)
		}
		p.Saved = append(p.Saved, SavedTensor{Name: n.Name, Meta: n.Meta.Tensor, Bytes: b})
		p.SavedBytes += b
	}
	// Recomputed: backward nodes the forward computes too.
	inFwd := map[string]bool{}
	for _, n := range fwd.Nodes {
		inFwd[n.Name] = true
	}
	for _, n := range bwd.Nodes {
		if n.Op == ir.CallFunction && inFwd[n.Name] {
			p.Recomputed = append(p.Recomputed, n.Name)
		}
	}
	return p, nil
}

// saveAll is AOTAutograd's default_partition: every forward value (primals
// included) the backward reads is saved; nothing is recomputed.
func (jg *jointInfo) saveAll() (*Partition, error) {
	var cands []*ir.Node
	for _, n := range jg.g.Nodes {
		if !jg.requiredFw[n] {
			continue
		}
		if n.Meta.Items != nil { // a tuple: save its items, as getitem nodes
			for _, us := range jg.users[n] {
				if us.Target == "aten.getitem" {
					cands = append(cands, us)
				}
			}
			continue
		}
		cands = append(cands, n)
	}
	need, err := jg.needed(jg.bwdOuts, append(append([]*ir.Node{}, cands...), jg.tangents...))
	if err != nil {
		return nil, err
	}
	var saved []*ir.Node
	seen := map[*ir.Node]bool{}
	for _, n := range cands {
		if need[n] && !seen[n] {
			seen[n] = true
			saved = append(saved, n)
		}
	}
	return jg.build(saved)
}

// minCut is AOTAutograd's min_cut_rematerialization_partition with the
// capacity of a node being exactly its bytes (AOTAutograd also scales by
// distance to the backward; gcdbg minimizes bytes and breaks ties by taking
// the minimum cut closest to the backward, which recomputes the least).
func (jg *jointInfo) minCut() (*Partition, error) {
	f := NewFlowNet()
	const source, sink = "source", "sink"
	in := func(n *ir.Node) string { return n.Name + "_in" }
	outv := func(n *ir.Node) string { return n.Name + "_out" }
	for _, n := range jg.g.Nodes {
		if n.Op == ir.Output {
			continue
		}
		if jg.requiredBw[n] {
			f.AddEdge(in(n), sink, Inf)
			continue
		}
		if n.Op == ir.Placeholder || (jg.requiredFw[n] && (!recomputable(n) || jg.gemmOperand(n))) {
			f.AddEdge(source, in(n), Inf)
		}
		w := valueBytes(n)
		if w < 0 {
			w = Inf // a tuple is never saved whole; its getitems are
		} else {
			// Bytes decide; among cuts of equal bytes, saving a primal beats
			// saving a value computed from it (a transposed weight, say):
			// the primal is alive anyway and its views cost nothing to
			// redo in backward, while a saved view must be materialized.
			w = w*tieScale + 1
			if isView(n) && w > 1 {
				// Likewise a view costs one unit more than its base: a
				// saved view (a weight-gradient GEMM's transposed
				// activation) is written as a copy by the forward, while
				// its base is often materialized anyway and the backward's
				// GEMM reads it transposed through its strides.
				w++
			}
			if n.Op == ir.Placeholder && w > 1 {
				// (a zero-element primal keeps capacity 1: a zero-capacity
				// edge is never listed in the cut, so it could not be saved)
				w--
			}
		}
		f.AddEdge(in(n), outv(n), w)
		for _, us := range jg.users[n] {
			f.AddEdge(outv(n), in(us), Inf)
		}
	}
	value, cut := f.MinCut(source, sink)
	if value >= Inf {
		return nil, fmt.Errorf("graph %q: no finite cut: the backward needs a value that can be neither saved nor recomputed", jg.g.Name)
	}
	var saved []*ir.Node
	for _, e := range cut {
		n := jg.g.Node(strings.TrimSuffix(e.From, "_in"))
		if n == nil || e.To != outv(n) {
			return nil, fmt.Errorf("graph %q: min cut crosses edge %s→%s, which is not a node's own edge", jg.g.Name, e.From, e.To)
		}
		saved = append(saved, n)
	}
	return jg.build(saved)
}

// tieScale makes bytes the primary objective of the cut: the per-node
// tie-breaking units (at most 2) summed over every node stay below one byte.
const tieScale = 1 << 18

// isView reports a call of a view op (permute, reshape, slice, ...).
func isView(n *ir.Node) bool {
	if n.Op != ir.CallFunction {
		return false
	}
	d := ir.Lookup(n.Target)
	return d != nil && d.Kind == ir.KindView
}

// recomputable says whether the backward may compute n again instead of
// having it saved: deterministic ops that read each input element a few
// times at most. Pointwise ops, views, creations and reductions qualify
// (functorch's default recomputable set has sum, amax and mean too);
// matmuls, convolutions, sorts, pools, indexing and anything random must
// be saved if the backward needs them.
//
// Reductions matter for the bytes: the joint differentiates the decomposed
// ops, so a stable log_softmax (x - amax(x)) - log(sum(exp(x - amax(x))))
// needs its amax and sum in backward beside x. Banning them saves x, amax
// and sum; recomputing them from x saves x alone, which is what functorch
// saves for its own log_softmax formula (exp(out), the same bytes). The
// cut still saves a reduction when that is cheaper than keeping its input
// alive, and among byte-minimal cuts it recomputes the least (SinkSide).
// A reduction over megabytes (bigReduction) is never recomputed.
func recomputable(n *ir.Node) bool {
	if n.Op != ir.CallFunction {
		return n.Op == ir.GetAttr // a constant: free to read again
	}
	if n.Target == "aten.getitem" { // picks an item of a tuple: free
		return true
	}
	if strings.Contains(n.Target, "rand") || strings.Contains(n.Target, "dropout") || strings.Contains(n.Target, "bernoulli") {
		return false // recomputing would draw different numbers
	}
	d := ir.Lookup(n.Target)
	if d == nil {
		return false
	}
	switch d.Kind {
	case ir.KindPointwise, ir.KindView, ir.KindCreation:
		return true
	case ir.KindReduction:
		return !bigReduction(n)
	}
	return false
}

// gemmOperand reports a pointwise value of at least bigReductionBytes that
// the forward passes to a matmul (mm or bmm, directly or through views).
// The forward writes it to memory anyway (a GEMM reads its operands from
// memory), so saving it costs memory and no traffic, while recomputing it
// in the backward is one more pass over its input and a write of it:
// ffn_train's GELU, recomputed for the weight gradient g^T @ gelu(a), cost
// 0.7-1.0 ms of a 57 ms step (docs/performance.md); PyTorch's autograd
// saves it. Such a value is not recomputed (tied to the forward side, like
// the matmul itself); below the size, the byte-minimal cut stands.
func (jg *jointInfo) gemmOperand(n *ir.Node) bool {
	if n.Op != ir.CallFunction || valueBytes(n) < bigReductionBytes {
		return false
	}
	if d := ir.Lookup(n.Target); d == nil || d.Kind != ir.KindPointwise {
		return false
	}
	seen := map[*ir.Node]bool{}
	var reaches func(v *ir.Node) bool
	reaches = func(v *ir.Node) bool {
		for _, u := range jg.users[v] {
			if !jg.requiredFw[u] || seen[u] || u.Op != ir.CallFunction {
				continue
			}
			seen[u] = true
			if u.Target == "aten.mm" || u.Target == "aten.bmm" {
				return true
			}
			if d := ir.Lookup(u.Target); d != nil && d.Kind == ir.KindView && reaches(u) {
				return true
			}
		}
		return false
	}
	return reaches(n)
}

// bigReductionBytes is the input size from which a reduction is no longer
// recomputed (bigReduction): beyond a core's L2 cache (1 MiB here), a
// recomputed reduction is one more pass over its input in memory.
const bigReductionBytes = 1 << 20

// bigReduction reports a reduction whose tensor inputs hold at least
// bigReductionBytes and at least 4 times its output's bytes (Inductor's
// rule, partitioners.py should_ban_recomputation: "if the output of an op
// is 4x smaller, we don't allow recomputation"), restricted to inputs
// beyond the cache: BatchNorm's per-channel sums in training over an
// activation of megabytes. Recomputed in the backward, each of them read
// the activation again, and the squared deviations were recomputed and
// stored only to be summed again (resnet_block_train, vgg_bn_train);
// saved, they cost a few hundred bytes. Small reductions (every test
// fixture's) keep the byte-minimal cut: saving x alone for a
// log_softmax, as functorch does.
func bigReduction(n *ir.Node) bool {
	out := valueBytes(n)
	if out < 0 {
		return false
	}
	var in int64
	for _, a := range n.Args {
		if an, ok := a.(*ir.Node); ok {
			if b := valueBytes(an); b > 0 {
				in += b
			}
		}
	}
	return in >= bigReductionBytes && in >= 4*out
}

// valueBytes is what saving n's value costs: numel × dtype size for a
// tensor, 0 for a Python value (an int), -1 for a tuple (cannot be saved).
func valueBytes(n *ir.Node) int64 {
	if m := n.Meta.Tensor; m != nil {
		return tensorBytes(m)
	}
	if n.Meta.Items != nil {
		return -1
	}
	return 0
}

func tensorBytes(m *ir.TensorMeta) int64 {
	b := int64(m.DType.Size())
	for _, d := range m.Shape {
		b *= int64(d.Size)
	}
	return b
}

func sortByOrder(ns []*ir.Node, order map[*ir.Node]int) {
	for i := 1; i < len(ns); i++ {
		for k := i; k > 0 && order[ns[k]] < order[ns[k-1]]; k-- {
			ns[k], ns[k-1] = ns[k-1], ns[k]
		}
	}
}

func printForward(u *Unit) string {
	if u.Partition == nil {
		return "(no partition: nothing requires grad)\n"
	}
	return partitionHeader(u) + "\n" + ir.Readable(u.Partition.Forward)
}

func printBackward(u *Unit) string {
	if u.Partition == nil {
		return "(no partition: nothing requires grad)\n"
	}
	return partitionHeader(u) + "\n" + strings.Replace(ir.Readable(u.Partition.Backward), "def forward(", "def backward(", 1)
}

// partitionHeader lists what the min-cut saves (with bytes) and
// recomputes, beside the save-everything partition for comparison.
func partitionHeader(u *Unit) string {
	var b strings.Builder
	p := u.Partition
	fmt.Fprintf(&b, "# min-cut partition: %d saved, %d bytes", len(p.Saved), p.SavedBytes)
	if s := u.SaveAll; s != nil {
		fmt.Fprintf(&b, " (save-everything: %d saved, %d bytes)", len(s.Saved), s.SavedBytes)
	}
	b.WriteString("\n# saved for backward:\n")
	for _, s := range p.Saved {
		what := "python value"
		if s.Meta != nil {
			what = s.Meta.String()
		}
		fmt.Fprintf(&b, "#   %-24s %-20s %8d bytes\n", s.Name, what, s.Bytes)
	}
	if len(p.Recomputed) == 0 {
		b.WriteString("# recomputed in backward: none\n")
	} else {
		fmt.Fprintf(&b, "# recomputed in backward: %s\n", strings.Join(p.Recomputed, ", "))
	}
	return b.String()
}
