// Package render turns a scheduled loop-IR program into source code: one
// C-style renderer (cstyle.go, loops.go, gemm.go) for every C-like
// language, the differences between C/OpenMP, CUDA and OpenCL being data
// (dialect.go), as in tinygrad's renderer/cstyle.py. For the C dialect it
// also writes the driver — one entry point per segment of compiled kernels
// between eager fallbacks — and the manifest the worker runs it by
// (compiler/manifest.go).
package render

import (
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"

	"gcdbg/compiler"
	"gcdbg/ir"
	"gcdbg/loopir"
	"gcdbg/sched"
	"gcdbg/tensor"
)

// Options name the program in the manifest and hold test hooks.
type Options struct {
	Trace, Graph, Role string
	// Inject is pasted verbatim into the first kernel's body: a test hook
	// that makes the C compiler fail at a known generated line.
	Inject string
}

// Source is a rendered program.
type Source struct {
	Code    string
	Dialect string
	Ext     string
	// Manifest describes the buffers, segments and fallbacks; Library and
	// Hash are filled by compiler.Build.
	Manifest compiler.Manifest
	Kernels  []compiler.KernelSpec // every kernel, in order (also in Manifest.Steps)
}

// Program is what the builder takes: the code and its manifest.
func (s *Source) Program() compiler.Program {
	return compiler.Program{Code: s.Code, Ext: s.Ext, Manifest: s.Manifest}
}

// storage is where a buffer lives at run time.
type storage struct {
	slot  int    // manifest buffer slot
	arena int64  // byte offset in the arena slot, -1 for its own slot
	c     string // the C identifier of its pointer
	dt    tensor.DType
}

type renderer struct {
	d       Dialect
	p       *loopir.Program
	plan    *sched.MemoryPlan
	opts    Options
	names   *namer
	syms    []string          // graph symbols in order (s0, s1 ...)
	symC    map[string]string // s0 -> ks0
	store   map[string]*storage
	arena   int // the arena's slot, -1 when there is none
	man     compiler.Manifest
	writer  map[string]*loopir.Node
	kernels []*loopir.Kernel
	kindOf  map[*loopir.Node]int // kernel index of each node
	streams bool                 // a kernel copies gathered rows with streaming stores (gather_stream.go)
	wino    bool                 // a kernel offers oneDNN's Winograd convolution (conv_dnnl.go)
	gemms   map[tensor.DType]bool
	gens    map[int]*kernelGen
	folded  map[*loopir.Node]*gemmStore // mm nodes writing a transposed output (gemm_fold.go)
	aliasOf map[string]string           // output buffer -> the input whose slot it is (alias.go)
	why     map[string]string           // buffers no kernel needs any more -> why (the memory plan's note: plan.go)
	irNodes map[string]*ir.Node         // the graph's nodes by name (irnodes.go)
	readers map[string][]*loopir.Node   // each buffer's reading nodes (internal builds it)
	alts    map[int]*choiceSet          // kernels with alternatives chosen by measurement (choice.go)
	// scatter_adds of zeros added in place to an mm's product (scatter_gemm.go)
	scatterAdds map[*loopir.Node]*scatterIntoProduct
}

// Render renders kernels (a schedule of p) with plan's memory layout.
func Render(p *loopir.Program, kernels []*loopir.Kernel, plan *sched.MemoryPlan, d Dialect, opts Options) (src *Source, err error) {
	// Bad input never panics: a malformed program is an error naming the graph.
	defer func() {
		if x := recover(); x != nil {
			src, err = nil, fmt.Errorf("render: graph %q (%s): malformed program: %v", opts.Graph, opts.Role, x)
		}
	}()
	if p == nil {
		return nil, fmt.Errorf("render: no program")
	}
	r, err := newRenderer(p, kernels, plan, d, opts)
	if err != nil {
		return nil, err
	}
	r.collectSymbols()
	if err := r.layout(); err != nil {
		return nil, fmt.Errorf("render: graph %q (%s): %w", opts.Graph, opts.Role, err)
	}
	if src, err = r.program(); err != nil {
		return nil, fmt.Errorf("render: graph %q (%s): %w", opts.Graph, opts.Role, err)
	}
	return src, nil
}

// newRenderer indexes kernels (a schedule of p) and takes the render-time
// elisions (elide): what Render renders and PlanMemory plans.
func newRenderer(p *loopir.Program, kernels []*loopir.Kernel, plan *sched.MemoryPlan, d Dialect, opts Options) (*renderer, error) {
	r := &renderer{d: d, p: p, plan: plan, opts: opts, names: newNamer(), symC: map[string]string{},
		store: map[string]*storage{}, arena: -1, writer: map[string]*loopir.Node{}, kindOf: map[*loopir.Node]int{},
		gemms: map[tensor.DType]bool{}, gens: map[int]*kernelGen{},
		folded: map[*loopir.Node]*gemmStore{}, aliasOf: map[string]string{}, why: map[string]string{},
		scatterAdds: map[*loopir.Node]*scatterIntoProduct{}}
	r.kernels = kernels
	r.indexGraph()
	for ki, k := range kernels {
		if k == nil {
			return nil, fmt.Errorf("render: graph %q: kernels[%d] is nil", opts.Graph, ki)
		}
		for _, n := range k.Nodes {
			r.kindOf[n] = ki
			for _, w := range n.Writes {
				r.writer[w.Buffer] = n
			}
		}
	}
	r.foldTransposedGEMMs()
	r.foldCopyEpilogues()        // gemm_batch.go
	r.foldGEMMsIntoEpilogues()   // gemm_inplace.go
	r.elideZeroFulls()           // scatter_zero.go
	r.foldScatterAddsIntoGEMMs() // scatter_gemm.go
	r.foldSliceScatters()        // slice_scatter_fold.go
	r.foldCopiesIntoGathers()    // copy_reads.go
	r.aliasInputOutputs()
	return r, nil
}

// collectSymbols finds the size symbols of the program (in the buffers'
// sizes) and names them ks0, ks1 ... in sorted order, as Inductor does.
func (r *renderer) collectSymbols() {
	seen := map[string]bool{}
	var walk func(e loopir.Expr)
	walk = func(e loopir.Expr) {
		switch x := e.(type) {
		case loopir.Sym:
			seen[x.Name] = true
		case *loopir.Sum:
			for _, t := range x.Terms {
				for _, f := range t.Factors {
					walk(f)
				}
			}
		case *loopir.FloorDivE:
			walk(x.A)
			walk(x.B)
		case *loopir.ModE:
			walk(x.A)
			walk(x.B)
		}
	}
	for _, b := range r.p.Buffers {
		for _, s := range b.Sizes {
			walk(s)
		}
	}
	for _, v := range r.p.Values {
		for _, s := range append(append([]loopir.Expr{v.Offset}, v.Sizes...), v.Strides...) {
			walk(s)
		}
	}
	for s := range seen {
		r.syms = append(r.syms, s)
	}
	sort.Slice(r.syms, func(i, j int) bool { return natLess(r.syms[i], r.syms[j]) })
	for i, s := range r.syms {
		r.symC[s] = fmt.Sprintf("ks%d", i)
		r.man.Symbols = append(r.man.Symbols, r.symC[s])
	}
}

func natLess(a, b string) bool {
	if len(a) != len(b) {
		return len(a) < len(b)
	}
	return a < b
}

// static evaluates sizes that have no symbols.
func static(es []loopir.Expr) (int64, bool) {
	n := int64(1)
	for _, e := range es {
		c, ok := e.(loopir.Const)
		if !ok {
			return 0, false
		}
		n *= c.V
	}
	return n, true
}

// sizeStrings renders sizes for the manifest, symbols as ks names.
func (r *renderer) sizeStrings(es []loopir.Expr) []string {
	out := make([]string, len(es))
	for i, e := range es {
		out[i] = r.sizeText(e)
	}
	return out
}

// sizeText prints a size expression in the manifest's grammar (ints,
// ks names, + - * // % and parentheses; compiler.EvalSize reads it).
func (r *renderer) sizeText(e loopir.Expr) string {
	m := map[string]loopir.Expr{}
	for s, c := range r.symC {
		m[s] = loopir.S(c)
	}
	return loopir.Subst(e, m).String()
}

// layout gives every buffer that needs memory a slot: inputs and constants
// (the caller's), outputs (their own slot, handed back), intermediates the
// plan materializes (in the arena at the plan's storage, when static),
// and buffers only an extern or a fallback needs in memory.
func (r *renderer) layout() error {
	rows := map[string]sched.BufferLife{}
	if r.plan != nil {
		for _, row := range r.plan.Buffers {
			rows[row.Name] = row
		}
	}
	outputs := r.outputSet()
	type placed struct {
		name, key string
		bytes     int64
	}
	var inArena []placed
	for _, name := range r.p.Order {
		b := r.p.Buffers[name]
		w := r.writer[name]
		row, planned := rows[name]
		if r.why[name] != "" {
			continue
		}
		// A buffer the plan's dialect (C) elides and this one does not
		// (plan.go) still needs its memory.
		need := b.Kind == loopir.Input || b.Kind == loopir.Constant || outputs[name] ||
			(planned && (row.Materialized || row.Note != "")) || (w != nil && (w.Kind == loopir.Extern || w.Kind == loopir.Fallback))
		if !need {
			continue
		}
		if _, ok := r.d.Types[b.DType]; !ok {
			return fmt.Errorf("buffer %q%s: dtype %s has no %s type%s", name, r.bufferOrigin(b), b.DType, r.d.Name, noTypeHint(b.DType))
		}
		spec := compiler.BufferSpec{Name: name, Kind: string(b.Kind), DType: b.DType.String(), Sizes: r.sizeStrings(b.Sizes), Arena: -1}
		if outputs[name] {
			spec.Kind = string(loopir.Output)
		}
		if (b.Kind == loopir.Input || b.Kind == loopir.Constant) && r.p.Graph != nil {
			if n := r.irNode(b.Node); n != nil {
				spec.Target = n.Target
			}
		}
		r.store[name] = &storage{slot: len(r.man.Buffers), arena: -1, c: r.names.name("b_", name), dt: b.DType}
		r.man.Buffers = append(r.man.Buffers, spec)
		// Static intermediates go to the arena (inArena, plan.go: the plan
		// shares storage among these only); buffers the plan puts in one
		// storage share an offset.
		if r.inArena(name, outputs) {
			n, _ := static(b.Sizes)
			key := name
			if planned && row.Storage != "" {
				key = row.Storage
			}
			inArena = append(inArena, placed{name, key, n * int64(b.DType.Size())})
		}
	}
	size := map[string]int64{}
	var keys []string
	for _, pl := range inArena {
		if _, ok := size[pl.key]; !ok {
			keys = append(keys, pl.key)
		}
		size[pl.key] = max(size[pl.key], pl.bytes)
	}
	off := map[string]int64{}
	var arenaSize int64
	for _, k := range keys {
		off[k] = arenaSize
		arenaSize += (size[k] + 63) &^ 63 // 64-byte aligned for vector loads
	}
	for _, pl := range inArena {
		st := r.store[pl.name]
		st.arena = off[pl.key]
		r.man.Buffers[st.slot].Arena = st.arena
	}
	if arenaSize > 0 {
		r.arena = len(r.man.Buffers)
		r.man.Buffers = append(r.man.Buffers, compiler.BufferSpec{Name: "arena", Kind: compiler.ArenaKind, DType: "uint8",
			Sizes: []string{fmt.Sprint(arenaSize)}, Arena: -1})
	}
	for _, name := range r.p.Order {
		if b := r.p.Buffers[name]; b.Kind == loopir.Input {
			r.man.Inputs = append(r.man.Inputs, r.store[name].slot)
		}
	}
	for _, o := range r.p.Outputs {
		if in := r.aliasOf[o]; in != "" {
			o = in
		}
		st := r.store[o]
		if st == nil {
			return fmt.Errorf("output %q has no storage", o)
		}
		r.man.Outputs = append(r.man.Outputs, st.slot)
	}
	return nil
}

// pointer is the C expression of a buffer's typed pointer inside an entry
// point (bufs and the arena are the entry's parameters).
func (r *renderer) pointer(st *storage) string {
	t := r.d.Types[st.dt]
	if st.arena >= 0 {
		return fmt.Sprintf("(%s *)(bufs[%d] + %d)", t, r.arena, st.arena)
	}
	return fmt.Sprintf("(%s *)bufs[%d]", t, st.slot)
}

// program writes the file: prelude, GEMM helpers, kernels, entry points.
func (r *renderer) program() (*Source, error) {
	if r.d.GlobalIdx != "" {
		return r.simtProgram() // GPU dialects: simt.go
	}
	r.man.Format, r.man.Version = "gcdbg.compiled", 1
	r.man.Trace, r.man.Graph, r.man.Role, r.man.Device = r.opts.Trace, r.opts.Graph, r.opts.Role, r.d.Device
	var specs []compiler.KernelSpec
	var bodies []string
	for ki, k := range r.kernels {
		if isFallback(k) {
			specs = append(specs, compiler.KernelSpec{Index: ki, Kind: "fallback"})
			bodies = append(bodies, "")
			continue
		}
		g := newKernelGen(r, ki, k)
		code, err := g.render()
		if err != nil {
			return nil, fmt.Errorf("kernel %d (%s): %w", ki, k.Name, err)
		}
		r.gens[ki] = g
		spec := g.spec()
		spec.Alternatives = g.alternatives()
		specs = append(specs, spec)
		bodies = append(bodies, code)
	}
	if r.d.Entry {
		r.shareKernels(bodies) // kernel_share.go
	}
	var head strings.Builder
	fmt.Fprintf(&head, "/* gcdbg generated %s source: trace %s, graph %s (%s). Do not edit. */\n",
		r.d.Name, Comment(r.opts.Trace), Comment(r.opts.Graph), Comment(r.opts.Role))
	head.WriteString(r.d.Prelude)
	if r.d.Entry && len(r.alts) > 0 {
		head.WriteString(choicesPrelude)
	}
	if r.d.Entry {
		head.WriteString(narrowPrelude(r))
		head.WriteString(gemmPrelude(r))
		head.WriteString(convPrelude(r))
		head.WriteString(gemmPackPrelude(r, head.String())) // gemm_pack.go
		head.WriteString(gemmSkinnyPrelude(r))              // gemm_skinny.go
		head.WriteString(topkPrelude(r))
		head.WriteString(streamPreludeOf(r)) // gather_stream.go
	}
	code := head.String()
	line := strings.Count(code, "\n") + 1
	var out strings.Builder
	out.WriteString(code)
	for ki, b := range bodies {
		if b == "" {
			continue
		}
		out.WriteString("\n")
		line++
		specs[ki].Line = line
		specs[ki].Key = choiceKey(specs[ki], code, b) // choice.go
		out.WriteString(b)
		line += strings.Count(b, "\n")
	}
	for ki, g := range r.gens {
		if g.fn != "" { // a repeat shows and keys as the kernel it calls
			specs[ki].Line, specs[ki].Key, specs[ki].Shares = specs[g.from].Line, specs[g.from].Key, g.fn
		}
	}
	if r.d.Entry {
		wrap, err := r.entries(specs)
		if err != nil {
			return nil, err
		}
		out.WriteString(wrap)
	}
	var ks []compiler.KernelSpec
	for _, s := range specs {
		if s.Kind != "fallback" {
			ks = append(ks, s)
		}
	}
	return &Source{Code: out.String(), Dialect: r.d.Name, Ext: r.d.Ext, Manifest: r.man, Kernels: ks}, nil
}

func isFallback(k *loopir.Kernel) bool {
	for _, n := range k.Nodes {
		if n.Kind == loopir.Fallback {
			return true
		}
	}
	return false
}

// CrashKernelEnv names the test hook's environment variable: when it holds
// a kernel index, that kernel starts with a store through a null pointer,
// so that tests (and users checking their setup) can see a crashing
// kernel reported with its provenance while gcdbg itself survives.
const CrashKernelEnv = "GCDBG_TEST_CRASH_KERNEL"

func crashKernel() int {
	v := os.Getenv(CrashKernelEnv)
	if v == "" {
		return -1
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		return -1
	}
	return n
}
