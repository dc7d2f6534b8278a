package render

import "fmt"

// conv2d_backward_input in chunks of output rows (conv.go's
// convBackwardInput calls it when the column matrix would outgrow
// GCDBG_COL_BYTES, as gcdbg_conv_chunk decides for the forward and the
// weight gradient).
//
// In one piece, an image's column matrix W_gᵀ·dY_g ([CG·KH·KW, OH·OW]:
// 4.7 MB for vgg_bn_train's 32->32 3x3 at 64x64) is written by the GEMM
// out to L3/memory and read back by col2im. Here the GEMM writes the
// columns of ch output rows at a time (about 512 KB, GCDBG_COL_CHUNK_BYTES)
// and each chunk is added at once, while it is in the core's L2, into
// zero-padded planes of the image's input gradient (CG planes of Hp x Wp:
// every window's rows and columns, padding included, so the adds are
// unmasked row adds as conv_plane.go's col2im), whose interior is then
// written to dX (rows and columns no window reaches get 0: no memset of
// dX before). The same additions as the unchunked col2im, but an element
// of dX that windows of two chunks reach takes the later chunk's terms
// first (kh descending across chunks), so the last bits may differ from
// the one-piece path; the values are checked against PyTorch
// (runner TestConvPlaneMatchesPyTorch: big's and wide's input gradients).
func convBwdInputHelper(t string) string {
	return fmt.Sprintf(`
/* dX of one image and group (CG planes of H x W) = col2im(A B), A = W_g^T [CGK, OCG] (strides sa0, sa1),
   B = dY_g [OCG, OH*OW] (strides sb0, sb1): the GEMM writes the columns of ch output rows at a time into col
   ([CGK, ch*OW]), added at once into the zeroed padded planes acc (CG x Hp x Wp), whose interior is written to dX */
static __attribute__((unused)) void gcdbg_conv_bwd_input_rows_%[1]s(
    void (*gemm)(int64_t, int64_t, int64_t, const %[2]s *, int64_t, int64_t, const %[2]s *, int64_t, int64_t, %[2]s *, int64_t),
    const %[2]s *A, int64_t sa0, int64_t sa1, const %[2]s *B, int64_t sb0, int64_t sb1, int64_t OCG,
    int64_t CG, int64_t H, int64_t W, int64_t KH, int64_t KW, int64_t OH, int64_t OW,
    int64_t s0, int64_t s1, int64_t p0, int64_t p1, int64_t d0, int64_t d1, int64_t ch, %[2]s *col, %[2]s *acc, %[2]s *dX) {
  const int64_t CGK = CG * KH * KW, Hp = (OH - 1) * s0 + (KH - 1) * d0 + 1, Wp = (OW - 1) * s1 + (KW - 1) * d1 + 1;
  for (int64_t i = 0; i < CG * Hp * Wp; i++) acc[i] = 0;
  for (int64_t oh0 = 0; oh0 < OH; oh0 += ch) {
    const int64_t oh1 = oh0 + ch < OH ? oh0 + ch : OH, NC = (oh1 - oh0) * OW;
    gemm(CGK, NC, OCG, A, sa0, sa1, B + oh0 * OW * sb1, sb0, sb1, col, NC);
    for (int64_t c = 0; c < CG; c++)
      for (int64_t kh = 0; kh < KH; kh++)
        for (int64_t kw = 0; kw < KW; kw++) {
          const %[2]s *src = col + ((c * KH + kh) * KW + kw) * NC;
          %[2]s *dst = acc + c * Hp * Wp + kh * d0 * Wp + kw * d1;
          for (int64_t oh = oh0; oh < oh1; oh++)
            gcdbg_plane_add_row_%[1]s(dst + oh * s0 * Wp, src + (oh - oh0) * OW, OW, s1); /* conv_plane.go */
        }
  }
  for (int64_t c = 0; c < CG; c++)
    gcdbg_plane_to_dx_%[1]s(acc + c * Hp * Wp, Hp, Wp, p0, p1, H, W, dX + c * H * W);
}
`, sanitizeIdent(t), t)
}

// convBwdInputRows writes convBackwardInput's per-image body: for a 1x1
// stride-1 unpadded convolution (d11) the GEMM straight into dX; else the
// one-piece GEMM + col2im when the column matrix fits (ch == OH), the
// chunked helper above otherwise. gemm is the GEMM function expression
// (convGemmFn), a the weight operand's pointer and strides (sa0 along
// CGK, sa1 along OCG), b dY's (sb0 along OCG, sb1 along OH·OW), dx the
// image's dX.
func (g *kernelGen) convBwdInputRows(t, gemm, a, sa0, sa1, b, sb0, sb1, dx string, stride, pad, dil [2]int64) {
	tn := sanitizeIdent(t)
	g.line("    if (d11) { /* 1x1, stride 1, no padding: col2im would copy the columns into dX as they are */")
	g.line("      %s(CGK, OHW, OCG, %s, %s, %s, %s, %s, %s, %s, OHW);", gemm, a, sa0, sa1, b, sb0, sb1, dx)
	g.line("    } else if (ch < OH) { /* the column matrix in chunks of output rows (conv_bwd_input.go) */")
	g.line("      gcdbg_conv_bwd_input_rows_%s(%s, %s, %s, %s, %s, %s, %s, OCG, CG, H, W, KH, KW, OH, OW, %d, %d, %d, %d, %d, %d, ch, col, accs + omp_get_thread_num() * CG * HWp, %s);",
		tn, gemm, a, sa0, sa1, b, sb0, sb1, stride[0], stride[1], pad[0], pad[1], dil[0], dil[1], dx)
	g.line("    } else {")
	g.line("      %s(CGK, OHW, OCG, %s, %s, %s, %s, %s, %s, col, OHW);", gemm, a, sa0, sa1, b, sb0, sb1)
	g.line("      gcdbg_col2im_%s(col, CG, H, W, KH, KW, OH, OW, %d, %d, %d, %d, %d, %d, %s);",
		tn, stride[0], stride[1], pad[0], pad[1], dil[0], dil[1], dx)
	g.line("    }")
}

// convBwdInputScratch declares ch (output rows per chunk), HWp (one padded
// plane's elements) and the scratch: cols (a chunk's column matrix per
// thread) and accs (slot 3: the padded planes per thread, only when
// chunked).
func (g *kernelGen) convBwdInputScratch(t string, stride, dil [2]int64) {
	g.line("const int64_t ch = gcdbg_conv_chunk(CGK, OH, OW, sizeof(%s)); /* output rows per GEMM + col2im (conv_plane.go) */", t)
	g.line("const int64_t HWp = ((OH - 1) * %d + (KH - 1) * %d + 1) * ((OW - 1) * %d + (KW - 1) * %d + 1);", stride[0], dil[0], stride[1], dil[1])
	g.line("%s *cols = (%s *)gcdbg_scratch(0, (size_t)(CGK * ch * OW > 0 ? nt * CGK * ch * OW : 1) * sizeof(%s));", t, t, t)
	g.line("%s *accs = ch < OH ? (%s *)gcdbg_scratch(3, (size_t)(nt * CG * HWp) * sizeof(%s)) : (%s *)0;", t, t, t, t)
}
