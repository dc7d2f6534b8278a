package render

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"

	"gcdbg/compiler"
	"gcdbg/loopir"
)

// Choices by measurement (issue 13, item 3), the way Inductor's
// max-autotune times a Triton template against the ATen call: where a
// kernel can be computed more than one way, the generated C holds every
// way, selected by one int32 per kernel that the worker points at before
// it runs an entry point (gcdbg_set_choices, read once per kernel call). The
// candidates are listed in the kernel's manifest entry (KernelSpec.
// Alternatives); compiler/autotune.go times them on the run's own buffers,
// keeps the fastest, and caches the choice per kernel source, shapes and
// machine. A caller that never sets the pointer (an AOT user of the .so)
// gets every kernel's default, choice 0: the code gcdbg always generated.
//
// A choice is a set of bits, so that a GEMM kernel's two questions combine:
//
//   - choiceOneThread: the kernel runs on the calling thread: its parallel
//     loop nests' OpenMP if() clause is false, and its GEMM runs OpenBLAS
//     with one thread (openblas_set_num_threads around the call) or the
//     generated GEMM without its team. The nests distribute independent
//     outer points (rows, columns, elements) and every reduction stays
//     within one point, so their results are bit-identical; OpenBLAS
//     splits a product over M and N, not K. Offered for every GEMM kernel
//     and for nests with a static size above the dialect's ParallelMin
//     (below it the team never starts) and at most oneThreadMaxPoints.
//     Under load a team costs more than it gains: on this 2-core VM at a
//     load average of 12, a 20x2048x512 sgemm took 24 ms with OpenBLAS's
//     two threads and 0.63 ms with one (a C probe, median of 60).
//   - choiceGenGEMM: mm/bmm run the generated cache-tiled GEMM instead of
//     OpenBLAS's sgemm/dgemm. Not bit-identical to BLAS (another order of
//     the K sum); the run's result passes the accuracy verdict either way
//     (TestChoiceCandidatesMatch checks each candidate against the eager
//     interpreter).
//   - choiceStream: a gather that copies whole rows writes them with
//     streaming (non-temporal) stores (gather_stream.go). The same bytes.
//   - choiceDNNL: float32 mm/bmm run oneDNN's sgemm instead of OpenBLAS's
//     (gemm_dnnl.go); never together with choiceGenGEMM. Not bit-identical
//     to OpenBLAS either; judged by the same verdict.
//   - choiceDNNLConv: a float32 conv2d, conv2d_backward_input or
//     conv2d_backward_weight runs oneDNN's convolution primitive instead of
//     im2col + GEMM (conv_dnnl.go); never together with choiceDNNL (which
//     only picks the im2col path's GEMM). Judged by the same verdict.
//   - choicePack: an mm with a transposed operand copies it row-major and
//     runs the NN GEMM (OpenBLAS's, or oneDNN's with choiceDNNL) on the copy
//     (gemm_pack.go); never with choiceGenGEMM. Judged by the same verdict.
//   - choiceDNNLWino: with choiceDNNLConv, a 3x3 stride-1 convolution's
//     weight gradient runs oneDNN's Winograd convolution (F(4x4, 3x3),
//     conv_dnnl.go dnnlWinograd) instead of the direct
//     primitive, which stays its fallback where the Winograd result holds
//     a NaN or Inf (conv_dnnl.go gcdbg_dconv_wino). Judged by the same
//     verdict.
//   - choiceSkinny: a float32 mm of few static output rows (M <= 32) with
//     both operands contiguous along K (x @ W^T, a Linear layer's weight)
//     runs the skinny-M GEMM (gemm_skinny.go): each row of W streamed once,
//     no packing, dot products with the rows of x. Never with another GEMM
//     bit or choicePack. Judged by the same verdict.
const (
	choiceOneThread = compiler.ChoiceOneThread // the program check flips it (compiler/autotune_program.go)
	choiceGenGEMM   = 2
	choiceStream    = 4
	choiceDNNL      = 8
	choiceDNNLConv  = 16
	choicePack      = 32
	choiceDNNLWino  = 64
	choiceSkinny    = 128
)

// oneThreadMaxPoints bounds the nests offered a one-thread candidate: a
// bigger one is timed for nothing (a team wins there on any machine with
// two cores) and its measurement costs the most.
const oneThreadMaxPoints = 1 << 21

// choiceVar is the C variable a kernel with alternatives reads its choice into.
const choiceVar = "gcdbg_c"

const choicesPrelude = `
/* Choices by measurement (render/choice.go, compiler/autotune.go): one int32
   per kernel, set by the worker before it runs an entry point; NULL (a
   caller that never sets it) = every kernel's default, choice 0. Bit 0: the
   kernel's parallel loops run on the calling thread; bit 1: its GEMMs run
   the generated tiled GEMM instead of OpenBLAS; bit 2: streaming row
   stores; bit 3: oneDNN's sgemm instead of OpenBLAS; bit 4: oneDNN's
   convolution primitive instead of im2col + GEMM; bit 5: transposed GEMM
   operands copied row-major first; bit 6 (with bit 4): oneDNN's Winograd
   convolution; bit 7: the skinny-M GEMM (few rows, x @ W^T). Weak, not static: when the
   program is built from per-kernel objects (compiler/objcache.go) every unit
   carries this prelude, and the linker must keep one pointer that the
   entry's gcdbg_set_choices sets and every kernel reads. */
__attribute__((weak, visibility("hidden"))) int32_t *gcdbg_choices;
__attribute__((weak)) void gcdbg_set_choices(int32_t *p) { gcdbg_choices = p; }
`

// choiceSet is what a kernel can choose between.
type choiceSet struct{ threads, gemm, stream, dnnl, dnnlConv, pack, wino, skinny bool }

func (r *renderer) choiceOf(idx int) *choiceSet {
	if r.alts == nil {
		r.alts = map[int]*choiceSet{}
	}
	c := r.alts[idx]
	if c == nil {
		c = &choiceSet{}
		r.alts[idx] = c
	}
	return c
}

// threadChoice returns the term an OpenMP if() clause over points gets in
// front of its size test ("" when the nest is offered no one-thread
// candidate), and records the alternative.
func (g *kernelGen) threadChoice(points []loopir.Expr) string {
	if !g.r.d.Entry {
		return ""
	}
	n, ok := static(points)
	if !ok || n <= g.r.d.ParallelMin || n > oneThreadMaxPoints {
		return ""
	}
	g.r.choiceOf(g.idx).threads = true
	return fmt.Sprintf("!(%s & %d) && ", choiceVar, choiceOneThread)
}

// gemmThreads writes a GEMM call (call) that runs on one thread when the
// kernel chose so: OpenBLAS set to one thread around it, the generated
// GEMM without its team.
func (g *kernelGen) gemmThreads(t string, call func()) {
	if !g.r.d.Entry || (t != "float" && t != "double") {
		call()
		return
	}
	g.r.choiceOf(g.idx).threads = true
	g.line("{")
	g.ind++
	g.line("const int gcdbg_bt = %s & %d ? gcdbg_blas_threads(1) : -1;", choiceVar, choiceOneThread)
	g.line("gcdbg_gemm_team = !(%s & %d);", choiceVar, choiceOneThread)
	call()
	g.line("gcdbg_gemm_team = 1;")
	g.line("if (gcdbg_bt > 1) gcdbg_blas_threads(gcdbg_bt);")
	g.ind--
	g.line("}")
}

// gemmFn is the GEMM function an mm/bmm call of this kernel names: the
// OpenBLAS-first one, or, when the kernel may choose, any of the
// candidates; skinny (skinnyMM) adds the skinny-M GEMM (float only).
func (g *kernelGen) gemmFn(t string, skinny bool) string {
	if !g.r.d.Entry || (t != "float" && t != "double") {
		return gemmName(t)
	}
	c := g.r.choiceOf(g.idx)
	c.gemm = true
	if t == "float" {
		c.dnnl = true
		sk := ""
		if skinny {
			c.skinny = true
			sk = fmt.Sprintf("%s & %d ? %s : ", choiceVar, choiceSkinny, gemmSkinnyName(t))
		}
		return fmt.Sprintf("(%s%s & %d ? %s : %s & %d ? %s : %s)", sk, choiceVar, choiceGenGEMM, gemmGenName(t),
			choiceVar, choiceDNNL, gemmDNNLName(t), gemmName(t))
	}
	return fmt.Sprintf("(%s & %d ? %s : %s)", choiceVar, choiceGenGEMM, gemmGenName(t), gemmName(t))
}

// withChoice puts the choice's declaration at the top of a kernel body
// that reads it.
func (g *kernelGen) withChoice(body string) string {
	c := g.r.alts[g.idx]
	if c == nil || (!c.threads && !c.gemm && !c.stream && !c.dnnl && !c.dnnlConv && !c.skinny) {
		return body
	}
	return fmt.Sprintf("  const int32_t %s = gcdbg_choices ? gcdbg_choices[%d] : 0;  /* %s */\n%s",
		choiceVar, g.idx, Comment(describeChoices(g.alternatives())), body)
}

// alternatives lists the kernel's candidates for its manifest entry.
func (g *kernelGen) alternatives() []compiler.Alternative {
	c := g.r.alts[g.idx]
	if c == nil || (!c.threads && !c.gemm && !c.stream && !c.dnnl && !c.dnnlConv && !c.skinny) {
		return nil
	}
	var out []compiler.Alternative
	for v := int32(0); v < 256; v++ {
		if (v&choiceOneThread != 0 && !c.threads) || (v&choiceGenGEMM != 0 && !c.gemm) || (v&choiceStream != 0 && !c.stream) ||
			(v&choiceDNNL != 0 && (!c.dnnl || v&choiceGenGEMM != 0)) ||
			(v&choiceDNNLConv != 0 && (!c.dnnlConv || v&(choiceDNNL|choiceGenGEMM) != 0)) ||
			(v&choicePack != 0 && (!c.pack || v&(choiceGenGEMM|choiceDNNLConv) != 0)) ||
			(v&choiceDNNLWino != 0 && (!c.wino || v&choiceDNNLConv == 0)) ||
			(v&choiceSkinny != 0 && (!c.skinny || v&^(choiceSkinny|choiceOneThread) != 0)) {
			continue
		}
		out = append(out, compiler.Alternative{Choice: v, Label: choiceLabel(v, c)})
	}
	return out
}

func choiceLabel(v int32, c *choiceSet) string {
	if c.stream {
		label := "plain row stores"
		if v&choiceStream != 0 {
			label = "streaming row stores"
		}
		if c.threads {
			label += map[bool]string{true: ", loops on one thread", false: ", loops on the OpenMP team"}[v&choiceOneThread != 0]
		}
		return label
	}
	one := v&choiceOneThread != 0
	if c.gemm || c.dnnl || c.dnnlConv || c.skinny {
		gemm := "OpenBLAS"
		if v&choiceGenGEMM != 0 {
			gemm = "generated GEMM"
		}
		if v&choiceDNNL != 0 {
			gemm = "oneDNN sgemm"
		}
		if v&choiceDNNLConv != 0 {
			gemm = "oneDNN convolution"
		}
		if v&choiceDNNLWino != 0 {
			gemm = "oneDNN Winograd convolution"
		}
		if v&choiceSkinny != 0 {
			gemm = "skinny-M GEMM"
		}
		if v&choicePack != 0 {
			gemm += " on row-major copies"
		}
		if !c.threads {
			return gemm
		}
		if one {
			return gemm + ", one thread"
		}
		return gemm + ", all threads"
	}
	if one {
		return "loops on one thread"
	}
	return "loops on the OpenMP team"
}

func describeChoices(alts []compiler.Alternative) string {
	var b strings.Builder
	b.WriteString("chosen by measurement: ")
	for i, a := range alts {
		if i > 0 {
			b.WriteString("; ")
		}
		fmt.Fprintf(&b, "%d %s", a.Choice, a.Label)
	}
	return b.String()
}

// choiceKey names a kernel with alternatives in the choice cache: its code
// and the prelude it calls (the GEMMs, the vector math), so that another
// program with the same kernel reuses the decision and a change of the
// generated code measures again.
func choiceKey(k compiler.KernelSpec, prelude, body string) string {
	if len(k.Alternatives) < 2 {
		return ""
	}
	h := sha256.Sum256([]byte(prelude + "\x00" + body))
	return hex.EncodeToString(h[:16])
}
