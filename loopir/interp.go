package loopir

import (
	"fmt"

	"gcdbg/ir"
	"gcdbg/tensor"
)

// The interpreter runs a program kernel by kernel, each body vectorized
// over all of its loop points at once (one element per point), so it
// checks what fusion does without being a compiler: inside a kernel a
// buffer that no other kernel reads and that is not an output is never
// materialized. A pointwise producer is inlined, its body re-evaluated at
// the consumer's load index (as a fused loop computes it in registers); a
// reduction (or extern) producer keeps its values in a kernel-local
// temporary that its epilogue reads.

type runner struct {
	p       *Program
	bufs    map[string]*tensor.Tensor
	syms    map[string]int64
	readers map[string]map[*Node]bool
}

type kernelCtx struct {
	inline map[string]*Node
	local  map[string]*tensor.Tensor
}

// InputsFromGraph collects the example tensors of a program's inputs and
// constants from its graph (placeholders and get_attr, by target).
func InputsFromGraph(p *Program) map[string]*tensor.Tensor {
	out := map[string]*tensor.Tensor{}
	for _, name := range p.Order {
		b := p.Buffers[name]
		if b.Kind != Input && b.Kind != Constant {
			continue
		}
		if n := p.Graph.Node(b.Node); n != nil {
			if td := p.Graph.Tensors[n.Target]; td != nil && td.T != nil {
				out[name] = td.T
			}
		}
	}
	return out
}

// Run executes p. kernels nil runs one kernel per node; results come back
// in p.Outputs order.
func Run(p *Program, kernels []*Kernel, inputs map[string]*tensor.Tensor) ([]*tensor.Tensor, error) {
	r, err := run(p, kernels, inputs)
	if err != nil {
		return nil, err
	}
	out := make([]*tensor.Tensor, len(p.Outputs))
	for i, name := range p.Outputs {
		if out[i] = r.bufs[name]; out[i] == nil {
			return nil, fmt.Errorf("loopir: output %d: buffer %q was never written", i, name)
		}
	}
	return out, nil
}

// run executes the kernels and returns the runner (its global buffers).
func run(p *Program, kernels []*Kernel, inputs map[string]*tensor.Tensor) (*runner, error) {
	if p == nil {
		return nil, fmt.Errorf("loopir: no program")
	}
	r := &runner{p: p, bufs: map[string]*tensor.Tensor{}, syms: map[string]int64{}, readers: map[string]map[*Node]bool{}}
	for _, name := range p.Order {
		b := p.Buffers[name]
		if b.Kind != Input && b.Kind != Constant {
			continue
		}
		t := inputs[name]
		if t == nil {
			return nil, fmt.Errorf("loopir: buffer %q: no input tensor", name)
		}
		if err := r.bind(b, t); err != nil {
			return nil, fmt.Errorf("loopir: buffer %q: %w", name, err)
		}
		r.bufs[name] = t.Clone()
	}
	for _, n := range p.Nodes {
		for _, d := range n.Reads {
			if r.readers[d.Buffer] == nil {
				r.readers[d.Buffer] = map[*Node]bool{}
			}
			r.readers[d.Buffer][n] = true
		}
	}
	if kernels == nil {
		for _, n := range p.Nodes {
			kernels = append(kernels, &Kernel{Name: n.Name, Nodes: []*Node{n}})
		}
	}
	for i, k := range kernels {
		if k == nil {
			return nil, fmt.Errorf("loopir: kernels[%d] is nil", i)
		}
		if err := r.kernel(k); err != nil {
			return nil, fmt.Errorf("loopir: kernel %q: %w", k.Name, err)
		}
	}
	return r, nil
}

// bind checks an input against its buffer's layout and learns the values
// of its size symbols.
func (r *runner) bind(b *Buffer, t *tensor.Tensor) error {
	if len(t.Shape) != len(b.Sizes) || t.DType != b.DType {
		return fmt.Errorf("got %s%v, expected %s of rank %d", t.DType.Short(), t.Shape, b.DType.Short(), len(b.Sizes))
	}
	for i, s := range b.Sizes {
		got := int64(t.Shape[i])
		switch x := s.(type) {
		case Sym:
			if v, ok := r.syms[x.Name]; ok && v != got {
				return fmt.Errorf("dim %d: %s is %d here and %d elsewhere", i, x.Name, got, v)
			}
			r.syms[x.Name] = got
		case Const:
			if x.V != got {
				return fmt.Errorf("dim %d: size %d, expected %d", i, got, x.V)
			}
		}
	}
	return nil
}

func (r *runner) internal(n *Node, members map[*Node]bool) bool {
	for _, w := range n.Writes {
		if b := r.p.Buffers[w.Buffer]; b == nil || b.Kind == Output {
			return false
		}
		for rd := range r.readers[w.Buffer] {
			if !members[rd] {
				return false
			}
		}
	}
	return true
}

func (r *runner) kernel(k *Kernel) error {
	members := map[*Node]bool{}
	for i, n := range k.Nodes {
		if n == nil {
			return fmt.Errorf("nodes[%d] is nil", i)
		}
		members[n] = true
	}
	ctx := &kernelCtx{inline: map[string]*Node{}, local: map[string]*tensor.Tensor{}}
	for _, n := range k.Nodes {
		internal := r.internal(n, members)
		if internal && n.Kind == Pointwise {
			ctx.inline[n.Name] = n
			continue
		}
		res, err := r.compute(n, ctx)
		if err != nil {
			return fmt.Errorf("node %q: %w", n.Name, err)
		}
		for name, t := range res {
			if internal {
				ctx.local[name] = t
			} else {
				r.bufs[name] = t
			}
		}
	}
	return nil
}

func (r *runner) sizes(es []Expr) []int64 {
	out := make([]int64, len(es))
	for i, e := range es {
		out[i] = e.Eval(r.syms)
	}
	return out
}

// points enumerates a row-major loop nest: one value per point for each
// variable prefix+dim (symbols are added for index evaluation).
func (r *runner) points(groups ...[]Expr) (map[string][]int64, int, error) {
	type dim struct {
		name string
		size int64
	}
	var dims []dim
	for g, es := range groups {
		prefix := []string{"x", "r"}[g]
		for i, s := range r.sizes(es) {
			if s < 0 {
				return nil, 0, fmt.Errorf("negative range %d", s)
			}
			dims = append(dims, dim{fmt.Sprintf("%s%d", prefix, i), s})
		}
	}
	n := int64(1)
	for _, d := range dims {
		n *= d.size
		if n > 1<<28 {
			return nil, 0, fmt.Errorf("loop nest of more than %d points", 1<<28)
		}
	}
	env := r.symEnv()
	stride := n
	for _, d := range dims {
		vals := make([]int64, n)
		if d.size > 0 {
			stride /= d.size
			for i := range vals {
				vals[i] = (int64(i) / stride) % d.size
			}
		}
		env[d.name] = vals
	}
	return env, int(n), nil
}

func (r *runner) symEnv() map[string][]int64 {
	env := map[string][]int64{}
	for s, v := range r.syms {
		env[s] = []int64{v}
	}
	return env
}

// compute runs one node fully and returns the buffers it writes.
func (r *runner) compute(n *Node, ctx *kernelCtx) (map[string]*tensor.Tensor, error) {
	if n.Kind == Extern || n.Kind == Fallback {
		return r.call(n, ctx)
	}
	b := r.p.Buffers[n.Name]
	if b == nil {
		return nil, fmt.Errorf("writes unknown buffer %q", n.Name)
	}
	var groups [][]Expr
	groups = append(groups, n.Ranges)
	if n.Kind == Reduction {
		groups = append(groups, n.ReduceRanges)
	}
	env, np, err := r.points(groups...)
	if err != nil {
		return nil, err
	}
	val, st, err := r.body(n, env, np, ctx)
	if err != nil {
		return nil, err
	}
	storeEnv, sn := env, np
	if n.Kind == Reduction {
		if storeEnv, sn, err = r.points(n.Ranges); err != nil {
			return nil, err
		}
	}
	if val.Numel() != sn {
		return nil, fmt.Errorf("%s of %d values at %d points", st.Op, val.Numel(), sn)
	}
	if val.DType != b.DType {
		return nil, fmt.Errorf("%s of a %s value into %s buffer %q", st.Op, val.DType, b.DType, b.Name)
	}
	shape := r.sizes(b.Sizes)
	ishape := make([]int, len(shape))
	for i, s := range shape {
		ishape[i] = int(s)
	}
	out := tensor.New(b.DType, ishape...)
	idx := evalVec(st.Index, storeEnv, sn)
	for i, p := range idx {
		if p < 0 || int(p) >= out.Numel() {
			return nil, fmt.Errorf("%s index %d out of bounds for %q of %d elements", st.Op, p, b.Name, out.Numel())
		}
		copyElem(out, int(p), val, i)
	}
	return map[string]*tensor.Tensor{b.Name: out}, nil
}

func copyElem(dst *tensor.Tensor, di int, src *tensor.Tensor, si int) {
	if dst.DType.IsFloat() {
		dst.SetFlat(di, src.Flat(si))
	} else {
		dst.SetFlatInt(di, src.FlatInt(si))
	}
}

// body evaluates n's inner function at np points and returns the stored
// value and the store statement.
func (r *runner) body(n *Node, env map[string][]int64, np int, ctx *kernelCtx) (*tensor.Tensor, Stmt, error) {
	tmps := map[string]*tensor.Tensor{}
	arg := func(s Stmt) ([]*tensor.Tensor, error) {
		out := make([]*tensor.Tensor, len(s.Args))
		for i, a := range s.Args {
			if out[i] = tmps[a]; out[i] == nil {
				return nil, fmt.Errorf("%s reads %q before it is set", s.Op, a)
			}
		}
		return out, nil
	}
	cur := np
	for _, s := range n.Body {
		var v *tensor.Tensor
		var err error
		switch s.Op {
		case "load":
			for _, name := range indirects(s.Index) {
				if t := tmps[name]; t != nil {
					env[name] = t.Ints()
				}
			}
			v, err = r.load(s, env, cur, ctx)
		case "constant":
			v, err = tensor.Full([]int{cur}, s.Value, s.DType)
		case "index_expr":
			v = tensor.FromInts(tensor.Int64, []int{cur}, evalVec(s.Index, env, cur))
			if s.DType != tensor.Int64 && s.DType != tensor.Invalid {
				v = v.To(s.DType)
			}
		case "reduction":
			var a []*tensor.Tensor
			if a, err = arg(s); err == nil && len(a) == 1 {
				nred := int(1)
				for _, e := range r.sizes(n.ReduceRanges) {
					nred *= int(e)
				}
				if nred == 0 || cur%nred != 0 {
					return nil, s, fmt.Errorf("reduction over %d of %d points", nred, cur)
				}
				cur /= nred
				v, err = reduce(s.ReduceOp, a[0], cur, nred)
			}
		case "store", "store_reduction":
			a, err := arg(s)
			if err != nil || len(a) != 1 {
				return nil, s, fmt.Errorf("%s needs one value: %v", s.Op, err)
			}
			return a[0], s, nil
		default:
			var a []*tensor.Tensor
			if a, err = arg(s); err == nil {
				v, err = applyOp(s, a)
			}
		}
		if err != nil {
			return nil, s, fmt.Errorf("%s = %s: %w", s.Dst, s.Op, err)
		}
		tmps[s.Dst] = v
	}
	return nil, Stmt{}, fmt.Errorf("body has no store")
}

func indirects(e Expr) []string {
	switch x := e.(type) {
	case Indirect:
		return []string{x.Tmp}
	case *Sum:
		var out []string
		for _, t := range x.Terms {
			for _, f := range t.Factors {
				out = append(out, indirects(f)...)
			}
		}
		return out
	case *FloorDivE:
		return append(indirects(x.A), indirects(x.B)...)
	case *ModE:
		return append(indirects(x.A), indirects(x.B)...)
	}
	return nil
}

// load reads a buffer at one index per point; a buffer produced by an
// inlined pointwise node of this kernel is recomputed at those indices.
func (r *runner) load(s Stmt, env map[string][]int64, np int, ctx *kernelCtx) (*tensor.Tensor, error) {
	idx := evalVec(s.Index, env, np)
	if prod := ctx.inline[s.Buffer]; prod != nil && storesRowMajor(prod) {
		penv := r.symEnv()
		sizes := r.sizes(prod.Ranges)
		for d := len(sizes) - 1; d >= 0; d-- {
			vals := make([]int64, np)
			for i, p := range idx {
				if sizes[d] > 0 {
					vals[i] = p % sizes[d]
				}
			}
			penv[fmt.Sprintf("x%d", d)] = vals
			for i := range idx {
				if sizes[d] > 0 {
					idx[i] /= sizes[d]
				}
			}
		}
		v, _, err := r.body(prod, penv, np, ctx)
		return v, err
	}
	t, err := r.buffer(s.Buffer, ctx)
	if err != nil {
		return nil, err
	}
	out := tensor.New(t.DType, np)
	for i, p := range idx {
		if p < 0 || int(p) >= t.Numel() {
			return nil, fmt.Errorf("load %s[%d] out of bounds (%d elements)", s.Buffer, p, t.Numel())
		}
		copyElem(out, i, t, int(p))
	}
	return out, nil
}

// storesRowMajor reports whether a pointwise node stores its buffer at the
// row-major offset of its loop variables, so that a load index unravels
// into the point that computes the element. The scheduler may permute a
// node's loops into a reduction's order (sched/reorder.go); such a node's
// buffer is computed whole and read at the index instead.
func storesRowMajor(n *Node) bool {
	var terms []Expr
	for i, r := range n.Ranges {
		if r.String() == "1" {
			continue
		}
		terms = append(terms, Mul(V(fmt.Sprintf("x%d", i), r), Mul(append([]Expr{C(1)}, n.Ranges[i+1:]...)...)))
	}
	want := Add(append([]Expr{C(0)}, terms...)...).String()
	for _, st := range n.Body {
		if st.Op == "store" && st.Buffer == n.Name {
			return st.Index != nil && st.Index.String() == want
		}
	}
	return false
}

// buffer finds a materialized buffer; an inlined one is computed whole
// (an extern of the same kernel needs it all).
func (r *runner) buffer(name string, ctx *kernelCtx) (*tensor.Tensor, error) {
	if t := ctx.local[name]; t != nil {
		return t, nil
	}
	if t := r.bufs[name]; t != nil {
		return t, nil
	}
	if prod := ctx.inline[name]; prod != nil {
		res, err := r.compute(prod, ctx)
		if err != nil {
			return nil, err
		}
		ctx.local[name] = res[name]
		return res[name], nil
	}
	return nil, fmt.Errorf("buffer %q read before it is written", name)
}

// call runs an extern or fallback node on the eager op, its tensor
// arguments being views of the buffers.
func (r *runner) call(n *Node, ctx *kernelCtx) (map[string]*tensor.Tensor, error) {
	irn := r.p.Graph.Node(n.IRNode)
	if irn == nil {
		return nil, fmt.Errorf("no graph node %q", n.IRNode)
	}
	d := ir.Lookup(irn.Target)
	if d == nil {
		return nil, fmt.Errorf("target %q is not a canonical op", irn.Target)
	}
	bound, err := d.Schema.Bind(irn.Args, irn.Kwargs)
	if err != nil {
		return nil, err
	}
	var bad error
	vals := make([]ir.Value, len(bound))
	for i, a := range bound {
		vals[i] = ir.MapArg(a, func(in *ir.Node) ir.Arg {
			v := r.p.Values[in.Name]
			if v == nil {
				if in.Op == ir.Placeholder && in.Meta.HasValue {
					return in.Meta.Value
				}
				bad = fmt.Errorf("argument %q has no value", in.Name)
				return nil
			}
			t, err := r.buffer(v.Buffer, ctx)
			if err != nil {
				bad = err
				return nil
			}
			sh, st := r.sizes(v.Sizes), r.sizes(v.Strides)
			ish, ist := make([]int, len(sh)), make([]int, len(st))
			for k := range sh {
				ish[k], ist[k] = int(sh[k]), int(st[k])
			}
			return t.View(ish, ist, int(v.Offset.Eval(r.syms)))
		})
	}
	if bad != nil {
		return nil, bad
	}
	res, err := ir.Call(d, vals)
	if err != nil {
		return nil, err
	}
	items := []ir.Value{res}
	if tup, ok := res.(ir.Tuple); ok {
		items = tup
	}
	if len(items) != len(n.Writes) {
		return nil, fmt.Errorf("%s returned %d values for %d buffers", irn.Target, len(items), len(n.Writes))
	}
	out := map[string]*tensor.Tensor{}
	for i, w := range n.Writes {
		t, ok := items[i].(*tensor.Tensor)
		if !ok {
			return nil, fmt.Errorf("%s result %d is not a tensor", irn.Target, i)
		}
		out[w.Buffer] = t.Clone()
	}
	return out, nil
}
