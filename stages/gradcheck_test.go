package stages

import (
	"fmt"
	"math"
	"math/rand"
	"sort"
	"strings"
	"testing"

	"gcdbg/interp"
	"gcdbg/ir"
	"gcdbg/tensor"
)

// gradGraph builds small graphs of one op (or a few) for gradchecking.
type gradGraph struct {
	g   *ir.Graph
	rng *rand.Rand
	err error
}

func newGradGraph(name string) *gradGraph {
	return &gradGraph{g: &ir.Graph{Name: name, Tensors: map[string]*ir.TensorData{}}, rng: rand.New(rand.NewSource(int64(len(name))))}
}

func (gc *gradGraph) input(t *tensor.Tensor, requiresGrad bool) *ir.Node {
	name := fmt.Sprintf("in%d", len(gc.g.Tensors))
	gc.g.Tensors[name] = &ir.TensorData{T: t, RequiresGrad: requiresGrad && t.DType.IsFloat(), Origin: "data"}
	m := ir.MetaOf(t).(*ir.TensorMeta)
	m.RequiresGrad = requiresGrad && t.DType.IsFloat()
	n := &ir.Node{Name: name, Op: ir.Placeholder, Target: name, Meta: ir.Meta{Tensor: m}, From: []string{name}}
	gc.g.Nodes = append(gc.g.Nodes, n)
	return n
}

// rand is a float64 input that requires grad, |values| in [0.2, 2] with
// random signs: away from the kinks of abs, relu, floor at 0.
func (gc *gradGraph) rand(shape ...int) *ir.Node { return gc.input(gc.values(shape, false), true) }

// pos is rand with positive values (log, sqrt, pow).
func (gc *gradGraph) pos(shape ...int) *ir.Node { return gc.input(gc.values(shape, true), true) }

func (gc *gradGraph) values(shape []int, positive bool) *tensor.Tensor {
	v := make([]float64, tensor.Numel(shape))
	for i := range v {
		v[i] = 0.2 + 1.8*gc.rng.Float64()
		if !positive && gc.rng.Intn(2) == 0 {
			v[i] = -v[i]
		}
	}
	return tensor.FromFloats(tensor.Float64, shape, v)
}

func (gc *gradGraph) ints(shape []int, vals ...int64) *ir.Node {
	return gc.input(tensor.FromInts(tensor.Int64, shape, vals), false)
}

func (gc *gradGraph) call(op string, args ...ir.Arg) *ir.Node {
	if gc.err != nil {
		return &ir.Node{Name: "failed", Meta: ir.Meta{Tensor: &ir.TensorMeta{}}}
	}
	d := ir.Lookup("aten." + op)
	if d == nil {
		gc.err = fmt.Errorf("no op %s", op)
		return &ir.Node{Name: "failed", Meta: ir.Meta{Tensor: &ir.TensorMeta{}}}
	}
	bound, err := d.Schema.Bind(args, nil)
	if err == nil {
		vals := make([]ir.Value, len(bound))
		for i, a := range bound {
			vals[i] = jointMeta(a)
		}
		var v ir.Value
		if v, err = ir.InferMeta(d, vals); err == nil {
			n := &ir.Node{Name: fmt.Sprintf("%s_%d", op, len(gc.g.Nodes)), Op: ir.CallFunction, Target: d.Name, Args: bound}
			n.From = []string{n.Name}
			switch x := v.(type) {
			case *ir.TensorMeta:
				n.Meta.Tensor = x
			case ir.Tuple:
				for _, it := range x {
					n.Meta.Items = append(n.Meta.Items, it.(*ir.TensorMeta))
				}
			default:
				n.Meta.Value, n.Meta.HasValue = v, true
			}
			gc.g.Nodes = append(gc.g.Nodes, n)
			return n
		}
	}
	gc.err = fmt.Errorf("building %s: %v", op, err)
	return &ir.Node{Name: "failed", Meta: ir.Meta{Tensor: &ir.TensorMeta{}}}
}

func (gc *gradGraph) output(outs ...*ir.Node) {
	t := make(ir.Tuple, len(outs))
	for i, o := range outs {
		t[i] = o
	}
	gc.g.Nodes = append(gc.g.Nodes, &ir.Node{Name: "output", Op: ir.Output, Target: "output", Args: []ir.Arg{t}, From: []string{"output"}})
}

var f64, f32 = tensor.Float64, tensor.Float32

// gradCases holds, for every entry of the derivative table, a graph
// exercising it. TestGradcheckEveryCoreOp fails for an entry without one.
var gradCases = map[string]func(gc *gradGraph){
	"add": func(gc *gradGraph) {
		x, y := gc.rand(2, 3), gc.rand(3)
		gc.output(gc.call("add", x, y, 2.5), gc.call("add", x, x))
	},
	"sub":  func(gc *gradGraph) { gc.output(gc.call("sub", gc.rand(2, 1), gc.rand(1, 3), int64(2))) },
	"rsub": func(gc *gradGraph) { gc.output(gc.call("rsub", gc.rand(2, 3), gc.rand(3), 3.0)) },
	"mul": func(gc *gradGraph) {
		x := gc.rand(2, 3)
		gc.output(gc.call("mul", x, gc.rand(2, 1)), gc.call("mul", x, int64(3)))
	},
	"div": func(gc *gradGraph) { gc.output(gc.call("div", gc.rand(2, 3), gc.rand(3))) },
	"pow": func(gc *gradGraph) {
		x, e := gc.pos(2, 3), gc.rand(2, 3)
		gc.output(gc.call("pow", x, 3.0), gc.call("pow", x, e), gc.call("pow", 2.0, e))
	},
	"maximum":   func(gc *gradGraph) { gc.output(gc.call("maximum", gc.rand(2, 3), gc.rand(3))) },
	"minimum":   func(gc *gradGraph) { gc.output(gc.call("minimum", gc.rand(2, 3), gc.rand(2, 3))) },
	"atan2":     func(gc *gradGraph) { gc.output(gc.call("atan2", gc.rand(2, 3), gc.rand(2, 3))) },
	"remainder": func(gc *gradGraph) { gc.output(gc.call("remainder", gc.rand(2, 3), gc.pos(2, 3))) },
	"where": func(gc *gradGraph) {
		c := gc.input(tensor.FromInts(tensor.Bool, []int{2, 3}, []int64{1, 0, 1, 0, 0, 1}), false)
		gc.output(gc.call("where", c, gc.rand(2, 3), gc.rand(3)))
	},
	"to_dtype": func(gc *gradGraph) { gc.output(gc.call("to_dtype", gc.rand(2, 3), f64)) },
	"type_as":  func(gc *gradGraph) { x := gc.rand(3); gc.output(gc.call("type_as", x, x)) },
	"sum": func(gc *gradGraph) {
		x := gc.rand(2, 3, 4)
		gc.output(gc.call("sum", x), gc.call("sum", x, ir.Tuple{int64(0), int64(-1)}), gc.call("sum", x, ir.Tuple{int64(1)}, true))
	},
	"mean": func(gc *gradGraph) {
		x := gc.rand(2, 3, 4)
		gc.output(gc.call("mean", x), gc.call("mean", x, ir.Tuple{int64(1)}))
	},
	"amax": func(gc *gradGraph) {
		x := gc.rand(2, 3, 4)
		gc.output(gc.call("amax", x, ir.Tuple{int64(1)}), gc.call("amax", x))
	},
	"amin": func(gc *gradGraph) { gc.output(gc.call("amin", gc.rand(2, 3, 4), ir.Tuple{int64(-1)}, true)) },
	"prod": func(gc *gradGraph) {
		x := gc.rand(2, 3)
		gc.output(gc.call("prod", x), gc.call("prod", x, ir.Tuple{int64(1)}))
	},
	"mm":  func(gc *gradGraph) { gc.output(gc.call("mm", gc.rand(2, 3), gc.rand(3, 4))) },
	"bmm": func(gc *gradGraph) { gc.output(gc.call("bmm", gc.rand(2, 2, 3), gc.rand(2, 3, 4))) },
	"matmul": func(gc *gradGraph) {
		x, y, v := gc.rand(2, 3, 4), gc.rand(4, 2), gc.rand(4)
		gc.output(gc.call("matmul", x, y), gc.call("matmul", v, y), gc.call("matmul", x, v), gc.call("matmul", v, v))
	},
	"linear": func(gc *gradGraph) {
		gc.output(gc.call("linear", gc.rand(2, 3, 4), gc.rand(5, 4), gc.rand(5)), gc.call("linear", gc.rand(4), gc.rand(2, 4)))
	},
	"conv2d": func(gc *gradGraph) {
		x, w := gc.rand(2, 2, 5, 5), gc.rand(4, 1, 3, 3)
		gc.output(gc.call("conv2d", x, w, gc.rand(4), ir.Tuple{int64(2), int64(1)}, int64(1), int64(1), int64(2)),
			gc.call("conv2d", gc.rand(2, 4, 4), gc.rand(3, 2, 3, 3), nil, int64(1), "same"))
	},
	// a transposed convolution's lowering (derivatives_conv.go): grouped,
	// strided and padded; then dilated with one group
	"conv2d_backward_input": func(gc *gradGraph) {
		two := ir.Tuple{int64(2), int64(2)}
		one := ir.Tuple{int64(1), int64(1)}
		gc.output(gc.call("conv2d_backward_input", gc.rand(2, 4, 3, 3), gc.rand(4, 1, 3, 3), ir.Tuple{int64(2), int64(2), int64(5), int64(5)}, two, one, one, int64(2)),
			gc.call("conv2d_backward_input", gc.rand(1, 3, 4, 4), gc.rand(3, 2, 3, 3), ir.Tuple{int64(1), int64(2), int64(6), int64(6)}, one, one, two, int64(1)))
	},
	"max_pool2d": func(gc *gradGraph) {
		gc.output(gc.call("max_pool2d", gc.rand(1, 2, 5, 5), ir.Tuple{int64(3), int64(2)}, ir.Tuple{int64(2), int64(1)}, int64(1)))
	},
	"avg_pool2d": func(gc *gradGraph) {
		gc.output(gc.call("avg_pool2d", gc.rand(1, 2, 5, 5), int64(3), int64(2), int64(1), true, false))
	},
	"adaptive_avg_pool2d": func(gc *gradGraph) {
		gc.output(gc.call("adaptive_avg_pool2d", gc.rand(1, 2, 5, 7), ir.Tuple{int64(3), int64(2)}))
	},
	"view": func(gc *gradGraph) { gc.output(gc.call("view", gc.rand(2, 6), ir.Tuple{int64(3), int64(4)})) },
	"reshape": func(gc *gradGraph) {
		gc.output(gc.call("reshape", gc.call("permute", gc.rand(2, 6), ir.Tuple{int64(1), int64(0)}), ir.Tuple{int64(12)}))
	},
	"flatten": func(gc *gradGraph) { gc.output(gc.call("flatten", gc.rand(2, 3, 2), int64(1))) },
	"view_as": func(gc *gradGraph) {
		gc.output(gc.call("view_as", gc.rand(2, 3), gc.input(tensor.New(f64, 3, 2), false)))
	},
	"reshape_as": func(gc *gradGraph) {
		gc.output(gc.call("reshape_as", gc.rand(2, 3), gc.input(tensor.New(f64, 6), false)))
	},
	"squeeze":   func(gc *gradGraph) { gc.output(gc.call("squeeze", gc.rand(2, 1, 3, 1))) },
	"unsqueeze": func(gc *gradGraph) { gc.output(gc.call("unsqueeze", gc.rand(2, 3), int64(-1))) },
	"permute": func(gc *gradGraph) {
		gc.output(gc.call("permute", gc.rand(2, 3, 4), ir.Tuple{int64(2), int64(0), int64(1)}))
	},
	"transpose": func(gc *gradGraph) { gc.output(gc.call("transpose", gc.rand(2, 3, 4), int64(0), int64(-1))) },
	"t":         func(gc *gradGraph) { gc.output(gc.call("t", gc.rand(2, 3))) },
	"numpy_T":   func(gc *gradGraph) { gc.output(gc.call("numpy_T", gc.rand(2, 3, 4))) },
	"expand": func(gc *gradGraph) {
		gc.output(gc.call("expand", gc.rand(3, 1), ir.Tuple{int64(2), int64(3), int64(4)}))
	},
	"expand_as": func(gc *gradGraph) {
		gc.output(gc.call("expand_as", gc.rand(1, 4), gc.input(tensor.New(f64, 3, 4), false)))
	},
	"slice": func(gc *gradGraph) {
		gc.output(gc.call("slice", gc.rand(4, 5), int64(1), int64(1), int64(5), int64(2)))
	},
	"select": func(gc *gradGraph) { gc.output(gc.call("select", gc.rand(4, 5), int64(0), int64(-1))) },
	"slice_scatter": func(gc *gradGraph) {
		gc.output(gc.call("slice_scatter", gc.rand(4, 5), gc.rand(4, 2), int64(1), int64(1), int64(5), int64(2)))
	},
	"select_scatter": func(gc *gradGraph) {
		gc.output(gc.call("select_scatter", gc.rand(4, 5), gc.rand(5), int64(0), int64(2)))
	},
	"index_put": func(gc *gradGraph) {
		idx := ir.Tuple{ir.Slice{Start: int64(1), Stop: int64(3)}, int64(0)}
		gc.output(gc.call("index_put", gc.rand(4, 5), idx, gc.rand(1)))
	},
	"scatter_add": func(gc *gradGraph) {
		gc.output(gc.call("scatter_add", gc.rand(3, 4), int64(1), gc.ints([]int{2, 3}, 0, 3, 0, 1, 1, 2), gc.rand(2, 3)))
	},
	"gather": func(gc *gradGraph) {
		gc.output(gc.call("gather", gc.rand(3, 4), int64(1), gc.ints([]int{2, 3}, 0, 3, 0, 1, 1, 2)))
	},
	"index_select": func(gc *gradGraph) {
		gc.output(gc.call("index_select", gc.rand(3, 4), int64(1), gc.ints([]int{5}, 0, 3, 0, 2, 3)))
	},
	"index": func(gc *gradGraph) {
		x := gc.rand(3, 4, 2)
		gc.output(gc.call("index", x, ir.List{nil, gc.ints([]int{2, 2}, 3, 0, 3, 1)}))
	},
	"embedding": func(gc *gradGraph) {
		// padding_idx rows get no gradient although the forward reads them (as
		// in PyTorch), which finite differences cannot agree with: the padded
		// case reads index 3 nowhere.
		idx := gc.ints([]int{2, 3}, 0, 2, 4, 2, 1, 0)
		gc.output(gc.call("embedding", idx, gc.rand(5, 3)), gc.call("embedding", idx, gc.rand(5, 2), int64(3)))
	},
	"cat": func(gc *gradGraph) {
		x := gc.rand(2, 3)
		gc.output(gc.call("cat", ir.List{x, gc.rand(2, 1), x}, int64(-1)))
	},
	"stack": func(gc *gradGraph) {
		x := gc.rand(2, 3)
		gc.output(gc.call("stack", ir.List{x, gc.rand(2, 3)}, int64(1)))
	},
	"split": func(gc *gradGraph) {
		s := gc.call("split", gc.rand(5, 2), int64(2))
		gc.output(gc.call("getitem", s, int64(0)), gc.call("getitem", s, int64(2)))
	},
	"chunk": func(gc *gradGraph) {
		s := gc.call("chunk", gc.rand(2, 6), int64(3), int64(1))
		gc.output(gc.call("getitem", s, int64(1)))
	},
	"getitem": func(gc *gradGraph) {
		x := gc.rand(3, 4, 2)
		gc.output(gc.call("getitem", x, ir.Tuple{int64(1), ir.Slice{Start: int64(1)}, nil}))
	},
	"sort": func(gc *gradGraph) {
		s := gc.call("sort", gc.rand(3, 4), int64(0), true)
		gc.output(gc.call("getitem", s, int64(0)))
	},
	"topk": func(gc *gradGraph) {
		s := gc.call("topk", gc.rand(3, 5), int64(2))
		gc.output(gc.call("getitem", s, int64(0)))
	},
	"softmax":     func(gc *gradGraph) { gc.output(gc.call("softmax", gc.rand(2, 4), int64(-1))) },
	"log_softmax": func(gc *gradGraph) { gc.output(gc.call("log_softmax", gc.rand(2, 4), int64(0))) },
	"layer_norm": func(gc *gradGraph) {
		x := gc.rand(2, 3, 4)
		gc.output(gc.call("layer_norm", x, ir.Tuple{int64(3), int64(4)}, gc.rand(3, 4), gc.rand(3, 4)), gc.call("layer_norm", x, ir.Tuple{int64(4)}))
	},
	"gelu": func(gc *gradGraph) { x := gc.rand(2, 3); gc.output(gc.call("gelu", x), gc.call("gelu", x, "tanh")) },
	"clamp": func(gc *gradGraph) {
		x := gc.rand(2, 4)
		gc.output(gc.call("clamp", x, -1.0, 1.0), gc.call("clamp", x, nil, 0.5))
	},
	"clamp_min": func(gc *gradGraph) { gc.output(gc.call("clamp_min", gc.rand(2, 4), 0.1)) },
	"clamp_max": func(gc *gradGraph) { gc.output(gc.call("clamp_max", gc.rand(2, 4), 0.1)) },
	"masked_fill": func(gc *gradGraph) {
		m := gc.input(tensor.FromInts(tensor.Bool, []int{1, 3}, []int64{1, 0, 1}), false)
		gc.output(gc.call("masked_fill", gc.rand(2, 3), m, gc.rand()))
	},
	"dropout": func(gc *gradGraph) { gc.output(gc.call("dropout", gc.rand(2, 3), 0.5, false)) },
}

func unaryCase(op string) func(gc *gradGraph) {
	return func(gc *gradGraph) {
		x := gc.rand(2, 3)
		if op == "log" || op == "sqrt" || op == "rsqrt" {
			x = gc.pos(2, 3)
		}
		gc.output(gc.call(op, x))
	}
}

func init() {
	for _, op := range []string{"neg", "abs", "exp", "log", "log1p", "expm1", "sqrt", "rsqrt", "sin", "cos", "tan",
		"tanh", "erf", "sigmoid", "relu", "reciprocal", "sign", "floor", "ceil", "round", "trunc", "clone", "alias",
		"contiguous", "square", "silu"} {
		gradCases[op] = unaryCase(op)
	}
}

// gradcheck compares the joint graph's gradients of sum(out_i * tangent_i)
// with float64 central differences, for every input that requires grad.
func gradcheck(t *testing.T, op string, g *ir.Graph) int {
	j, err := newJointBuilder(g).build()
	if err != nil {
		t.Errorf("%s: %v", op, err)
		return 0
	}
	if j == nil {
		t.Errorf("%s: no joint graph", op)
		return 0
	}
	rng := rand.New(rand.NewSource(1))
	tangents := interp.Inputs{}
	for _, p := range j.Graph.Placeholders() {
		if strings.HasPrefix(p.Target, "tangents_") {
			m := p.Meta.Tensor
			v := make([]float64, tensor.Numel(m.Shape.Sizes()))
			for i := range v {
				v[i] = rng.Float64()*2 - 1
			}
			tangents[p.Target] = tensor.FromFloats(m.DType, m.Shape.Sizes(), v)
		}
	}
	out, err := interp.Run(j.Graph, tangents)
	if err != nil {
		t.Errorf("%s: running the joint graph: %v", op, err)
		return 0
	}
	// f is the scalar whose gradient the joint graph computes.
	f := func(override interp.Inputs) float64 {
		vals, err := interp.Run(g, override)
		if err != nil {
			t.Fatalf("%s: %v", op, err)
		}
		s := 0.0
		for i, tn := range j.Tangents {
			o, _ := interp.AsTensor(vals[i])
			tt := tangents[tn].(*tensor.Tensor)
			for k := 0; k < o.Numel(); k++ {
				s += o.Flat(k) * tt.Flat(k)
			}
		}
		return s
	}
	const eps = 1e-6
	for gi, target := range j.GradTargets {
		got, _ := interp.AsTensor(out[j.NumOutputs+gi])
		x := g.Tensors[target].T
		if !jointSameSizes(got.Shape, x.Shape) {
			t.Errorf("%s: grad of %s has shape %v, want %v", op, target, got.Shape, x.Shape)
			continue
		}
		for k := 0; k < x.Numel(); k++ {
			xp, xm := x.Clone(), x.Clone()
			xp.SetFlat(k, x.Flat(k)+eps)
			xm.SetFlat(k, x.Flat(k)-eps)
			num := (f(interp.Inputs{target: xp}) - f(interp.Inputs{target: xm})) / (2 * eps)
			if a := got.Flat(k); math.Abs(a-num) > 1e-7+1e-5*math.Abs(num) {
				t.Errorf("%s: d/d%s[%d]: joint graph %.10g, finite differences %.10g", op, target, k, a, num)
				break
			}
		}
	}
	return len(j.GradTargets)
}

// Every differentiable entry of the derivative table is checked against
// float64 central finite differences on a small random input.
func TestGradcheckEveryCoreOp(t *testing.T) {
	var ops []string
	for op := range derivatives {
		ops = append(ops, op)
	}
	sort.Strings(ops)
	core, checked := 0, 0
	for _, op := range ops {
		build, ok := gradCases[op]
		if !ok {
			t.Errorf("derivative table entry %q has no gradcheck case", op)
			continue
		}
		gc := newGradGraph(op)
		build(gc)
		if gc.err != nil {
			t.Errorf("%s: %v", op, gc.err)
			continue
		}
		if gradcheck(t, op, gc.g) > 0 {
			checked++
			if ir.IsCore("aten." + op) {
				core++
			}
		}
	}
	t.Logf("gradchecked %d ops (%d core, %d non-core) of %d table entries", checked, core, checked-core, len(ops))
}
