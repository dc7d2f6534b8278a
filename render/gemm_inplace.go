package render

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"gcdbg/loopir"
	"gcdbg/sched"
)

// A GEMM whose epilogue writes a graph output of the product's size: the
// product is lowered into an intermediate buffer X and the epilogue reads
// X and writes the output Y (ffn_train's forward: a = x @ W1^T + b1, saved
// for the backward, then gelu(a); gpt2's c_proj: x + dropout(h @ W^T + b)).
// X is 4 MB there that the GEMM writes, the epilogue reads back and then
// never again, beside Y's 4 MB. When the epilogue node is X's only reader
// and reads X only at the point where it writes Y, the GEMM writes Y
// itself and the epilogue updates Y in place (it reads Y[p] before it
// stores Y[p], and nothing else reads X): one buffer of the product's size
// less to write and read per call (t5_ffn: 32 MB). The epilogue computes
// the same values from the same inputs. Only the C dialect does it.

// foldGEMMsIntoEpilogues finds such (mm, epilogue) pairs among r.kernels
// and records, per mm, that it writes the epilogue's output (r.folded, as
// the transposed folds of gemm_fold.go), with the epilogue's loads of X
// reading that output instead. The epilogue may be a chain (t5_ffn's
// tanh-GELU reads the product in five nodes, the last writes the GELU):
// every node reading X runs over the same points as the one that writes Y,
// at or before it in the kernel, and reads X only where Y is written.
func (r *renderer) foldGEMMsIntoEpilogues() {
	if r.d.GlobalIdx != "" {
		return
	}
	readers := map[string][]*loopir.Node{}
	for _, k := range r.kernels {
		for _, n := range k.Nodes {
			for _, d := range n.Reads {
				if !containsNode(readers[d.Buffer], n) {
					readers[d.Buffer] = append(readers[d.Buffer], n)
				}
			}
		}
	}
	outputs := r.outputSet()
	var placed map[string]bool // placedPieces, computed when a GEMM first has an epilogue target
	for ki, k := range r.kernels {
		if len(k.Nodes) < 2 {
			continue
		}
		// The mm is the kernel's first member, or comes after the pointwise
		// inputs of its epilogue (sched/epilogue_inputs.go).
		xi := slices.IndexFunc(k.Nodes, func(n *loopir.Node) bool { return n.Kind == loopir.Extern })
		if xi < 0 {
			continue
		}
		ext := k.Nodes[xi]
		if ext.Op != "mm" || r.folded[ext] != nil {
			continue
		}
		x := r.p.Buffers[ext.Name]
		xs, ok := constList(x.Sizes)
		if x == nil || !ok || len(xs) != 2 || outputs[x.Name] || len(readers[x.Name]) == 0 {
			continue
		}
		// Where the rendered kernel runs each member's loads: an inlined
		// reader of X runs where its own reader does, maybe after Y's
		// store (sched.LoadsRunBy).
		member := map[*loopir.Node]bool{}
		for _, n := range k.Nodes {
			member[n] = true
		}
		runBy := sched.LoadsRunBy(r.p, k, func(buf string) bool {
			for _, n := range readers[buf] {
				if !member[n] {
					return true
				}
			}
			return false
		})
		last := 0
		for _, n := range readers[x.Name] {
			i, in := runBy[n]
			if !in || n.Kind != loopir.Pointwise {
				last = -1
				break
			}
			last = max(last, i)
		}
		if last <= xi {
			continue
		}
		ei := -1
		for i := last; i < len(k.Nodes) && ei < 0; i++ {
			if r.epilogueTarget(k, k.Nodes[i], x, xs, readers, outputs) {
				ei = i
			}
		}
		if ei < 0 {
			continue
		}
		if placed == nil {
			placed = r.placedPieces()
		}
		if placed[k.Nodes[ei].Writes[0].Buffer] {
			continue
		}
		y := k.Nodes[ei].Writes[0].Buffer
		nk := *k
		nk.Nodes = append([]*loopir.Node(nil), k.Nodes...)
		for i, n := range k.Nodes {
			if !containsNode(readers[x.Name], n) {
				continue
			}
			nn := *n
			nn.Body = append([]loopir.Stmt(nil), n.Body...)
			for j := range nn.Body {
				if nn.Body[j].Op == "load" && nn.Body[j].Buffer == x.Name {
					nn.Body[j].Buffer = y
				}
			}
			nn.Reads = append([]loopir.Dep(nil), n.Reads...)
			for j := range nn.Reads {
				if nn.Reads[j].Buffer == x.Name {
					nn.Reads[j].Buffer = y
				}
			}
			nk.Nodes[i] = &nn
			delete(r.kindOf, n)
			r.kindOf[&nn] = ki
			for _, w := range nn.Writes {
				r.writer[w.Buffer] = &nn
			}
		}
		r.kernels[ki] = &nk
		r.folded[ext] = &gemmStore{buf: y, rowStride: xs[1], colStride: 1}
		r.elide(x.Name, fmt.Sprintf("the GEMM writes %s, which its epilogue updates in place (gemm_inplace.go)", y))
	}
}

// epilogueTarget reports whether e, a member of k, can take the product x
// (of sizes xs) in its output: e writes one buffer y of x's dtype and
// element count, over the same points as every reader of x (whose loads
// all run by e's store), each of which loads x only at the index where e
// stores y. y is a graph output, or an intermediate a later kernel reads
// (one read only inside k has no memory: a register of the fused loop).
// The memory plan never puts y in place over an input of e (sched's
// inPlace: the GEMM writes y first).
func (r *renderer) epilogueTarget(k *loopir.Kernel, e *loopir.Node, x *loopir.Buffer, xs []int64, readers map[string][]*loopir.Node, outputs map[string]bool) bool {
	if e.Kind != loopir.Pointwise || len(e.Writes) != 1 {
		return false
	}
	y := r.p.Buffers[e.Writes[0].Buffer]
	if y == nil || y.Kind == loopir.Input || y.Kind == loopir.Constant || y.DType != x.DType || r.aliasOf[y.Name] != "" ||
		r.writer[y.Name] != e || r.why[y.Name] != "" {
		return false
	}
	yn, ok := static(y.Sizes)
	if !ok || yn != xs[0]*xs[1] {
		return false
	}
	at := linearKey(e.Writes[0].Index)
	if at == "" {
		return false
	}
	ranges := exprsKey(e.Ranges)
	for _, n := range readers[x.Name] {
		if exprsKey(n.Ranges) != ranges || !loadsOnlyAt(n, x.Name, at) {
			return false
		}
	}
	if outputs[y.Name] {
		return true
	}
	for _, n := range readers[y.Name] {
		if r.kernelOf(n) != k {
			return true
		}
	}
	return false
}

func exprsKey(es []loopir.Expr) string {
	var b strings.Builder
	for _, e := range es {
		b.WriteString(e.String())
		b.WriteString(",")
	}
	return b.String()
}

func containsNode(ns []*loopir.Node, n *loopir.Node) bool {
	for _, m := range ns {
		if m == n {
			return true
		}
	}
	return false
}

// loadsOnlyAt reports whether every load of buf in n (its body and its
// reads) is at the index whose linearKey is at.
func loadsOnlyAt(n *loopir.Node, buf, at string) bool {
	for _, s := range n.Body {
		if s.Op == "load" && s.Buffer == buf && linearKey(s.Index) != at {
			return false
		}
	}
	for _, d := range n.Reads {
		if d.Buffer == buf && linearKey(d.Index) != at {
			return false
		}
	}
	return true
}

// linearKey is a canonical form of an integer index: the index as a sum of
// coefficients times atoms, with a % b (b a positive constant) expanded to
// a - b * (a // b), so that two indices with the same value at every point
// through a reshape's div/mod pairs (x1 + 256*x0 against x1 + 256*(x0 % 128)
// + 32768*(x0 / 128)) get the same key. "" when it cannot say (an indirect
// index, a whole-buffer access). Equal keys imply equal values; different
// keys say nothing.
func linearKey(e loopir.Expr) string {
	if e == nil || e == loopir.StarIndex {
		return ""
	}
	c, ok := linearTerms(e)
	if !ok {
		return ""
	}
	return termsKey(c)
}

func termsKey(c map[string]int64) string {
	var keys []string
	for k, v := range c {
		if v != 0 {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	var b strings.Builder
	for _, k := range keys {
		fmt.Fprintf(&b, "%+d*[%s]", c[k], k)
	}
	if b.Len() == 0 {
		return "0"
	}
	return b.String()
}

// linearTerms reads e as coefficient per atom ("" the constant).
func linearTerms(e loopir.Expr) (map[string]int64, bool) {
	out := map[string]int64{}
	add := func(m map[string]int64, k int64) {
		for a, v := range m {
			out[a] += k * v
		}
	}
	switch x := e.(type) {
	case loopir.Const:
		out[""] = x.V
	case loopir.Var:
		out["v:"+x.Name] = 1
	case loopir.Sym:
		out["s:"+x.Name] = 1
	case *loopir.Sum:
		out[""] = x.C
		for _, t := range x.Terms {
			if len(t.Factors) == 1 {
				m, ok := linearTerms(t.Factors[0])
				if !ok {
					return nil, false
				}
				add(m, t.K)
				continue
			}
			var parts []string
			for _, f := range t.Factors {
				k := linearKey(f)
				if k == "" {
					return nil, false
				}
				parts = append(parts, k)
			}
			sort.Strings(parts)
			out["p:"+strings.Join(parts, "*")] += t.K
		}
	case *loopir.FloorDivE:
		k, ok := floorAtom(x.A, x.B)
		if !ok {
			return nil, false
		}
		out[k] = 1
	case *loopir.ModE:
		b, isC := x.B.(loopir.Const)
		m, ok := linearTerms(x.A)
		k, ok2 := floorAtom(x.A, x.B)
		if !isC || b.V <= 0 || !ok || !ok2 {
			return nil, false
		}
		add(m, 1)
		out[k] -= b.V
	default:
		return nil, false
	}
	return out, true
}

func floorAtom(a, b loopir.Expr) (string, bool) {
	ka, kb := linearKey(a), linearKey(b)
	if ka == "" || kb == "" {
		return "", false
	}
	return "f:(" + ka + ")//(" + kb + ")", true
}

// placedPieces is the set of buffers that foldSliceScatters will have
// their writers store straight into a slice_scatter's or cat's output
// (slice_scatter_fold.go). Such a buffer gets no memory and its copy
// kernel goes, which saves more than a GEMM writing it in place, and a
// GEMM writing it would stop that fold (it wants a pointwise writer):
// lstm_train's backward gate gradients, the inputs of its per-step cats,
// came back as 46 copy kernels when the GEMMs before them wrote them.
func (r *renderer) placedPieces() map[string]bool {
	placed := map[string]bool{}
	if r.p.Graph == nil {
		return placed
	}
	readers, outputs := r.readerSets(), r.outputSet()
	for ki, k := range r.kernels {
		if f, ok := r.sliceScatterFold(ki, k, readers, outputs); ok {
			for w := range f.moved {
				for _, d := range w.Writes {
					placed[d.Buffer] = true
				}
			}
		}
	}
	return placed
}
