package render

import "strings"

// gcdbg's own random numbers in generated C: element c of the uniform
// stream for a seed is Philox4x32-10 at counter (c, 0, 0, 0), its first
// word's top 24 bits scaled into [0, 1), exactly tensor.PhiloxUniform, so
// compiled kernels draw what the eager interpreter draws (the loop IR's
// philox_uniform statement; seed and counter arrive as exact doubles).

// philoxFunc spells the generator for one C-like dialect: the function
// qualifier and the unsigned 64/32-bit type names differ.
func philoxFunc(qual, u64, u32 string) string {
	return strings.NewReplacer("QUAL", qual, "U64", u64, "U32", u32).Replace(`
/* Philox4x32-10 (Salmon et al. 2011): gcdbg's counter-based generator for
   random ops without recorded draws (tensor.PhiloxUniform). */
QUAL double gcdbg_philox_uniform(double seed_d, double ctr_d) {
  const U64 seed = (U64)seed_d, c = (U64)ctr_d;
  U32 c0 = (U32)c, c1 = (U32)(c >> 32), c2 = 0, c3 = 0;
  U32 k0 = (U32)seed, k1 = (U32)(seed >> 32);
  for (int r = 0; r < 10; r++) {
    if (r > 0) {
      k0 += 0x9E3779B9u;
      k1 += 0xBB67AE85u;
    }
    const U64 p0 = (U64)0xD2511F53u * c0, p1 = (U64)0xCD9E8D57u * c2;
    const U32 n0 = (U32)(p1 >> 32) ^ c1 ^ k0, n2 = (U32)(p0 >> 32) ^ c3 ^ k1;
    c1 = (U32)p1;
    c3 = (U32)p0;
    c0 = n0;
    c2 = n2;
  }
  return (double)(c0 >> 8) * (1.0 / 16777216.0);
}
`)
}

var (
	philoxPreludeC      = philoxFunc("static inline", "uint64_t", "uint32_t")
	philoxPreludeCUDA   = philoxFunc("__device__ inline", "uint64_t", "uint32_t")
	philoxPreludeOpenCL = philoxFunc("inline", "ulong", "uint")
)

// withPhilox adds the philox_uniform spelling to a dialect's op table.
func withPhilox(ops map[string]string) map[string]string {
	ops["philox_uniform"] = "gcdbg_philox_uniform($0, $1)"
	return ops
}
