/* gcdbg generated opencl source: trace mlp.json, graph g0 (forward). Do not edit. */
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

// kernel 0: buf0 extern mm, buf1 pointwise, buf2 pointwise
// origins: linear_relu_stack_0_mm, linear_relu_stack_0, linear_relu_stack_1
// File: mlp.py:23, code: logits = self.linear_relu_stack(x)
__kernel void k0_linear_relu_stack_1_linear_relu_stack_0_linear_r(__global float *b_buf0, __global const float *b_arg0_1, __global const float *b_arg1_1, __global const float *b_arg2_1, __global float *b_buf2) {
  __local float As[16][17];
  __local float Bs[16][17];
  const long lid = ((long)get_local_id(0));
  const long M = 8, N = 512, K = 784, NB = 1;
  const long TM = (M + 15) / 16, TN = (N + 15) / 16;
  const long ty = lid / 16, tx = lid % 16;
  for (long tile = ((long)get_group_id(0)); tile < NB * TM * TN; tile += ((long)get_num_groups(0))) {
    const long bi = tile / (TM * TN), i = (tile / TN) % TM * 16 + ty, j = tile % TN * 16 + tx;
    const __global float *A = (b_arg0_1 + 0) + bi * 0; const __global float *B = (b_arg1_1 + 0) + bi * 0;
    float acc = 0;
    for (long k0 = 0; k0 < K; k0 += 16) {
      As[ty][tx] = (i < M && k0 + tx < K) ? A[i * 784 + (k0 + tx) * 1] : (float)0;
      Bs[ty][tx] = (k0 + ty < K && j < N) ? B[(k0 + ty) * 1 + j * 784] : (float)0;
      barrier(CLK_LOCAL_MEM_FENCE);
      for (int kk = 0; kk < 16; kk++) acc += As[ty][kk] * Bs[kk][tx];
      barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (i < M && j < N) {
      const long f = (bi * M + i) * N + j;
      b_buf0[f] = acc;
      const long x0 = (f / 512);
      const long x1 = (f % 512);
      const float t0 = b_buf0[(x1 + 512*x0)];
      const float t1 = b_arg2_1[x1];
      const float t2 = (t0 + t1);  // linear_relu_stack_0
      const float t3 = ((t2 > 0 || t2 != t2) ? t2 : 0);  // linear_relu_stack_1
      b_buf2[(x1 + 512*x0)] = t3;
    }
  }
}

// kernel 1: buf3 extern mm, buf4 pointwise, buf5 pointwise
// origins: linear_relu_stack_2_mm, linear_relu_stack_2, linear_relu_stack_3
// File: mlp.py:23, code: logits = self.linear_relu_stack(x)
__kernel void k1_linear_relu_stack_3_linear_relu_stack_2_linear_r(__global float *b_buf3, __global const float *b_buf2, __global const float *b_arg3_1, __global const float *b_arg4_1, __global float *b_buf5) {
  __local float As[16][17];
  __local float Bs[16][17];
  const long lid = ((long)get_local_id(0));
  const long M = 8, N = 512, K = 512, NB = 1;
  const long TM = (M + 15) / 16, TN = (N + 15) / 16;
  const long ty = lid / 16, tx = lid % 16;
  for (long tile = ((long)get_group_id(0)); tile < NB * TM * TN; tile += ((long)get_num_groups(0))) {
    const long bi = tile / (TM * TN), i = (tile / TN) % TM * 16 + ty, j = tile % TN * 16 + tx;
    const __global float *A = (b_buf2 + 0) + bi * 0; const __global float *B = (b_arg3_1 + 0) + bi * 0;
    float acc = 0;
    for (long k0 = 0; k0 < K; k0 += 16) {
      As[ty][tx] = (i < M && k0 + tx < K) ? A[i * 512 + (k0 + tx) * 1] : (float)0;
      Bs[ty][tx] = (k0 + ty < K && j < N) ? B[(k0 + ty) * 1 + j * 512] : (float)0;
      barrier(CLK_LOCAL_MEM_FENCE);
      for (int kk = 0; kk < 16; kk++) acc += As[ty][kk] * Bs[kk][tx];
      barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (i < M && j < N) {
      const long f = (bi * M + i) * N + j;
      b_buf3[f] = acc;
      const long x0 = (f / 512);
      const long x1 = (f % 512);
      const float t0 = b_buf3[(x1 + 512*x0)];
      const float t1 = b_arg4_1[x1];
      const float t2 = (t0 + t1);  // linear_relu_stack_2
      const float t3 = ((t2 > 0 || t2 != t2) ? t2 : 0);  // linear_relu_stack_3
      b_buf5[(x1 + 512*x0)] = t3;
    }
  }
}

// kernel 2: buf6 extern mm, buf7 pointwise
// origins: linear_relu_stack_4_mm, linear_relu_stack_4
// File: mlp.py:23, code: logits = self.linear_relu_stack(x)
__kernel void k2_linear_relu_stack_4_linear_relu_stack_4_mm(__global float *b_buf6, __global const float *b_buf5, __global const float *b_arg5_1, __global const float *b_arg6_1, __global float *b_buf7) {
  __local float As[16][17];
  __local float Bs[16][17];
  const long lid = ((long)get_local_id(0));
  const long M = 8, N = 10, K = 512, NB = 1;
  const long TM = (M + 15) / 16, TN = (N + 15) / 16;
  const long ty = lid / 16, tx = lid % 16;
  for (long tile = ((long)get_group_id(0)); tile < NB * TM * TN; tile += ((long)get_num_groups(0))) {
    const long bi = tile / (TM * TN), i = (tile / TN) % TM * 16 + ty, j = tile % TN * 16 + tx;
    const __global float *A = (b_buf5 + 0) + bi * 0; const __global float *B = (b_arg5_1 + 0) + bi * 0;
    float acc = 0;
    for (long k0 = 0; k0 < K; k0 += 16) {
      As[ty][tx] = (i < M && k0 + tx < K) ? A[i * 512 + (k0 + tx) * 1] : (float)0;
      Bs[ty][tx] = (k0 + ty < K && j < N) ? B[(k0 + ty) * 1 + j * 512] : (float)0;
      barrier(CLK_LOCAL_MEM_FENCE);
      for (int kk = 0; kk < 16; kk++) acc += As[ty][kk] * Bs[kk][tx];
      barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (i < M && j < N) {
      const long f = (bi * M + i) * N + j;
      b_buf6[f] = acc;
      const long x0 = (f / 10);
      const long x1 = (f % 10);
      const float t0 = b_buf6[(x1 + 10*x0)];
      const float t1 = b_arg6_1[x1];
      const float t2 = (t0 + t1);  // linear_relu_stack_4
      b_buf7[(x1 + 10*x0)] = t2;
    }
  }
}

// kernel 3: buf8 pointwise
// origins: primals_1
__kernel void k3_primals_1(__global const float *b_arg0_1, __global float *b_buf8) {
  for (long i = ((long)get_global_id(0)); i < 6272; i += ((long)get_global_size(0))) {
    const long x0 = (i / 784);
    const long x1 = ((i / 28) % 28);
    const long x2 = (i % 28);
    const float t0 = b_arg0_1[(x2 + 28*x1 + 784*x0)];  // primals_1
    b_buf8[(x2 + 28*x1 + 784*x0)] = t0;
  }
}

// kernel 4: buf9 pointwise
// origins: primals_4
// File: mlp.py:23, code: logits = self.linear_relu_stack(x)
__kernel void k4_primals_4(__global const float *b_arg3_1, __global float *b_buf9) {
  for (long i = ((long)get_global_id(0)); i < 262144; i += ((long)get_global_size(0))) {
    const long x0 = (i / 512);
    const long x1 = (i % 512);
    const float t0 = b_arg3_1[(x1 + 512*x0)];  // primals_4
    b_buf9[(x1 + 512*x0)] = t0;
  }
}

// kernel 5: buf10 pointwise
// origins: primals_6
// File: mlp.py:23, code: logits = self.linear_relu_stack(x)
__kernel void k5_primals_6(__global const float *b_arg5_1, __global float *b_buf10) {
  for (long i = ((long)get_global_id(0)); i < 5120; i += ((long)get_global_size(0))) {
    const long x0 = (i / 512);
    const long x1 = (i % 512);
    const float t0 = b_arg5_1[(x1 + 512*x0)];  // primals_6
    b_buf10[(x1 + 512*x0)] = t0;
  }
}
