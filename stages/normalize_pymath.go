package stages

import (
	"fmt"
	"math"
	"strings"

	"gcdbg/ir"
	"gcdbg/termsafe"
)

// Python's math module on Python numbers (nanoGPT's
// `1.0 / math.sqrt(k.size(-1))`) is folded during normalization into the
// Python value it computes, so no later stage sees a math.* call.
//
// The value is Python's own where the trace has it: a call whose inputs
// are the ones the trace recorded takes the node's recorded meta.value
// (what CPython's libm returned), after checking that gcdbg's computation
// agrees within a few ulp. Elsewhere (graph text, `gcdbg run --input` with
// other sizes) gcdbg computes it: exact for sqrt, fabs, floor, ceil, trunc,
// copysign, fmod, degrees/radians (correctly rounded like CPython);
// transcendental functions use Go's math package, within 1-2 ulp of glibc's.
// The result type is Python's: floor/ceil/trunc/gcd give an int, isnan/
// isinf/isfinite a bool, everything else a float. Python's math domain and
// range errors are errors here too. math.* on a tensor is refused with the
// torch function to use instead.

type pyMathFn struct {
	arity int
	f1    func(float64) float64
	f2    func(float64, float64) float64
	kind  byte // 'f' float result, 'i' int (floor, ceil, trunc), 'b' bool
	// domain: an infinite result from finite inputs is a domain error
	// (log(0)), not an overflow (exp(1000)).
	domain bool
}

var pyMathFns = map[string]pyMathFn{
	"sqrt":      {arity: 1, f1: math.Sqrt, kind: 'f'},
	"exp":       {arity: 1, f1: math.Exp, kind: 'f'},
	"expm1":     {arity: 1, f1: math.Expm1, kind: 'f'},
	"log":       {arity: 1, f1: math.Log, kind: 'f', domain: true},
	"log2":      {arity: 1, f1: math.Log2, kind: 'f', domain: true},
	"log10":     {arity: 1, f1: math.Log10, kind: 'f', domain: true},
	"log1p":     {arity: 1, f1: math.Log1p, kind: 'f', domain: true},
	"sin":       {arity: 1, f1: math.Sin, kind: 'f'},
	"cos":       {arity: 1, f1: math.Cos, kind: 'f'},
	"tan":       {arity: 1, f1: math.Tan, kind: 'f'},
	"asin":      {arity: 1, f1: math.Asin, kind: 'f'},
	"acos":      {arity: 1, f1: math.Acos, kind: 'f'},
	"atan":      {arity: 1, f1: math.Atan, kind: 'f'},
	"sinh":      {arity: 1, f1: math.Sinh, kind: 'f'},
	"cosh":      {arity: 1, f1: math.Cosh, kind: 'f'},
	"tanh":      {arity: 1, f1: math.Tanh, kind: 'f'},
	"asinh":     {arity: 1, f1: math.Asinh, kind: 'f'},
	"acosh":     {arity: 1, f1: math.Acosh, kind: 'f'},
	"atanh":     {arity: 1, f1: math.Atanh, kind: 'f', domain: true},
	"erf":       {arity: 1, f1: math.Erf, kind: 'f'},
	"erfc":      {arity: 1, f1: math.Erfc, kind: 'f'},
	"fabs":      {arity: 1, f1: math.Abs, kind: 'f'},
	"degrees":   {arity: 1, f1: func(x float64) float64 { return x * (180.0 / math.Pi) }, kind: 'f'},
	"radians":   {arity: 1, f1: func(x float64) float64 { return x * (math.Pi / 180.0) }, kind: 'f'},
	"floor":     {arity: 1, f1: math.Floor, kind: 'i'},
	"ceil":      {arity: 1, f1: math.Ceil, kind: 'i'},
	"trunc":     {arity: 1, f1: math.Trunc, kind: 'i'},
	"isnan":     {arity: 1, f1: func(x float64) float64 { return b2f(math.IsNaN(x)) }, kind: 'b'},
	"isinf":     {arity: 1, f1: func(x float64) float64 { return b2f(math.IsInf(x, 0)) }, kind: 'b'},
	"isfinite":  {arity: 1, f1: func(x float64) float64 { return b2f(!math.IsInf(x, 0) && !math.IsNaN(x)) }, kind: 'b'},
	"pow":       {arity: 2, f2: math.Pow, kind: 'f', domain: true},
	"atan2":     {arity: 2, f2: math.Atan2, kind: 'f'},
	"hypot":     {arity: 2, f2: math.Hypot, kind: 'f'},
	"copysign":  {arity: 2, f2: math.Copysign, kind: 'f'},
	"fmod":      {arity: 2, f2: math.Mod, kind: 'f'},
	"remainder": {arity: 2, f2: math.Remainder, kind: 'f'},
	"gcd":       {arity: 2, kind: 'i'},
}

// torch functions that do on a tensor what a math function does on a number.
var pyMathTorch = map[string]string{"fabs": "abs", "trunc": "trunc", "isnan": "isnan", "isinf": "isinf",
	"isfinite": "isfinite", "atan2": "atan2", "hypot": "hypot", "copysign": "copysign", "fmod": "fmod",
	"remainder": "remainder", "gcd": "gcd", "degrees": "rad2deg", "radians": "deg2rad", "erfc": "erfc"}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// pyMath folds a call_function math.X node into its Python value.
func (nz *normalizer) pyMath(n *ir.Node) error {
	name := strings.TrimPrefix(n.Target, "math.")
	fn, ok := pyMathFns[name]
	if !ok {
		return unsupported(n)
	}
	args := n.Args
	if name == "log" && len(args) == 2 { // math.log(x, base)
		fn = pyMathFn{arity: 2, f2: func(x, b float64) float64 { return math.Log(x) / math.Log(b) }, kind: 'f', domain: true}
	}
	if len(n.Kwargs) != 0 || len(args) != fn.arity {
		return fmt.Errorf("args: math.%s takes %d positional argument(s), got %d args and %d kwargs", name, fn.arity, len(args), len(n.Kwargs))
	}
	xs := make([]float64, len(args))
	ints := make([]int64, len(args))
	allInt := true
	for i, a := range args {
		v := nz.metaArg(nz.mapArg(a))
		switch x := v.(type) {
		case int64:
			xs[i], ints[i] = float64(x), x
		case bool:
			xs[i], ints[i] = b2f(x), int64(b2f(x))
		case float64:
			xs[i], allInt = x, false
		case *ir.TensorMeta:
			torchName := pyMathTorch[name]
			if torchName == "" {
				torchName = name
			}
			return fmt.Errorf("args[%d]: math.%s of a tensor: Python's math module takes Python numbers "+
				"(on a tensor it would call .item() and leave the graph); use torch.%s(x) instead", i, name, torchName)
		default:
			return fmt.Errorf("args[%d]: math.%s needs a Python number, got %s", i, name, pyMathRepr(v))
		}
	}
	var got ir.Value
	switch {
	case name == "gcd":
		if !allInt {
			return fmt.Errorf("args: math.gcd takes integers (Python raises TypeError on a float)")
		}
		a, b := ints[0], ints[1]
		for b != 0 {
			a, b = b, a%b
		}
		if a < 0 {
			a = -a
		}
		got = a
	case fn.kind == 'i' && allInt: // floor/ceil/trunc of an int is that int
		got = ints[0]
	default:
		var r float64
		if fn.arity == 1 {
			r = fn.f1(xs[0])
		} else {
			r = fn.f2(xs[0], xs[1])
		}
		finite, anyNaN := true, false
		for _, x := range xs {
			finite = finite && !math.IsInf(x, 0) && !math.IsNaN(x)
			anyNaN = anyNaN || math.IsNaN(x)
		}
		switch {
		case math.IsNaN(r) && !anyNaN && fn.kind == 'f':
			return fmt.Errorf("math.%s%s: math domain error (Python raises ValueError)", name, pyArgs(xs))
		case math.IsInf(r, 0) && finite && fn.kind == 'f' && fn.domain && (r < 0 || name == "pow" || name == "log" && len(xs) == 2):
			return fmt.Errorf("math.%s%s: math domain error (Python raises ValueError)", name, pyArgs(xs))
		case math.IsInf(r, 0) && finite && fn.kind == 'f' && !(name == "fabs" || name == "copysign"):
			return fmt.Errorf("math.%s%s: math range error (Python raises OverflowError)", name, pyArgs(xs))
		}
		switch fn.kind {
		case 'f':
			got = r
		case 'b':
			got = r != 0
		case 'i':
			if math.IsNaN(r) {
				return fmt.Errorf("math.%s%s: cannot convert float NaN to integer (Python raises ValueError)", name, pyArgs(xs))
			}
			if math.IsInf(r, 0) || math.Abs(r) >= 1<<63 {
				return fmt.Errorf("math.%s%s: the integer does not fit int64 (Python raises OverflowError for infinity)", name, pyArgs(xs))
			}
			got = int64(r)
		}
	}
	v, err := nz.recordedPyValue(n, got)
	if err != nil {
		return err
	}
	nz.mapped[n] = v
	return nil
}

func pyArgs(xs []float64) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = fmt.Sprint(x)
	}
	return "(" + strings.Join(s, ", ") + ")"
}

// recordedPyValue returns the value Python computed for n (its recorded
// meta.value) when n's inputs are the ones the trace recorded and gcdbg's
// own value agrees with it; got otherwise. A disagreement on the recorded
// inputs is an error naming both values.
func (nz *normalizer) recordedPyValue(n *ir.Node, got ir.Value) (ir.Value, error) {
	if !n.Meta.HasValue {
		return got, nil
	}
	for _, a := range n.Args {
		an, ok := a.(*ir.Node)
		if !ok {
			continue
		}
		if !an.Meta.HasValue || !samePyNumber(an.Meta.Value, nz.metaArg(nz.mapArg(an)), 0) {
			return got, nil // other inputs than the recorded run's (gcdbg run --input)
		}
	}
	rec := n.Meta.Value
	if samePyNumber(rec, got, 4) {
		return rec, nil
	}
	return nil, fmt.Errorf("meta.value: gcdbg computes %s = %s but the trace recorded %s", n.Target, pyMathRepr(got), pyMathRepr(rec))
}

// samePyNumber: the same Python type (int, float, bool) and value, floats
// within ulps units in the last place.
func samePyNumber(a, b ir.Value, ulps uint64) bool {
	switch x := a.(type) {
	case int64:
		y, ok := b.(int64)
		return ok && x == y
	case bool:
		y, ok := b.(bool)
		return ok && x == y
	case float64:
		y, ok := b.(float64)
		if !ok {
			return false
		}
		if x == y || math.IsNaN(x) && math.IsNaN(y) {
			return true
		}
		if math.Signbit(x) != math.Signbit(y) || math.IsInf(x, 0) || math.IsInf(y, 0) {
			return false
		}
		d := int64(math.Float64bits(x)) - int64(math.Float64bits(y))
		if d < 0 {
			d = -d
		}
		return uint64(d) <= ulps
	}
	return false
}

// sourceLine is the user's innermost source line of n as " (at FILE:LINE:
// CODE)", terminal-safe, or "" when the trace has no stack for it.
func sourceLine(n *ir.Node) string {
	if len(n.Meta.Stack) == 0 {
		return ""
	}
	f := n.Meta.Stack[len(n.Meta.Stack)-1]
	code := strings.TrimSpace(f.Code)
	if code == "" {
		return fmt.Sprintf(" (at %s:%d)", termsafe.String(f.File), f.Line)
	}
	return fmt.Sprintf(" (at %s:%d: %s)", termsafe.String(f.File), f.Line, termsafe.String(code))
}

func pyMathRepr(v ir.Value) string {
	if m, ok := v.(*ir.TensorMeta); ok {
		return "a tensor " + m.String()
	}
	return pyRepr(v)
}
