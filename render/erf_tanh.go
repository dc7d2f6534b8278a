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
// The coefficients are a minimax fit of the error in float ULPs (a
// Lawson-weighted linear least-squares iteration in float64), rounded to
// float and then nudged by a few ULPs each where that lowered the worst
// error of the float evaluation: erf over |x| < 3.9192059 (beyond it
// erf(x) rounds to ±1), numerator degree 5 and denominator degree 5 in
// x^2; tanh over |x| < 9.0109134 (beyond it tanh(x) rounds to ±1), degrees
// 4 and 4. The result is copysign(1, x) from the first float where the
// rational, evaluated in float, exceeds 1 (erf: 0x1.d41b26p+1 = 3.6570785,
// where 1 - erf(x) is 3.9 ULP; tanh: 0x1.0687e6p+3 = 8.2040892, 2.5 ULP):
// below it no float gives |r| > 1 (checked over every float). The compare
// is on x^2, already computed, against that float's square rounded to
// float (erf 0x1.abf9a2p+3, tanh 0x1.0d3a72p+6): x^2 rounds monotonically,
// so it holds from at most a few floats below the first overshoot, where
// 1 - f(x) is as small. One compare thus bounds the result by 1 and gives
// erf(±Inf) = tanh(±Inf) = ±1 (x^2 = +Inf); a NaN fails it and stays
// NaN; -0 and the denormals keep their sign (x times a positive
// quotient), and tanh(x) = x exactly for tiny x (P(0) = Q(0) = 1). Accuracy against erf and tanh in double over
// all 2^32 floats (docs/performance.md; compiler's TestVectorMathULP holds
// them to it): erf 5.68 ULP at most (x = 3.286), tanh 5.32 (x = 6.79),
// mean 0.333 and 0.040 (libmvec: 4.00 and 1.37, mean 0.329 and 0.021);
// the worst errors sit near ±1, where four roundings (P, Q, the quotient,
// the product) each cost up to one ULP of the result.
var erfTanhPreludeC = `
/* erf and tanh in float, branch-free and inline (render/erf_tanh.go):
   x * P(x^2) / Q(x^2), +-1 from where that would exceed 1. */
` + oddRationalC("gcdbg_erff",
	[]string{"0x1.12a686p-19f", "0x1.2b28c4p-12f", "0x1.f024e8p-9f", "0x1.b09e44p-5f", "0x1.86e518p-3f", "0x1.20dd74p+0f"},
	[]string{"0x1.3f63c8p-15f", "0x1.31fc8ep-10f", "0x1.ebcf1ep-7f", "0x1.d42baep-4f", "0x1.014590p-1f", "1.0f"},
	"0x1.abf9a2p+3f") +
	oddRationalC("gcdbg_tanhf",
		[]string{"0x1.c8255cp-27f", "0x1.58bb1ap-16f", "0x1.c9a846p-9f", "0x1.11f95cp-3f", "1.0f"},
		[]string{"0x1.9fb188p-21f", "0x1.57dcfap-12f", "0x1.a7b82ap-6f", "0x1.de51f4p-2f", "1.0f"},
		"0x1.0d3a72p+6f")

// oddRationalC writes the C function name(x) = x * P(x^2) / Q(x^2), the
// polynomials by Horner's rule in FMAs from their coefficients (C float
// literals, highest degree first), and copysign(1, x) where x^2 >= sat.
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
		fmt.Fprintf(&b, "  float %s = %s;\n", poly.v, poly.c[0])
		for _, c := range poly.c[1:] {
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
