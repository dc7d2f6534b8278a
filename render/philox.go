package render

// gcdbg's own random numbers in generated C: element c of the uniform
// stream for a seed is Philox4x32-10 at counter (c, 0, 0, 0), its first
// word's top 24 bits scaled into [0, 1), exactly tensor.PhiloxUniform, so
// compiled kernels draw what the eager interpreter draws (the loop IR's
// philox_uniform statement; seed and counter arrive as exact doubles).

const philoxPreludeC = `
/* Philox4x32-10 (Salmon et al. 2011): gcdbg's counter-based generator for
   random ops without recorded draws (tensor.PhiloxUniform). */
static inline double gcdbg_philox_uniform(double seed_d, double ctr_d) {
	const uint64_t seed = (uint64_t)seed_d, c = (uint64_t)ctr_d;
	uint32_t c0 = (uint32_t)c, c1 = (uint32_t)(c >> 32), c2 = 0, c3 = 0;
	uint32_t k0 = (uint32_t)seed, k1 = (uint32_t)(seed >> 32);
	for (int r = 0; r < 10; r++) {
		if (r > 0) {
			k0 += 0x9E3779B9u;
			k1 += 0xBB67AE85u;
		}
		const uint64_t p0 = (uint64_t)0xD2511F53u * c0, p1 = (uint64_t)0xCD9E8D57u * c2;
		const uint32_t n0 = (uint32_t)(p1 >> 32) ^ c1 ^ k0, n2 = (uint32_t)(p0 >> 32) ^ c3 ^ k1;
		c1 = (uint32_t)p1;
		c3 = (uint32_t)p0;
		c0 = n0;
		c2 = n2;
	}
	return (double)(c0 >> 8) * (1.0 / 16777216.0);
}
`

// withPhilox adds the philox_uniform spelling to a C dialect's op table.
func withPhilox(ops map[string]string) map[string]string {
	ops["philox_uniform"] = "gcdbg_philox_uniform($0, $1)"
	return ops
}
