package loopir

import (
	"fmt"
	"math"
	"math/rand"
	"testing"

	"gcdbg/interp"
	"gcdbg/ir"
	"gcdbg/tensor"
)

// gb builds small core-op graphs by hand, inferring metadata as the
// pipeline's stages do.
type gb struct {
	t *testing.T
	g *ir.Graph
}

func newGB(t *testing.T, name string) *gb {
	return &gb{t: t, g: &ir.Graph{Name: name, Tensors: map[string]*ir.TensorData{}}}
}

func randT(rng *rand.Rand, dt tensor.DType, shape ...int) *tensor.Tensor {
	t := tensor.New(dt, shape...)
	for i := 0; i < t.Numel(); i++ {
		if dt.IsFloat() {
			t.SetFlat(i, rng.NormFloat64())
		} else {
			t.SetFlatInt(i, int64(rng.Intn(3)))
		}
	}
	return t
}

func (b *gb) source(op, name string, t *tensor.Tensor) *ir.Node {
	n := &ir.Node{Name: name, Op: op, Target: name}
	n.Meta.Tensor = ir.MetaOf(t).(*ir.TensorMeta)
	b.g.Tensors[name] = &ir.TensorData{T: t}
	b.g.Nodes = append(b.g.Nodes, n)
	return n
}

func (b *gb) input(name string, t *tensor.Tensor) *ir.Node { return b.source(ir.Placeholder, name, t) }
func (b *gb) param(name string, t *tensor.Tensor) *ir.Node { return b.source(ir.GetAttr, name, t) }

func (b *gb) call(target string, args ...ir.Arg) *ir.Node {
	b.t.Helper()
	d := ir.Lookup("aten." + target)
	if d == nil {
		b.t.Fatalf("no op %s", target)
	}
	n := &ir.Node{Name: fmt.Sprintf("%s_%d", target, len(b.g.Nodes)), Op: ir.CallFunction, Target: d.Name, Args: args}
	bound, err := d.Schema.Bind(args, nil)
	if err != nil {
		b.t.Fatal(err)
	}
	vals := make([]ir.Value, len(bound))
	for i, a := range bound {
		vals[i] = ir.MapArg(a, func(x *ir.Node) ir.Arg {
			if x.Meta.Tensor != nil {
				return x.Meta.Tensor
			}
			if x.Meta.Items != nil {
				tup := ir.Tuple{}
				for _, it := range x.Meta.Items {
					tup = append(tup, it)
				}
				return tup
			}
			return x.Meta.Value
		})
	}
	v, err := ir.InferMeta(d, vals)
	if err != nil {
		b.t.Fatalf("%s: %v", target, err)
	}
	switch x := v.(type) {
	case *ir.TensorMeta:
		n.Meta.Tensor = x
	case ir.Tuple:
		for _, it := range x {
			n.Meta.Items = append(n.Meta.Items, it.(*ir.TensorMeta))
		}
	}
	b.g.Nodes = append(b.g.Nodes, n)
	return n
}

func (b *gb) output(ns ...*ir.Node) *ir.Graph {
	tup := ir.Tuple{}
	for _, n := range ns {
		tup = append(tup, n)
	}
	b.g.Nodes = append(b.g.Nodes, &ir.Node{Name: "output", Op: ir.Output, Target: "output", Args: []ir.Arg{tup}})
	return b.g
}

// checkAgainstEager lowers g, runs it (one kernel per node, and with the
// given kernels when not nil) and compares with the eager interpreter.
func checkAgainstEager(t *testing.T, g *ir.Graph, kernels func(*Program) []*Kernel) *Program {
	t.Helper()
	p, err := Lower(g)
	if err != nil {
		t.Fatalf("lower: %v", err)
	}
	want, err := interp.Run(g, nil)
	if err != nil {
		t.Fatalf("eager: %v", err)
	}
	runs := [][]*Kernel{nil}
	if kernels != nil {
		runs = append(runs, kernels(p))
	}
	for _, ks := range runs {
		got, err := Run(p, ks, InputsFromGraph(p))
		if err != nil {
			t.Fatalf("run (%d kernels): %v\n%s", len(ks), err, Print(p))
		}
		if len(got) != len(want) {
			t.Fatalf("%d outputs, eager has %d", len(got), len(want))
		}
		for i := range got {
			w, err := interp.AsTensor(want[i])
			if err != nil {
				t.Fatal(err)
			}
			if c := interp.Compare(got[i], w, tol(w.DType)); !c.Match {
				t.Errorf("%s: output %d (%d kernels): max abs err %g rel %g %s\n%s", g.Name, i, len(ks), c.MaxAbsErr, c.MaxRelErr, c.Why, Print(p))
			}
		}
	}
	return p
}

func tol(dt tensor.DType) interp.Tolerance {
	if dt == tensor.Float32 {
		return interp.Tolerance{Rtol: 1e-5, Atol: 1e-6}
	}
	return interp.DefaultTolerance(dt)
}

// fuseAll puts every node into one kernel: the most aggressive fusion,
// which the interpreter must still compute exactly.
func fuseAll(p *Program) []*Kernel {
	return []*Kernel{{Name: "all", Nodes: p.Nodes}}
}

var _ = math.Abs

func ir_tuple(xs ...int64) ir.Tuple {
	out := ir.Tuple{}
	for _, x := range xs {
		out = append(out, x)
	}
	return out
}
