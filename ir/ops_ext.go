package ir

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"gcdbg/tensor"
)

// The op families real models use beyond the seed set: activations,
// elementwise math, pointwise losses, scans, norms and einsum. New core
// pointwise ops (the inverse trigonometric and hyperbolic functions,
// log2/log10, isinf, fmod) compile; the rest decompose into core ops
// (stages/decomp_ext.go).

// ar reads bound arguments, keeping the first error.
type ar struct {
	a   Args
	err error
}

func (r *ar) t(i int) *tensor.Tensor {
	if r.err != nil {
		return nil
	}
	t, err := r.a.Tensor(i)
	r.err = err
	return t
}

func (r *ar) ot(i int) *tensor.Tensor {
	if r.err != nil {
		return nil
	}
	t, err := r.a.OptTensor(i)
	r.err = err
	return t
}

func (r *ar) f(i int) float64 {
	if r.err != nil {
		return 0
	}
	v, err := r.a.Float(i)
	r.err = err
	return v
}

func (r *ar) of(i int) *float64 {
	if r.err != nil || r.a.V[i] == nil {
		return nil
	}
	v, err := r.a.Float(i)
	r.err = err
	return &v
}

func (r *ar) i(i int) int {
	if r.err != nil {
		return 0
	}
	v, err := r.a.Int(i)
	r.err = err
	return v
}

func (r *ar) b(i int) bool {
	if r.err != nil {
		return false
	}
	v, err := r.a.Bool(i)
	r.err = err
	return v
}

func (r *ar) s(i int) string {
	if r.err != nil {
		return ""
	}
	v, err := r.a.Str(i)
	r.err = err
	return v
}

func (r *ar) ints(i int) []int {
	if r.err != nil {
		return nil
	}
	v, err := r.a.OptInts(i)
	r.err = err
	return v
}

func (r *ar) dt(i int) tensor.DType {
	if r.err != nil {
		return tensor.Invalid
	}
	v, err := r.a.DType(i, tensor.Invalid)
	r.err = err
	return v
}

// done returns v and err, or the first argument error.
func (r *ar) done(v Value, err error) (Value, error) {
	if r.err != nil {
		return nil, r.err
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", r.a.Op.Name, err)
	}
	return v, nil
}

// ExtCoreOps are the core ops this file adds: pointwise, compiled.
var ExtCoreOps = []string{"asin", "acos", "atan", "sinh", "cosh", "asinh", "acosh", "atanh", "log2", "log10", "isinf", "fmod"}

// extPointwise are the non-core pointwise ops with hand-written shape
// inference (inferPointwise: broadcast of the tensor args, promoted dtype).
var extPointwise = map[string]bool{}

func regPW(schema string, eval EvalFunc) *OpDef {
	d := Register(schema, KindPointwise, eval)
	d.Infer = inferPointwise
	extPointwise[d.Name] = true
	return d
}

func init() {
	for _, name := range []string{"asin", "acos", "atan", "sinh", "cosh", "asinh", "acosh", "atanh", "log2", "log10", "erfinv"} {
		op := name
		regPW(op+"(self)", func(a Args) (Value, error) {
			x, err := a.Tensor(0)
			if err != nil {
				return nil, err
			}
			return tensor.Unary(op, x)
		})
	}
	regPW("isinf(self)", func(a Args) (Value, error) {
		r := &ar{a: a}
		return r.done(tensor.IsInf(r.t(0)))
	})
	regPW("fmod(self, other)", func(a Args) (Value, error) {
		r := &ar{a: a}
		return r.done(tensor.Fmod(r.t(0), r.t(1)))
	})
	for _, n := range ExtCoreOps {
		MarkCore("aten." + n)
	}

	// Activations.
	act := func(schema, op string, nparams int) {
		regPW(schema, func(a Args) (Value, error) {
			r := &ar{a: a}
			x := r.t(0)
			p := make([]float64, nparams)
			for i := range p {
				p[i] = r.f(i + 1)
			}
			if r.err != nil {
				return nil, r.err
			}
			if op == "softsign" || op == "tanhshrink" { // their Python forms take integers to the default float
				floatOperands(&x)
			}
			return r.done(tensor.Activation(op, x, p...))
		})
	}
	act("hardswish(self)", "hardswish", 0)
	act("hardsigmoid(self)", "hardsigmoid", 0)
	act("hardtanh(self, min_val=-1.0, max_val=1.0)", "hardtanh", 2)
	act("mish(self)", "mish", 0)
	act("elu(self, alpha=1.0, scale=1.0, input_scale=1.0)", "elu", 3)
	act("selu(self)", "selu", 0)
	act("celu(self, alpha=1.0)", "celu", 1)
	act("softplus(self, beta=1, threshold=20)", "softplus", 2)
	act("leaky_relu(self, negative_slope=0.01)", "leaky_relu", 1)
	act("log_sigmoid(self)", "log_sigmoid", 0)
	act("softsign(self)", "softsign", 0)
	act("tanhshrink(self)", "tanhshrink", 0)
	act("hardshrink(self, lambd=0.5)", "hardshrink", 1)
	act("softshrink(self, lambd=0.5)", "softshrink", 1)
	Register("prelu(self, weight)", KindPointwise, func(a Args) (Value, error) {
		r := &ar{a: a}
		return r.done(tensor.Prelu(r.t(0), r.t(1)))
	})
	Register("glu(self, dim=-1)", KindPointwise, func(a Args) (Value, error) {
		r := &ar{a: a}
		return r.done(tensor.Glu(r.t(0), r.i(1)))
	})

	// Elementwise math.
	regPW("lerp(self, end, weight)", func(a Args) (Value, error) {
		r := &ar{a: a}
		return r.done(tensor.Lerp(r.t(0), r.t(1), r.t(2)))
	})
	regPW("addcmul(self, tensor1, tensor2, value=1)", func(a Args) (Value, error) {
		r := &ar{a: a}
		return r.done(tensor.Addcmul(r.t(0), r.t(1), r.t(2), r.f(3)))
	})
	regPW("addcdiv(self, tensor1, tensor2, value=1)", func(a Args) (Value, error) {
		r := &ar{a: a}
		return r.done(tensor.Addcdiv(r.t(0), r.t(1), r.t(2), r.f(3)))
	})
	regPW("hypot(self, other)", func(a Args) (Value, error) {
		r := &ar{a: a}
		return r.done(tensor.Hypot(r.t(0), r.t(1)))
	})
	regPW("nan_to_num(self, nan=0.0, posinf=None, neginf=None)", func(a Args) (Value, error) {
		r := &ar{a: a}
		x := r.t(0)
		nan := 0.0
		if a.V[1] != nil {
			nan = r.f(1)
		}
		return r.done(tensor.NanToNum(x, nan, r.of(2), r.of(3)))
	})
	regPW("round_decimals(self, decimals=0)", func(a Args) (Value, error) {
		r := &ar{a: a}
		return r.done(tensor.RoundDecimals(r.t(0), r.i(1)))
	})

	// Pointwise losses: (input, target, ..., reduction).
	loss := func(schema, op string, param func(r *ar) float64, weight, posWeight, red int) {
		Register(schema, KindLoss, func(a Args) (Value, error) {
			r := &ar{a: a}
			x, t := r.t(0), r.t(1)
			var w, pw *tensor.Tensor
			if weight >= 0 {
				w = r.ot(weight)
			}
			if posWeight >= 0 {
				pw = r.ot(posWeight)
			}
			p := 0.0
			if param != nil {
				p = param(r)
			}
			rd := ""
			if n, ok := a.V[red].(int64); ok && n >= 0 && n <= 2 { // aten's enum
				rd = []string{"none", "mean", "sum"}[n]
			} else {
				rd = r.s(red)
			}
			if r.err != nil {
				return nil, r.err
			}
			return r.done(tensor.PointwiseLoss(op, x, t, w, pw, rd, p))
		})
	}
	loss("mse_loss(input, target, reduction='mean')", "mse_loss", nil, -1, -1, 2)
	loss("l1_loss(input, target, reduction='mean')", "l1_loss", nil, -1, -1, 2)
	loss("smooth_l1_loss(input, target, reduction='mean', beta=1.0)", "smooth_l1_loss", func(r *ar) float64 { return r.f(3) }, -1, -1, 2)
	loss("huber_loss(input, target, reduction='mean', delta=1.0)", "huber_loss", func(r *ar) float64 { return r.f(3) }, -1, -1, 2)
	loss("binary_cross_entropy(input, target, weight=None, reduction='mean')", "binary_cross_entropy", nil, 2, -1, 3)
	loss("binary_cross_entropy_with_logits(input, target, weight=None, reduction='mean', pos_weight=None)", "binary_cross_entropy_with_logits", nil, 2, 4, 3)
	loss("kl_div(input, target, reduction='mean', log_target=False)", "kl_div", func(r *ar) float64 {
		if r.b(3) {
			return 1
		}
		return 0
	}, -1, -1, 2)
	loss("soft_margin_loss(input, target, reduction='mean')", "soft_margin_loss", nil, -1, -1, 2)

	// Scans, flips, rolls, argsort.
	for _, name := range []string{"cumsum", "cumprod"} {
		op := name
		Register(op+"(self, dim, dtype=None)", KindOther, func(a Args) (Value, error) {
			r := &ar{a: a}
			return r.done(tensor.Cumulative(op, r.t(0), r.i(1), r.dt(2)))
		})
	}
	Register("logcumsumexp(self, dim)", KindOther, func(a Args) (Value, error) {
		r := &ar{a: a}
		return r.done(tensor.Cumulative("logcumsumexp", r.t(0), r.i(1), tensor.Invalid))
	})
	Register("flip(self, dims)", KindOther, func(a Args) (Value, error) {
		r := &ar{a: a}
		return r.done(tensor.Flip(r.t(0), r.ints(1)))
	})
	Register("roll(self, shifts, dims=None)", KindOther, func(a Args) (Value, error) {
		r := &ar{a: a}
		return r.done(tensor.Roll(r.t(0), r.ints(1), r.ints(2)))
	})
	Register("argsort(self, dim=-1, descending=False, stable=False)", KindSort, func(a Args) (Value, error) {
		r := &ar{a: a}
		x, d, desc, st := r.t(0), r.i(1), r.b(2), r.b(3)
		if r.err != nil {
			return nil, r.err
		}
		_, idx, err := tensor.Sort(x, d, desc, st)
		return r.done(idx, err)
	})

	// Reductions.
	Register("logsumexp(self, dim, keepdim=False)", KindReduction, func(a Args) (Value, error) {
		r := &ar{a: a}
		return r.done(tensor.Logsumexp(r.t(0), r.ints(1), r.b(2)))
	})
	Register("linalg_vector_norm(self, ord=2, dim=None, keepdim=False, dtype=None)", KindReduction, func(a Args) (Value, error) {
		r := &ar{a: a}
		x, ord, dims, keep, dt := r.t(0), r.f(1), r.ints(2), r.b(3), r.dt(4)
		if r.err != nil {
			return nil, r.err
		}
		if dt != tensor.Invalid {
			x = x.To(dt)
		}
		return r.done(tensor.VectorNorm(x, ord, dims, keep))
	})
	Register("norm(self, p='fro', dim=None, keepdim=False, dtype=None)", KindReduction, func(a Args) (Value, error) {
		r := &ar{a: a}
		x, dims, keep, dt := r.t(0), r.ints(2), r.b(3), r.dt(4)
		ord, err := NormOrd(a.V[1])
		if err != nil {
			return nil, a.errf(1, "%v", err)
		}
		if r.err != nil {
			return nil, r.err
		}
		if dt != tensor.Invalid {
			x = x.To(dt)
		}
		return r.done(tensor.VectorNorm(x, ord, dims, keep))
	})
	for _, name := range []string{"var_mean", "std_mean"} {
		op := name
		Register(op+"(self, dim=None, unbiased=None, keepdim=False, correction=None)", KindReduction, func(a Args) (Value, error) {
			r := &ar{a: a}
			x, dims, keep := r.t(0), r.ints(1), r.b(3)
			corr := 1.0
			if a.V[2] != nil && !r.b(2) {
				corr = 0
			}
			if a.V[4] != nil {
				corr = r.f(4)
			}
			if r.err != nil {
				return nil, r.err
			}
			var v *tensor.Tensor
			var err error
			if op == "var_mean" {
				v, err = tensor.Var(x, dims, corr, keep)
			} else {
				v, err = tensor.Std(x, dims, corr, keep)
			}
			if err != nil {
				return r.done(nil, err)
			}
			m, err := tensor.Mean(x, dims, keep)
			return r.done(Tuple{v, m}, err)
		})
	}

	// einsum.
	Register("einsum(equation, *operands)", KindMatmul, func(a Args) (Value, error) {
		r := &ar{a: a}
		eq := r.s(0)
		ops, err := EinsumOperands(a.V[1])
		if err != nil {
			return nil, a.errf(1, "%v", err)
		}
		return r.done(tensor.Einsum(eq, ops))
	})
}

// EinsumOperands accepts einsum's operands as varargs or as one list.
func EinsumOperands(v Value) ([]*tensor.Tensor, error) {
	items, _ := v.(Tuple)
	if len(items) == 1 {
		switch l := items[0].(type) {
		case List:
			items = Tuple(l)
		case Tuple:
			items = l
		}
	}
	out := make([]*tensor.Tensor, len(items))
	for i, it := range items {
		t, ok := it.(*tensor.Tensor)
		if !ok {
			return nil, fmt.Errorf("operand %d is %s, not a tensor", i, typeName(it))
		}
		out[i] = t
	}
	return out, nil
}

// NormOrd reads torch.norm's p: a number, 'fro' (2 over the flattened
// dims), inf; 'nuc' is a matrix norm gcdbg does not model.
func NormOrd(v Value) (float64, error) {
	switch p := v.(type) {
	case nil:
		return 2, nil
	case string:
		switch p {
		case "fro":
			return 2, nil
		case "inf":
			return math.Inf(1), nil
		case "-inf":
			return math.Inf(-1), nil
		}
		return 0, fmt.Errorf("norm p=%q is a matrix norm gcdbg does not support (use a number or 'fro')", p)
	case float64:
		return p, nil
	case int64:
		return float64(p), nil
	}
	return 0, fmt.Errorf("norm p must be a number or 'fro', got %s", typeName(v))
}

// extInplace are the activations whose in-place form (F.elu(x, inplace=True),
// nn.Hardswish(inplace=True)) the canonical set carries; functionalization
// turns them back into the out-of-place op and a write.
var extInplace = []string{"hardswish", "hardsigmoid", "hardtanh", "mish", "elu", "selu", "celu", "leaky_relu"}

func init() {
	registerInplace(extInplace...) // inplace.go
}

func init() {
	for _, n := range []string{"cumsum", "cumprod", "logcumsumexp", "flip", "roll", "argsort"} {
		Lookup("aten." + n).Infer = inferSameShape
	}
	Lookup("aten.logsumexp").Infer = inferReduce(1, 2)
	Lookup("aten.linalg_vector_norm").Infer = inferReduce(2, 3)
	Lookup("aten.norm").Infer = inferReduce(2, 3)
	Lookup("aten.einsum").Infer = inferEinsum
}

// inferEinsum computes einsum's result from the equation and the operand
// shapes alone (evaluating a large contraction by example would be slow).
func inferEinsum(a Args) (Value, error) {
	eq, err := a.Str(0)
	if err != nil {
		return nil, err
	}
	items, _ := a.V[1].(Tuple)
	if len(items) == 1 {
		switch l := items[0].(type) {
		case List:
			items = Tuple(l)
		case Tuple:
			items = l
		}
	}
	ex := make(Tuple, len(items))
	for i, it := range items {
		m, ok := it.(*TensorMeta)
		if !ok {
			return Call(a.Op, a.V)
		}
		// One element per operand: the equation's checks and the dtype
		// come from the reference; the sizes from the shapes below.
		ones := make([]int, len(m.Shape))
		for k := range ones {
			ones[k] = 1
		}
		ex[i] = &TensorMeta{DType: m.DType, Shape: ShapeOf(ones)}
	}
	small, err := inferByExample(a.Op, []Value{a.V[0], ex})
	if err != nil {
		return nil, err
	}
	sm, ok := small.(*TensorMeta)
	if !ok {
		return small, nil
	}
	lhs, rhs, explicit := strings.Cut(strings.ReplaceAll(eq, " ", ""), "->")
	size := map[rune]int{}
	count := map[rune]int{}
	for i, s := range strings.Split(lhs, ",") {
		m := items[i].(*TensorMeta)
		for k, r := range []rune(s) {
			if k < len(m.Shape) && size[r] <= 1 {
				size[r] = m.Shape[k].Size
			}
			count[r]++
		}
	}
	if !explicit {
		var rs []rune
		for r, c := range count {
			if c == 1 {
				rs = append(rs, r)
			}
		}
		sort.Slice(rs, func(i, j int) bool { return rs[i] < rs[j] })
		rhs = string(rs)
	}
	out := make([]int, 0, len(rhs))
	for _, r := range rhs {
		out = append(out, size[r])
	}
	return contig(sm.DType, out), nil
}

// scalarArgs wraps a hand-written Infer so that the given parameters must
// be what the op's Eval accepts there: inferPointwise and inferSameShape
// only look at the tensors. kind per parameter: 'f' a number (a
// one-element tensor too), 'i' an int (a one-element integer tensor too),
// 'l' a Python value only (int lists, strings).
func scalarArgs(f EvalFunc, kinds map[int]byte) EvalFunc {
	return func(a Args) (Value, error) {
		for i, k := range kinds {
			if i >= len(a.V) {
				continue
			}
			m, ok := a.V[i].(*TensorMeta)
			if !ok {
				continue
			}
			n := tensor.Numel(m.Shape.Sizes())
			if k == 'l' || n != 1 || (k == 'i' && m.DType.IsFloat()) {
				return nil, a.errf(i, "expected a number, got %s", typeName(a.V[i]))
			}
		}
		return f(a)
	}
}

func init() {
	for name, kinds := range map[string]map[int]byte{
		"elu": {1: 'f', 2: 'f', 3: 'f'}, "celu": {1: 'f'}, "softplus": {1: 'f', 2: 'f'}, "leaky_relu": {1: 'f'},
		"hardshrink": {1: 'f'}, "softshrink": {1: 'f'}, "elu_": {1: 'f', 2: 'f', 3: 'f'}, "celu_": {1: 'f'},
		"leaky_relu_": {1: 'f'}, "hardtanh": {1: 'f', 2: 'f'}, "hardtanh_": {1: 'f', 2: 'f'}, "nan_to_num": {1: 'f', 2: 'f', 3: 'f'}, "round_decimals": {1: 'i'},
		"cumsum": {1: 'i'}, "cumprod": {1: 'i'}, "logcumsumexp": {1: 'i'}, "argsort": {1: 'i'},
		"flip": {1: 'l'}, "roll": {1: 'l', 2: 'l'}, "linalg_vector_norm": {1: 'f', 2: 'l'}, "norm": {1: 'l', 2: 'l'},
		"logsumexp": {1: 'l'},
	} {
		d := Lookup("aten." + name)
		d.Infer = scalarArgs(d.Infer, kinds)
	}
}
