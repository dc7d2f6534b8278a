/* gcdbg generated opencl source: trace sin_cos.json, graph g0 (inference). Do not edit. */
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
inline long gcdbg_floordiv_i64(long a, long b) {
  if (b == 0) return 0;
  long q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}
inline long gcdbg_mod_i64(long a, long b) {
  if (b == 0) return 0;
  long r = a % b;
  return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;
}
inline long gcdbg_pow_i64(long b, long e) {
  if (e < 0) return b == 1 ? 1 : (b == -1 ? ((e & 1) ? -1 : 1) : 0);
  long r = 1;
  while (e > 0) { if (e & 1) r *= b; b *= b; e >>= 1; }
  return r;
}

/* Philox4x32-10 (Salmon et al. 2011): gcdbg's counter-based generator for
   random ops without recorded draws (tensor.PhiloxUniform). */
inline double gcdbg_philox_uniform(double seed_d, double ctr_d) {
  const ulong seed = (ulong)seed_d, c = (ulong)ctr_d;
  uint c0 = (uint)c, c1 = (uint)(c >> 32), c2 = 0, c3 = 0;
  uint k0 = (uint)seed, k1 = (uint)(seed >> 32);
  for (int r = 0; r < 10; r++) {
    if (r > 0) {
      k0 += 0x9E3779B9u;
      k1 += 0xBB67AE85u;
    }
    const ulong p0 = (ulong)0xD2511F53u * c0, p1 = (ulong)0xCD9E8D57u * c2;
    const uint n0 = (uint)(p1 >> 32) ^ c1 ^ k0, n2 = (uint)(p0 >> 32) ^ c3 ^ k1;
    c1 = (uint)p1;
    c3 = (uint)p0;
    c0 = n0;
    c2 = n2;
  }
  return (double)(c0 >> 8) * (1.0 / 16777216.0);
}

// kernel 0: buf0 pointwise, buf1 pointwise
// origins: sin, cos
// File: sin_cos.py:8, code: y = x.sin()
// File: sin_cos.py:9, code: z = y.cos()
__kernel void k0_cos_sin(__global const float *b_arg0_1, __global float *b_buf0, __global float *b_buf1) {
  for (long i = ((long)get_global_id(0)); i < 8192; i += ((long)get_global_size(0))) {
    const long x0 = (i / 128);
    const long x1 = (i % 128);
    const float t0 = b_arg0_1[(x1 + 128*x0)];
    const float t1 = sin(t0);  // sin
    b_buf0[(x1 + 128*x0)] = t1;
    const float t2 = cos(t1);  // cos
    b_buf1[(x1 + 128*x0)] = t2;
  }
}
