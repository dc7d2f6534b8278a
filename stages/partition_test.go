package stages

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"gcdbg/interp"
	"gcdbg/ir"
	"gcdbg/tensor"
	"gcdbg/trace"
)

// handJoint writes small joint graphs by hand, inferring every node's
// meta from the op registry as the stages do.
type handJoint struct {
	t     *testing.T
	g     *ir.Graph
	metas map[*ir.Node]ir.Value
}

func newHandJoint(t *testing.T, name string) *handJoint {
	return &handJoint{t: t, g: &ir.Graph{Name: name, Tensors: map[string]*ir.TensorData{}}, metas: map[*ir.Node]ir.Value{}}
}

// primal adds primals_i with a deterministic value stored under target.
func (b *handJoint) primal(name, target string, sizes ...int) *ir.Node {
	t := tensor.New(tensor.Float32, sizes...)
	for i := 0; i < t.Numel(); i++ {
		t.SetFlat(i, math.Sin(float64(3*i+len(target)))) // mixed signs, so relu/ge masks vary
	}
	b.g.Tensors[target] = &ir.TensorData{T: t, RequiresGrad: true}
	return b.placeholder(name, target, t)
}

func (b *handJoint) placeholder(name, target string, t *tensor.Tensor) *ir.Node {
	m := &ir.TensorMeta{DType: t.DType, Shape: ir.ShapeOf(t.Shape)}
	n := &ir.Node{Name: name, Op: ir.Placeholder, Target: target, Meta: ir.Meta{Tensor: m}}
	b.metas[n] = m
	b.g.Nodes = append(b.g.Nodes, n)
	return n
}

func (b *handJoint) call(name, op string, args ...ir.Arg) *ir.Node {
	d := ir.Lookup(op)
	if d == nil {
		b.t.Fatalf("no op %s", op)
	}
	bound, err := d.Schema.Bind(args, nil)
	if err != nil {
		b.t.Fatalf("%s: %v", name, err)
	}
	vals := make([]ir.Value, len(bound))
	for i, a := range bound {
		vals[i] = ir.MapArg(a, func(n *ir.Node) ir.Arg { return b.metas[n] })
	}
	v, err := ir.InferMeta(d, vals)
	if err != nil {
		b.t.Fatalf("%s: %v", name, err)
	}
	n := &ir.Node{Name: name, Op: ir.CallFunction, Target: op, Args: args}
	switch m := v.(type) {
	case *ir.TensorMeta:
		n.Meta.Tensor = m
	case ir.Tuple: // sort's (values, indices)
		for _, it := range m {
			n.Meta.Items = append(n.Meta.Items, it.(*ir.TensorMeta))
		}
	}
	b.metas[n] = v
	b.g.Nodes = append(b.g.Nodes, n)
	return n
}

func (b *handJoint) joint(outs []*ir.Node, grads []*ir.Node, gradTargets []string) *Joint {
	var ret ir.Tuple
	for _, n := range append(append([]*ir.Node{}, outs...), grads...) {
		ret = append(ret, n)
	}
	b.g.Nodes = append(b.g.Nodes, &ir.Node{Name: "output", Op: ir.Output, Target: "output", Args: []ir.Arg{ret}})
	j := &Joint{Graph: b.g, NumOutputs: len(outs), GradTargets: gradTargets}
	for _, n := range b.g.Placeholders() {
		if strings.HasPrefix(n.Name, "tangents") {
			j.Tangents = append(j.Tangents, n.Target)
		}
	}
	return j
}

// tangentValues gives every tangent a deterministic non-constant value,
// so a backward that mixed up tangents would be caught.
func tangentValues(j *Joint) interp.Inputs {
	in := interp.Inputs{}
	for _, n := range j.Graph.Placeholders() {
		if !slices.Contains(j.Tangents, n.Target) || n.Meta.Tensor == nil {
			continue
		}
		t := tensor.New(n.Meta.Tensor.DType, n.Meta.Tensor.Shape.Sizes()...)
		for i := 0; i < t.Numel(); i++ {
			t.SetFlat(i, math.Cos(float64(i)+0.5))
		}
		in[n.Target] = t
	}
	return in
}

// clampMinJoint is the slides' example: out = clamp_min(a, 0) * 3,
// decomposed to maximum; its backward masks the tangent with a >= 0.
func clampMinJoint(t *testing.T) *Joint {
	b := newHandJoint(t, "clamp_min")
	a := b.primal("primals_1", "a", 2)
	tg := b.placeholder("tangents_1", "tangents_1", tensor.New(tensor.Float32, 2))
	maximum := b.call("maximum", "aten.maximum", a, 0.0)
	mul := b.call("mul", "aten.mul", maximum, 3.0)
	ge := b.call("ge", "aten.ge", a, 0.0)
	mul1 := b.call("mul_1", "aten.mul", tg, 3.0)
	where := b.call("where", "aten.where", ge, mul1, 0.0)
	return b.joint([]*ir.Node{mul}, []*ir.Node{where}, []string{"a"})
}

// mlpJoint is a 2-layer MLP (mm + bias, relu, mm + bias) with the backward
// AOTAutograd writes for it: relu's grad masks by relu(x) <= 0.
func mlpJoint(t *testing.T) *Joint {
	b := newHandJoint(t, "mlp2")
	x := b.primal("primals_1", "x", 4, 6)
	w1 := b.primal("primals_2", "fc1.weight", 5, 6)
	b1 := b.primal("primals_3", "fc1.bias", 5)
	w2 := b.primal("primals_4", "fc2.weight", 3, 5)
	b2 := b.primal("primals_5", "fc2.bias", 3)
	tg := b.placeholder("tangents_1", "tangents_1", tensor.New(tensor.Float32, 4, 3))
	t0 := b.call("t", "aten.permute", w1, int64(1), int64(0))
	mm := b.call("mm", "aten.mm", x, t0)
	add := b.call("add", "aten.add", mm, b1)
	relu := b.call("relu", "aten.relu", add)
	t1 := b.call("t_1", "aten.permute", w2, int64(1), int64(0))
	mm1 := b.call("mm_1", "aten.mm", relu, t1)
	add1 := b.call("add_1", "aten.add", mm1, b2)
	// backward
	gb2 := b.call("sum_1", "aten.sum", tg, ir.Tuple{int64(0)})
	t2 := b.call("t_2", "aten.permute", tg, int64(1), int64(0))
	gw2 := b.call("mm_2", "aten.mm", t2, relu)
	t3 := b.call("t_3", "aten.permute", t1, int64(1), int64(0))
	grelu := b.call("mm_3", "aten.mm", tg, t3)
	le := b.call("le", "aten.le", relu, 0.0)
	where := b.call("where", "aten.where", le, 0.0, grelu)
	gb1 := b.call("sum_2", "aten.sum", where, ir.Tuple{int64(0)})
	t4 := b.call("t_4", "aten.permute", where, int64(1), int64(0))
	gw1 := b.call("mm_4", "aten.mm", t4, x)
	return b.joint([]*ir.Node{add1}, []*ir.Node{gw1, gb1, gw2, gb2},
		[]string{"fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias"})
}

// checkPartition runs the joint graph and the partition's forward then
// backward, and requires bit-identical outputs and grads: the partition
// must compute exactly what the joint does, only split in two.
func checkPartition(t *testing.T, j *Joint, p *Partition, label string) {
	t.Helper()
	tangents := tangentValues(j)
	want, err := interp.Run(j.Graph, tangents)
	if err != nil {
		t.Fatalf("%s: joint: %v", label, err)
	}
	fwd, err := interp.Run(p.Forward, nil)
	if err != nil {
		t.Fatalf("%s: forward: %v", label, err)
	}
	if len(fwd) != j.NumOutputs+len(p.Saved) {
		t.Fatalf("%s: forward returns %d values, want %d outputs + %d saved", label, len(fwd), j.NumOutputs, len(p.Saved))
	}
	bin := interp.Inputs{}
	for k, v := range tangents {
		bin[k] = v
	}
	for i, s := range p.Saved {
		bin[s.Name] = fwd[j.NumOutputs+i]
	}
	grads, err := interp.Run(p.Backward, bin)
	if err != nil {
		t.Fatalf("%s: backward: %v", label, err)
	}
	got := append(append([]ir.Value{}, fwd[:j.NumOutputs]...), grads...)
	if len(got) != len(want) {
		t.Fatalf("%s: %d values, joint has %d", label, len(got), len(want))
	}
	for i := range want {
		if !identical(got[i], want[i]) {
			t.Errorf("%s: value %d differs from the joint graph's: %v vs %v", label, i, got[i], want[i])
		}
	}
}

func identical(a, b ir.Value) bool {
	ta, okA := a.(*tensor.Tensor)
	tb, okB := b.(*tensor.Tensor)
	if !okA || !okB {
		return fmt.Sprint(a) == fmt.Sprint(b)
	}
	if ta.DType != tb.DType || !slices.Equal(ta.Shape, tb.Shape) {
		return false
	}
	for i := 0; i < ta.Numel(); i++ {
		x, y := ta.Flat(i), tb.Flat(i)
		if x != y && !(math.IsNaN(x) && math.IsNaN(y)) {
			return false
		}
	}
	return true
}

func savedNames(p *Partition) []string {
	var s []string
	for _, x := range p.Saved {
		s = append(s, x.Name)
	}
	return s
}

func partitionOf(t *testing.T, j *Joint) *Unit {
	t.Helper()
	u := &Unit{Joint: j}
	if err := partition(u); err != nil {
		t.Fatal(err)
	}
	return u
}

func TestPartitionClampMin(t *testing.T) {
	j := clampMinJoint(t)
	u := partitionOf(t, j)
	checkPartition(t, j, u.Partition, "min-cut")
	checkPartition(t, j, u.SaveAll, "save-all")
	// Save-everything saves the input a (8 bytes) and recomputes nothing
	// forward; the min-cut saves the 2-byte bool mask ge instead, as
	// AOTAutograd's own min-cut does for this example.
	if got := savedNames(u.SaveAll); !slices.Equal(got, []string{"primals_1"}) || u.SaveAll.SavedBytes != 8 {
		t.Errorf("save-all saves %v (%d bytes), want [primals_1] (8)", got, u.SaveAll.SavedBytes)
	}
	if got := savedNames(u.Partition); !slices.Equal(got, []string{"ge"}) || u.Partition.SavedBytes != 2 {
		t.Errorf("min-cut saves %v (%d bytes), want [ge] (2)", got, u.Partition.SavedBytes)
	}
}

func TestPartitionMLP(t *testing.T) {
	j := mlpJoint(t)
	u := partitionOf(t, j)
	checkPartition(t, j, u.Partition, "min-cut")
	checkPartition(t, j, u.SaveAll, "save-all")
	if u.Partition.SavedBytes > u.SaveAll.SavedBytes {
		t.Errorf("min-cut saves %d bytes, more than save-everything's %d", u.Partition.SavedBytes, u.SaveAll.SavedBytes)
	}
	// The backward needs x (for grad w1), relu (for grad w2 and the mask)
	// and w2 or a transpose of it (for grad relu): 4*6*4 + 4*5*4 + 3*5*4
	// = 236 bytes, as save-everything; nothing cheaper exists here.
	if u.Partition.SavedBytes != 236 || u.SaveAll.SavedBytes != 236 {
		t.Errorf("min-cut saves %v = %d bytes, save-all %v = %d; want 236 both", savedNames(u.Partition),
			u.Partition.SavedBytes, savedNames(u.SaveAll), u.SaveAll.SavedBytes)
	}
	// The mm output is never recomputed (matmuls are banned from recomputation).
	if slices.Contains(u.Partition.Recomputed, "mm") || slices.Contains(u.Partition.Recomputed, "mm_1") {
		t.Errorf("min-cut recomputes a matmul: %v", u.Partition.Recomputed)
	}
	for _, n := range append(u.Partition.Forward.Nodes, u.Partition.Backward.Nodes...) {
		if len(n.From) != 1 || j.Graph.Node(n.From[0]) == nil && n.Op != ir.Output {
			t.Errorf("node %q: From %v does not name a joint node", n.Name, n.From)
		}
	}
	// Between the weight w2 and its transpose (equal bytes) the cut saves
	// the primal: it is alive anyway, and the transpose is a free view to
	// redo in backward, where a saved transpose would be a copy in forward.
	if !slices.Contains(savedNames(u.Partition), "primals_4") || !slices.Contains(u.Partition.Recomputed, "t_1") {
		t.Errorf("min-cut saves %v and recomputes %v; want primals_4 saved and its transpose t_1 recomputed", savedNames(u.Partition), u.Partition.Recomputed)
	}
	for _, want := range []string{"saved for backward", "relu", "f32[4, 5]", "80 bytes", "recomputed in backward: t_1"} {
		if !strings.Contains(printForward(u), want) {
			t.Errorf("printForward lacks %q:\n%s", want, printForward(u))
		}
	}
	if !strings.Contains(printBackward(u), "def backward(") {
		t.Errorf("printBackward:\n%s", printBackward(u))
	}
}

// out = sin(x) * cos(x): the backward needs sin(x), cos(x) and x. Saving
// x alone and recomputing sin and cos is a third of the bytes.
func TestPartitionRecomputesPointwise(t *testing.T) {
	b := newHandJoint(t, "sincos")
	x := b.primal("primals_1", "x", 8, 16)
	tg := b.placeholder("tangents_1", "tangents_1", tensor.New(tensor.Float32, 8, 16))
	sin := b.call("sin", "aten.sin", x)
	cos := b.call("cos", "aten.cos", x)
	mul := b.call("mul", "aten.mul", sin, cos)
	gsin := b.call("mul_1", "aten.mul", tg, cos)
	gcos := b.call("mul_2", "aten.mul", tg, sin)
	dsin := b.call("mul_3", "aten.mul", gsin, b.call("cos_1", "aten.cos", x))
	negsin := b.call("neg", "aten.neg", b.call("sin_1", "aten.sin", x))
	dcos := b.call("mul_4", "aten.mul", gcos, negsin)
	j := b.joint([]*ir.Node{mul}, []*ir.Node{b.call("add", "aten.add", dsin, dcos)}, []string{"x"})
	u := partitionOf(t, j)
	checkPartition(t, j, u.Partition, "min-cut")
	checkPartition(t, j, u.SaveAll, "save-all")
	if got := savedNames(u.SaveAll); !slices.Equal(got, []string{"primals_1", "sin", "cos"}) || u.SaveAll.SavedBytes != 3*512 {
		t.Errorf("save-all saves %v (%d bytes), want x, sin, cos (1536)", got, u.SaveAll.SavedBytes)
	}
	if got := savedNames(u.Partition); !slices.Equal(got, []string{"primals_1"}) || u.Partition.SavedBytes != 512 {
		t.Errorf("min-cut saves %v (%d bytes), want x (512)", got, u.Partition.SavedBytes)
	}
	if !slices.Equal(u.Partition.Recomputed, []string{"sin", "cos"}) {
		t.Errorf("min-cut recomputes %v, want [sin cos]", u.Partition.Recomputed)
	}
}

// exp(mm(x, w)): the backward needs exp's output (or mm's, to redo the
// exp). A matmul is never recomputed, so one of the two is saved, never x
// and w to redo the mm.
func TestPartitionNeverRecomputesBanned(t *testing.T) {
	b := newHandJoint(t, "banned")
	x := b.primal("primals_1", "x", 8, 16)
	w := b.primal("primals_2", "w", 16, 4)
	tg := b.placeholder("tangents_1", "tangents_1", tensor.New(tensor.Float32, 8, 4))
	mm := b.call("mm", "aten.mm", x, w)
	e := b.call("exp", "aten.exp", mm)
	g := b.call("mul", "aten.mul", tg, e)
	gx := b.call("mm_1", "aten.mm", g, b.call("permute", "aten.permute", w, int64(1), int64(0)))
	j := b.joint([]*ir.Node{e}, []*ir.Node{gx}, []string{"x"})
	u := partitionOf(t, j)
	checkPartition(t, j, u.Partition, "min-cut")
	checkPartition(t, j, u.SaveAll, "save-all")
	if slices.Contains(u.Partition.Recomputed, "mm") {
		t.Errorf("mm recomputed: %v", u.Partition.Recomputed)
	}
	// w (256 bytes) for the input grad, and exp (128): x is not saved.
	if got := savedNames(u.Partition); !slices.Equal(got, []string{"primals_2", "exp"}) || u.Partition.SavedBytes != 384 {
		t.Errorf("min-cut saves %v = %d bytes, want [primals_2 exp] = 384", got, u.Partition.SavedBytes)
	}
}

// logSoftmaxJoint is a stable log_softmax over the rows of x [rows, cols]
// differentiated through its decomposition: g - exp/sum * sum(g), plus
// amax's (zero) gradient through its mask x == amax(x).
func logSoftmaxJoint(t *testing.T, name string, rows, cols int) *Joint {
	b := newHandJoint(t, name)
	x := b.primal("primals_1", "x", rows, cols)
	tg := b.placeholder("tangents_1", "tangents_1", tensor.New(tensor.Float32, rows, cols))
	amax := b.call("amax", "aten.amax", x, ir.Tuple{int64(1)}, true)
	sub := b.call("sub", "aten.sub", x, amax)
	exp := b.call("exp", "aten.exp", sub)
	sum := b.call("sum_1", "aten.sum", exp, ir.Tuple{int64(1)}, true)
	out := b.call("sub_1", "aten.sub", sub, b.call("log", "aten.log", sum))
	gs := b.call("sum_2", "aten.sum", tg, ir.Tuple{int64(1)}, true)
	sm := b.call("div", "aten.div", exp, sum)
	gsub := b.call("sub_2", "aten.sub", tg, b.call("mul", "aten.mul", sm, gs))
	mask := b.call("to_dtype", "aten.to_dtype", b.call("eq", "aten.eq", x, amax), tensor.Float32)
	gamax := b.call("neg", "aten.neg", b.call("sum_3", "aten.sum", gsub, ir.Tuple{int64(1)}, true))
	gx := b.call("add", "aten.add", gsub, b.call("mul_1", "aten.mul", mask, gamax))
	return b.joint([]*ir.Node{out}, []*ir.Node{gx}, []string{"x"})
}

// A stable log_softmax differentiated through its decomposition needs
// x - amax(x) (its exp) and the sum of the exps in backward, and the
// gradient of amax itself reads the mask x == amax(x). Saving x alone and
// recomputing amax, the exp and the sum is the byte minimum (functorch's
// log_softmax formula saves exp(out): the same bytes); banning reductions
// would save x, amax and sum. A reduction is still saved when its input is
// not otherwise needed: sum_x below (x's row sums) costs 32 bytes where its
// input would cost 512.
func TestPartitionRecomputesReductions(t *testing.T) {
	j := logSoftmaxJoint(t, "log_softmax", 8, 16)
	u := partitionOf(t, j)
	checkPartition(t, j, u.Partition, "min-cut")
	checkPartition(t, j, u.SaveAll, "save-all")
	if got := savedNames(u.Partition); !slices.Equal(got, []string{"primals_1"}) || u.Partition.SavedBytes != 512 {
		t.Errorf("min-cut saves %v = %d bytes, want [primals_1] = 512 (recomputed %v)", got, u.Partition.SavedBytes, u.Partition.Recomputed)
	}
	for _, r := range []string{"amax", "sum_1"} {
		if !slices.Contains(u.Partition.Recomputed, r) {
			t.Errorf("%s not recomputed: %v", r, u.Partition.Recomputed)
		}
	}

	b := newHandJoint(t, "rowsum")
	x := b.primal("primals_1", "x", 8, 16)
	tg := b.placeholder("tangents_1", "tangents_1", tensor.New(tensor.Float32, 8, 1))
	s := b.call("sum_x", "aten.sum", x, ir.Tuple{int64(1)}, true)
	e := b.call("exp", "aten.exp", s)
	ge := b.call("mul", "aten.mul", tg, e)
	j = b.joint([]*ir.Node{e}, []*ir.Node{b.call("expand", "aten.expand", ge, int64(8), int64(16))}, []string{"x"})
	u = partitionOf(t, j)
	checkPartition(t, j, u.Partition, "min-cut")
	if u.Partition.SavedBytes != 32 || slices.Contains(u.Partition.Recomputed, "sum_x") {
		t.Errorf("min-cut saves %v = %d bytes and recomputes %v; want 32 bytes, sum_x not recomputed", savedNames(u.Partition), u.Partition.SavedBytes, u.Partition.Recomputed)
	}
}

// The same log_softmax over a tensor beyond the cache (256×1024 float32,
// 1 MiB): its amax and sum are big reductions (bigReduction: 1 MiB in, 1
// KiB out), saved rather than recomputed, so the backward does not read x
// twice more to redo them (BatchNorm's per-channel statistics in training
// are the case that matters: resnet_block_train's backward recomputed both
// sums over each activation). The values stay bit-identical to the joint's.
func TestPartitionSavesBigReductions(t *testing.T) {
	j := logSoftmaxJoint(t, "log_softmax_big", 256, 1024)
	u := partitionOf(t, j)
	checkPartition(t, j, u.Partition, "min-cut")
	for _, r := range []string{"amax", "sum_1"} {
		if slices.Contains(u.Partition.Recomputed, r) || !slices.Contains(savedNames(u.Partition), r) {
			t.Errorf("%s: recomputed %v, saved %v; want it saved, not recomputed", r, u.Partition.Recomputed, savedNames(u.Partition))
		}
	}
	// x, amax and the sum: 1 MiB + 2 × 1 KiB
	if want := int64(256*1024*4 + 2*256*4); u.Partition.SavedBytes != want {
		t.Errorf("min-cut saves %v = %d bytes, want %d", savedNames(u.Partition), u.Partition.SavedBytes, want)
	}
}

// sort returns a tuple, which cannot be saved whole: the backward needs
// the indices, so the min-cut saves the getitem (8 int64s), never sort.
func TestPartitionTupleValuedNode(t *testing.T) {
	b := newHandJoint(t, "sort")
	x := b.primal("primals_1", "x", 8)
	tg := b.placeholder("tangents_1", "tangents_1", tensor.New(tensor.Float32, 8))
	sorted := b.call("sort", "aten.sort", x)
	values := b.call("getitem", "aten.getitem", sorted, int64(0))
	indices := b.call("getitem_1", "aten.getitem", sorted, int64(1))
	out := b.call("mul", "aten.mul", values, 2.0)
	g := b.call("mul_1", "aten.mul", tg, 2.0)
	zeros := b.call("full", "aten.full", ir.Tuple{int64(8)}, 0.0)
	gx := b.call("scatter_add", "aten.scatter_add", zeros, int64(0), indices, g)
	j := b.joint([]*ir.Node{out}, []*ir.Node{gx}, []string{"x"})
	u := partitionOf(t, j)
	checkPartition(t, j, u.Partition, "min-cut")
	checkPartition(t, j, u.SaveAll, "save-all")
	if got := savedNames(u.Partition); !slices.Equal(got, []string{"getitem_1"}) || u.Partition.SavedBytes != 64 {
		t.Errorf("min-cut saves %v (%d bytes), want [getitem_1] (64)", got, u.Partition.SavedBytes)
	}
}

func TestPartitionNilJointAndBadJoint(t *testing.T) {
	u := &Unit{}
	if err := partition(u); err != nil || u.Partition != nil || u.SaveAll != nil {
		t.Fatalf("nil joint: %v %v %v", err, u.Partition, u.SaveAll)
	}
	j := clampMinJoint(t)
	j.NumOutputs = 2 // claims two outputs, but the graph returns one output and one grad
	if err := partition(&Unit{Joint: j}); err == nil || !strings.Contains(err.Error(), "clamp_min") {
		t.Fatalf("bad NumOutputs: err %v, want one naming the graph", err)
	}
	if err := partition(&Unit{Joint: &Joint{}}); err == nil {
		t.Fatal("joint with nil graph: no error")
	}
}

// Every training fixture, once the joint stage builds it: both partitions
// reproduce the joint's outputs and grads exactly, and the min-cut never
// saves more than save-everything.
func TestPartitionFixtures(t *testing.T) {
	for _, name := range []string{"mlp", "clamp_min", "transformer_block", "pt2/classifier", "pt2/transformer_block"} {
		t.Run(name, func(t *testing.T) {
			tr, err := trace.Load(filepath.Join("..", "fixtures", name+".json"))
			if err != nil {
				t.Fatal(err)
			}
			units, err := Run(tr, "forward")
			if err != nil {
				t.Fatal(err)
			}
			for _, u := range units {
				if u.Joint == nil {
					t.Skip("the joint stage does not build a joint graph yet")
				}
				if u.Partition == nil || u.SaveAll == nil {
					t.Fatal("joint built but no partition")
				}
				checkPartition(t, u.Joint, u.Partition, name+" min-cut")
				checkPartition(t, u.Joint, u.SaveAll, name+" save-all")
				if u.Partition.SavedBytes > u.SaveAll.SavedBytes {
					t.Errorf("min-cut saves %d bytes, more than save-everything's %d", u.Partition.SavedBytes, u.SaveAll.SavedBytes)
				}
				if os.Getenv("GCDBG_PARTITION_LOG") != "" {
					t.Logf("%s %s: min-cut %d bytes %v, recomputed %v; save-all %d bytes %v", name, u.Captured.Name,
						u.Partition.SavedBytes, savedNames(u.Partition), u.Partition.Recomputed, u.SaveAll.SavedBytes, savedNames(u.SaveAll))
				}
			}
		})
	}
}

// functorchBytes reads a committed functorch listing (docs/functorch-partition.txt,
// PyTorch 1.13, tools/functorch_partition.py; docs/functorch-partition-2.6.txt, PyTorch 2.6,
// fixtures/pt2/functorch_partition.py) into model -> partitioner -> saved bytes.
func functorchBytes(t *testing.T, file string) map[string]map[string]int64 {
	data, err := os.ReadFile(filepath.Join("..", "docs", file))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]map[string]int64{}
	for _, line := range strings.Split(string(data), "\n") {
		var model, fn string
		var count int
		var bytes int64
		// "## mlp / default_partition: 5 saved, 1126912 bytes"
		if _, err := fmt.Sscanf(line, "## %s / %s %d saved, %d bytes", &model, &fn, &count, &bytes); err != nil {
			continue
		}
		if out[model] == nil {
			out[model] = map[string]int64{}
		}
		out[model][strings.TrimSuffix(fn, ":")] = bytes
	}
	return out
}

// The bar: on every training fixture the min-cut saves no more
// bytes than functorch's own partitions of the same model, PyTorch 1.13's
// aot_module and PyTorch 2.6's torch.compile (Inductor's decompositions,
// min_cut_rematerialization_partition and default_partition). The
// classifier (Linear, Tanh, Linear, cross-entropy on int64 targets) saved
// 4,548 bytes where PyTorch 2.6 saves 4,420, when reductions were never
// recomputed.
func TestPartitionNoWorseThanFunctorch(t *testing.T) {
	lists := map[string]map[string]map[string]int64{
		"1.13": functorchBytes(t, "functorch-partition.txt"),
		"2.6":  functorchBytes(t, "functorch-partition-2.6.txt"),
	}
	for _, tc := range []struct {
		model, fixture string
		versions       []string
	}{
		{"mlp", "mlp.json", []string{"1.13", "2.6"}},
		{"transformer_block", "transformer_block.json", []string{"1.13", "2.6"}},
		{"transformer_block", "pt2/transformer_block.json", []string{"1.13", "2.6"}},
		{"classifier", "pt2/classifier.json", []string{"2.6"}},
		{"bn_dropout_train", "bn_dropout_train.json", []string{"2.6"}},
		{"conv_pool_train", "conv_pool_train.json", []string{"2.6"}},
		{"embedding_padding", "embedding_padding.json", []string{"2.6"}},
		{"frozen_bn", "frozen_bn.json", []string{"2.6"}},
		{"group_instance_norm", "group_instance_norm.json", []string{"2.6"}},
		// mlp_bn_cumulative: torch.compile captures no graph of it (2.6), nothing to compare
	} {
		t.Run(tc.fixture, func(t *testing.T) {
			tr, err := trace.Load(filepath.Join("..", "fixtures", tc.fixture))
			if err != nil {
				t.Fatal(err)
			}
			units, err := Run(tr, "forward")
			if err != nil {
				t.Fatal(err)
			}
			u := units[0]
			if u.Partition == nil {
				t.Fatal("no partition: the fixture trains, the joint stage must build a joint graph")
			}
			checkPartition(t, u.Joint, u.Partition, tc.fixture+" min-cut")
			for _, v := range tc.versions {
				ref := lists[v][tc.model]
				if ref["min_cut_rematerialization_partition"] == 0 || ref["default_partition"] == 0 {
					t.Fatalf("the PyTorch %s listing has no numbers for %s: %v", v, tc.model, lists[v])
				}
				for fn, b := range ref {
					if u.Partition.SavedBytes > b {
						t.Errorf("gcdbg min-cut saves %d bytes %v, functorch %s (PyTorch %s) %d", u.Partition.SavedBytes, savedNames(u.Partition), fn, v, b)
					}
				}
			}
		})
	}
}
