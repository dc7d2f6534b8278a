package render

import (
	"gcdbg/loopir"
	"gcdbg/tensor"
)

// Narrow floats (float16, bfloat16) in the C dialect, as PyTorch's CPU
// kernels compute them: a buffer holds the 16-bit words (uint16_t), a load
// widens to float, every op computes in float and rounds its result to
// the narrow type (round to nearest even), and a store writes the word
// back. So a value in a register is always one the narrow type holds, and
// a fused kernel gives what PyTorch's op-by-op kernels give; reductions
// accumulate wider (reduce.go) and round once, as PyTorch's float
// accumulators do. Library calls (GEMM, sort, scans, convolutions) have
// no narrow variant: the loop IR runs them as eager fallback steps
// (loopir/narrow.go).

// narrowFloat spells one narrow float's helpers (narrowPreludeC).
type narrowFloat struct {
	load, store, round string
}

var cNarrow = map[tensor.DType]narrowFloat{
	tensor.Float16:  {"gcdbg_f16_load", "gcdbg_f16_store", "gcdbg_f16_round"},
	tensor.BFloat16: {"gcdbg_bf16_load", "gcdbg_bf16_store", "gcdbg_bf16_round"},
}

// narrowPreludeC converts exactly as c10::Half and c10::BFloat16 do (and
// tensor.FloatToHalf / FloatToBF16 for the interpreter), with integer
// arithmetic only, so that no contraction or vector lane can change a
// rounding: NaN stays NaN, overflow gives ±Inf, subnormals round to
// nearest even.
const narrowPreludeC = `
/* float16 and bfloat16: 16-bit storage, float compute, every op's result
   rounded to nearest even (render/narrow.go). */
static inline float gcdbg_bits_float(uint32_t u) { float f; memcpy(&f, &u, 4); return f; }
static inline uint32_t gcdbg_float_bits(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }
static inline float gcdbg_f16_load(uint16_t h) {
  uint32_t sign = (uint32_t)(h & 0x8000u) << 16, exp = (h >> 10) & 0x1fu, mant = h & 0x3ffu;
  if (exp == 0x1fu) return gcdbg_bits_float(sign | 0x7f800000u | (mant << 13));
  if (exp == 0) {
    float f = (float)mant * 0x1p-24f;
    return sign ? -f : f;
  }
  return gcdbg_bits_float(sign | ((exp + 112u) << 23) | (mant << 13));
}
static inline uint16_t gcdbg_f16_store(float f) {
  uint32_t b = gcdbg_float_bits(f);
  uint16_t sign = (uint16_t)((b >> 16) & 0x8000u);
  int exp = (int)((b >> 23) & 0xffu) - 127;
  uint32_t mant = b & 0x7fffffu;
  if (exp == 128) return sign | (mant ? 0x7e00u : 0x7c00u);
  if (exp > 15) return sign | 0x7c00u;
  if (exp >= -14) {
    uint32_t h = (uint32_t)sign | ((uint32_t)(exp + 15) << 10) | (mant >> 13), rest = mant & 0x1fffu;
    if (rest > 0x1000u || (rest == 0x1000u && (h & 1u))) h++;
    return (uint16_t)h;
  }
  if (exp >= -25) {
    uint32_t m = mant | 0x800000u, shift = (uint32_t)(-14 - exp + 13);
    uint32_t h = m >> shift, rest = m & ((1u << shift) - 1u), half = 1u << (shift - 1u);
    if (rest > half || (rest == half && (h & 1u))) h++;
    return sign | (uint16_t)h;
  }
  return sign;
}
static inline float gcdbg_f16_round(float f) { return gcdbg_f16_load(gcdbg_f16_store(f)); }
static inline float gcdbg_bf16_load(uint16_t h) { return gcdbg_bits_float((uint32_t)h << 16); }
static inline uint16_t gcdbg_bf16_store(float f) {
  uint32_t b = gcdbg_float_bits(f);
  if ((b & 0x7fffffffu) > 0x7f800000u) return (uint16_t)((b >> 16) | 0x40u);
  return (uint16_t)((b + 0x7fffu + ((b >> 16) & 1u)) >> 16);
}
static inline float gcdbg_bf16_round(float f) { return gcdbg_bf16_load(gcdbg_bf16_store(f)); }
`

// narrowPrelude is narrowPreludeC when the program has a narrow buffer.
func narrowPrelude(r *renderer) string {
	if r.d.Narrow == nil {
		return ""
	}
	for _, b := range r.p.Buffers {
		if _, ok := r.d.Narrow[b.DType]; ok {
			return narrowPreludeC
		}
	}
	return ""
}

// narrow is dt's helpers in this dialect, when dt is a narrow float it
// stores as 16-bit words.
func (g *kernelGen) narrow(dt tensor.DType) (narrowFloat, bool) {
	n, ok := g.r.d.Narrow[dt]
	return n, ok
}

// loadExpr widens a buffer element of dtype dt to its register type.
func (g *kernelGen) loadExpr(dt tensor.DType, elem string) string {
	if n, ok := g.narrow(dt); ok {
		return n.load + "(" + elem + ")"
	}
	return elem
}

// storeExpr narrows a register value to the buffer's element type.
func (g *kernelGen) storeExpr(dt tensor.DType, v string) string {
	if n, ok := g.narrow(dt); ok {
		return n.store + "(" + v + ")"
	}
	return v
}

// rounded is expr (a register value of dtype dt) rounded to dt: the
// identity but for the narrow floats.
func (g *kernelGen) rounded(dt tensor.DType, expr string) string {
	if n, ok := g.narrow(dt); ok {
		return n.round + "(" + expr + ")"
	}
	return expr
}

// narrowExtern names a narrow buffer an extern call of n would read or
// write as a typed array ("" when none): the loop IR lowers those to
// fallbacks, so this is the renderer's own check that it never happens.
func (g *kernelGen) narrowExtern(n *loopir.Node) string {
	for _, d := range append(append([]loopir.Dep{}, n.Reads...), n.Writes...) {
		if b := g.r.p.Buffers[d.Buffer]; b != nil {
			if _, ok := g.narrow(b.DType); ok {
				return d.Buffer + " (" + b.DType.String() + ")"
			}
		}
	}
	return ""
}
