package render

import (
	"fmt"
	"strings"

	"gcdbg/ir"
	"gcdbg/loopir"
	"gcdbg/tensor"
)

// Extern calls: mm and bmm go to cblas_sgemm/dgemm of OpenBLAS, found at
// run time (dlopen in a lazily initialized static; the library has no
// link-time dependency on it), or to a generated cache-tiled GEMM when
// OpenBLAS is absent, the operands' strides do not suit BLAS, or
// GCDBG_NO_BLAS=1. conv2d is im2col + that GEMM (conv.go; direct loops
// over the output for tiny windows). The epilogue members then run over
// the output.

const blasPrelude = `
#include <dlfcn.h>
#include <pthread.h>
typedef void (*gcdbg_sgemm_t)(int, int, int, int, int, int, float, const float *, int, const float *, int, float, float *, int);
typedef void (*gcdbg_dgemm_t)(int, int, int, int, int, int, double, const double *, int, const double *, int, double, double *, int);
static gcdbg_sgemm_t gcdbg_sgemm;
static gcdbg_dgemm_t gcdbg_dgemm;
static pthread_once_t gcdbg_blas_once = PTHREAD_ONCE_INIT;
/* GCDBG_NO_BLAS=1: no OpenBLAS, no oneDNN (gemm_dnnl.go), the generated GEMM only */
static int gcdbg_no_blas(void) {
  const char *off = getenv("GCDBG_NO_BLAS");
  return off && off[0] && strcmp(off, "0") != 0;
}
static void gcdbg_blas_load(void) {
  if (gcdbg_no_blas()) return;
  void *h = dlopen("libopenblas.so.0", RTLD_NOW | RTLD_LOCAL);
  if (!h) h = dlopen("libopenblas.so", RTLD_NOW | RTLD_LOCAL);
  if (!h) return;
  gcdbg_sgemm = (gcdbg_sgemm_t)dlsym(h, "cblas_sgemm");
  gcdbg_dgemm = (gcdbg_dgemm_t)dlsym(h, "cblas_dgemm");
}
/* Reports whether GEMMs go to OpenBLAS (for tests and the debugger). */
int gcdbg_uses_blas(void) {
  pthread_once(&gcdbg_blas_once, gcdbg_blas_load);
  return gcdbg_sgemm != 0;
}
/* BLAS takes a matrix whose rows or columns are contiguous: NoTrans with
   ld = the row stride, or Trans with ld = the column stride. */
static int gcdbg_blas_layout(int64_t rows, int64_t cols, int64_t s0, int64_t s1, int *trans, int *ld) {
  if (rows >= 2147483647 || cols >= 2147483647) return 0;
  if (s1 == 1 && s0 >= (cols > 1 ? cols : 1) && s0 < 2147483647) { *trans = 111; *ld = (int)s0; return 1; }
  if (s0 == 1 && s1 >= (rows > 1 ? rows : 1) && s1 < 2147483647) { *trans = 112; *ld = (int)s1; return 1; }
  return 0;
}
/* OpenBLAS's thread count: set to n, returning the previous count (-1
   without OpenBLAS). The conv kernels set 1 while OpenMP threads run one
   GEMM each, and a GEMM kernel that chose one thread (render/choice.go)
   around its call; both restore it after. */
typedef void (*gcdbg_blas_set_threads_t)(int);
typedef int (*gcdbg_blas_get_threads_t)(void);
static gcdbg_blas_set_threads_t gcdbg_blas_set_threads;
static gcdbg_blas_get_threads_t gcdbg_blas_get_threads;
static pthread_once_t gcdbg_blas_threads_once = PTHREAD_ONCE_INIT;
static void gcdbg_blas_threads_load(void) {
  void *h = dlopen("libopenblas.so.0", RTLD_NOW | RTLD_LOCAL);
  if (!h) h = dlopen("libopenblas.so", RTLD_NOW | RTLD_LOCAL);
  if (!h) return;
  gcdbg_blas_set_threads = (gcdbg_blas_set_threads_t)dlsym(h, "openblas_set_num_threads");
  gcdbg_blas_get_threads = (gcdbg_blas_get_threads_t)dlsym(h, "openblas_get_num_threads");
}
static int gcdbg_blas_threads(int n) {
  pthread_once(&gcdbg_blas_threads_once, gcdbg_blas_threads_load);
  if (!gcdbg_blas_set_threads || !gcdbg_blas_get_threads) return -1;
  const int old = gcdbg_blas_get_threads();
  if (old != n) gcdbg_blas_set_threads(n);
  return old;
}
/* The generated GEMM's loops run on the OpenMP team unless a kernel chose
   one thread (render/choice.go); kernels run one at a time. */
static int gcdbg_gemm_team = 1;
`

// gemmFunc is the GEMM for one element type: C[M,N] (row stride ldc) =
// A[M,K] @ B[K,N] with arbitrary strides, through BLAS when the operands
// suit it, else the generated GEMM (gemmGenFunc).
func gemmFunc(name, t, blas string) string {
	var b strings.Builder
	b.WriteString(gemmGenFunc(gemmGenName(t), t))
	fmt.Fprintf(&b, "\nstatic void %s(int64_t M, int64_t N, int64_t K, const %s *A, int64_t sa0, int64_t sa1,\n", name, t)
	fmt.Fprintf(&b, "    const %s *B, int64_t sb0, int64_t sb1, %s *C, int64_t ldc) {\n", t, t)
	if blas != "" {
		fmt.Fprintf(&b, `  pthread_once(&gcdbg_blas_once, gcdbg_blas_load);
  int ta, tb, lda, ldb;
  if (%s && M > 0 && N > 0 && K > 0 && ldc < 2147483647 && gcdbg_blas_layout(M, K, sa0, sa1, &ta, &lda) &&
      gcdbg_blas_layout(K, N, sb0, sb1, &tb, &ldb)) {
    %s(101, ta, tb, (int)M, (int)N, (int)K, 1, A, lda, B, ldb, 0, C, (int)ldc);
    return;
  }
`, blas, blas)
	}
	fmt.Fprintf(&b, "  %s(M, N, K, A, sa0, sa1, B, sb0, sb1, C, ldc);\n}\n", gemmGenName(t))
	return b.String()
}

// gemmGenFunc is the generated GEMM: tiled over rows (OpenMP) and the K
// dimension so a block of B stays in cache. A kernel may choose it over
// BLAS by measurement (choice.go).
func gemmGenFunc(name, t string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "\nstatic void %s(int64_t M, int64_t N, int64_t K, const %s *A, int64_t sa0, int64_t sa1,\n", name, t)
	fmt.Fprintf(&b, "    const %s *B, int64_t sb0, int64_t sb1, %s *C, int64_t ldc) {\n", t, t)
	fmt.Fprintf(&b, `  if (sa1 == 1 && sb0 == 1) {
    /* Both operands contiguous along K (x @ W^T, a Linear layer's
       weight): one dot product per output, a vector reduction over K,
       parallel over all M x N outputs (a few rows, as an LSTM step's
       20, still fill the team). */
    #pragma omp parallel for collapse(2) if(gcdbg_gemm_team && M * N * K > 65536)
    for (int64_t i = 0; i < M; i++)
      for (int64_t j = 0; j < N; j++) {
        const %[1]s *a = A + i * sa0, *b = B + j * sb1;
        %[1]s acc = 0;
        #pragma omp simd reduction(+:acc)
        for (int64_t k = 0; k < K; k++) acc += a[k] * b[k];
        C[i * ldc + j] = acc;
      }
    return;
  }
  #pragma omp parallel for if(gcdbg_gemm_team && M * N * K > 65536)
  for (int64_t i0 = 0; i0 < M; i0 += 32) {
    const int64_t i1 = i0 + 32 < M ? i0 + 32 : M;
    for (int64_t i = i0; i < i1; i++)
      for (int64_t j = 0; j < N; j++) C[i * ldc + j] = 0;
    for (int64_t k0 = 0; k0 < K; k0 += 128) {
      const int64_t k1 = k0 + 128 < K ? k0 + 128 : K;
      for (int64_t i = i0; i < i1; i++) {
        %[1]s *c = C + i * ldc;
        for (int64_t k = k0; k < k1; k++) {
          const %[1]s a = A[i * sa0 + k * sa1];
          const %[1]s *b = B + k * sb0;
          for (int64_t j = 0; j < N; j++) c[j] += a * b[j * sb1];
        }
      }
    }
  }
}
`, t)
	return b.String()
}

func gemmName(t string) string { return "gcdbg_gemm_" + sanitizeIdent(t) }

// blasGemm is the BLAS GEMM pointer (blasPrelude) of element type dt, ""
// when BLAS has none.
func blasGemm(dt tensor.DType) string {
	return map[tensor.DType]string{tensor.Float32: "gcdbg_sgemm", tensor.Float64: "gcdbg_dgemm"}[dt]
}

func gemmGenName(t string) string { return "gcdbg_gemm_gen_" + sanitizeIdent(t) }

// gemmPrelude writes the BLAS loader and one GEMM per element type used.
func gemmPrelude(r *renderer) string {
	var dts []tensor.DType
	for _, k := range r.kernels {
		for _, n := range k.Nodes {
			if n.Kind == loopir.Extern && (n.Op == "mm" || n.Op == "bmm" || convOps[n.Op]) {
				if b := r.p.Buffers[n.Name]; b != nil && !r.gemms[b.DType] {
					r.gemms[b.DType] = true
					dts = append(dts, b.DType)
				}
			}
		}
	}
	if len(dts) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString(blasPrelude)
	b.WriteString(bmmPrelude) // gemm_batch.go
	for _, dt := range dts {
		t := r.d.Types[dt]
		blas := blasGemm(dt)
		b.WriteString(gemmFunc(gemmName(t), t, blas))
		if dt == tensor.Float32 {
			b.WriteString(dnnlPrelude)
			b.WriteString(gemmDNNLFunc(t))
		}
	}
	return b.String()
}

// operand is a tensor argument of an extern call: its view.
func (g *kernelGen) operand(a ir.Arg, what string) *loopir.View {
	n, ok := a.(*ir.Node)
	if !ok {
		g.fail("%s is not a tensor", what)
		return nil
	}
	v := g.r.p.Values[n.Name]
	if v == nil || g.r.store[v.Buffer] == nil {
		g.fail("%s (%s) has no buffer in memory", what, n.Name)
		return nil
	}
	g.use(v.Buffer)
	return v
}

func (g *kernelGen) ptr(v *loopir.View) string {
	return "(" + g.r.store[v.Buffer].c + " + " + g.expr(v.Offset, nil, nil) + ")"
}

func (g *kernelGen) e(x loopir.Expr) string { return g.expr(x, nil, nil) }

// externArgs binds the extern node's ir arguments to its schema.
func (g *kernelGen) externArgs(n *loopir.Node) []ir.Arg {
	bound, err := g.r.externArgs(n)
	if err != nil {
		g.fail("%v", err)
		return nil
	}
	return bound
}

// externArgs binds the extern node's ir arguments to its schema.
func (r *renderer) externArgs(n *loopir.Node) ([]ir.Arg, error) {
	if r.p.Graph == nil {
		return nil, fmt.Errorf("no graph for extern %s", n.Name)
	}
	irn := r.irNode(n.IRNode)
	if irn == nil {
		return nil, fmt.Errorf("extern %s: no graph node %q", n.Name, n.IRNode)
	}
	d := ir.Lookup(irn.Target)
	if d == nil {
		return nil, fmt.Errorf("extern %s: %q is not a canonical op", n.Name, irn.Target)
	}
	bound, err := d.Schema.Bind(irn.Args, irn.Kwargs)
	if err != nil {
		return nil, fmt.Errorf("extern %s: %v", n.Name, err)
	}
	return bound, nil
}

// extern writes the library call of n into its output buffer.
func (g *kernelGen) extern(n *loopir.Node) {
	args := g.externArgs(n)
	dst := n.Name
	fold := g.r.folded[n]
	if fold != nil {
		dst = fold.buf
	}
	out := g.r.store[dst]
	if args == nil || out == nil {
		g.fail("extern %s has no output buffer", n.Name)
		return
	}
	g.use(dst)
	ob := g.r.p.Buffers[n.Name]
	if b := g.narrowExtern(n); b != "" {
		g.fail("extern %s (%s) reads or writes %s: its library call has no 16-bit float variant (the loop IR makes it an eager fallback)", n.Name, n.Op, b)
		return
	}
	switch n.Op {
	case "mm":
		a, b := g.operand(args[0], "mm self"), g.operand(args[1], "mm mat2")
		if a == nil || b == nil || len(a.Sizes) != 2 || len(b.Sizes) != 2 {
			g.fail("mm %s: operands must be matrices", n.Name)
			return
		}
		M, N, K := g.e(a.Sizes[0]), g.e(b.Sizes[1]), g.e(a.Sizes[1])
		if fold != nil && fold.colStride != 1 {
			// The output holds the product transposed: C^T = B^T A^T,
			// the operands swapped and read through transposed strides.
			g.line("/* %s written transposed into %s (C^T = B^T A^T) */", n.Name, fold.buf)
			g.gemmThreads(g.ctype(ob.DType), func() {
				g.gemmCall(g.ctype(ob.DType), packableMM(b.Sizes[1], a.Sizes[0], a.Sizes[1], b.Strides[0], a.Strides[0]),
					skinnyMM(ob.DType, b.Sizes[1], b.Strides[0], a.Strides[1], a.Strides[0]), fmt.Sprintf("%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %d",
						N, M, K, g.ptr(b), g.e(b.Strides[1]), g.e(b.Strides[0]),
						g.ptr(a), g.e(a.Strides[1]), g.e(a.Strides[0]), out.c, fold.colStride))
			})
			return
		}
		g.gemmThreads(g.ctype(ob.DType), func() {
			g.gemmCall(g.ctype(ob.DType), packableMM(a.Sizes[0], b.Sizes[1], a.Sizes[1], a.Strides[1], b.Strides[1]),
				skinnyMM(ob.DType, a.Sizes[0], a.Strides[1], b.Strides[0], b.Strides[1]), fmt.Sprintf("%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s",
					M, N, K, g.ptr(a), g.e(a.Strides[0]), g.e(a.Strides[1]),
					g.ptr(b), g.e(b.Strides[0]), g.e(b.Strides[1]), out.c, N))
		})
	case "bmm":
		a, b := g.operand(args[0], "bmm self"), g.operand(args[1], "bmm mat2")
		if a == nil || b == nil || len(a.Sizes) != 3 || len(b.Sizes) != 3 {
			g.fail("bmm %s: operands must be batches of matrices", n.Name)
			return
		}
		M, N, K := g.e(a.Sizes[1]), g.e(b.Sizes[2]), g.e(a.Sizes[2])
		g.gemmThreads(g.ctype(ob.DType), func() {
			g.line("for (int64_t bi = 0; bi < %s; bi++) {", g.e(a.Sizes[0]))
			g.line("  %s(%s, %s, %s, %s + bi * %s, %s, %s, %s + bi * %s, %s, %s, %s + bi * %s * %s, %s);", g.gemmFn(g.ctype(ob.DType), false),
				M, N, K, g.ptr(a), g.e(a.Strides[0]), g.e(a.Strides[1]), g.e(a.Strides[2]),
				g.ptr(b), g.e(b.Strides[0]), g.e(b.Strides[1]), g.e(b.Strides[2]), out.c, M, N, N)
			g.line("}")
		})
	case "conv2d":
		g.conv2d(n, args, out, ob)
	case "conv2d_backward_input":
		g.convBackwardInput(n, args, out, ob)
	case "conv2d_backward_weight":
		g.convBackwardWeight(n, args, out, ob)
	case "max_pool2d":
		g.maxPool(n, args, out, ob)
	case "max_pool2d_backward":
		g.maxPoolBackward(n, args, out, ob)
	case "avg_pool2d":
		g.avgPool(n, args, out, ob)
	case "avg_pool2d_backward":
		g.avgPoolBackward(n, args, out, ob)
	case "adaptive_avg_pool2d":
		g.adaptiveAvgPool(n, args, out, ob, false)
	case "adaptive_avg_pool2d_backward":
		g.adaptiveAvgPool(n, args, out, ob, true)
	case "max_pool3d_with_indices", "adaptive_max_pool3d_with_indices":
		g.maxPoolND(n, args, out, ob) // pool_nd.go
	case "max_unpool3d":
		g.maxUnpool(n, args, out, ob)
	case "adaptive_max_pool3d_backward":
		g.maxPoolIndicesBackward(n, args, out, ob)
	case "sort", "topk":
		g.sortExtern(n, args, out, ob)
	case "cumsum", "cumprod", "logcumsumexp", "cummax", "cummin":
		g.scanExtern(n, args, out, ob) // scan.go, cummax.go
	case "scatter_add", "scatter", "scatter_reduce":
		g.scatterAddExtern(n, args, out, ob) // scatter_extern.go
	default:
		g.fail("extern %s: no generated code for %s", n.Name, n.Op)
	}
}

// pairArg reads an int or a pair of ints.
func pairArg(a ir.Arg) ([2]int64, bool) {
	switch x := a.(type) {
	case int64:
		return [2]int64{x, x}, true
	case ir.Tuple:
		if len(x) == 1 {
			return pairArg(x[0])
		}
		if len(x) == 2 {
			p, ok1 := x[0].(int64)
			q, ok2 := x[1].(int64)
			return [2]int64{p, q}, ok1 && ok2
		}
	case ir.List:
		return pairArg(ir.Tuple(x))
	}
	return [2]int64{}, false
}

// conv2d writes direct convolution loops (batched or unbatched input).
func (g *kernelGen) conv2d(n *loopir.Node, args []ir.Arg, out *storage, ob *loopir.Buffer) {
	x, w := g.operand(args[0], "conv2d input"), g.operand(args[1], "conv2d weight")
	if x == nil || w == nil || len(w.Sizes) != 4 || (len(x.Sizes) != 4 && len(x.Sizes) != 3) {
		g.fail("conv2d %s: input must be 3-D or 4-D and weight 4-D", n.Name)
		return
	}
	var bias *loopir.View
	if args[2] != nil {
		if bias = g.operand(args[2], "conv2d bias"); bias == nil {
			return
		}
	}
	stride, ok1 := pairArg(args[3])
	dil, ok3 := pairArg(args[5])
	groups, ok4 := args[6].(int64)
	var pad [2]int64
	ok2 := true
	switch p := args[4].(type) {
	case string:
		if p == "same" {
			for i := 0; i < 2; i++ {
				k, isC := w.Sizes[2+i].(loopir.Const)
				if !isC {
					ok2 = false
					break
				}
				pad[i] = dil[i] * (k.V - 1) / 2
				if dil[i]*(k.V-1)%2 != 0 {
					ok2 = false // asymmetric padding: not generated
				}
			}
		} else if p != "valid" {
			ok2 = false
		}
	default:
		pad, ok2 = pairArg(p)
	}
	if !ok1 || !ok2 || !ok3 || !ok4 || groups < 1 {
		g.fail("conv2d %s: stride, padding, dilation or groups not understood", n.Name)
		return
	}
	if g.convGEMM(x, w, bias, out, ob, stride, pad, dil, groups) {
		return
	}
	xs, xst, os, nb, sxn := g.convImages(x, ob)
	t := g.ctype(ob.DType)
	acc := t
	if ob.DType == tensor.Float32 {
		acc = "double"
	}
	OC, OH, OW := g.e(os[0]), g.e(os[1]), g.e(os[2])
	g.line("{")
	g.ind++
	g.line("const int64_t NB = %s, OC = %s, OH = %s, OW = %s, H = %s, W = %s;", nb, OC, OH, OW, g.e(xs[1]), g.e(xs[2]))
	g.line("const int64_t CG = %s, OCG = OC / %d, KH = %s, KW = %s;", g.e(w.Sizes[1]), groups, g.e(w.Sizes[2]), g.e(w.Sizes[3]))
	g.line("const %s *X = %s; const %s *Wt = %s;", t, g.ptr(x), t, g.ptr(w))
	g.line("#pragma omp parallel for collapse(2) if(NB * OC * OH * OW * CG * KH * KW > 65536)")
	g.line("for (int64_t cn = 0; cn < NB; cn++)")
	g.line("  for (int64_t co = 0; co < OC; co++) {")
	g.line("    const int64_t cg = co / OCG;")
	g.line("    for (int64_t oh = 0; oh < OH; oh++)")
	g.line("      for (int64_t ow = 0; ow < OW; ow++) {")
	if bias != nil {
		g.line("        %s acc = %s[co * %s];", acc, g.ptr(bias), g.e(bias.Strides[0]))
	} else {
		g.line("        %s acc = 0;", acc)
	}
	g.line("        for (int64_t ci = 0; ci < CG; ci++)")
	g.line("          for (int64_t kh = 0; kh < KH; kh++) {")
	g.line("            const int64_t ih = oh * %d - %d + kh * %d;", stride[0], pad[0], dil[0])
	g.line("            if (ih < 0 || ih >= H) continue;")
	g.line("            for (int64_t kw = 0; kw < KW; kw++) {")
	g.line("              const int64_t iw = ow * %d - %d + kw * %d;", stride[1], pad[1], dil[1])
	g.line("              if (iw < 0 || iw >= W) continue;")
	g.line("              acc += (%s)X[cn * %s + (cg * CG + ci) * %s + ih * %s + iw * %s] * (%s)Wt[co * %s + ci * %s + kh * %s + kw * %s];",
		acc, sxn, g.e(xst[0]), g.e(xst[1]), g.e(xst[2]), acc, g.e(w.Strides[0]), g.e(w.Strides[1]), g.e(w.Strides[2]), g.e(w.Strides[3]))
	g.line("            }")
	g.line("          }")
	g.line("        %s[((cn * OC + co) * OH + oh) * OW + ow] = (%s)acc;", out.c, t)
	g.line("      }")
	g.line("  }")
	g.ind--
	g.line("}")
}

// externFlops counts 2*M*N*K for a static GEMM (for GFLOP/s).
func (g *kernelGen) externFlops() int64 {
	var f int64
	for _, n := range g.k.Nodes {
		if n.Kind == loopir.Extern && convOps[n.Op] {
			f += g.convFlopCount(n)
			continue
		}
		if n.Kind != loopir.Extern || (n.Op != "mm" && n.Op != "bmm") {
			continue
		}
		args := g.externArgs(n)
		if len(args) < 2 {
			continue
		}
		an, _ := args[0].(*ir.Node)
		bn, _ := args[1].(*ir.Node)
		if an == nil || bn == nil {
			continue
		}
		a, b := g.r.p.Values[an.Name], g.r.p.Values[bn.Name]
		if a == nil || b == nil {
			continue
		}
		na, ok1 := static(a.Sizes)
		nb, ok2 := static(b.Sizes[len(b.Sizes)-1:])
		if ok1 && ok2 {
			f += 2 * na * nb
		}
	}
	return f
}

// convFlopCount is 2 × (output points) × CG·KH·KW of a convolution (the
// same for its two backward GEMMs), 0 for symbolic sizes.
func (g *kernelGen) convFlopCount(n *loopir.Node) int64 {
	args := g.externArgs(n)
	if len(args) < 2 {
		return 0
	}
	val := func(a ir.Arg) *loopir.View {
		if an, ok := a.(*ir.Node); ok {
			return g.r.p.Values[an.Name]
		}
		return nil
	}
	ob := g.r.p.Buffers[n.Name]
	var points, window []loopir.Expr
	switch n.Op {
	case "conv2d":
		if w := val(args[1]); w != nil && ob != nil && len(w.Sizes) == 4 {
			points, window = ob.Sizes, w.Sizes[1:]
		}
	case "conv2d_backward_input":
		if gy, w := val(args[0]), val(args[1]); gy != nil && w != nil && len(w.Sizes) == 4 {
			points, window = gy.Sizes, w.Sizes[1:]
		}
	case "conv2d_backward_weight":
		if gy := val(args[0]); gy != nil && ob != nil && len(ob.Sizes) == 4 {
			points, window = gy.Sizes, ob.Sizes[1:]
		}
	}
	p, ok1 := static(points)
	w, ok2 := static(window)
	if !ok1 || !ok2 || len(points) == 0 {
		return 0
	}
	return 2 * p * w
}
