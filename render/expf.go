package render

import (
	"math"

	"gcdbg/loopir"
	"gcdbg/tensor"
)

// exp of a masked row. libmvec's vector expf hands every lane outside its
// fast range (|x| > ~87.3: a causal mask's -Inf, and exp(-Inf - max) of a
// masked softmax) to the scalar expf, one lane at a time: on rows about half
// masked it costs 1.6 ns an element against 0.28 in range (one thread, L1).
// gcdbg_expf is branch-free and inline, so gcc vectorizes it inside the
// loop and a -Inf lane costs what any lane costs (0.45 ns on the same
// masked rows, 0.33-0.36 in range: slower than libmvec there, which is why
// only exps that may meet a mask take it).
//
// Sleef's expf_u10 polynomial (n = rint(x/ln2), r = x - n*ln2 in two fma
// steps, degree-6 polynomial), with the argument clamped to [-104, 89] so
// that 2^n is two normal factors (a denormal result is rounded once, by the
// last multiply): exp(-Inf) = +0, exp(+Inf) = +Inf, NaN stays NaN (the
// clamp's compares keep a NaN, and the polynomial propagates it),
// exp(±0) = 1. Max error 1.24 ULP against exp in double, checked over all
// 2^32 floats (libmvec's expf: 2.48, docs/performance.md).
// always_inline, as gcdbg_tanhf (erf_tanh.go): in a long kernel gcc's
// inliner would leave calls, and the loop unvectorized.
const expfPreludeC = `
/* exp in float, branch-free and inline (render/expf.go): the exps of a
   masked row, where libmvec's expf takes its scalar path on -Inf lanes. */
static inline __attribute__((always_inline)) float gcdbg_expf(float x) {
  float xc = x < -104.0f ? -104.0f : x;
  xc = xc > 89.0f ? 89.0f : xc;
  union { float f; int32_t i; } t, s1, s2;
  t.f = __builtin_fmaf(xc, 1.44269504088896341f, 12582912.0f);
  float n = t.f - 12582912.0f;
  float r = __builtin_fmaf(n, -0.693145751953125f, xc);
  r = __builtin_fmaf(n, -1.428606765330187045e-06f, r);
  float u = 0.000198527617612853646278381f;
  u = __builtin_fmaf(u, r, 0.00139304355252534151077271f);
  u = __builtin_fmaf(u, r, 0.00833336077630519866943359f);
  u = __builtin_fmaf(u, r, 0.0416664853692054748535156f);
  u = __builtin_fmaf(u, r, 0.166666671633720397949219f);
  u = __builtin_fmaf(u, r, 0.5f);
  u = __builtin_fmaf(r * r, u, r + 1.0f);
  int32_t ni = t.i - 0x4B400000;
  int32_t n1 = ni >> 1, n2 = ni - n1;
  s1.i = (n1 + 127) << 23;
  s2.i = (n2 + 127) << 23;
  return u * s1.f * s2.f;
}
`

// maskedExp returns the C function for the float32 exp of statement s
// when the node being emitted may see -Inf arguments: it reads, through
// pointwise and reduction producers, a buffer some node fills with a -Inf
// constant (masked_fill(mask, -inf), where(mask, x, -inf)). "" otherwise
// (libmvec's expf through the dialect's table).
func (g *kernelGen) maskedExp(s loopir.Stmt) string {
	if g.r.d.Name != "c" || s.Op != "exp" || s.DType != tensor.Float32 || g.cur == nil {
		return ""
	}
	seen := map[*loopir.Node]bool{}
	if g.r.negInfFed(g.cur, seen, 0) {
		return "gcdbg_expf"
	}
	return ""
}

// negInfFed reports whether n, or a producer it reads from (up to 16
// nodes back), has a -Inf constant in its body.
func (r *renderer) negInfFed(n *loopir.Node, seen map[*loopir.Node]bool, depth int) bool {
	if n == nil || seen[n] || depth > 16 {
		return false
	}
	seen[n] = true
	for _, s := range n.Body {
		if s.Op == "constant" && math.IsInf(s.Value, -1) {
			return true
		}
	}
	for _, d := range n.Reads {
		if w := r.writer[d.Buffer]; w != nil && (w.Kind == loopir.Pointwise || w.Kind == loopir.Reduction) {
			if r.negInfFed(w, seen, depth+1) {
				return true
			}
		}
	}
	return false
}
