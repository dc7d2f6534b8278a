package render

import (
	"fmt"
	"strings"

	"gcdbg/tensor"
)

// erf and tanh in float, inline. glibc's libmvec erff and tanhf (the
// prelude's simd declarations) cost 1.32 and 0.90 ms per 4M floats on two
// threads against a copy's 0.62, which made a GELU kernel bound by them
// (gelu_variants: 37-45% of the triad). gcdbg_erff and gcdbg_tanhf are one
// rational function each, x * P(x^2) / Q(x^2), branch-free: gcc vectorizes
// them inside the kernel's simd loop, with no call and no scalar path.
//
// The coefficients are reproduced by tools/fit_erf_tanh.py (`erf 5 4
// --monic --range 3.65`, `tanh 3 4 --monic --range 8`): a minimax fit of
// the error in float ULPs (a Lawson-weighted linearized least-squares
// iteration in float64) over |x| <= 3.65 for erf, numerator degree 5 and
// denominator degree 4 in x^2, and over |x| <= 8 for tanh, degrees 3 and 4;
// Q is monic, so its first Horner step is an add, not an FMA (tanh's P(0)
// is the same float as Q(0)); the coefficients rounded to float and then
// nudged one float step at a time where that lowered the worst error of
// the float evaluation (tools/erf_tanh_eval.c: the same operations). Until
// 2026-11-26 19:00 the fits ran to where f(x) rounds to 1 (3.92, 9.01),
// degrees 5/5 and 4/4: 0.3 ULP in exact arithmetic, 5.7 and 5.3 in float,
// and 22 multiplies and FMAs where there are now 18 and 2 adds (the GELU
// loop of gelu_variants: docs/performance.md). A degree fewer over the
// whole range fits only to 7.7 ULP (erf) and 6.6 (tanh) in exact
// arithmetic; fitted only to where 1 - f(x) is a few ULPs (saturating from
// there) it fits to 2.9 and 2.5, and the saturation costs 1 - f(x) there.
//
// The result is copysign(1, x) from the first float where the rational,
// evaluated in float, exceeds 1, or from the fit's end if that comes first
// (erf: 3.65, where 1 - erf(x) is 4.1 ULP; tanh: 8, 3.8 ULP): below it no
// float gives |r| > 1 (checked over every float). The compare is on x^2,
// already computed, against that float's square rounded to float (erf
// 0x1.aa51ecp+3, tanh 0x1.000000p+6): x^2 rounds monotonically, so it holds
// from at most a few floats below, where 1 - f(x) is as small. One compare
// thus bounds the result by 1 and gives erf(±Inf) = tanh(±Inf) = ±1
// (x^2 = +Inf); a NaN fails it and stays NaN; -0 and the denormals keep
// their sign (x times a positive quotient), and tanh(x) = x exactly for
// tiny x (P(0) = Q(0)). Accuracy against erf and tanh in double over all
// 2^32 floats (docs/performance.md; compiler's TestVectorMathULP holds them
// to it): erf 8.16 ULP at most (x = 0.434), tanh 7.28 (x = 6.787), mean
// 0.356 and 0.049 (libmvec: 4.00 and 1.37, mean 0.329 and 0.021): the
// fit's error (2.9 and 2.5 ULP) plus the roundings of P, Q, the quotient
// and the product, each up to one ULP of the result near ±1.
var erfTanhPreludeC = `
/* erf and tanh in float, branch-free and inline (render/erf_tanh.go):
   x * P(x^2) / Q(x^2), +-1 from where that would exceed 1. */
` + oddRationalC("gcdbg_erff",
	[]string{"-0x1.6745e2p-11f", "0x1.c65a54p-4f", "0x1.0f43dcp+2f", "0x1.103936p+5f", "0x1.477b5cp+7f", "0x1.2740dcp+9f"},
	[]string{"1.0f", "0x1.8b126ap+3f", "0x1.516e62p+6f", "0x1.3f8caap+8f", "0x1.05a956p+9f"},
	"0x1.aa51ecp+3f") +
	oddRationalC("gcdbg_tanhf",
		[]string{"0x1.736d6cp+5f", "0x1.761a8ap+13f", "0x1.ffad32p+18f", "0x1.eeb7b0p+21f"},
		[]string{"1.0f", "0x1.e4691ap+9f", "0x1.793758p+16f", "0x1.c9badep+20f", "0x1.eeb7b0p+21f"},
		"0x1.000000p+6f")

// oddRationalC writes the C function name(x) = x * P(x^2) / Q(x^2), the
// polynomials by Horner's rule in FMAs from their coefficients (C float
// literals, highest degree first; a leading "1.0f" makes the first step an
// add), and copysign(1, x) where x^2 >= sat.
// always_inline: a kernel's simd loop is vectorized only if every call in
// it is inlined, and gcc's inliner stops at --param large-function-growth
// in a long kernel (the 32 steps' gate recomputation of an LSTM's backward
// kept 21 of its 64 calls: docs/performance.md, "Long kernels: inline
// math, a cap on streams").
func oddRationalC(name string, p, q []string, sat string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "static inline __attribute__((always_inline)) float %s(float x) {\n  float t = x * x;\n", name)
	for _, poly := range []struct {
		v string
		c []string
	}{{"p", p}, {"q", q}} {
		rest := poly.c[1:]
		if poly.c[0] == "1.0f" { // monic: the first Horner step is an add
			fmt.Fprintf(&b, "  float %s = t + %s;\n", poly.v, rest[0])
			rest = rest[1:]
		} else {
			fmt.Fprintf(&b, "  float %s = %s;\n", poly.v, poly.c[0])
		}
		for _, c := range rest {
			fmt.Fprintf(&b, "  %s = __builtin_fmaf(%s, t, %s);\n", poly.v, poly.v, c)
		}
	}
	fmt.Fprintf(&b, "  float r = x * (p / q);\n  return t >= %s ? copysignf(1.0f, x) : r;\n}\n", sat)
	return b.String()
}

// withInlineErfTanh spells float erf and tanh as the prelude's inline
// gcdbg_erff / gcdbg_tanhf (the narrow floats, computed in float, follow
// through withNarrowMath); double keeps libm/libmvec.
func withInlineErfTanh(m map[string]map[tensor.DType]string) map[string]map[tensor.DType]string {
	m["erf"][tensor.Float32] = "gcdbg_erff"
	m["tanh"][tensor.Float32] = "gcdbg_tanhf"
	return m
}
