package stages

import (
	"fmt"
	"math"
	"testing"

	"gcdbg/interp"
	"gcdbg/ir"
	"gcdbg/ir/extcases"
	"gcdbg/loopir"
	"gcdbg/tensor"
)

// The op families of ir/ops_ext*.go, checked through the pipeline on the
// PyTorch cases of ir/testdata/ext_cases.json: each decomposition uses
// only core ops and matches PyTorch's outputs, its gradient (the joint
// graph of the decomposed graph) matches finite differences on the
// float64 cases, and the loop IR runs it compiled (no fallback node)
// with PyTorch's results.

// extCase turns a JSON case into a one-op graph case: tensor args become
// placeholders.
func extCase(c extcases.Case) opCase {
	oc := opCase{op: c.Op}
	var conv func(v ir.Value) ir.Arg
	conv = func(v ir.Value) ir.Arg {
		switch x := v.(type) {
		case *tensor.Tensor:
			oc.inputs = append(oc.inputs, x)
			return inp(len(oc.inputs) - 1)
		case ir.List:
			out := make(ir.List, len(x))
			for i, it := range x {
				out[i] = conv(it)
			}
			return out
		}
		return v
	}
	for _, a := range c.Args {
		oc.args = append(oc.args, conv(a))
	}
	return oc
}

func init() {
	cases, err := extcases.Load()
	if err != nil {
		panic(err)
	}
	have := map[string]bool{}
	for _, c := range cases {
		if c.Error || have[c.Op] || ir.IsCore(c.Op) {
			continue
		}
		have[c.Op] = true
		decompCases = append(decompCases, extCase(c))
	}
	// empty's contents are unspecified in PyTorch (no reference case): its
	// row only has to agree with the op (zeros of the right shape and dtype).
	decompCases = append(decompCases,
		opCase{"aten.empty", nil, []ir.Arg{ir.Tuple{int64(2), int64(3)}}},
		opCase{"aten.empty_strided", nil, []ir.Arg{ir.Tuple{int64(2), int64(3)}, ir.Tuple{int64(3), int64(1)}}},
		opCase{"aten.new_empty", []*tensor.Tensor{dseq(tf64, 2)}, []ir.Arg{inp(0), int64(3), int64(2)}},
		opCase{"aten.empty_like", []*tensor.Tensor{dseq(tf64, 2)}, []ir.Arg{inp(0)}},
		opCase{"aten.empty_like", []*tensor.Tensor{dseq(tf64, 2)}, []ir.Arg{inp(0), tensor.Int32}},
		// hardtanh (F.hardtanh, F.relu6 of floats): clamp's values, the bounds among them
		opCase{"aten.hardtanh", []*tensor.Tensor{tensor.FromFloats(tensor.Float32, []int{7}, []float64{-2, -1, -0.5, 0, 0.5, 1, 2})}, []ir.Arg{inp(0)}},
		opCase{"aten.hardtanh", []*tensor.Tensor{tensor.FromFloats(tensor.Float32, []int{7}, []float64{-1, 0, 3, 6, 7, math.NaN(), math.Inf(-1)})}, []ir.Arg{inp(0), 0.0, 6.0}})
	sq := func(lo, hi float64) func(gc *gradGraph) {
		return func(gc *gradGraph) {
			v := make([]float64, 6)
			for i := range v {
				v[i] = lo + (hi-lo)*gc.rng.Float64()
			}
			gc.output(gc.call(gc.g.Name, gc.input(tensor.FromFloats(tensor.Float64, []int{2, 3}, v), true)))
		}
	}
	for op, r := range map[string][2]float64{"asin": {-0.9, 0.9}, "acos": {-0.9, 0.9}, "atan": {-3, 3}, "sinh": {-2, 2},
		"cosh": {-2, 2}, "asinh": {-3, 3}, "acosh": {1.2, 4}, "atanh": {-0.9, 0.9}, "log2": {0.2, 4}, "log10": {0.2, 4}} {
		gradCases[op] = sq(r[0], r[1])
	}
	gradCases["fmod"] = func(gc *gradGraph) { gc.output(gc.call("fmod", gc.rand(2, 3), gc.pos(3))) }
}

func TestExtDecompositionsMatchPyTorch(t *testing.T) {
	cases, err := extcases.Load()
	if err != nil {
		t.Fatal(err)
	}
	checked, grads, compiled := 0, 0, 0
	for i, c := range cases {
		if c.Error {
			continue
		}
		name := fmt.Sprintf("%s#%d", c.Op, i)
		oc := extCase(c)
		g := oneOpGraph(oc)
		if len(c.Outputs) > 1 && ir.IsCore(c.Op) {
			tupleOutput(g, len(c.Outputs)) // a tuple-valued core op (cummax): the loop IR returns its items
		}
		dg, err := decomposeGraph(g)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		decompCheckCore(t, name, dg)
		got, err := interp.Run(dg, nil)
		if err != nil {
			t.Errorf("%s: decomposed graph fails: %v\n%s", name, err, ir.Readable(dg))
			continue
		}
		if !extCompare(t, name+" (decomposed, eager)", got, c.Outputs) {
			t.Logf("%s", ir.Readable(dg))
			continue
		}
		checked++
		// The loop IR: every node compiled, results as PyTorch's.
		p, err := loopir.Lower(dg)
		if err != nil {
			t.Errorf("%s: loop IR: %v", name, err)
			continue
		}
		fallback := false
		for _, n := range p.Nodes {
			narrow := len(c.Outputs) > 0 && (c.Outputs[0].DType == tensor.BFloat16 || c.Outputs[0].DType == tensor.Float16)
			if n.Kind == loopir.Fallback && ir.IsCore(c.Op) && (!loopir.Compiles(n.Op) || narrow) && "aten."+n.Op == c.Op {
				// an extern has no 16-bit float variant (loopir.narrowFloatNode): it runs eagerly
				fallback = true // a core op that runs as an eager fallback (scatter): listed by gcdbg ops --coverage
				continue
			}
			if n.Kind == loopir.Fallback {
				t.Errorf("%s: node %s (%s) falls back to the interpreter", name, n.Name, n.Op)
				fallback = true
			}
		}
		if !fallback {
			compiled++
		}
		lres, err := loopir.Run(p, nil, loopir.InputsFromGraph(p))
		if err != nil {
			t.Errorf("%s: loop IR run: %v", name, err)
			continue
		}
		lv := make([]ir.Value, len(lres))
		for k, r := range lres {
			lv[k] = r
		}
		extCompare(t, name+" (loop IR)", lv, c.Outputs)
		// The gradient of the decomposed graph, on float64 cases.
		if !c.Grad || !allFloat64(oc.inputs) {
			continue
		}
		for _, n := range dg.Nodes {
			if n.Op == ir.Placeholder && n.Meta.Tensor != nil && n.Meta.Tensor.DType == tensor.Float64 {
				n.Meta.Tensor.RequiresGrad = true
				dg.Tensors[n.Target].RequiresGrad = true
			}
		}
		if gradcheck(t, name, dg) > 0 {
			grads++
		}
	}
	t.Logf("%d cases match PyTorch after decomposition, %d compile with no fallback, %d gradchecked", checked, compiled, grads)
	if checked < 200 || grads < 60 {
		t.Errorf("too few cases checked (%d) or gradchecked (%d)", checked, grads)
	}
}

// tupleOutput makes oneOpGraph's graph return the k items of its call
// (getitem nodes) rather than the tuple itself.
func tupleOutput(g *ir.Graph, k int) {
	out := g.Nodes[len(g.Nodes)-1]
	call := out.Args[0].(*ir.Node)
	items := make(ir.Tuple, k)
	var nodes []*ir.Node
	for i := range items {
		n := &ir.Node{Name: fmt.Sprintf("%s_%d", call.Name, i), Op: ir.CallFunction, Target: "aten.getitem", Args: []ir.Arg{call, int64(i)}}
		items[i], nodes = n, append(nodes, n)
	}
	out.Args = []ir.Arg{items}
	g.Nodes = append(append(g.Nodes[:len(g.Nodes)-1], nodes...), out)
}

func allFloat64(ts []*tensor.Tensor) bool {
	any := false
	for _, t := range ts {
		if t.DType.IsFloat() {
			if t.DType != tensor.Float64 {
				return false
			}
			any = true
		}
	}
	return any
}

// extCompare checks results against PyTorch's outputs; a decomposition
// rounds after every core op, so float32 gets 10x the op tolerance.
func extCompare(t *testing.T, name string, got []ir.Value, want []*tensor.Tensor) bool {
	t.Helper()
	var outs []ir.Value
	for _, g := range got {
		if tu, ok := g.(ir.Tuple); ok {
			outs = append(outs, tu...)
		} else {
			outs = append(outs, g)
		}
	}
	if len(outs) != len(want) {
		t.Errorf("%s: %d outputs, PyTorch %d", name, len(outs), len(want))
		return false
	}
	ok := true
	for k, o := range outs {
		g, err := interp.AsTensor(o)
		if err != nil {
			t.Errorf("%s: output %d: %v", name, k, err)
			ok = false
			continue
		}
		scale := 1.0
		if want[k].DType == tensor.Float32 {
			scale = 10
		}
		if err := extcases.Close(g, want[k], scale); err != nil {
			t.Errorf("%s: output %d: %v", name, k, err)
			ok = false
		}
	}
	return ok
}

var _ = math.Pi
