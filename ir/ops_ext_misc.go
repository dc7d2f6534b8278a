package ir

import (
	"fmt"
	"math"

	"gcdbg/tensor"
)

// Small ops real models call: one_hot, dot, mv, outer, unbind,
// repeat_interleave, threshold, softmin, and the Tensor.new_* factories.

func init() {
	Register("one_hot(self, num_classes=-1)", KindIndex, func(a Args) (Value, error) {
		r := &ar{a: a}
		x, c := r.t(0), r.i(1)
		if r.err != nil {
			return nil, r.err
		}
		if x.DType != tensor.Int64 {
			return nil, fmt.Errorf("one_hot is only applicable to index tensor.")
		}
		if c < 0 {
			return nil, a.errf(1, "num_classes=-1 is not supported by gcdbg: it makes the result's shape depend on the data (max + 1), where Dynamo breaks the graph; give num_classes")
		}
		v := x.Contiguous().Ints()
		out := tensor.New(tensor.Int64, append(append([]int{}, x.Shape...), c)...)
		for i, k := range v {
			if k < 0 || int(k) >= c {
				return nil, fmt.Errorf("Class values must be smaller than num_classes.")
			}
			out.S.I[i*c+int(k)] = 1
		}
		return out, nil
	})
	Register("dot(self, tensor)", KindMatmul, func(a Args) (Value, error) {
		r := &ar{a: a}
		x, y := r.t(0), r.t(1)
		if r.err != nil {
			return nil, r.err
		}
		if x.Dim() != 1 || y.Dim() != 1 || x.Shape[0] != y.Shape[0] {
			return nil, fmt.Errorf("1D tensors expected, but got %dD and %dD tensors", x.Dim(), y.Dim())
		}
		return r.done(tensor.Matmul(x, y))
	})
	Register("mv(self, vec)", KindMatmul, func(a Args) (Value, error) {
		r := &ar{a: a}
		x, y := r.t(0), r.t(1)
		if r.err != nil {
			return nil, r.err
		}
		if x.Dim() != 2 || y.Dim() != 1 {
			return nil, fmt.Errorf("vector + matrix @ vector expected, got %d, %d", x.Dim(), y.Dim())
		}
		return r.done(tensor.Matmul(x, y))
	})
	Register("outer(self, vec2)", KindMatmul, func(a Args) (Value, error) {
		r := &ar{a: a}
		return r.done(tensor.Outer(r.t(0), r.t(1)))
	})
	Register("unbind(self, dim=0)", KindView, func(a Args) (Value, error) {
		r := &ar{a: a}
		x, d := r.t(0), r.i(1)
		if r.err != nil {
			return nil, r.err
		}
		dd, err := tensor.NormDim(d, x.Dim())
		if err != nil || x.Dim() == 0 {
			return nil, fmt.Errorf("%s: Dimension specified as %d but tensor has no dimensions", a.Op.Name, d)
		}
		out := make(Tuple, x.Shape[dd])
		for i := range out {
			s, err := tensor.Select(x, dd, i)
			if err != nil {
				return nil, err
			}
			out[i] = s
		}
		return out, nil
	})
	Register("repeat_interleave(self, repeats, dim=None, output_size=None)", KindOther, func(a Args) (Value, error) {
		r := &ar{a: a}
		x := r.t(0)
		if _, isT := a.V[1].(*tensor.Tensor); isT {
			return nil, a.errf(1, "tensor repeats make the result's shape depend on the data; gcdbg supports an int")
		}
		n := r.i(1)
		if r.err != nil {
			return nil, r.err
		}
		return r.done(RepeatInterleave(x, n, a.V[2]))
	})
	Register("threshold(input, threshold, value)", KindPointwise, func(a Args) (Value, error) {
		r := &ar{a: a}
		x, th, v := r.t(0), r.f(1), r.f(2)
		if r.err != nil {
			return nil, r.err
		}
		if !x.DType.IsFloat() && x.DType != tensor.Bool {
			// ATen converts threshold and value to the integer type
			ti, vi := math.Trunc(th), math.Trunc(v)
			keep, err := tensor.Binary("gt", x, tensor.PyNumber(int64(ti)))
			if err != nil {
				return nil, err
			}
			return r.done(tensor.Where(keep, x, tensor.PyNumber(int64(vi)).To(x.DType)))
		}
		return r.done(tensor.MapFloat("threshold", func(e []float64) float64 {
			if e[0] > th || math.IsNaN(e[0]) {
				return e[0]
			}
			return v
		}, x))
	})
	Register("softmin(input, dim=None, _stacklevel=3, dtype=None)", KindReduction, func(a Args) (Value, error) {
		r := &ar{a: a}
		x, d := r.t(0), r.i(1)
		if r.err != nil {
			return nil, r.err
		}
		if dt, err := a.DType(3, tensor.Invalid); err == nil && dt != tensor.Invalid {
			x = x.To(dt)
		}
		n, err := tensor.Unary("neg", x)
		if err != nil {
			return nil, err
		}
		return r.done(tensor.Softmax(n, d))
	})
	for _, name := range []string{"new_zeros", "new_ones", "new_empty"} {
		op := name
		Register(op+"(self, *size, dtype=None, layout=None, device=None, pin_memory=None, requires_grad=False)", KindCreation, func(a Args) (Value, error) {
			r := &ar{a: a}
			x := r.t(0)
			if r.err != nil {
				return nil, r.err
			}
			size, err := sizesArg(a, 1)
			if err != nil {
				return nil, err
			}
			dt, err := a.DType(2, x.DType)
			if err != nil {
				return nil, err
			}
			v := 0.0
			if op == "new_ones" {
				v = 1
			}
			return tensor.Full(size, v, dt)
		})
	}
	Register("new_full(self, size, fill_value, dtype=None, layout=None, device=None, pin_memory=None, requires_grad=False)", KindCreation, func(a Args) (Value, error) {
		r := &ar{a: a}
		x, size, v := r.t(0), r.ints(1), r.f(2)
		if r.err != nil {
			return nil, r.err
		}
		dt, err := a.DType(3, x.DType)
		if err != nil {
			return nil, err
		}
		return tensor.Full(size, v, dt)
	})
}

// RepeatInterleave repeats each element n times along dim (flattened when dim is None).
func RepeatInterleave(x *tensor.Tensor, n int, dim Value) (*tensor.Tensor, error) {
	if n < 0 {
		return nil, fmt.Errorf("repeats can not be negative")
	}
	if dim == nil {
		f, err := tensor.Reshape(x, []int{x.Numel()})
		if err != nil {
			return nil, err
		}
		return RepeatInterleave(f, n, int64(0))
	}
	d, ok := dim.(int64)
	if !ok {
		return nil, fmt.Errorf("repeat_interleave: dim must be an int")
	}
	dd, err := tensor.NormDim(int(d), x.Dim())
	if err != nil {
		return nil, err
	}
	u, err := tensor.Unsqueeze(x, dd+1)
	if err != nil {
		return nil, err
	}
	sh := append([]int{}, u.Shape...)
	sh[dd+1] = n
	e, err := tensor.Expand(u, sh)
	if err != nil {
		return nil, err
	}
	out := append([]int{}, x.Shape...)
	out[dd] *= n
	return tensor.Reshape(e.Contiguous(), out)
}

// pymath is a call of Python's math module on Python numbers (math.sqrt(
// k.size(-1)) in an attention block): a Python value, folded at compile time.
func init() {
	Register("pymath(x, y=None, fn='sqrt')", KindMeta, func(a Args) (Value, error) {
		fn, err := a.Str(2)
		if err != nil {
			return nil, err
		}
		x, err := a.Float(0)
		if err != nil {
			return nil, a.errf(0, "math.%s needs a Python number here, got %s", fn, typeName(a.V[0]))
		}
		if _, isT := a.V[0].(*tensor.Tensor); isT {
			return nil, a.errf(0, "math.%s of a tensor: use torch.%s", fn, fn)
		}
		f1 := map[string]func(float64) float64{"sqrt": math.Sqrt, "exp": math.Exp, "log": math.Log, "log2": math.Log2,
			"log10": math.Log10, "sin": math.Sin, "cos": math.Cos, "tan": math.Tan, "tanh": math.Tanh, "fabs": math.Abs,
			"erf": math.Erf, "atan": math.Atan}
		if f, ok := f1[fn]; ok {
			if (fn == "sqrt" && x < 0) || ((fn == "log" || fn == "log2" || fn == "log10") && x <= 0) {
				return nil, fmt.Errorf("math domain error: math.%s(%v)", fn, x)
			}
			return f(x), nil
		}
		switch fn {
		case "floor":
			return int64(math.Floor(x)), nil
		case "ceil":
			return int64(math.Ceil(x)), nil
		case "pow":
			y, err := a.Float(1)
			if err != nil {
				return nil, err
			}
			return math.Pow(x, y), nil
		}
		return nil, a.errf(2, "math.%s is not supported by gcdbg", fn)
	})
}
