/* gcdbg generated opencl source: trace softmax.py, graph g0 (inference). Do not edit. */
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

// kernel 0: buf0 reduction, buf1 pointwise, buf2 pointwise, buf3 reduction, buf4 pointwise
// origins: m, sub, e, sum, truediv
__kernel void k0_truediv_sum_e(__global const float *b_arg0_1, __global float *b_buf4) {
  __local float sh_t0[256];
  __local double sh_t3[256];
  const long lid = ((long)get_local_id(0));
  for (long xo = ((long)get_group_id(0)); xo < 8; xo += ((long)get_num_groups(0))) {
    const long x0 = xo;
    float t0 = (-(float)INFINITY);
    for (long ri = lid; ri < 1024; ri += ((long)get_local_size(0))) {
      const long r0 = ri;
      const float t1 = b_arg0_1[(1024*x0 + r0)];
      t0 = (t1 > t0 || t1 != t1) ? t1 : t0;
    }
    sh_t0[lid] = t0;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int s = 128; s > 0; s >>= 1) {
      if (lid < s) {
        sh_t0[lid] = (sh_t0[lid + s] > sh_t0[lid] || sh_t0[lid + s] != sh_t0[lid + s]) ? sh_t0[lid + s] : sh_t0[lid];
      }
      barrier(CLK_LOCAL_MEM_FENCE);
    }
    t0 = sh_t0[0];
    barrier(CLK_LOCAL_MEM_FENCE);
    const float t2 = ((float)t0);
    double t3 = 0;
    for (long ri = lid; ri < 1024; ri += ((long)get_local_size(0))) {
      const long r0 = ri;
      const float t4 = b_arg0_1[(r0 + 1024*x0)];
      const float t5 = (t4 - t2);  // sub
      const float t6 = exp(t5);  // e
      t3 += (double)t6;
    }
    sh_t3[lid] = t3;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int s = 128; s > 0; s >>= 1) {
      if (lid < s) {
        sh_t3[lid] += sh_t3[lid + s];
      }
      barrier(CLK_LOCAL_MEM_FENCE);
    }
    t3 = sh_t3[0];
    barrier(CLK_LOCAL_MEM_FENCE);
    const float t7 = ((float)t3);
    for (long ri = lid; ri < 1024; ri += ((long)get_local_size(0))) {
      const long r0 = ri;
      const float t8 = b_arg0_1[(r0 + 1024*x0)];
      const float t9 = (t8 - t2);  // sub
      const float t10 = exp(t9);  // e
      const float t11 = (t10 / t7);  // truediv
      b_buf4[(r0 + 1024*x0)] = t11;
    }
  }
}
