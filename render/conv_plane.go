package render

import "fmt"

// convPlanePrelude is written once per program, before the helpers of
// every element type: the plane's geometry, and gcdbg_conv_chunk, the
// output rows per im2col + GEMM. A column matrix over 1 MB (the core's L2)
// is written and multiplied in chunks of output rows of about 512 KB
// (conv2d and conv2d_backward_weight, whose GEMM then accumulates chunk by
// chunk with beta 1): in one piece it went out to memory and back.
// Measured with a C probe (2026-11-26 04:45, one thread, best of 25 rounds
// of 4 images, load 8-9): gn_classifier's 32->32 3x3 at 64x64 (col 4.7
// MB) forward 1.41 -> 1.06 ms per image, weight gradient 1.64 -> 1.15;
// 64->64 at 32x32 (2.4 MB) 2.09 -> 0.96 and 4.0 -> 0.95; resnet_block's
// 16x16 (590 KB) stays in one piece (8-row chunks measured the same).
const convPlanePrelude = `
/* the padded plane of a window geometry: rows (OH-1)*s0 + (KH-1)*d0 + 1, columns (OW-1)*s1 + (KW-1)*d1 + 1;
   0 when it would not fit the stack (GCDBG_PLANE_BYTES), and the masked loops run */
#define GCDBG_PLANE_BYTES 65536
static inline int64_t gcdbg_conv_plane(int64_t OH, int64_t OW, int64_t KH, int64_t KW, int64_t s0, int64_t s1, int64_t d0, int64_t d1,
    size_t elem, int64_t *Hp, int64_t *Wp) {
  if (OH <= 0 || OW <= 0 || KH <= 0 || KW <= 0) return 0;
  *Hp = (OH - 1) * s0 + (KH - 1) * d0 + 1;
  *Wp = (OW - 1) * s1 + (KW - 1) * d1 + 1;
  if (*Hp > 4096 || *Wp > 4096 || (size_t)(*Hp * *Wp) * elem > GCDBG_PLANE_BYTES) return 0;
  return *Hp * *Wp;
}
/* output rows per im2col call: all OH unless the column matrix (CGK x OH*OW) would outgrow
   GCDBG_COL_BYTES, then as many as fit (at least 1): a chunk's columns stay in the core's L2
   cache for its GEMM instead of going out to memory and back */
#define GCDBG_COL_BYTES (1 << 20)
#define GCDBG_COL_CHUNK_BYTES (1 << 19)
static inline int64_t gcdbg_conv_chunk(int64_t CGK, int64_t OH, int64_t OW, size_t elem) {
  if (CGK <= 0 || OH <= 0 || OW <= 0 || (size_t)(CGK * OH * OW) * elem <= GCDBG_COL_BYTES) return OH > 0 ? OH : 1;
  const int64_t r = (int64_t)(GCDBG_COL_CHUNK_BYTES / ((size_t)(CGK * OW) * elem));
  return r < 1 ? 1 : r < OH ? r : OH;
}
`

// convPlaneHelpers are im2col and col2im through a zero-padded copy of one
// channel plane (conv.go's gcdbg_im2col/gcdbg_col2im call them when the
// plane fits the stack).
//
// The plane holds the input rows and columns the windows reach, padding
// included, so every row of the column matrix is an unmasked copy of OW
// elements (strided by the column stride) out of it, and col2im adds each
// row unmasked into it, then writes the plane's interior into dX (rows
// and columns no window reaches get 0), so dX needs no memset before.
// The stride-1 row loop runs in whole chunks of 16 (one AVX-512 vector of
// float) and a remainder. The values are those of the masked loops: the
// same zeros for padding, the same additions in the same order per dX
// element (kh, kw, oh order, from 0).
//
// Measured with a C probe (2026-11-26 04:03, one thread, best of 15 or 20
// rounds, load 10-12 on the 2 cores): resnet_block_train's 64->64 3x3 pad
// 1 at 16x16, per image, im2col 16.2 -> 12.4 us (a 590 KB memcpy takes
// 12.0), col2im 33.6 -> 15.8 us, plus the 2 MB memset of dX the masked
// col2im needed.
func convPlaneHelpers(t string) string {
	return fmt.Sprintf(`
/* d[ow * s1] += s[ow] for ow < OW: one output row of the column matrix added into a padded plane row;
   the stride-1 row in whole chunks of 16 (one AVX-512 vector of float) and a remainder */
static inline void gcdbg_plane_add_row_%[1]s(%[2]s *restrict d, const %[2]s *restrict s, int64_t OW, int64_t s1) {
  if (s1 == 1) {
    int64_t ow = 0;
    for (; ow + 16 <= OW; ow += 16)
      for (int j = 0; j < 16; j++) d[ow + j] += s[ow + j];
    for (; ow < OW; ow++) d[ow] += s[ow];
  } else {
    for (int64_t ow = 0; ow < OW; ow++) d[ow * s1] += s[ow];
  }
}
/* dX's plane (H x W) from padded plane P (Hp x Wp): dX row ih is plane row ih + p0, column iw plane
   column iw + p1; those past the plane get 0 */
static inline void gcdbg_plane_to_dx_%[1]s(const %[2]s *P, int64_t Hp, int64_t Wp, int64_t p0, int64_t p1, int64_t H, int64_t W, %[2]s *dX) {
  for (int64_t ih = 0; ih < H; ih++) {
    %[2]s *x = dX + ih * W;
    const int64_t r = ih + p0;
    const int64_t w1 = r < Hp ? (Wp - p1 < W ? Wp - p1 : W) : 0;
    int64_t j = 0;
    if (w1 > 0) {
      const %[2]s *pr = P + r * Wp + p1;
      for (; j < w1; j++) x[j] = pr[j];
    }
    for (; j < W; j++) x[j] = 0;
  }
}
static __attribute__((unused)) void gcdbg_im2col_plane_%[1]s(const %[2]s *X, int64_t sc, int64_t sh, int64_t sw, int64_t CG, int64_t H, int64_t W,
    int64_t KH, int64_t KW, int64_t OH, int64_t OW, int64_t s0, int64_t s1, int64_t p0, int64_t p1, int64_t d0, int64_t d1,
    int64_t Hp, int64_t Wp, int64_t oh0, int64_t oh1, %[2]s *col) {
  const int64_t NR = oh1 - oh0; /* the output rows this call writes: col is [CG*KH*KW, NR*OW] */
  #pragma omp parallel for if(CG * KH * KW * NR * OW > 32768 && !omp_in_parallel())
  for (int64_t c = 0; c < CG; c++) {
    %[2]s P[Hp * Wp];
    /* only the plane rows those output rows' windows reach */
    for (int64_t r = oh0 * s0; r < (oh1 - 1) * s0 + (KH - 1) * d0 + 1; r++) {
      %[2]s *pr = P + r * Wp;
      const int64_t ih = r - p0;
      if (ih < 0 || ih >= H) { for (int64_t j = 0; j < Wp; j++) pr[j] = 0; continue; }
      const %[2]s *x = X + c * sc + ih * sh;
      const int64_t lo = p1 < Wp ? p1 : Wp, hi = p1 + W < Wp ? p1 + W : Wp;
      for (int64_t j = 0; j < lo; j++) pr[j] = 0;
      if (sw == 1) for (int64_t j = lo; j < hi; j++) pr[j] = x[j - p1];
      else for (int64_t j = lo; j < hi; j++) pr[j] = x[(j - p1) * sw];
      for (int64_t j = hi; j < Wp; j++) pr[j] = 0;
    }
    for (int64_t kh = 0; kh < KH; kh++)
      for (int64_t kw = 0; kw < KW; kw++) {
        %[2]s *restrict dst = col + ((c * KH + kh) * KW + kw) * NR * OW;
        const %[2]s *restrict src = P + kh * d0 * Wp + kw * d1;
        for (int64_t oh = oh0; oh < oh1; oh++) {
          const %[2]s *restrict s = src + oh * s0 * Wp;
          %[2]s *restrict d = dst + (oh - oh0) * OW;
          if (s1 == 1) {
            int64_t ow = 0;
            for (; ow + 16 <= OW; ow += 16)
              for (int j = 0; j < 16; j++) d[ow + j] = s[ow + j];
            for (; ow < OW; ow++) d[ow] = s[ow];
          } else {
            for (int64_t ow = 0; ow < OW; ow++) d[ow] = s[ow * s1];
          }
        }
      }
  }
}
static __attribute__((unused)) void gcdbg_col2im_plane_%[1]s(const %[2]s *col, int64_t CG, int64_t H, int64_t W, int64_t KH, int64_t KW, int64_t OH, int64_t OW,
    int64_t s0, int64_t s1, int64_t p0, int64_t p1, int64_t d0, int64_t d1, int64_t Hp, int64_t Wp, %[2]s *dX) {
  #pragma omp parallel for if(CG * KH * KW * OH * OW > 32768 && !omp_in_parallel())
  for (int64_t c = 0; c < CG; c++) {
    %[2]s P[Hp * Wp];
    for (int64_t i = 0; i < Hp * Wp; i++) P[i] = 0;
    for (int64_t kh = 0; kh < KH; kh++)
      for (int64_t kw = 0; kw < KW; kw++) {
        const %[2]s *restrict src = col + ((c * KH + kh) * KW + kw) * OH * OW;
        %[2]s *restrict dst = P + kh * d0 * Wp + kw * d1;
        for (int64_t oh = 0; oh < OH; oh++) {
          gcdbg_plane_add_row_%[1]s(dst + oh * s0 * Wp, src + oh * OW, OW, s1);
        }
      }
    gcdbg_plane_to_dx_%[1]s(P, Hp, Wp, p0, p1, H, W, dX + c * H * W);
  }
}
`, sanitizeIdent(t), t) + convBwdInputHelper(t) // conv_bwd_input.go
}
