package stages

import (
	"fmt"
	"strings"

	"gcdbg/ir"
	"gcdbg/tensor"
)

// Two Tensor methods users write beside .to(): x.new_tensor(data) and
// x.type(dtype) (examples/review8, helper-89: fast_neural_style's
// normalize_batch, `batch.new_tensor([0.485, 0.456, 0.406]).view(-1, 1, 1)`,
// and guided-diffusion's `self.emb_layers(emb).type(h.dtype)`), refused
// before as unsupported Tensor methods.

// newTensor: data is a constant of the trace (nested lists of numbers), so
// the result is a constant of the graph, in x's dtype unless dtype= says
// otherwise (PyTorch's new_tensor; device and requires_grad do not change
// values), the way the exporter freezes torch.tensor(data).
func (nz *normalizer) newTensor(n *ir.Node) error {
	if len(n.Args) < 2 {
		return fmt.Errorf("args: Tensor.new_tensor needs self and data%s", sourceLine(n))
	}
	x, _ := n.Args[0].(*ir.Node)
	if x == nil || x.Meta.Tensor == nil {
		return fmt.Errorf("args: Tensor.new_tensor of something that is not a tensor%s", sourceLine(n))
	}
	dt := x.Meta.Tensor.DType
	var dv ir.Arg
	if len(n.Args) > 2 {
		dv = n.Args[2]
	}
	if v, ok := n.Kwarg("dtype"); ok {
		dv = v
	}
	if dv != nil {
		d, ok := dv.(tensor.DType)
		if !ok {
			return fmt.Errorf("args: Tensor.new_tensor: dtype must be a torch dtype, got %v%s", dv, sourceLine(n))
		}
		dt = d
	}
	var vals []ir.Arg
	shape, err := nestedShape(n.Args[1], 0, &vals)
	if err != nil {
		return fmt.Errorf("args: Tensor.new_tensor: data %v%s; gcdbg takes data that is a constant of the trace (numbers, nested lists of them)", err, sourceLine(n))
	}
	t := tensor.New(dt, shape...)
	for i, v := range vals {
		switch x := v.(type) {
		case int64:
			if dt.IsFloat() {
				t.SetFlat(i, float64(x))
			} else {
				t.SetFlatInt(i, x)
			}
		case float64:
			t.SetFlat(i, x)
		case bool:
			b := 0.0
			if x {
				b = 1
			}
			t.SetFlat(i, b)
		}
	}
	ga, err := nz.constNode(n, constPrefix+n.Name, t) // normalize_const_mask.go
	if err != nil {
		return err
	}
	nz.mapped[n] = ga
	return checkMeta(n, ga.Meta.Tensor)
}

// nestedShape appends the numbers of a (nested) list to vals, in row-major
// order, and returns its shape; the lists of one level must be alike.
func nestedShape(a ir.Arg, depth int, vals *[]ir.Arg) ([]int, error) {
	switch v := a.(type) {
	case int64, float64, bool:
		*vals = append(*vals, v)
		return nil, nil
	case ir.List, ir.Tuple:
		var items []ir.Arg
		if l, ok := v.(ir.List); ok {
			items = l
		} else {
			items = v.(ir.Tuple)
		}
		var inner []int
		for i, it := range items {
			s, err := nestedShape(it, depth+1, vals)
			if err != nil {
				return nil, err
			}
			if i == 0 {
				inner = s
			} else if fmt.Sprint(s) != fmt.Sprint(inner) {
				return nil, fmt.Errorf("is ragged at depth %d (%v against %v)", depth+1, s, inner)
			}
		}
		return append([]int{len(items)}, inner...), nil
	}
	return nil, fmt.Errorf("holds %s, not a number", argText(a))
}

// typeMethod: x.type(dtype), or x.type("torch.FloatTensor"), is x.to(dtype);
// x.type() without a dtype returns a string, which no graph can compute with.
func (nz *normalizer) typeMethod(n *ir.Node) error {
	var dv ir.Arg
	if len(n.Args) > 1 {
		dv = n.Args[1]
	}
	if v, ok := n.Kwarg("dtype"); ok {
		dv = v
	}
	if s, ok := dv.(string); ok {
		d, ok := tensorTypeName(s)
		if !ok {
			return fmt.Errorf("args: Tensor.type(%q): not a tensor type gcdbg knows (torch.FloatTensor, torch.LongTensor, ...)%s", s, sourceLine(n))
		}
		dv = d
	}
	if dv == nil {
		return fmt.Errorf("args: Tensor.type() without a dtype returns the type's name, a string; gcdbg compiles tensor computations: call x.type(dtype) or x.to(dtype)%s", sourceLine(n))
	}
	if d, ok := dv.(tensor.DType); ok {
		return nz.toWith(n, []ir.Arg{n.Args[0]}, d)
	}
	return nz.toWith(n, []ir.Arg{n.Args[0], dv}, nil) // x.type(y.dtype)
}

// tensorTypeName maps "torch.FloatTensor" (and "torch.cuda.FloatTensor") to
// its dtype.
func tensorTypeName(s string) (tensor.DType, bool) {
	s = strings.TrimPrefix(strings.TrimPrefix(s, "torch."), "cuda.")
	d, ok := map[string]tensor.DType{
		"FloatTensor": tensor.Float32, "DoubleTensor": tensor.Float64, "HalfTensor": tensor.Float16,
		"BFloat16Tensor": tensor.BFloat16, "LongTensor": tensor.Int64, "IntTensor": tensor.Int32,
		"CharTensor": tensor.Int8, "ByteTensor": tensor.Uint8, "BoolTensor": tensor.Bool,
	}[s]
	return d, ok
}
