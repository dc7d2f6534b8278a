package stages

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"gcdbg/interp"
	"gcdbg/ir"
	"gcdbg/tensor"
	"gcdbg/trace"
)

// inp(i) in a test case's args stands for the i-th input placeholder.
type inp int

// opCase is one op with one argument variant, run by itself.
type opCase struct {
	op     string
	inputs []*tensor.Tensor
	args   []ir.Arg
}

// seq fills a tensor with deterministic, varied values (some negative).
func dseq(dt tensor.DType, shape ...int) *tensor.Tensor {
	t := tensor.New(dt, shape...)
	for i := 0; i < t.Numel(); i++ {
		t.SetFlat(i, math.Sin(float64(i)*1.7+0.3)*2.5)
	}
	return t
}

func dints(shape []int, vals ...int64) *tensor.Tensor {
	return tensor.FromInts(tensor.Int64, shape, vals)
}

func dbools(shape []int, vals ...int64) *tensor.Tensor {
	return tensor.FromInts(tensor.Bool, shape, vals)
}

// oneOpGraph builds a normalized graph with one call of op.
func oneOpGraph(c opCase) *ir.Graph {
	g := &ir.Graph{Name: "g0", Tensors: map[string]*ir.TensorData{}}
	ph := make([]*ir.Node, len(c.inputs))
	for i, t := range c.inputs {
		name := fmt.Sprintf("in%d", i)
		g.Tensors[name] = &ir.TensorData{T: t}
		ph[i] = &ir.Node{Name: name, Op: ir.Placeholder, Target: name,
			Meta: ir.Meta{Tensor: &ir.TensorMeta{DType: t.DType, Shape: ir.ShapeOf(t.Shape), Stride: t.Strides}}}
		g.Nodes = append(g.Nodes, ph[i])
	}
	var sub func(a ir.Arg) ir.Arg
	sub = func(a ir.Arg) ir.Arg {
		switch v := a.(type) {
		case inp:
			return ph[v]
		case ir.Tuple:
			out := make(ir.Tuple, len(v))
			for i, x := range v {
				out[i] = sub(x)
			}
			return out
		case ir.List:
			out := make(ir.List, len(v))
			for i, x := range v {
				out[i] = sub(x)
			}
			return out
		}
		return a
	}
	args := make([]ir.Arg, len(c.args))
	for i, a := range c.args {
		args[i] = sub(a)
	}
	call := &ir.Node{Name: strings.TrimPrefix(c.op, "aten."), Op: ir.CallFunction, Target: c.op, Args: args}
	g.Nodes = append(g.Nodes, call, &ir.Node{Name: "output", Op: ir.Output, Target: "output", Args: []ir.Arg{call}})
	return g
}

var tf32, tf64 = tensor.Float32, tensor.Float64

// decompCases covers every row of the table with several argument variants.
var decompCases = []opCase{
	{"aten.addmm", []*tensor.Tensor{dseq(tf32, 3), dseq(tf32, 2, 4), dseq(tf32, 4, 3)}, []ir.Arg{inp(0), inp(1), inp(2)}},
	{"aten.addmm", []*tensor.Tensor{dseq(tf64, 2, 3), dseq(tf64, 2, 4), dseq(tf64, 4, 3)}, []ir.Arg{inp(0), inp(1), inp(2), 0.5, int64(2)}},
	{"aten.addmm", []*tensor.Tensor{tensor.FromFloats(tf32, []int{1}, []float64{math.NaN()}), dseq(tf32, 2, 4), dseq(tf32, 4, 3)}, []ir.Arg{inp(0), inp(1), inp(2), int64(0)}},
	{"aten.all", []*tensor.Tensor{dbools([]int{2, 3}, 1, 1, 0, 1, 1, 1)}, []ir.Arg{inp(0)}},
	{"aten.all", []*tensor.Tensor{dseq(tf32, 2, 3)}, []ir.Arg{inp(0), ir.Tuple{int64(1)}, true}},
	{"aten.any", []*tensor.Tensor{dbools([]int{2, 3}, 0, 0, 0, 1, 0, 0)}, []ir.Arg{inp(0), ir.Tuple{int64(-1)}}},
	{"aten.any", []*tensor.Tensor{dints([]int{3}, 0, 0, 0)}, []ir.Arg{inp(0)}},
	{"aten.baddbmm", []*tensor.Tensor{dseq(tf32, 3), dseq(tf32, 2, 2, 4), dseq(tf32, 2, 4, 3)}, []ir.Arg{inp(0), inp(1), inp(2)}},
	{"aten.baddbmm", []*tensor.Tensor{dseq(tf64, 2, 2, 3), dseq(tf64, 2, 2, 4), dseq(tf64, 2, 4, 3)}, []ir.Arg{inp(0), inp(1), inp(2), 2.0, 0.5}},
	{"aten.batch_norm", []*tensor.Tensor{dseq(tf32, 2, 3, 2, 2), dseq(tf32, 3), tensor.FromFloats(tf32, []int{3}, []float64{1, 2, 0.5}), dseq(tf32, 3), dseq(tf32, 3)},
		[]ir.Arg{inp(0), inp(1), inp(2), inp(3), inp(4), false, 0.1, 1e-3}},
	{"aten.batch_norm", []*tensor.Tensor{dseq(tf64, 4, 3), dseq(tf64, 3), tensor.FromFloats(tf64, []int{3}, []float64{1, 2, 0.5})}, []ir.Arg{inp(0), inp(1), inp(2)}},
	{"aten.chunk", []*tensor.Tensor{dseq(tf32, 5, 2)}, []ir.Arg{inp(0), int64(2)}},
	{"aten.chunk", []*tensor.Tensor{dseq(tf32, 2, 6)}, []ir.Arg{inp(0), int64(4), int64(-1)}},
	{"aten.clamp", []*tensor.Tensor{tensor.FromFloats(tf32, []int{5}, []float64{-3, 0.5, math.NaN(), 4, math.Inf(1)})}, []ir.Arg{inp(0), -1.0, 2.0}},
	{"aten.clamp", []*tensor.Tensor{dseq(tf64, 2, 3)}, []ir.Arg{inp(0), nil, 0.5}},
	{"aten.clamp", []*tensor.Tensor{dseq(tf32, 2, 3), dseq(tf32, 3)}, []ir.Arg{inp(0), inp(1)}},
	{"aten.clamp", []*tensor.Tensor{dints([]int{4}, -3, 0, 2, 9)}, []ir.Arg{inp(0), int64(0), int64(5)}},
	{"aten.clamp_max", []*tensor.Tensor{tensor.FromFloats(tf32, []int{3}, []float64{-1, math.NaN(), 3})}, []ir.Arg{inp(0), 0.5}},
	{"aten.clamp_min", []*tensor.Tensor{dseq(tf64, 2, 3)}, []ir.Arg{inp(0), 0.1}},
	{"aten.contiguous", []*tensor.Tensor{dseq(tf32, 2, 3)}, []ir.Arg{inp(0)}},
	{"aten.cross_entropy", []*tensor.Tensor{dseq(tf32, 4, 5), dints([]int{4}, 1, 0, 4, 2)}, []ir.Arg{inp(0), inp(1)}},
	{"aten.cross_entropy", []*tensor.Tensor{dseq(tf32, 4, 5), dints([]int{4}, 1, -100, 4, 2), dseq(tf32, 5)}, []ir.Arg{inp(0), inp(1), inp(2), nil, int64(-100), nil, "sum"}},
	{"aten.cross_entropy", []*tensor.Tensor{dseq(tf64, 4, 5), dints([]int{4}, 1, 3, 4, 3)}, []ir.Arg{inp(0), inp(1), nil, nil, int64(3), nil, "mean", 0.2}},
	{"aten.cross_entropy", []*tensor.Tensor{dseq(tf32, 4, 5), dints([]int{4}, 1, 3, 4, 3), tensor.FromFloats(tf32, []int{5}, []float64{1, 2, 0.5, 1, 3})}, []ir.Arg{inp(0), inp(1), inp(2), nil, int64(3), nil, "mean", 0.1}},
	{"aten.cross_entropy", []*tensor.Tensor{dseq(tf32, 2, 3, 4), dints([]int{2, 4}, 0, 1, 2, 1, 2, 2, 0, 1)}, []ir.Arg{inp(0), inp(1), nil, nil, int64(-100), nil, "none", 0.3}},
	{"aten.cross_entropy", []*tensor.Tensor{dseq(tf32, 5), dints(nil, 2)}, []ir.Arg{inp(0), inp(1)}},
	{"aten.cross_entropy", []*tensor.Tensor{dseq(tf32, 3, 4), tensor.FromFloats(tf32, []int{3, 4}, []float64{0.1, 0.2, 0.3, 0.4, 1, 0, 0, 0, 0.25, 0.25, 0.25, 0.25})}, []ir.Arg{inp(0), inp(1)}},
	{"aten.cross_entropy", []*tensor.Tensor{dseq(tf64, 3, 4), dseq(tf64, 3, 4), dseq(tf64, 4)}, []ir.Arg{inp(0), inp(1), inp(2), nil, int64(-100), nil, "none", 0.1}},
	{"aten.detach", []*tensor.Tensor{dseq(tf32, 2)}, []ir.Arg{inp(0)}},
	{"aten.dropout", []*tensor.Tensor{dseq(tf32, 2, 3)}, []ir.Arg{inp(0), 0.3, false}},
	{"aten.embedding", []*tensor.Tensor{dints([]int{2, 3}, 0, 4, 1, 1, 3, 0), dseq(tf32, 5, 4)}, []ir.Arg{inp(0), inp(1)}},
	{"aten.embedding", []*tensor.Tensor{dints(nil, 3), dseq(tf64, 5, 2)}, []ir.Arg{inp(0), inp(1), int64(0)}},
	{"aten.expand_as", []*tensor.Tensor{dseq(tf32, 3, 1), dseq(tf32, 2, 3, 4)}, []ir.Arg{inp(0), inp(1)}},
	{"aten.flatten", []*tensor.Tensor{dseq(tf32, 2, 3, 4)}, []ir.Arg{inp(0)}},
	{"aten.flatten", []*tensor.Tensor{dseq(tf32, 2, 3, 4, 5)}, []ir.Arg{inp(0), int64(1), int64(-2)}},
	{"aten.full_like", []*tensor.Tensor{dseq(tf32, 2, 3)}, []ir.Arg{inp(0), 0.25}},
	{"aten.full_like", []*tensor.Tensor{dseq(tf32, 2, 3)}, []ir.Arg{inp(0), int64(7), tensor.Int64}},
	{"aten.gelu", []*tensor.Tensor{dseq(tf32, 3, 4)}, []ir.Arg{inp(0)}},
	{"aten.gelu", []*tensor.Tensor{dseq(tf64, 3, 4)}, []ir.Arg{inp(0), "tanh"}},
	{"aten.getitem", []*tensor.Tensor{dseq(tf32, 4, 6)}, []ir.Arg{inp(0), ir.Tuple{ir.Slice{}, ir.Slice{Start: int64(1), Stop: int64(5), Step: int64(2)}}}},
	{"aten.getitem", []*tensor.Tensor{dseq(tf32, 4, 6)}, []ir.Arg{inp(0), ir.Tuple{ir.Slice{}, int64(-1)}}},
	{"aten.getitem", []*tensor.Tensor{dseq(tf32, 4, 6)}, []ir.Arg{inp(0), ir.List{int64(0), int64(2)}}},
	{"aten.getitem", []*tensor.Tensor{dseq(tf32, 4, 6)}, []ir.Arg{inp(0), ir.Tuple{nil, ir.Ellipsis{}, ir.Slice{Stop: int64(-2)}, nil}}},
	{"aten.getitem", []*tensor.Tensor{dseq(tf32, 4, 6, 2), dints([]int{3}, 1, 0, 5)}, []ir.Arg{inp(0), ir.Tuple{int64(1), inp(1)}}},
	{"aten.getitem", []*tensor.Tensor{dseq(tf32, 4, 6, 2), dints([]int{2}, 1, 0), dints([]int{2}, 0, 1)}, []ir.Arg{inp(0), ir.Tuple{inp(1), ir.Slice{}, inp(2)}}},
	{"aten.getitem", []*tensor.Tensor{dseq(tf32, 3, 2, 5), dbools([]int{3, 2}, 1, 1, 1, 1, 1, 1)}, []ir.Arg{inp(0), ir.Tuple{inp(1), ir.Slice{Start: int64(1), Stop: int64(3)}}}},
	{"aten.getitem", []*tensor.Tensor{dseq(tf32, 3, 2, 5)}, []ir.Arg{inp(0), ir.Tuple{ir.Slice{}, ir.List{int64(1), int64(0), int64(1)}, ir.List{int64(4), int64(0), int64(2)}}}},
	{"aten.getitem", []*tensor.Tensor{dseq(tf64, 5)}, []ir.Arg{inp(0), ir.Slice{Start: int64(-3), Stop: int64(100)}}},
	{"aten.layer_norm", []*tensor.Tensor{dseq(tf32, 2, 3, 4), dseq(tf32, 4), dseq(tf32, 4)}, []ir.Arg{inp(0), ir.Tuple{int64(4)}, inp(1), inp(2)}},
	{"aten.layer_norm", []*tensor.Tensor{dseq(tf64, 2, 3, 4)}, []ir.Arg{inp(0), ir.Tuple{int64(3), int64(4)}, nil, nil, 1e-3}},
	{"aten.linear", []*tensor.Tensor{dseq(tf32, 2, 3, 4), dseq(tf32, 5, 4), dseq(tf32, 5)}, []ir.Arg{inp(0), inp(1), inp(2)}},
	{"aten.linear", []*tensor.Tensor{dseq(tf32, 2, 4), dseq(tf32, 5, 4)}, []ir.Arg{inp(0), inp(1)}},
	{"aten.linear", []*tensor.Tensor{dseq(tf64, 4), dseq(tf64, 5, 4), dseq(tf64, 5)}, []ir.Arg{inp(0), inp(1), inp(2)}},
	{"aten.log_softmax", []*tensor.Tensor{dseq(tf32, 3, 5)}, []ir.Arg{inp(0), int64(1)}},
	{"aten.log_softmax", []*tensor.Tensor{dseq(tf32, 3, 5)}, []ir.Arg{inp(0), int64(0), tensor.Float64}},
	{"aten.masked_fill", []*tensor.Tensor{dseq(tf32, 2, 3), dbools([]int{3}, 1, 0, 1)}, []ir.Arg{inp(0), inp(1), math.Inf(-1)}},
	{"aten.masked_fill", []*tensor.Tensor{dints([]int{3}, 1, 2, 3), dbools([]int{3}, 1, 0, 1)}, []ir.Arg{inp(0), inp(1), -2.7}},
	{"aten.masked_fill", []*tensor.Tensor{dseq(tf32, 2, 3), dbools([]int{2, 3}, 1, 0, 1, 0, 0, 1), tensor.FromFloats(tf64, nil, []float64{0.125})}, []ir.Arg{inp(0), inp(1), inp(2)}},
	{"aten.matmul", []*tensor.Tensor{dseq(tf32, 4), dseq(tf32, 4)}, []ir.Arg{inp(0), inp(1)}},
	{"aten.matmul", []*tensor.Tensor{dseq(tf32, 3, 4), dseq(tf32, 4)}, []ir.Arg{inp(0), inp(1)}},
	{"aten.matmul", []*tensor.Tensor{dseq(tf32, 4), dseq(tf32, 4, 2)}, []ir.Arg{inp(0), inp(1)}},
	{"aten.matmul", []*tensor.Tensor{dseq(tf32, 3, 4), dseq(tf32, 4, 2)}, []ir.Arg{inp(0), inp(1)}},
	{"aten.matmul", []*tensor.Tensor{dseq(tf32, 2, 3, 4), dseq(tf32, 4, 2)}, []ir.Arg{inp(0), inp(1)}},
	{"aten.matmul", []*tensor.Tensor{dseq(tf64, 2, 3, 4), dseq(tf64, 4)}, []ir.Arg{inp(0), inp(1)}},
	{"aten.matmul", []*tensor.Tensor{dseq(tf32, 4), dseq(tf32, 2, 4, 3)}, []ir.Arg{inp(0), inp(1)}},
	{"aten.matmul", []*tensor.Tensor{dseq(tf32, 2, 1, 3, 4), dseq(tf32, 5, 4, 2)}, []ir.Arg{inp(0), inp(1)}},
	{"aten.matmul", []*tensor.Tensor{dseq(tf32, 3, 4), dseq(tf32, 2, 4, 2)}, []ir.Arg{inp(0), inp(1)}},
	{"aten.max", []*tensor.Tensor{dseq(tf32, 3, 4)}, []ir.Arg{inp(0)}},
	{"aten.max", []*tensor.Tensor{dseq(tf32, 3, 4)}, []ir.Arg{inp(0), int64(1), true}},
	{"aten.max", []*tensor.Tensor{dseq(tf32, 3, 4), dseq(tf32, 4)}, []ir.Arg{inp(0), inp(1)}},
	{"aten.mean", []*tensor.Tensor{dseq(tf32, 3, 4)}, []ir.Arg{inp(0)}},
	{"aten.mean", []*tensor.Tensor{dseq(tf64, 3, 4, 2)}, []ir.Arg{inp(0), ir.Tuple{int64(0), int64(-1)}, true}},
	{"aten.mean", []*tensor.Tensor{dseq(tf32, 3, 4)}, []ir.Arg{inp(0), ir.Tuple{int64(1)}, false, tensor.Float64}},
	{"aten.min", []*tensor.Tensor{dseq(tf64, 3, 4)}, []ir.Arg{inp(0)}},
	{"aten.min", []*tensor.Tensor{dseq(tf32, 3, 4)}, []ir.Arg{inp(0), int64(0)}},
	{"aten.min", []*tensor.Tensor{dseq(tf32, 3, 4), dseq(tf32, 3, 1)}, []ir.Arg{inp(0), inp(1)}},
	{"aten.narrow", []*tensor.Tensor{dseq(tf32, 4, 6)}, []ir.Arg{inp(0), int64(1), int64(1), int64(3)}},
	{"aten.narrow", []*tensor.Tensor{dseq(tf32, 4, 6)}, []ir.Arg{inp(0), int64(0), int64(-2), int64(2)}},
	{"aten.nll_loss", []*tensor.Tensor{dseq(tf32, 4, 5), dints([]int{4}, 1, 0, 4, 2)}, []ir.Arg{inp(0), inp(1)}},
	{"aten.nll_loss", []*tensor.Tensor{dseq(tf32, 4, 5), dints([]int{4}, 1, 0, 4, 2), dseq(tf32, 5)}, []ir.Arg{inp(0), inp(1), inp(2), nil, int64(0), nil, "mean"}},
	{"aten.nll_loss", []*tensor.Tensor{dseq(tf64, 2, 3, 2), dints([]int{2, 2}, 0, 2, 1, -100)}, []ir.Arg{inp(0), inp(1), nil, nil, int64(-100), nil, "none"}},
	{"aten.nll_loss", []*tensor.Tensor{dseq(tf32, 4, 5), dints([]int{4}, 1, 0, 4, 2)}, []ir.Arg{inp(0), inp(1), nil, nil, int64(-100), nil, "sum"}},
	{"aten.numpy_T", []*tensor.Tensor{dseq(tf32, 2, 3, 4)}, []ir.Arg{inp(0)}},
	{"aten.ones", nil, []ir.Arg{ir.Tuple{int64(2), int64(3)}}},
	{"aten.ones_like", []*tensor.Tensor{dints([]int{3}, 1, 2, 3)}, []ir.Arg{inp(0)}},
	{"aten.reshape", []*tensor.Tensor{dseq(tf32, 2, 3, 4)}, []ir.Arg{inp(0), ir.Tuple{int64(6), int64(-1)}}},
	{"aten.reshape_as", []*tensor.Tensor{dseq(tf32, 2, 6), dseq(tf32, 3, 4)}, []ir.Arg{inp(0), inp(1)}},
	{"aten.rsub", []*tensor.Tensor{dseq(tf32, 2, 3)}, []ir.Arg{inp(0), int64(2)}},
	{"aten.rsub", []*tensor.Tensor{dseq(tf32, 2, 3), dseq(tf32, 3)}, []ir.Arg{inp(0), inp(1), 0.5}},
	{"aten.rsub", []*tensor.Tensor{dseq(tf64, 2, 3)}, []ir.Arg{inp(0), 1.5, int64(3)}},
	{"aten.silu", []*tensor.Tensor{dseq(tf32, 3, 4)}, []ir.Arg{inp(0)}},
	{"aten.softmax", []*tensor.Tensor{dseq(tf32, 3, 5)}, []ir.Arg{inp(0), int64(-1)}},
	{"aten.softmax", []*tensor.Tensor{dseq(tf64, 2, 3, 5)}, []ir.Arg{inp(0), int64(1)}},
	{"aten.softmax", []*tensor.Tensor{tensor.FromFloats(tf32, []int{2, 2}, []float64{math.Inf(-1), 0, 1, math.Inf(-1)})}, []ir.Arg{inp(0), int64(1)}},
	{"aten.split", []*tensor.Tensor{dseq(tf32, 5, 2)}, []ir.Arg{inp(0), int64(2)}},
	{"aten.split", []*tensor.Tensor{dseq(tf32, 2, 6)}, []ir.Arg{inp(0), ir.Tuple{int64(1), int64(5)}, int64(1)}},
	{"aten.square", []*tensor.Tensor{dseq(tf32, 2, 3)}, []ir.Arg{inp(0)}},
	{"aten.stack", []*tensor.Tensor{dseq(tf32, 2, 3), dseq(tf32, 2, 3)}, []ir.Arg{ir.Tuple{inp(0), inp(1)}}},
	{"aten.stack", []*tensor.Tensor{dseq(tf32, 2, 3), dseq(tf32, 2, 3), dseq(tf32, 2, 3)}, []ir.Arg{ir.List{inp(0), inp(1), inp(2)}, int64(-1)}},
	{"aten.std", []*tensor.Tensor{dseq(tf32, 3, 4)}, []ir.Arg{inp(0)}},
	{"aten.std", []*tensor.Tensor{dseq(tf64, 3, 4)}, []ir.Arg{inp(0), ir.Tuple{int64(1)}, false, true}},
	{"aten.t", []*tensor.Tensor{dseq(tf32, 2, 3)}, []ir.Arg{inp(0)}},
	{"aten.t", []*tensor.Tensor{dseq(tf32, 3)}, []ir.Arg{inp(0)}},
	{"aten.transpose", []*tensor.Tensor{dseq(tf32, 2, 3, 4)}, []ir.Arg{inp(0), int64(0), int64(-1)}},
	{"aten.tril", []*tensor.Tensor{dseq(tf32, 4, 6)}, []ir.Arg{inp(0), int64(-1)}},
	{"aten.tril", []*tensor.Tensor{dseq(tf64, 2, 3, 3)}, []ir.Arg{inp(0)}},
	{"aten.triu", []*tensor.Tensor{dseq(tf32, 4, 6)}, []ir.Arg{inp(0), int64(1)}},
	{"aten.triu", []*tensor.Tensor{dints([]int{2, 2}, 1, 2, 3, 4)}, []ir.Arg{inp(0)}},
	{"aten.type_as", []*tensor.Tensor{dseq(tf32, 3), dseq(tf64, 1)}, []ir.Arg{inp(0), inp(1)}},
	{"aten.var", []*tensor.Tensor{dseq(tf32, 3, 4)}, []ir.Arg{inp(0), ir.Tuple{int64(1)}, nil, true}},
	{"aten.var", []*tensor.Tensor{dseq(tf32, 3, 4)}, []ir.Arg{inp(0), ir.Tuple{int64(1)}, false, true}},
	{"aten.var", []*tensor.Tensor{dseq(tf64, 3, 4)}, []ir.Arg{inp(0), nil, nil, false, int64(2)}},
	{"aten.view_as", []*tensor.Tensor{dseq(tf32, 2, 6), dseq(tf32, 4, 3)}, []ir.Arg{inp(0), inp(1)}},
	{"aten.zeros", nil, []ir.Arg{ir.Tuple{int64(2), int64(3)}}},
	{"aten.zeros_like", []*tensor.Tensor{dseq(tf64, 2, 2)}, []ir.Arg{inp(0), tensor.Int64}},
}

func decompTol(dt tensor.DType) interp.Tolerance {
	switch dt {
	case tensor.Float32:
		return interp.Tolerance{Rtol: 1e-5, Atol: 1e-6}
	case tensor.Float64:
		return interp.Tolerance{Rtol: 1e-10, Atol: 1e-10}
	}
	return interp.Tolerance{}
}

// decompCompare compares two output lists (tensors or Python values).
func decompCompare(got, want []ir.Value, tol func(tensor.DType) interp.Tolerance) error {
	if len(got) != len(want) {
		return fmt.Errorf("%d outputs, want %d", len(got), len(want))
	}
	for i := range got {
		if gt, ok := got[i].(ir.Tuple); ok { // max(x, dim): (values, indices)
			wt, ok := want[i].(ir.Tuple)
			if !ok {
				return fmt.Errorf("output %d: a tuple, want %T", i, want[i])
			}
			if err := decompCompare([]ir.Value(gt), []ir.Value(wt), tol); err != nil {
				return fmt.Errorf("output %d: %v", i, err)
			}
			continue
		}
		g, err := interp.AsTensor(got[i])
		if err != nil {
			return fmt.Errorf("output %d: %v", i, err)
		}
		w, err := interp.AsTensor(want[i])
		if err != nil {
			return fmt.Errorf("output %d: %v", i, err)
		}
		if c := interp.Compare(g, w, tol(w.DType)); !c.Match {
			return fmt.Errorf("output %d: max abs err %g, max rel err %g %s", i, c.MaxAbsErr, c.MaxRelErr, c.Why)
		}
	}
	return nil
}

// decompCheckCore fails for any call that is not a core op.
func decompCheckCore(t *testing.T, where string, g *ir.Graph) {
	t.Helper()
	for _, n := range g.Nodes {
		switch n.Op {
		case ir.Placeholder, ir.GetAttr, ir.Output:
		case ir.CallFunction:
			if !ir.IsCore(n.Target) {
				t.Errorf("%s: node %s: %s is not a core op", where, n.Name, n.Target)
			}
		default:
			t.Errorf("%s: node %s: %s node in a decomposed graph", where, n.Name, n.Op)
		}
	}
}

// Each decomposition by itself: the decomposed one-op graph uses only core
// ops and computes what the op computes under the eager interpreter.
func TestEachDecompositionMatchesTheOp(t *testing.T) {
	covered := map[string]bool{}
	for i, c := range decompCases {
		name := fmt.Sprintf("%s#%d", c.op, i)
		covered[c.op] = true
		g := oneOpGraph(c)
		want, err := interp.Run(g, nil)
		if err != nil {
			t.Errorf("%s: the op itself fails: %v", name, err)
			continue
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
		if err := decompCompare(got, want, decompTol); err != nil {
			t.Errorf("%s: %v\n%s", name, err, ir.Readable(dg))
		}
	}
	for _, e := range decompositions {
		if !covered[e.op] && !strings.HasPrefix(e.doc, "folded") {
			t.Errorf("%s: no test case", e.op)
		}
	}
}

// Every canonical op is core, in-place (removed by functionalization), or
// has exactly one row in the table; rows never name a core op.
func TestEveryNonCoreOpHasADecomposition(t *testing.T) {
	rows := map[string]int{}
	for _, e := range decompositions {
		rows[e.op]++
		if ir.Lookup(e.op) == nil {
			t.Errorf("%s: row for an unknown op", e.op)
		}
		if ir.IsCore(e.op) && e.op != "aten.getitem" {
			t.Errorf("%s: row for a core op", e.op)
		}
	}
	for _, d := range ir.Ops() {
		if ir.IsCore(d.Name) || d.Inplace {
			continue
		}
		if rows[d.Name] != 1 {
			t.Errorf("%s: %d rows in the decomposition table, want 1", d.Name, rows[d.Name])
		}
	}
	for op := range ir.CoreOps {
		if ir.Lookup(op) == nil {
			t.Errorf("core op %s is not registered", op)
		}
	}
}

// Meta ops and Python arithmetic fold into constants.
func TestMetaOpsFold(t *testing.T) {
	x := dseq(tf32, 2, 3)
	g := &ir.Graph{Name: "g0", Tensors: map[string]*ir.TensorData{"x": {T: x}}}
	ph := &ir.Node{Name: "x", Op: ir.Placeholder, Target: "x", Meta: ir.Meta{Tensor: &ir.TensorMeta{DType: tf32, Shape: ir.ShapeOf(x.Shape), Stride: x.Strides}}}
	size := &ir.Node{Name: "size", Op: ir.CallFunction, Target: "aten.size", Args: []ir.Arg{ph}}
	n := &ir.Node{Name: "getitem", Op: ir.CallFunction, Target: "aten.getitem", Args: []ir.Arg{size, int64(1)}}
	half := &ir.Node{Name: "floordiv", Op: ir.CallFunction, Target: "aten.floor_divide", Args: []ir.Arg{n, int64(2)}}
	numelN := &ir.Node{Name: "numel", Op: ir.CallFunction, Target: "aten.numel", Args: []ir.Arg{ph}}
	dimN := &ir.Node{Name: "dim", Op: ir.CallFunction, Target: "aten.dim", Args: []ir.Arg{ph}}
	dt := &ir.Node{Name: "dtype", Op: ir.CallFunction, Target: "aten.dtype", Args: []ir.Arg{ph}}
	view := &ir.Node{Name: "view", Op: ir.CallFunction, Target: "aten.view", Args: []ir.Arg{ph, ir.Tuple{half, int64(-1)}}}
	conv := &ir.Node{Name: "to", Op: ir.CallFunction, Target: "aten.to_dtype", Args: []ir.Arg{view, dt}}
	out := &ir.Node{Name: "output", Op: ir.Output, Target: "output", Args: []ir.Arg{ir.Tuple{conv, numelN, dimN}}}
	g.Nodes = []*ir.Node{ph, size, n, half, numelN, dimN, dt, view, conv, out}
	dg, err := decomposeGraph(g)
	if err != nil {
		t.Fatal(err)
	}
	decompCheckCore(t, "fold", dg)
	if got := ir.Readable(dg); strings.Contains(got, "size") || strings.Contains(got, "getitem") || strings.Contains(got, "floordiv") {
		t.Errorf("meta ops survived:\n%s", got)
	}
	if v := dg.Node("view"); v == nil || !ir.ArgEqual(v.Args[1], ir.Tuple{int64(1), int64(-1)}) {
		t.Errorf("view args not folded to ints:\n%s", ir.Readable(dg))
	}
	want, _ := interp.Run(g, nil)
	got, err := interp.Run(dg, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := decompCompare(got, want, decompTol); err != nil {
		t.Error(err)
	}
}

// Bad input is an error naming graph and node, never a panic.
func TestDecompositionErrors(t *testing.T) {
	cases := []opCase{
		{"aten.dropout", []*tensor.Tensor{dseq(tf32, 2)}, []ir.Arg{inp(0), 0.5, true}},
		{"aten.batch_norm", []*tensor.Tensor{dseq(tf32, 2, 3), dseq(tf32, 3), dseq(tf32, 3)}, []ir.Arg{inp(0), inp(1), inp(2), nil, nil, true}},
		{"aten.linear", []*tensor.Tensor{dseq(tf32, 2, 3), dseq(tf32, 5, 4)}, []ir.Arg{inp(0), inp(1)}},
		{"aten.relu_", []*tensor.Tensor{dseq(tf32, 2)}, []ir.Arg{inp(0)}},
		{"aten.getitem", []*tensor.Tensor{dseq(tf32, 2)}, []ir.Arg{inp(0), ir.Tuple{int64(0), int64(0)}}},
	}
	for _, c := range cases {
		_, err := decomposeGraph(oneOpGraph(c))
		if err == nil {
			t.Errorf("%s: no error", c.op)
			continue
		}
		if !strings.Contains(err.Error(), `graph "g0": node "`) {
			t.Errorf("%s: error does not name graph and node: %v", c.op, err)
		}
	}
}

// Every fixture and both zoos: the decomposed graph is core-only, keeps
// provenance into the functional graph, and matches the normalized graph and
// PyTorch's own outputs.
func TestDecomposedFixturesMatch(t *testing.T) {
	paths, _ := filepath.Glob("../fixtures/*.json")
	zoo, _ := filepath.Glob("testdata/zoo_*.json")
	for _, p := range append(paths, zoo...) {
		tr, err := trace.Load(p)
		if err != nil {
			t.Fatal(err)
		}
		units, err := Run(tr, "decomposed")
		if err != nil {
			t.Errorf("%s: %v", p, err)
			continue
		}
		for _, u := range units {
			where := filepath.Base(p) + "/" + u.Decomposed.Name
			decompCheckCore(t, where, u.Decomposed)
			fn := map[string]bool{}
			for _, n := range u.Functional.Nodes {
				fn[n.Name] = true
			}
			for _, n := range u.Decomposed.Nodes {
				if len(n.From) != 1 || !fn[n.From[0]] {
					t.Errorf("%s: node %s: From %v does not name a functional node", where, n.Name, n.From)
				}
			}
			want, err := interp.Run(u.Normalized, nil)
			if err != nil {
				t.Fatalf("%s: normalized: %v", where, err)
			}
			got, err := interp.Run(u.Decomposed, nil)
			if err != nil {
				t.Errorf("%s: decomposed: %v", where, err)
				continue
			}
			got = got[:min(len(got), u.UserOutputs())] // the rest are write-backs of mutated buffers
			loose := func(tensor.DType) interp.Tolerance { return interp.Tolerance{Rtol: 1e-4, Atol: 1e-5} }
			if err := decompCompare(got, want, loose); err != nil {
				t.Errorf("%s: decomposed vs normalized: %v", where, err)
			}
			if u.Decomposed.Expected != nil && len(u.Decomposed.Expected.Outputs) == len(got) {
				exp := make([]ir.Value, len(got))
				for i, o := range u.Decomposed.Expected.Outputs {
					exp[i] = o
				}
				if err := decompCompare(got, exp, loose); err != nil {
					t.Errorf("%s: decomposed vs PyTorch: %v", where, err)
				}
			}
			t.Logf("%s: %d functional nodes -> %d decomposed nodes", where, len(u.Functional.Nodes), len(u.Decomposed.Nodes))
		}
	}
}

// coreOpsList is the generated part of docs/core-ops.md.
func coreOpsList() string {
	var core []string
	for op := range ir.CoreOps {
		core = append(core, op)
	}
	sort.Strings(core)
	var sb strings.Builder
	sb.WriteString("<!-- generated by TestCoreOpsDoc from ir.CoreOps and stages/decompositions.go; GCDBG_UPDATE_DOCS=1 go test ./stages -run TestCoreOpsDoc rewrites it -->\n\n")
	sb.WriteString("### Core ops\n\n")
	for _, op := range core {
		fmt.Fprintf(&sb, "- `%s` (%s)\n", op, ir.Lookup(op).Kind)
	}
	sb.WriteString("\n### Decompositions\n\n| op | becomes |\n| --- | --- |\n")
	for _, e := range decompositions {
		fmt.Fprintf(&sb, "| `%s` | %s |\n", e.op, strings.ReplaceAll(e.doc, "|", "\\|"))
	}
	var inplace []string
	for _, d := range ir.Ops() {
		if d.Inplace {
			inplace = append(inplace, "`"+d.Name+"`")
		}
	}
	fmt.Fprintf(&sb, "\nIn-place ops, removed by functionalization before this stage: %s.\n", strings.Join(inplace, ", "))
	return sb.String()
}

// docs/core-ops.md lists exactly the core set and the table.
func TestCoreOpsDoc(t *testing.T) {
	const path = "../docs/core-ops.md"
	const marker = "<!-- generated"
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	i := strings.Index(doc, marker)
	if i < 0 {
		t.Fatalf("%s: no generated section", path)
	}
	want := coreOpsList()
	if doc[i:] != want {
		if os.Getenv("GCDBG_UPDATE_DOCS") == "1" {
			if err := os.WriteFile(path, []byte(doc[:i]+want), 0o644); err != nil {
				t.Fatal(err)
			}
			return
		}
		t.Errorf("%s is out of date with ir.CoreOps / the decomposition table; run GCDBG_UPDATE_DOCS=1 go test ./stages -run TestCoreOpsDoc", path)
	}
}
