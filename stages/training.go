package stages

import (
	"fmt"
	"hash/fnv"
	"sort"
	"strings"

	"gcdbg/ir"
	"gcdbg/tensor"
)

// Training mode in the normalized graph. After the captured graph is
// rewritten to canonical ops, one more pass makes the two kinds of state a
// training step has explicit, so every later stage (the eager reference
// included) sees the same program:
//
//   - BatchNorm in training mutates its running statistics. As PyTorch's
//     functionalization does, batch_norm(training=True) with running stats
//     becomes batch_norm_functional (PyTorch's
//     _native_batch_norm_legit_functional), which returns the output and the
//     new running stats, then copy_ of each into its buffer. The functional
//     stage turns those copies (and num_batches_tracked.add_(1)) into
//     write-backs: FunctionalInfo.Writebacks, keyed by the buffer's
//     qualified name.
//   - Random ops (dropout in training, rand_like, randn_like, bernoulli,
//     rand and randn of a size, randperm) replay what PyTorch drew when the trace
//     records it (expected.random):
//     the draw becomes a get_attr of a tensor "expected.random.<node>". A
//     node without a recorded draw gets gcdbg's own counter-based draw,
//     philox_rand(size, seed, offset): eager and compiled runs draw the same
//     numbers, but not PyTorch's, so comparing with PyTorch elementwise means
//     nothing (Unit.RandomDraws says which nodes, FunctionalInfo.OwnRandom).

// RandomSeed is the Philox key of gcdbg's own draws in the graph called
// name (FNV-1a of the name, so the graphs of a trace with graph breaks draw
// independent streams); each random node of a graph reads its own range of
// counters (RandomDraw.Offset).
func RandomSeed(name string) int64 {
	h := fnv.New32a()
	h.Write([]byte(name))
	return int64(h.Sum32())
}

// RandomPrefix starts the tensor name of a recorded draw: the draw of node
// n is Graph.Tensors[RandomPrefix+n].
const RandomPrefix = "expected.random."

// RandomDraw says where one random node's numbers come from.
type RandomDraw struct {
	Node     string // the captured graph's node
	Op       string // the canonical op: aten.dropout, aten.rand_like, ...
	Replayed bool   // true: PyTorch's recorded draw; false: gcdbg's own (Philox)
	Offset   int64  // own draws: the first Philox counter
}

// trainingPass runs at the end of normalization (normalize.go).
func (nz *normalizer) trainingPass() error {
	old := nz.out.Nodes
	nz.out.Nodes = make([]*ir.Node, 0, len(old))
	repl := map[*ir.Node]ir.Arg{}
	var offset int64
	var draws []RandomDraw
	for _, n := range old {
		if len(repl) > 0 {
			for i := range n.Args {
				n.Args[i] = replaceArg(n.Args[i], repl)
			}
			for i := range n.Kwargs {
				n.Kwargs[i].Value = replaceArg(n.Kwargs[i].Value, repl)
			}
		}
		if n.Op != ir.CallFunction {
			nz.out.Nodes = append(nz.out.Nodes, n)
			continue
		}
		var r ir.Arg
		var err error
		switch {
		case n.Target == "aten.batch_norm":
			r, err = nz.batchNormTraining(n)
		case randomOps[n.Target]:
			var d *RandomDraw
			r, d, err = nz.random(n, &offset)
			if d != nil {
				draws = append(draws, *d)
			}
		}
		if err != nil {
			return fmt.Errorf("graph %q: node %q: %w", nz.src.Name, origin(n), err)
		}
		if r == nil {
			nz.out.Nodes = append(nz.out.Nodes, n)
			continue
		}
		repl[n] = r
		delete(nz.metas, n)
	}
	if len(repl) > 0 {
		if out := nz.out.OutputNode(); out != nil {
			for i := range out.Args {
				out.Args[i] = replaceArg(out.Args[i], repl)
			}
		}
	}
	nz.draws = draws
	// A recorded draw for a node that draws nothing here means the trace and
	// the graph disagree about what is random: refuse rather than ignore it.
	if ex := nz.src.Expected; ex != nil {
		used := map[string]bool{}
		for _, d := range draws {
			used[d.Node] = d.Replayed
		}
		var names []string
		for k := range ex.Random {
			names = append(names, k)
		}
		sort.Strings(names)
		for _, k := range names {
			if !used[k] {
				return fmt.Errorf("graph %q: node %q: expected.random[%q]: the trace records a draw for this node, but in gcdbg's graph it draws no random numbers (a dropout in eval mode or with p = 0?)", nz.src.Name, k, k)
			}
		}
	}
	return nil
}

func replaceArg(a ir.Arg, repl map[*ir.Node]ir.Arg) ir.Arg {
	return ir.MapArg(a, func(n *ir.Node) ir.Arg {
		if r, ok := repl[n]; ok {
			return r
		}
		return n
	})
}

// origin is the captured node a normalized node came from.
func origin(n *ir.Node) string {
	if len(n.From) > 0 {
		return n.From[0]
	}
	return n.Name
}

// call appends a canonical call standing for the normalized node n.
func (nz *normalizer) callFor(n *ir.Node, op string, args ...ir.Arg) (*ir.Node, error) {
	d := ir.Lookup(op)
	if d == nil {
		return nil, fmt.Errorf("internal error: no canonical op %s", op)
	}
	bound, err := d.Schema.Bind(args, nil)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	c := &ir.Node{Name: nz.fresh(n.Name + "_" + strings.TrimPrefix(op, "aten.")), Op: ir.CallFunction, Target: op,
		Args: d.Schema.Trim(bound), Meta: ir.Meta{Stack: n.Meta.Stack}}
	if err := nz.addFrom(c, n); err != nil {
		return nil, err
	}
	return c, nil
}

// addFrom is normalizer.add with the provenance of normalized node n (the
// captured node it came from).
func (nz *normalizer) addFrom(c, n *ir.Node) error {
	if err := nz.add(c, n); err != nil {
		return err
	}
	c.From = append([]string{}, n.From...)
	return nil
}

// rename gives the node that replaces n n's own name, so a reader finds
// `bn1` or `drop` in the normalized graph as in the captured one.
func (nz *normalizer) rename(c, n *ir.Node) {
	delete(nz.names, c.Name)
	c.Name = n.Name
}

// batchNormTraining rewrites batch_norm(training=True) with running stats
// into its functional form plus copy_ into the running stats. Other
// batch_norm calls stay (nil result).
func (nz *normalizer) batchNormTraining(n *ir.Node) (ir.Arg, error) {
	d := ir.Lookup(n.Target)
	a, err := d.Schema.Bind(n.Args, n.Kwargs)
	if err != nil {
		return nil, err
	}
	tr, ok := a[5].(bool)
	if !ok || !tr {
		return nil, nil
	}
	rm, rmOK := a[1].(*ir.Node)
	rv, rvOK := a[2].(*ir.Node)
	if a[1] == nil && a[2] == nil {
		return nil, nil // batch statistics only: a pure op
	}
	if !rmOK || !rvOK {
		return nil, fmt.Errorf("args: batch_norm in training mode updates running_mean and running_var, which must both be tensors")
	}
	f, err := nz.callFor(n, "aten.batch_norm_functional", a[0], rm, rv, a[3], a[4], a[6], a[7])
	if err != nil {
		return nil, err
	}
	out, err := nz.callFor(n, "aten.getitem", f, int64(0))
	if err != nil {
		return nil, err
	}
	for i, buf := range []*ir.Node{rm, rv} {
		nv, err := nz.callFor(n, "aten.getitem", f, int64(i+1))
		if err != nil {
			return nil, err
		}
		if _, err := nz.callFor(n, "aten.copy_", buf, nv); err != nil {
			return nil, err
		}
	}
	nz.rename(out, n)
	return out, nil
}

// randomOps are the canonical ops that draw random numbers.
var randomOps = map[string]bool{"aten.dropout": true, "aten.feature_dropout": true, "aten.feature_alpha_dropout": true, "aten.alpha_dropout": true,
	"aten.rand_like": true, "aten.randn_like": true, "aten.bernoulli": true, "aten.rrelu": true,
	"aten._scaled_dot_product_attention": true, "aten.rand": true, "aten.randn": true, "aten.randperm": true}

// factoryDraws are the random ops without an input: torch.rand(*size),
// torch.randn(*size), torch.randperm(n).
var factoryDraws = map[string]bool{"aten.rand": true, "aten.randn": true, "aten.randperm": true}

// featureDropouts draw one value per (sample, channel); the alpha one
// computes its output with alpha_dropout_masked.
var featureDropouts = map[string]bool{"aten.feature_dropout": true, "aten.feature_alpha_dropout": true}

// random replaces a random node by PyTorch's recorded draw or by gcdbg's
// own. A dropout in eval mode or with p = 0 is no random node (nil).
func (nz *normalizer) random(n *ir.Node, offset *int64) (ir.Arg, *RandomDraw, error) {
	d := ir.Lookup(n.Target)
	a, err := d.Schema.Bind(n.Args, n.Kwargs)
	if err != nil {
		return nil, nil, err
	}
	// a factory draw (rand, randn) has no input: its draw is its value
	x, ok := a[0].(*ir.Node)
	xm := n.Meta.Tensor
	if factoryDraws[d.Name] {
		if xm == nil {
			return nil, nil, fmt.Errorf("internal error: %s has no tensor meta", d.Name)
		}
	} else if !ok || x.Meta.Tensor == nil {
		return nil, nil, fmt.Errorf("args[0]: %s needs a tensor input", d.Name)
	} else {
		xm = x.Meta.Tensor
	}
	var p float64
	inplace := false
	feature := featureDropouts[d.Name]
	alpha := d.Name == "aten.alpha_dropout" || d.Name == "aten.feature_alpha_dropout"
	dropout := d.Name == "aten.dropout" || d.Name == "aten.alpha_dropout" || feature
	rrelu := d.Name == "aten.rrelu" // the draw: the slope of every element
	// PyTorch 1.13's attention drops its softmax weights: the draw is their keep mask
	sdpa := d.Name == "aten._scaled_dot_product_attention"
	var drawShape []int // the draw's shape when it is not the node's value's
	switch {
	case dropout:
		pv, okP := a[1].(float64)
		if i, isInt := a[1].(int64); isInt {
			pv, okP = float64(i), true
		}
		tr, okT := a[2].(bool)
		if !okP || !okT {
			return nil, nil, fmt.Errorf("args: dropout's p and training must be constants, got %s and %s", argText(a[1]), argText(a[2]))
		}
		if !(pv >= 0 && pv <= 1) {
			return nil, nil, fmt.Errorf("args: dropout probability has to be between 0 and 1, but got %g", pv)
		}
		if !tr || pv == 0 {
			return nil, nil, nil
		}
		p = pv
		if feature && len(xm.Shape) < 2 {
			return nil, nil, fmt.Errorf("args[0]: Feature dropout requires at least 2 dimensions in the input, got %dD", len(xm.Shape))
		}
		inplace, _ = a[3].(bool)
		if !xm.DType.IsFloat() {
			return nil, nil, fmt.Errorf("args[0]: dropout needs a floating input, got %s", xm.DType)
		}
	case d.Name == "aten.bernoulli":
		if a[2] != nil {
			return nil, nil, fmt.Errorf("kwargs.generator: an explicit generator is not supported")
		}
	case sdpa:
		pv, okP := a[4].(float64)
		if i, isInt := a[4].(int64); isInt {
			pv, okP = float64(i), true
		}
		if !okP || !(pv >= 0 && pv <= 1) {
			return nil, nil, fmt.Errorf("args: dropout_p must be a constant between 0 and 1, got %s", argText(a[4]))
		}
		if pv == 0 {
			return nil, nil, nil
		}
		p = pv
		if len(n.Meta.Items) != 2 || n.Meta.Items[1] == nil {
			return nil, nil, fmt.Errorf("internal error: %s has no attention weights meta", d.Name)
		}
		drawShape = n.Meta.Items[1].Shape.Sizes()
		if !xm.DType.IsFloat() {
			return nil, nil, fmt.Errorf("args[0]: attention needs a floating query, got %s", xm.DType)
		}
	case rrelu:
		tr, okT := a[3].(bool)
		if !okT {
			return nil, nil, fmt.Errorf("args: rrelu's training must be a constant, got %s", argText(a[3]))
		}
		if !tr {
			return nil, nil, nil // leaky_relu with the mean slope
		}
		inplace, _ = a[4].(bool)
		if !xm.DType.IsFloat() {
			return nil, nil, fmt.Errorf("args[0]: rrelu needs a floating input, got %s", xm.DType)
		}
	}
	name := origin(n)
	draw := &RandomDraw{Node: name, Op: d.Name}
	var drawn ir.Arg // the draw: a keep mask for dropout, else the op's value
	if rec := nz.recorded(name); rec != nil {
		draw.Replayed = true
		want := append([]int{}, xm.Shape.Sizes()...)
		if n.Meta.Tensor != nil {
			want = n.Meta.Tensor.Shape.Sizes()
		}
		if drawShape != nil {
			want = drawShape
		}
		// a feature dropout of an unbatched input runs on it unsqueezed to a
		// batch of one (normalize_dropout.go): the trace records the draw in
		// the captured node's shape, without that batch dim
		unbatched := feature && len(want) == len(rec.Shape)+1 && want[0] == 1 && sameInts(rec.Shape, want[1:])
		if !sameInts(rec.Shape, want) && !unbatched {
			return nil, nil, fmt.Errorf("expected.random[%q]: recorded draw has shape %v, the node's value %v", name, rec.Shape, want)
		}
		if (dropout || sdpa) && rec.DType != tensor.Bool {
			return nil, nil, fmt.Errorf("expected.random[%q]: a dropout's draw is its keep mask, dtype bool; got %s", name, rec.DType)
		}
		if m := n.Meta.Tensor; !dropout && !sdpa && m != nil && rec.DType != m.DType {
			return nil, nil, fmt.Errorf("expected.random[%q]: recorded draw is %s, the node's value %s", name, rec.DType, m.DType)
		}
		key := RandomPrefix + name
		nz.addTensor(key, rec)
		ga := &ir.Node{Name: nz.fresh(key), Op: ir.GetAttr, Target: key}
		tm := &ir.TensorMeta{DType: rec.DType, Shape: ir.ShapeOf(rec.Shape), Stride: tensor.ContiguousStrides(rec.Shape)}
		ga.Meta.Tensor = tm
		nz.metas[ga] = tm
		if err := nz.addFrom(ga, n); err != nil {
			return nil, nil, err
		}
		drawn = ga
		if unbatched {
			if drawn, err = nz.callFor(n, "aten.unsqueeze", ga, int64(0)); err != nil {
				return nil, nil, err
			}
		}
	} else {
		draw.Offset = *offset
		sizes := append([]int{}, xm.Shape.Sizes()...)
		if drawShape != nil {
			sizes = append([]int{}, drawShape...)
		}
		if feature { // one draw per (sample, channel)
			for i := 2; i < len(sizes); i++ {
				sizes[i] = 1
			}
		}
		size := sizesArg(sizes)
		numel := int64(numelOf(sizes))
		dt := xm.DType
		if d.Name == "aten.rand_like" || d.Name == "aten.randn_like" {
			if a[1] != nil {
				dt, _ = a[1].(tensor.DType)
			}
		}
		if d.Name == "aten.randperm" { // its uniforms; the permutation is their stable argsort
			dt = tensor.Float64
		}
		if !dt.IsFloat() { // PyTorch: "not implemented for 'Long'"
			return nil, nil, fmt.Errorf("args: %s draws floating values only, got dtype %s", d.Name, dt)
		}
		op := "aten.philox_rand"
		if d.Name == "aten.randn_like" || d.Name == "aten.randn" {
			op = "aten.philox_randn"
			*offset += numel // Box-Muller reads two counters per element
		}
		*offset += (numel + 3) / 4 * 4
		u, err := nz.callFor(n, op, size, RandomSeed(nz.src.Name), draw.Offset, dt)
		if err != nil {
			return nil, nil, err
		}
		switch {
		case dropout || sdpa:
			// ATen: noise = empty(sizes).bernoulli_(1 - p): keep where u < 1 - p
			if drawn, err = nz.callFor(n, "aten.lt", u, 1-p); err != nil {
				return nil, nil, err
			}
		case d.Name == "aten.bernoulli":
			var prob ir.Arg = x
			if a[1] != nil {
				prob = a[1]
			}
			keep, err := nz.callFor(n, "aten.lt", u, prob)
			if err != nil {
				return nil, nil, err
			}
			if drawn, err = nz.callFor(n, "aten.to_dtype", keep, xm.DType); err != nil {
				return nil, nil, err
			}
		case rrelu:
			// ATen: x <= 0 ? uniform(lower, upper) : 1
			lo, okL := a[1].(float64)
			hi, okH := a[2].(float64)
			if !okL || !okH {
				return nil, nil, fmt.Errorf("args: rrelu's lower and upper must be float constants, got %s and %s", argText(a[1]), argText(a[2]))
			}
			s, err := nz.callFor(n, "aten.mul", u, hi-lo)
			if err == nil {
				s, err = nz.callFor(n, "aten.add", s, lo)
			}
			var neg, one *ir.Node
			if err == nil {
				neg, err = nz.callFor(n, "aten.le", x, int64(0))
			}
			if err == nil {
				one, err = nz.callFor(n, "aten.full_like", u, 1.0)
			}
			if err == nil {
				drawn, err = nz.callFor(n, "aten.where", neg, s, one)
			}
			if err != nil {
				return nil, nil, err
			}
		case d.Name == "aten.randperm": // tensor.PhiloxRandperm
			if drawn, err = nz.callFor(n, "aten.argsort", u, int64(0), false, true); err == nil && xm.DType != tensor.Int64 {
				drawn, err = nz.callFor(n, "aten.to_dtype", drawn, xm.DType)
			}
			if err != nil {
				return nil, nil, err
			}
		default:
			drawn = u
		}
	}
	res := drawn.(*ir.Node)
	if sdpa {
		if res, err = nz.callFor(n, "aten.sdpa_dropout_masked", a[0], a[1], a[2], a[3], drawn, p, a[6]); err != nil {
			return nil, nil, err
		}
	}
	if rrelu {
		if res, err = nz.callFor(n, "aten.rrelu_noised", x, drawn); err != nil {
			return nil, nil, err
		}
		if inplace {
			if res, err = nz.callFor(n, "aten.copy_", x, res); err != nil {
				return nil, nil, err
			}
		}
	}
	if dropout {
		masked := "aten.dropout_masked"
		if alpha {
			masked = "aten.alpha_dropout_masked"
		}
		if res, err = nz.callFor(n, masked, x, drawn, p); err != nil {
			return nil, nil, err
		}
		if inplace {
			if res, err = nz.callFor(n, "aten.copy_", x, res); err != nil {
				return nil, nil, err
			}
		}
	}
	if res.Op == ir.CallFunction {
		nz.rename(res, n)
	}
	return res, draw, nil
}

// recorded is the draw the trace recorded for captured node name.
func (nz *normalizer) recorded(name string) *tensor.Tensor {
	if ex := nz.src.Expected; ex != nil && ex.Random != nil {
		return ex.Random[name]
	}
	return nil
}

// addTensor adds a tensor to the normalized graph's map, copying the map
// first: it is shared with the captured graph.
func (nz *normalizer) addTensor(key string, t *tensor.Tensor) {
	if nz.out.Tensors == nil || sameMap(nz.out.Tensors, nz.src.Tensors) {
		m := make(map[string]*ir.TensorData, len(nz.src.Tensors)+1)
		for k, v := range nz.src.Tensors {
			m[k] = v
		}
		nz.out.Tensors = m
	}
	nz.out.Tensors[key] = &ir.TensorData{T: t, Origin: "data"}
}

func sameMap(a, b map[string]*ir.TensorData) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	// Maps are references: adding a probe key shows whether they alias.
	const probe = "\x00gcdbg-alias-probe"
	a[probe] = nil
	_, same := b[probe]
	delete(a, probe)
	return same
}

// RandomDraws lists the random nodes of the unit's graph and where their
// numbers come from. When any is not Replayed, gcdbg drew its own numbers
// (the same in its eager and compiled runs) and comparing the graph's
// results with PyTorch's elementwise is meaningless.
func (u *Unit) RandomDraws() []RandomDraw {
	if u == nil {
		return nil
	}
	return u.random
}

// OwnRandom names the random nodes whose numbers gcdbg drew itself (no
// recorded draw in the trace): non-empty means the PyTorch comparison of
// this graph's outputs, grads and buffers is not elementwise.
func (u *Unit) OwnRandom() []string {
	var out []string
	for _, d := range u.RandomDraws() {
		if !d.Replayed {
			out = append(out, d.Node)
		}
	}
	sort.Strings(out)
	return out
}
