package sched

import (
	"fmt"

	"gcdbg/loopir"
	"gcdbg/tensor"
)

// progBuilder builds loop-IR programs by hand, the way the lowering
// would: dense row-major buffers, pointwise nodes over x0.., reductions
// over (x0.. | r0..), extern calls writing whole buffers.
type progBuilder struct {
	p *loopir.Program
}

func newProg() *progBuilder {
	return &progBuilder{p: &loopir.Program{Buffers: map[string]*loopir.Buffer{}}}
}

func consts(sizes []int64) []loopir.Expr {
	out := make([]loopir.Expr, len(sizes))
	for i, s := range sizes {
		out[i] = loopir.C(s)
	}
	return out
}

func strides(sizes []int64) []loopir.Expr {
	out := make([]loopir.Expr, len(sizes))
	st := int64(1)
	for i := len(sizes) - 1; i >= 0; i-- {
		out[i] = loopir.C(st)
		st *= sizes[i]
	}
	return out
}

// vars are the loop variables prefix0.. over sizes.
func vars(prefix string, sizes []int64) []loopir.Expr {
	out := make([]loopir.Expr, len(sizes))
	for i, s := range sizes {
		out[i] = loopir.V(fmt.Sprintf("%s%d", prefix, i), loopir.C(s))
	}
	return out
}

// at is the dense index of a buffer of sizes at the given variables.
func at(sizes []int64, vs ...loopir.Expr) loopir.Expr {
	st := strides(sizes)
	terms := make([]loopir.Expr, len(vs))
	for i, v := range vs {
		terms[i] = loopir.Mul(st[i], v)
	}
	return loopir.Add(terms...)
}

func (b *progBuilder) buffer(name string, kind loopir.BufferKind, sizes []int64) {
	b.p.Buffers[name] = &loopir.Buffer{Name: name, Kind: kind, DType: tensor.Float32, Sizes: consts(sizes), Strides: strides(sizes)}
	b.p.Order = append(b.p.Order, name)
}

func (b *progBuilder) input(name string, sizes ...int64) { b.buffer(name, loopir.Input, sizes) }

func (b *progBuilder) output(names ...string) {
	for _, n := range names {
		b.p.Buffers[n].Kind = loopir.Output
	}
	b.p.Outputs = append(b.p.Outputs, names...)
}

func rd(buf string, idx loopir.Expr) loopir.Dep { return loopir.Dep{Buffer: buf, Index: idx} }

// pw adds a pointwise node over ranges writing its own dense buffer.
func (b *progBuilder) pw(name string, ranges []int64, reads ...loopir.Dep) *loopir.Node {
	n := &loopir.Node{Name: name, Kind: loopir.Pointwise, Ranges: consts(ranges), Reads: reads,
		Writes: []loopir.Dep{rd(name, at(ranges, vars("x", ranges)...))}}
	b.buffer(name, loopir.Intermediate, ranges)
	b.p.Nodes = append(b.p.Nodes, n)
	return n
}

// red adds a reduction over (kept | reduced) writing a buffer of the kept sizes.
func (b *progBuilder) red(name string, kept, reduced []int64, reads ...loopir.Dep) *loopir.Node {
	n := &loopir.Node{Name: name, Kind: loopir.Reduction, Ranges: consts(kept), ReduceRanges: consts(reduced),
		Reads: reads, Writes: []loopir.Dep{rd(name, at(kept, vars("x", kept)...))}}
	b.buffer(name, loopir.Intermediate, kept)
	b.p.Nodes = append(b.p.Nodes, n)
	return n
}

// ext adds an extern (or fallback) call reading and writing whole buffers.
func (b *progBuilder) ext(name, op string, kind loopir.NodeKind, out []int64, reads ...string) *loopir.Node {
	n := &loopir.Node{Name: name, Kind: kind, Op: op, Writes: []loopir.Dep{rd(name, loopir.StarIndex)}}
	for _, r := range reads {
		n.Reads = append(n.Reads, rd(r, loopir.StarIndex))
	}
	b.buffer(name, loopir.Intermediate, out)
	b.p.Nodes = append(b.p.Nodes, n)
	return n
}

// full is the dense index over x0.. of sizes; row is x0 only (a
// broadcast along the last dim); rfull is x0.. then r0 as the last dim.
func full(sizes ...int64) loopir.Expr { return at(sizes, vars("x", sizes)...) }

func rfull(kept []int64, reduced int64) loopir.Expr {
	sizes := append(append([]int64{}, kept...), reduced)
	vs := append(vars("x", kept), loopir.V("r0", loopir.C(reduced)))
	return at(sizes, vs...)
}
