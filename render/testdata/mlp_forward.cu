/* gcdbg generated cuda source: trace mlp.json, graph g0 (forward). Do not edit. */
typedef long long int64_t;
typedef int int32_t;
typedef signed char int8_t;
typedef unsigned char uint8_t;
typedef short int16_t;
typedef unsigned short uint16_t;
typedef unsigned int uint32_t;
typedef unsigned long long uint64_t;
#ifndef INFINITY
#define INFINITY __int_as_float(0x7f800000)
#endif
#ifndef NAN
#define NAN __int_as_float(0x7fffffff)
#endif
__device__ inline int64_t gcdbg_floordiv_i64(int64_t a, int64_t b) {
  if (b == 0) return 0;
  int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}
__device__ inline int64_t gcdbg_mod_i64(int64_t a, int64_t b) {
  if (b == 0) return 0;
  int64_t r = a % b;
  return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;
}
__device__ inline int64_t gcdbg_pow_i64(int64_t b, int64_t e) {
  if (e < 0) return b == 1 ? 1 : (b == -1 ? ((e & 1) ? -1 : 1) : 0);
  int64_t r = 1;
  while (e > 0) { if (e & 1) r *= b; b *= b; e >>= 1; }
  return r;
}

/* Philox4x32-10 (Salmon et al. 2011): gcdbg's counter-based generator for
   random ops without recorded draws (tensor.PhiloxUniform). */
__device__ inline double gcdbg_philox_uniform(double seed_d, double ctr_d) {
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

// kernel 0: buf0 extern mm, buf1 pointwise, buf2 pointwise
// origins: linear_relu_stack_0_mm, linear_relu_stack_0, linear_relu_stack_1
// File: mlp.py:23, code: logits = self.linear_relu_stack(x)
extern "C" __global__ void k0_linear_relu_stack_1_linear_relu_stack_0_linear_r(float *b_buf0, const float *b_arg0_1, const float *b_arg1_1, const float *b_arg2_1, float *b_buf2) {
  __shared__ float As[16][17];
  __shared__ float Bs[16][17];
  const int64_t lid = ((int64_t)threadIdx.x);
  const int64_t M = 8, N = 512, K = 784, NB = 1;
  const int64_t TM = (M + 15) / 16, TN = (N + 15) / 16;
  const int64_t ty = lid / 16, tx = lid % 16;
  for (int64_t tile = ((int64_t)blockIdx.x); tile < NB * TM * TN; tile += ((int64_t)gridDim.x)) {
    const int64_t bi = tile / (TM * TN), i = (tile / TN) % TM * 16 + ty, j = tile % TN * 16 + tx;
    const float *A = (b_arg0_1 + 0) + bi * 0; const float *B = (b_arg1_1 + 0) + bi * 0;
    float acc = 0;
    for (int64_t k0 = 0; k0 < K; k0 += 16) {
      As[ty][tx] = (i < M && k0 + tx < K) ? A[i * 784 + (k0 + tx) * 1] : (float)0;
      Bs[ty][tx] = (k0 + ty < K && j < N) ? B[(k0 + ty) * 1 + j * 784] : (float)0;
      __syncthreads();
      for (int kk = 0; kk < 16; kk++) acc += As[ty][kk] * Bs[kk][tx];
      __syncthreads();
    }
    if (i < M && j < N) {
      const int64_t f = (bi * M + i) * N + j;
      b_buf0[f] = acc;
      const int64_t x0 = (f / 512);
      const int64_t x1 = (f % 512);
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
extern "C" __global__ void k1_linear_relu_stack_3_linear_relu_stack_2_linear_r(float *b_buf3, const float *b_buf2, const float *b_arg3_1, const float *b_arg4_1, float *b_buf5) {
  __shared__ float As[16][17];
  __shared__ float Bs[16][17];
  const int64_t lid = ((int64_t)threadIdx.x);
  const int64_t M = 8, N = 512, K = 512, NB = 1;
  const int64_t TM = (M + 15) / 16, TN = (N + 15) / 16;
  const int64_t ty = lid / 16, tx = lid % 16;
  for (int64_t tile = ((int64_t)blockIdx.x); tile < NB * TM * TN; tile += ((int64_t)gridDim.x)) {
    const int64_t bi = tile / (TM * TN), i = (tile / TN) % TM * 16 + ty, j = tile % TN * 16 + tx;
    const float *A = (b_buf2 + 0) + bi * 0; const float *B = (b_arg3_1 + 0) + bi * 0;
    float acc = 0;
    for (int64_t k0 = 0; k0 < K; k0 += 16) {
      As[ty][tx] = (i < M && k0 + tx < K) ? A[i * 512 + (k0 + tx) * 1] : (float)0;
      Bs[ty][tx] = (k0 + ty < K && j < N) ? B[(k0 + ty) * 1 + j * 512] : (float)0;
      __syncthreads();
      for (int kk = 0; kk < 16; kk++) acc += As[ty][kk] * Bs[kk][tx];
      __syncthreads();
    }
    if (i < M && j < N) {
      const int64_t f = (bi * M + i) * N + j;
      b_buf3[f] = acc;
      const int64_t x0 = (f / 512);
      const int64_t x1 = (f % 512);
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
extern "C" __global__ void k2_linear_relu_stack_4_linear_relu_stack_4_mm(float *b_buf6, const float *b_buf5, const float *b_arg5_1, const float *b_arg6_1, float *b_buf7) {
  __shared__ float As[16][17];
  __shared__ float Bs[16][17];
  const int64_t lid = ((int64_t)threadIdx.x);
  const int64_t M = 8, N = 10, K = 512, NB = 1;
  const int64_t TM = (M + 15) / 16, TN = (N + 15) / 16;
  const int64_t ty = lid / 16, tx = lid % 16;
  for (int64_t tile = ((int64_t)blockIdx.x); tile < NB * TM * TN; tile += ((int64_t)gridDim.x)) {
    const int64_t bi = tile / (TM * TN), i = (tile / TN) % TM * 16 + ty, j = tile % TN * 16 + tx;
    const float *A = (b_buf5 + 0) + bi * 0; const float *B = (b_arg5_1 + 0) + bi * 0;
    float acc = 0;
    for (int64_t k0 = 0; k0 < K; k0 += 16) {
      As[ty][tx] = (i < M && k0 + tx < K) ? A[i * 512 + (k0 + tx) * 1] : (float)0;
      Bs[ty][tx] = (k0 + ty < K && j < N) ? B[(k0 + ty) * 1 + j * 512] : (float)0;
      __syncthreads();
      for (int kk = 0; kk < 16; kk++) acc += As[ty][kk] * Bs[kk][tx];
      __syncthreads();
    }
    if (i < M && j < N) {
      const int64_t f = (bi * M + i) * N + j;
      b_buf6[f] = acc;
      const int64_t x0 = (f / 10);
      const int64_t x1 = (f % 10);
      const float t0 = b_buf6[(x1 + 10*x0)];
      const float t1 = b_arg6_1[x1];
      const float t2 = (t0 + t1);  // linear_relu_stack_4
      b_buf7[(x1 + 10*x0)] = t2;
    }
  }
}

// kernel 3: buf8 pointwise
// origins: primals_1
extern "C" __global__ void k3_primals_1(const float *b_arg0_1, float *b_buf8) {
  for (int64_t i = ((int64_t)blockIdx.x * blockDim.x + threadIdx.x); i < 6272; i += ((int64_t)gridDim.x * blockDim.x)) {
    const int64_t x0 = (i / 784);
    const int64_t x1 = ((i / 28) % 28);
    const int64_t x2 = (i % 28);
    const float t0 = b_arg0_1[(x2 + 28*x1 + 784*x0)];  // primals_1
    b_buf8[(x2 + 28*x1 + 784*x0)] = t0;
  }
}

// kernel 4: buf9 pointwise
// origins: primals_4
// File: mlp.py:23, code: logits = self.linear_relu_stack(x)
extern "C" __global__ void k4_primals_4(const float *b_arg3_1, float *b_buf9) {
  for (int64_t i = ((int64_t)blockIdx.x * blockDim.x + threadIdx.x); i < 262144; i += ((int64_t)gridDim.x * blockDim.x)) {
    const int64_t x0 = (i / 512);
    const int64_t x1 = (i % 512);
    const float t0 = b_arg3_1[(x1 + 512*x0)];  // primals_4
    b_buf9[(x1 + 512*x0)] = t0;
  }
}

// kernel 5: buf10 pointwise
// origins: primals_6
// File: mlp.py:23, code: logits = self.linear_relu_stack(x)
extern "C" __global__ void k5_primals_6(const float *b_arg5_1, float *b_buf10) {
  for (int64_t i = ((int64_t)blockIdx.x * blockDim.x + threadIdx.x); i < 5120; i += ((int64_t)gridDim.x * blockDim.x)) {
    const int64_t x0 = (i / 512);
    const int64_t x1 = (i % 512);
    const float t0 = b_arg5_1[(x1 + 512*x0)];  // primals_6
    b_buf10[(x1 + 512*x0)] = t0;
  }
}
