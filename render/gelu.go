package render

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"gcdbg/loopir"
	"gcdbg/tensor"
)

// GELU in float, as one inline function per form. The decomposed graph
// computes x * 0.5 * (1 + erf(x * (1/sqrt 2))) and, in the tanh form,
// x * 0.5 * (1 + tanh(sqrt(2/pi) * (x + 0.044715 * x^3))): through
// gcdbg_erff/gcdbg_tanhf that is two scalings of x, x^3, a rational in the
// scaled argument's square, its saturation, and the GELU arithmetic, about
// 13 multiplies and FMAs per form. gelu_variants (both forms over 4096 x
// 1024) stayed compute-bound at 57-69% of the triad with them
// (docs/performance.md).
//
// gcdbg_gelu_erff and gcdbg_gelu_tanhf evaluate h * (1 + x * P(s) / Q(s)),
// s = x^2, h = x / 2, where x * P(s) / Q(s) stands for erf(x / sqrt 2) or
// for tanh(sqrt(2/pi) (x + 0.044715 x^3)) directly as a function of x: no
// scaling of x, no x^3, no tanh argument, and s and h are shared by the
// two forms of one element (and by their saturation). 10 multiplies and
// FMAs per form (P degree 5, Q monic degree 4 in s, h * fma(x, p / q, 1)),
// 1 division; one thread, 4096 floats in L1, the gelu_variants pair took
// 0.589 ns per element through gcdbg_erff/gcdbg_tanhf and 0.511 with these
// (1.15x; 16 MB on two threads 1.246 -> 1.080 ms: a C harness of
// 2026-11-27, docs/performance.md).
//
// GELU's own error is what the fit minimizes (tools/fit_gelu.py, which
// reproduces the coefficients; tools/gelu_eval.c evaluates exactly these
// operations): in ULPs of max(|gelu(x)|, |x| / 2), the result's ULP for
// x > 0 and, in the negative tail where 1 + erf cancels, that of x / 2 (the
// scale at which the decomposed graph's own float evaluation rounds 1 +
// erf). So e needs absolute accuracy near 2^-24, not relative accuracy near
// 0, and a rational of gcdbg_erff's degrees fits it over 0 < x <= 5.1
// (erf form) and 5.0 (tanh form); from there on (s >= that square, +-Inf
// included) the result is h * (1 + copysign(1, x)): x, or -0 for x < 0,
// NaN for -Inf, as the formula gives. A NaN fails the compare and stays
// NaN; ±0 give ±0 (h times fma(±0, q, 1) = 1). Over all 2^32 floats (the
// sweep; compiler's TestGELUFunctions holds them to it): at most 6.11 ULPs
// (erf form, x = -3.977) and 5.56 (tanh form, x = -3.534), mean 0.060 and
// 0.058; the decomposed formula with erf/tanh rounded once is 1.69 and
// 1.85, PyTorch 1.13's own F.gelu 8.58 and 1.78 (docs/performance.md).
var geluPreludeC = `
/* GELU in float, both forms, branch-free and inline (render/gelu.go):
   h * (1 + x * P(x^2) / Q(x^2)), h = x / 2, with x * P / Q fitted to
   erf(x / sqrt 2) or tanh(sqrt(2/pi) (x + 0.044715 x^3)) in absolute
   error; h * (1 + copysign(1, x)) from where that saturates. */
` + geluC("gcdbg_gelu_erff", geluErf) + geluC("gcdbg_gelu_tanhf", geluTanh)

// geluFit is one form's coefficients (C float literals, highest degree
// first; Q monic) and the saturation compare on x^2.
type geluFit struct {
	p, q []string
	sat  string
}

var (
	geluErf = geluFit{
		p:   []string{"-0x1.ff02b0p-13f", "0x1.4202e2p-4f", "0x1.7d90dcp+2f", "0x1.77cf78p+6f", "0x1.c7028ep+9f", "0x1.946fbap+12f"},
		q:   []string{"1.0f", "0x1.84aa30p+4f", "0x1.4a77ccp+8f", "0x1.3785cep+11f", "0x1.fae2eep+12f"},
		sat: "0x1.a028f4p+4f",
	}
	geluTanh = geluFit{
		p:   []string{"-0x1.604ed2p-12f", "0x1.745fc8p-4f", "0x1.4441c4p+2f", "0x1.a10adcp+6f", "0x1.18b280p+10f", "0x1.5d91e6p+13f"},
		q:   []string{"1.0f", "0x1.51a6a4p+4f", "0x1.914a5cp+8f", "0x1.d56adep+11f", "0x1.b61f10p+13f"},
		sat: "0x1.900000p+4f",
	}
)

// geluC writes name(x) = h * (1 + x * P(s) / Q(s)), s = x * x, h = x *
// 0.5f, the polynomials by Horner's rule in FMAs (Q's leading 1 makes its
// first step an add), and h * (1 + copysign(1, x)) where s >= sat.
// always_inline for the reason oddRationalC gives.
func geluC(name string, f geluFit) string {
	var b strings.Builder
	fmt.Fprintf(&b, "static inline __attribute__((always_inline)) float %s(float x) {\n  float s = x * x, h = x * 0.5f;\n", name)
	fmt.Fprintf(&b, "  float p = %s;\n", f.p[0])
	for _, c := range f.p[1:] {
		fmt.Fprintf(&b, "  p = __builtin_fmaf(p, s, %s);\n", c)
	}
	fmt.Fprintf(&b, "  float q = s + %s;\n", f.q[1])
	for _, c := range f.q[2:] {
		fmt.Fprintf(&b, "  q = __builtin_fmaf(q, s, %s);\n", c)
	}
	fmt.Fprintf(&b, "  return s >= %s ? h * (1.0f + copysignf(1.0f, x)) : h * __builtin_fmaf(x, p / q, 1.0f);\n}\n", f.sat)
	return b.String()
}

// geluDef is what the renderer knows of a temporary it declared: the prim
// that computed it and its operands, or the element a load read.
type geluDef struct {
	op   string
	args []value
	load string // a load's element expression
	note string // the comment its declaration carries (graph nodes' names)
	seq  int    // declarations before it
}

// declared records a temporary's declaration and its comment.
func (g *kernelGen) declared(t, note string) {
	if g.defs == nil {
		g.defs = map[string]geluDef{}
	}
	g.defs[t] = geluDef{note: note, seq: len(g.defs)}
}

// define records v as op(args) for gelu's matching: a temporary declared
// for it (a value an earlier op computed, a literal, is left as it is).
func (g *kernelGen) define(v value, op string, args []value) {
	if d, ok := g.defs[v.c]; ok && d.op == "" {
		d.op, d.args = op, args
		g.defs[v.c] = d
	}
}

// defineLoad records v as the element elem of buf, which two loads share
// only when no node of the kernel writes buf (between them it could).
func (g *kernelGen) defineLoad(v value, buf, elem string) {
	if g.written == nil { // once per kernel: a long kernel loads thousands of times
		g.written = map[string]bool{}
		for _, n := range g.k.Nodes {
			for _, w := range n.Writes {
				g.written[w.Buffer] = true
			}
		}
	}
	if g.written[buf] {
		return
	}
	if d, ok := g.defs[v.c]; ok {
		d.op, d.load = "load", elem
		g.defs[v.c] = d
	}
}

// sameValue says whether a and b are one value: one temporary, or two
// loads of one element of a buffer no node of the kernel writes.
func (g *kernelGen) sameValue(a, b value) bool {
	if a.c == b.c {
		return true
	}
	da, db := g.defs[a.c], g.defs[b.c]
	return da.op == "load" && db.op == "load" && da.load == db.load
}

// constOf is the value of a float literal the renderer wrote (0.5f,
// (-2.0f)), ok false for anything else.
func constOf(v value) (float64, bool) {
	s := strings.TrimSuffix(strings.TrimSuffix(strings.TrimPrefix(strings.TrimSuffix(v.c, ")"), "("), "f"), "F")
	if s == "" || !(s[0] == '-' || s[0] == '.' || s[0] >= '0' && s[0] <= '9') {
		return 0, false
	}
	f, err := strconv.ParseFloat(s, 64)
	return f, err == nil
}

// isConst32 says whether v is a literal equal to c in float.
func isConst32(v value, c float64) bool {
	f, ok := constOf(v)
	return ok && float32(f) == float32(c)
}

// constOperand returns the operand of a binary op of v that is not the
// constant c (either order), ok false if v is not op(_, c).
func (g *kernelGen) constOperand(v value, op string, c float64) (value, bool) {
	d := g.defs[v.c]
	if d.op != op || len(d.args) != 2 || v.dt != tensor.Float32 {
		return value{}, false
	}
	for i := 0; i < 2; i++ {
		if isConst32(d.args[1-i], c) && d.args[i].dt == tensor.Float32 {
			return d.args[i], true
		}
	}
	return value{}, false
}

// gelu spells mul(x * 0.5, 1 + erf(x * (1/sqrt 2))) and mul(x * 0.5, 1 +
// tanh(sqrt(2/pi) * (x + (x * x * x) * 0.044715))), the decomposition's
// two forms (stages.decompGelu; the operands of each mul and add in either
// order, x / sqrt(2) for the product, pow(x, 3) for the cube: the forms
// users write by hand), as one call of gcdbg_gelu_erff / gcdbg_gelu_tanhf, in float on
// the C dialect. The operations it replaces stay declared for any other
// reader and are dropped when nothing reads them (dropDeadTemps); their
// graph nodes' names move to the call's comment, so that each node still
// finds the C line computing it.
func (g *kernelGen) gelu(s loopir.Stmt, args []value) (value, bool) {
	if g.r.d.Name != "c" || s.Op != "mul" || s.DType != tensor.Float32 || len(args) != 2 {
		return value{}, false
	}
	for i := 0; i < 2; i++ {
		x, ok := g.constOperand(args[i], "mul", 0.5)
		if !ok {
			continue
		}
		inner, ok := g.constOperand(args[1-i], "add", 1)
		if !ok {
			continue
		}
		d := g.defs[inner.c]
		if len(d.args) != 1 {
			continue
		}
		chain := []value{args[i], args[1-i], inner, d.args[0]}
		fn := ""
		switch d.op {
		case "erf":
			z, ok := g.constOperand(d.args[0], "mul", 1/math.Sqrt2)
			if !ok { // x / sqrt(2), as Hugging Face's GELU writes it
				z, ok = g.divisor(d.args[0], math.Sqrt2)
			}
			if ok && g.sameValue(z, x) {
				fn = "gcdbg_gelu_erff"
			}
		case "tanh":
			if u, ok := g.constOperand(d.args[0], "mul", math.Sqrt(2/math.Pi)); ok {
				if more, ok := g.tanhGeluArg(u, x); ok {
					fn, chain = "gcdbg_gelu_tanhf", append(append(chain, u), more...)
				}
			}
		}
		if fn == "" {
			continue
		}
		// the replaced lines' comments, in the order they were written
		sort.Slice(chain, func(a, b int) bool { return g.defs[chain[a].c].seq < g.defs[chain[b].c].seq })
		var notes []string
		for _, v := range chain {
			if n := g.defs[v.c].note; n != "" {
				notes = append(notes, n)
			}
		}
		g.note = strings.Join(append(notes, g.note), ", ")
		return g.decl(tensor.Float32, fn+"("+x.c+")"), true
	}
	return value{}, false
}

// divisor returns a of v = a / c, ok false if v is not that division.
func (g *kernelGen) divisor(v value, c float64) (value, bool) {
	d := g.defs[v.c]
	if d.op != "div" || len(d.args) != 2 || v.dt != tensor.Float32 || d.args[0].dt != tensor.Float32 || !isConst32(d.args[1], c) {
		return value{}, false
	}
	return d.args[0], true
}

// tanhGeluArg says whether u is x + (x * x * x) * 0.044715 (x^3 also as pow(x, 3)) (the add's and
// the products' operands in either order) and returns the temporaries
// that compute it.
func (g *kernelGen) tanhGeluArg(u, x value) ([]value, bool) {
	d := g.defs[u.c]
	if d.op != "add" || len(d.args) != 2 {
		return nil, false
	}
	for i := 0; i < 2; i++ {
		if !g.sameValue(d.args[i], x) {
			continue
		}
		cube, ok := g.constOperand(d.args[1-i], "mul", 0.044715)
		if !ok {
			continue
		}
		c := g.defs[cube.c]
		if b, ok := g.constOperand(cube, "pow", 3); ok && g.sameValue(b, x) && isConst32(c.args[1], 3) {
			return []value{d.args[1-i], cube}, true // torch.pow(x, 3.0), as GPT-2's gelu_new writes it
		}
		if c.op != "mul" || len(c.args) != 2 {
			continue
		}
		for j := 0; j < 2; j++ {
			sq := g.defs[c.args[j].c]
			if g.sameValue(c.args[1-j], x) && sq.op == "mul" && len(sq.args) == 2 &&
				g.sameValue(sq.args[0], x) && g.sameValue(sq.args[1], x) {
				return []value{d.args[1-i], cube, c.args[j]}, true
			}
		}
	}
	return nil, false
}
