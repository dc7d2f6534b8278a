package render

import (
	"encoding/json"
	"fmt"
	"strings"

	"gcdbg/compiler"
	"gcdbg/loopir"
)

// SIMT rendering for the GPU dialects (CUDA, OpenCL): the same kernels as
// the C path — the same statements, values in registers, inlining, op
// spellings from the dialect — but each loop nest is spread over threads:
//
//   - pointwise: a grid-stride loop, one thread per point per trip;
//   - reduction: one block per outer point (a block-stride loop over the
//     outer points), the block's threads striding over the reduce space,
//     partial results combined in shared memory (the last warp by
//     shuffles where the dialect has them); the finished value is in
//     every thread, so the epilogue and the members between passes run
//     in all of them, thread 0 storing;
//   - extern: a tiled shared-memory GEMM or a direct convolution, the
//     epilogue run by the thread that wrote the point (simt_extern.go).
//
// Every kernel strides, so it is correct for any grid: the host picks the
// number of blocks from the step's Launch (units of work / units per
// block, capped at what fills the device).

// simtBlock is the threads per block of every kernel (a power of two: the
// shared-memory tree halves it).
const simtBlock = 256

// Launch is how the host launches one GPU kernel: the last argument of a
// "launch" step, before it the kernel's buffer parameters (slot views) in
// order; the manifest's symbols follow them as int64 kernel arguments.
type Launch struct {
	Shape    string `json:"shape"`     // pointwise, reduction, gemm, conv2d
	Units    string `json:"units"`     // units of work, a size expression (compiler.EvalSize)
	PerGroup int64  `json:"per_group"` // units one block does per trip
	Block    int    `json:"block"`     // threads per block
}

// LaunchOf reads a launch step: its buffer slots and geometry.
func LaunchOf(st *compiler.Step) (slots []int, l Launch, err error) {
	if st.Kind != "launch" || len(st.Args) == 0 {
		return nil, l, fmt.Errorf("step %s: not a launch step", st.Entry)
	}
	last := st.Args[len(st.Args)-1]
	raw, ok := last.Const.(json.RawMessage)
	if !ok {
		b, err := json.Marshal(last.Const)
		if err != nil {
			return nil, l, fmt.Errorf("step %s: launch geometry: %w", st.Entry, err)
		}
		raw = b
	}
	var wrap struct {
		Launch *Launch `json:"launch"`
	}
	if err := json.Unmarshal(raw, &wrap); err != nil || wrap.Launch == nil {
		return nil, l, fmt.Errorf("step %s: the last argument is not a launch geometry (%s)", st.Entry, raw)
	}
	l = *wrap.Launch
	if l.Block <= 0 || l.Block > 1024 || l.Block&(l.Block-1) != 0 || l.PerGroup <= 0 {
		return nil, l, fmt.Errorf("step %s: launch geometry %+v: block must be a power of two up to 1024, per_group positive", st.Entry, l)
	}
	for i, a := range st.Args[:len(st.Args)-1] {
		if a.Slot == nil {
			return nil, l, fmt.Errorf("step %s: argument %d is not a buffer", st.Entry, i)
		}
		slots = append(slots, *a.Slot)
	}
	return slots, l, nil
}

// simtProgram writes a GPU dialect's file and a manifest of launch and
// fallback steps, in schedule order.
func (r *renderer) simtProgram() (*Source, error) {
	r.man.Format, r.man.Version = "gcdbg.compiled", 1
	r.man.Trace, r.man.Graph, r.man.Role, r.man.Device = r.opts.Trace, r.opts.Graph, r.opts.Role, r.d.Device
	var head strings.Builder
	fmt.Fprintf(&head, "/* gcdbg generated %s source: trace %s, graph %s (%s). Do not edit. */\n",
		r.d.Name, Comment(r.opts.Trace), Comment(r.opts.Graph), Comment(r.opts.Role))
	head.WriteString(r.d.Prelude)
	var out strings.Builder
	out.WriteString(head.String())
	line := strings.Count(head.String(), "\n") + 1
	var ks []compiler.KernelSpec
	for ki, k := range r.kernels {
		ext := hostOnlyExtern(k)
		if isFallback(k) || ext != nil {
			fk := k
			if ext != nil {
				fk = &loopir.Kernel{Name: k.Name, Nodes: []*loopir.Node{ext}}
			}
			step, err := r.fallback(fk)
			if err != nil {
				return nil, fmt.Errorf("kernel %d (%s): %w", ki, k.Name, err)
			}
			r.man.Steps = append(r.man.Steps, step)
			if ext == nil || len(k.Nodes) == 1 {
				continue
			}
			// the extern's epilogue members run as their own kernel
			k = &loopir.Kernel{Name: k.Name, Nodes: without(k.Nodes, ext)}
		}
		g := &simtGen{kernelGen: newKernelGen(r, ki, k)}
		code, err := g.render()
		if err != nil {
			return nil, fmt.Errorf("kernel %d (%s): %w", ki, k.Name, err)
		}
		r.gens[ki] = g.kernelGen
		spec := g.spec()
		out.WriteString("\n")
		line++
		spec.Line = line
		out.WriteString(code)
		line += strings.Count(code, "\n")
		ks = append(ks, spec)
		step, err := g.step(spec)
		if err != nil {
			return nil, fmt.Errorf("kernel %d (%s): %w", ki, k.Name, err)
		}
		r.man.Steps = append(r.man.Steps, step)
	}
	return &Source{Code: out.String(), Dialect: r.d.Name, Ext: r.d.Ext, Manifest: r.man, Kernels: ks}, nil
}

// simtGen renders one kernel for a GPU dialect.
type simtGen struct {
	*kernelGen
	shared []string // shared-memory declarations, at the top of the body (OpenCL wants them at kernel scope)
	launch Launch
}

// step is the kernel's manifest entry: its parameters, what it writes,
// and the launch geometry.
func (g *simtGen) step(spec compiler.KernelSpec) (compiler.Step, error) {
	st := compiler.Step{Kind: "launch", Entry: g.name, Kernels: []compiler.KernelSpec{spec}, Op: g.launch.Shape}
	written := map[string]bool{}
	for _, n := range g.k.Nodes {
		for _, w := range n.Writes {
			written[w.Buffer] = true
		}
	}
	for _, p := range g.params {
		slot := g.r.store[p].slot
		st.Args = append(st.Args, compiler.ArgSpec{Slot: &slot})
		if written[p] {
			st.Writes = append(st.Writes, slot)
		}
	}
	raw, err := json.Marshal(map[string]Launch{"launch": g.launch})
	if err != nil {
		return st, err
	}
	st.Args = append(st.Args, compiler.ArgSpec{Const: json.RawMessage(raw), IsConst: true})
	return st, nil
}

// render writes the kernel function.
func (g *simtGen) render() (string, error) {
	var ext, red *loopir.Node
	for _, n := range g.k.Nodes {
		switch n.Kind {
		case loopir.Extern:
			ext = n
		case loopir.Reduction:
			if red == nil {
				red = n
			}
		}
	}
	g.push()
	g.ind = 1
	if g.r.opts.Inject != "" && g.idx == firstKernel(g.r) {
		g.line("%s", g.r.opts.Inject)
	}
	switch {
	case ext != nil:
		g.sp = space{outer: squeeze(g.r.p.Buffers[ext.Name].Sizes)}
		g.extern(ext)
	case red != nil:
		g.sp = space{outer: squeeze(red.Ranges), reduce: squeeze(red.ReduceRanges)}
		g.reduction()
	default:
		g.sp = space{outer: squeeze(g.k.Nodes[0].Ranges)}
		g.pointwise()
	}
	if g.err != nil {
		return "", g.err
	}
	var out strings.Builder
	out.WriteString(g.comment())
	fmt.Fprintf(&out, "%s %s(%s) {\n", g.r.d.KernelPrefix, g.name, strings.Join(g.signature(), ", "))
	for _, s := range g.shared {
		fmt.Fprintf(&out, "  %s %s\n", g.r.d.SharedMem, s)
	}
	out.WriteString(g.b.String())
	out.WriteString("}\n")
	return out.String(), nil
}

// size is the flat number of points of sizes, as C.
func (g *simtGen) size(sizes []loopir.Expr) string {
	if len(sizes) == 0 {
		return "1"
	}
	return g.expr(loopir.Mul(sizes...), nil, nil)
}

// unravel declares the loop variables names over sizes at flat index i
// (row-major), so that varsOf binds members exactly as on the CPU.
func (g *simtGen) unravel(i string, names []string, sizes []loopir.Expr) {
	t := g.idxType()
	for d, nm := range names {
		v := i
		if rest := sizes[d+1:]; len(rest) > 0 {
			v = "(" + v + " / " + g.size(rest) + ")"
		}
		if d > 0 {
			v = "(" + v + " % " + g.expr(sizes[d], nil, nil) + ")"
		}
		g.line("const %s %s = %s;", t, nm, v)
	}
}

// pointwise is a grid-stride loop over the kernel's points.
func (g *simtGen) pointwise() {
	d := g.r.d
	g.launch = Launch{Shape: "pointwise", Units: g.r.sizeText(loopir.Mul(append([]loopir.Expr{loopir.C(1)}, g.sp.outer...)...)), PerGroup: simtBlock, Block: simtBlock}
	t := g.idxType()
	g.line("for (%s i = %s; i < %s; i += %s) {", t, d.GlobalIdx, g.size(g.sp.outer), d.GlobalSize)
	g.ind++
	g.unravel("i", loopNames("x", len(g.sp.outer)), g.sp.outer)
	g.push()
	g.emitMembers(g.k.Nodes, false)
	g.pop()
	g.ind--
	g.line("}")
}

// emitMembers computes every member that is not inlined at the current
// point; guarded stores are made by thread 0 alone (the value is the same
// in every thread of the block).
func (g *simtGen) emitMembers(ns []*loopir.Node, guarded bool) {
	for _, n := range ns {
		if g.inline[n.Name] != nil || n.Kind == loopir.Extern {
			continue
		}
		g.emitOne(n, g.varsOf(n), map[string]value{}, n.Body, guarded)
	}
}

// emitOne runs body (a member's statements from some point on) and
// stores the result.
func (g *simtGen) emitOne(n *loopir.Node, vars map[string]string, tmps map[string]value, body []loopir.Stmt, guarded bool) {
	v, ok := g.stmts(n, body, vars, tmps)
	if !ok {
		g.fail("node %s has no store", n.Name)
		return
	}
	if !guarded {
		g.storeValue(n, v, vars, tmps)
		return
	}
	var st loopir.Stmt
	for _, s := range n.Body {
		if s.Op == "store" || s.Op == "store_reduction" {
			st = s
		}
	}
	if mem := g.r.store[n.Name]; mem != nil {
		g.use(n.Name)
		g.line("if (lid == 0) %s[%s] = %s;", mem.c, g.expr(st.Index, vars, tmps), v.c)
	}
	g.remember(n.Name, v)
}

// hostOnlyExtern is the kernel's extern node that has C code but no SIMT
// code: max_unpool3d (an index outside the plane stops the C program) and
// scatter's generated loops. GPU dialects run it as an eager fallback step
// on the host, as they did before the C dialect compiled it. Convolution
// backward and pooling have SIMT kernels (simt_convpool.go).
func hostOnlyExtern(k *loopir.Kernel) *loopir.Node {
	for _, n := range k.Nodes {
		if n.Kind == loopir.Extern && hostOnlyOps[n.Op] {
			return n
		}
	}
	return nil
}

var hostOnlyOps = map[string]bool{
	"max_unpool3d":   true, // pool_nd.go
	"scatter_add":    true, // scatter_extern.go (a long index; a short one is a reduction)
	"scatter":        true, // scatter_extern.go (no reduce=, loopir/scatter.go)
	"scatter_reduce": true, // scatter_extern.go (sum, prod, amax, amin; loopir/scatter_reduce.go)
}
