package loopir

import (
	"fmt"
	"math"

	"gcdbg/ir"
	"gcdbg/tensor"
)

// body builds one inner function: statements, and the reads and writes
// they make (the node's MemoryDeps).
type body struct {
	l      *lowerer
	stmts  []Stmt
	n      int
	dts    map[string]tensor.DType
	reads  []Dep
	writes []Dep
}

func newBody(l *lowerer) *body { return &body{l: l, dts: map[string]tensor.DType{}} }

func (b *body) emit(s Stmt) string {
	s.Dst = fmt.Sprintf("tmp%d", b.n)
	b.n++
	b.dts[s.Dst] = s.DType
	b.stmts = append(b.stmts, s)
	return s.Dst
}

// load reads v at the loop point idx (the output's variables): v's
// dimensions align right, and a dimension of size 1 that broadcasts reads
// index 0, so it vanishes from the expression.
func (b *body) load(v *View, idx []Expr) string {
	k := len(idx) - len(v.Sizes)
	vi := make([]Expr, len(v.Sizes))
	for i := range vi {
		if v.Sizes[i].String() == "1" || i+k < 0 {
			vi[i] = C(0)
		} else {
			vi[i] = idx[i+k]
		}
	}
	return b.loadAt(v.Buffer, v.DType, v.Index(vi))
}

func (b *body) loadAt(buf string, dt tensor.DType, index Expr) string {
	b.addDep(&b.reads, Dep{Buffer: buf, Index: index})
	return b.emit(Stmt{Op: "load", Buffer: buf, Index: index, DType: dt})
}

func (b *body) addDep(deps *[]Dep, d Dep) {
	for _, x := range *deps {
		if x.Buffer == d.Buffer && x.Index.String() == d.Index.String() {
			return
		}
	}
	*deps = append(*deps, d)
}

func (b *body) constant(v float64, dt tensor.DType) string {
	return b.emit(Stmt{Op: "constant", Value: v, DType: dt})
}

func (b *body) cast(t string, dt tensor.DType) string {
	if b.dts[t] == dt {
		return t
	}
	return b.emit(Stmt{Op: "to_dtype", Args: []string{t}, DType: dt})
}

// op emits a pointwise prim; its dtype is what the eager op yields.
func (b *body) op(name string, args ...string) (string, error) {
	s := Stmt{Op: name, Args: args}
	dts := make([]tensor.DType, len(args))
	for i, a := range args {
		dts[i] = b.dts[a]
	}
	dt, err := probe(s, dts)
	if err != nil {
		return "", err
	}
	s.DType = dt
	return b.emit(s), nil
}

func (b *body) store(out *View, vars []Expr, t string) {
	idx := out.Index(vars)
	b.addDep(&b.writes, Dep{Buffer: out.Buffer, Index: idx})
	b.stmts = append(b.stmts, Stmt{Op: "store", Buffer: out.Buffer, Index: idx, Args: []string{t}, DType: b.dts[t]})
}

func (b *body) node(out *View, kind NodeKind, ranges, reduce []Expr, origin string) *Node {
	return &Node{Name: out.Buffer, Kind: kind, Ranges: ranges, ReduceRanges: reduce, Body: b.stmts,
		Reads: b.reads, Writes: b.writes, Origins: []string{origin}, Op: "", IRNode: origin}
}

// number converts a Python number argument for a constant statement.
func number(a ir.Arg) (float64, tensor.Operand, bool) {
	switch x := a.(type) {
	case bool:
		if x {
			return 1, tensor.Operand{DType: tensor.Bool, Scalar: true}, true
		}
		return 0, tensor.Operand{DType: tensor.Bool, Scalar: true}, true
	case int64:
		return float64(x), tensor.Operand{DType: tensor.Int64, Scalar: true}, true
	case float64:
		return x, tensor.Operand{DType: tensor.Float64, Scalar: true}, true
	}
	return 0, tensor.Operand{}, false
}

// operands loads tensor arguments and makes constants of Python numbers,
// all cast to the promoted dtype (PyTorch's result_type, wrapped-number
// rule included), so each prim sees operands of one dtype.
func (b *body) operands(args []ir.Arg, vars []Expr, promote bool) ([]string, error) {
	ops := make([]tensor.Operand, len(args))
	views := make([]*View, len(args))
	nums := make([]float64, len(args))
	for i, a := range args {
		v, py, err := b.l.value(a)
		if err != nil {
			return nil, err
		}
		if v != nil {
			views[i] = v
			ops[i] = tensor.Operand{DType: v.DType, ZeroD: len(v.Sizes) == 0}
			continue
		}
		f, o, ok := number(py)
		if !ok {
			return nil, errUnsupported
		}
		nums[i], ops[i] = f, o
	}
	common := tensor.ResultType(ops...)
	out := make([]string, len(args))
	for i := range args {
		if views[i] != nil {
			out[i] = b.load(views[i], vars)
			if promote {
				out[i] = b.cast(out[i], common)
			}
			continue
		}
		dt := common
		if !promote {
			dt = tensor.ResultType(ops[i])
		}
		out[i] = b.constant(nums[i], dt)
	}
	return out, nil
}

// pointwise lowers a pointwise prim or a creation op to a Pointwise node.
func (l *lowerer) pointwise(n *ir.Node, op string, bound []ir.Arg) error {
	m := n.Meta.Tensor
	d := ir.Lookup(n.Target)
	b := newBody(l)
	out := l.sizesOf(m.Shape)
	vars := loopVars(out, "x")
	var t string
	var err error
	switch op {
	case "full", "scalar_tensor":
		f, _, ok := number(bound[map[string]int{"full": 1, "scalar_tensor": 0}[op]])
		if !ok {
			return errUnsupported
		}
		t = b.constant(f, m.DType)
	case "arange":
		start, end, step := bound[0], bound[1], bound[2]
		if end == nil {
			start, end = int64(0), start
		}
		f0, _, ok0 := number(start)
		fs, _, ok1 := number(step)
		if _, _, ok2 := number(end); !ok0 || !ok1 || !ok2 || len(out) != 1 {
			return errUnsupported
		}
		// An integer arange is start + i*step in int64 of the truncated
		// start and step (tensor.Arange), exact. A floating one is compiled
		// only where every value is an integer the dtype holds exactly
		// (torch.arange(T, dtype=torch.float32)): then any evaluation order
		// gives PyTorch's numbers; elsewhere they depend on its vectorized
		// kernel's layout and FMA (tensor.Arange, kept in one place), and
		// the node takes the eager fallback.
		if m.DType.IsFloat() {
			if !exactFloatArange(f0, fs, m) {
				return errUnsupported
			}
			x := b.cast(b.emit(Stmt{Op: "index_expr", Index: vars[0], DType: tensor.Int64}), tensor.Float64)
			if x, err = b.op("mul", x, b.constant(fs, tensor.Float64)); err != nil {
				return err
			}
			if t, err = b.op("add", x, b.constant(f0, tensor.Float64)); err != nil {
				return err
			}
			break
		}
		if math.Abs(math.Trunc(f0)) >= 1<<53 || math.Abs(math.Trunc(fs)) >= 1<<53 {
			return errUnsupported
		}
		x := b.emit(Stmt{Op: "index_expr", Index: vars[0], DType: tensor.Int64})
		if x, err = b.op("mul", x, b.constant(math.Trunc(fs), tensor.Int64)); err != nil {
			return err
		}
		if t, err = b.op("add", x, b.constant(math.Trunc(f0), tensor.Int64)); err != nil {
			return err
		}
	case "to_dtype", "clone":
		ts, err := b.operands(bound[:1], vars, false)
		if err != nil {
			return err
		}
		t = b.cast(ts[0], m.DType)
	case "where":
		c, err := b.operands(bound[:1], vars, false)
		if err != nil {
			return err
		}
		xy, err := b.operands(bound[1:3], vars, true)
		if err != nil {
			return err
		}
		if t, err = b.op("where", b.cast(c[0], tensor.Bool), xy[0], xy[1]); err != nil {
			return err
		}
	case "add", "sub":
		ts, err := b.operands(bound[:2], vars, true)
		if err != nil {
			return err
		}
		if f, _, ok := number(bound[2]); !ok {
			return errUnsupported
		} else if f != 1 {
			if ts[1], err = b.op("mul", ts[1], b.constant(f, b.dts[ts[1]])); err != nil {
				return err
			}
		}
		if t, err = b.op(op, ts[0], ts[1]); err != nil {
			return err
		}
	case "div":
		ts, err := b.operands(bound[:2], vars, true)
		if err != nil {
			return err
		}
		switch bound[2] {
		case nil:
			t, err = b.op("div", ts[0], ts[1])
		case "floor":
			t, err = b.op("floor_divide", ts[0], ts[1])
		case "trunc":
			if t, err = b.op("div", ts[0], ts[1]); err == nil {
				t, err = b.op("trunc", t)
			}
		default:
			return errUnsupported
		}
		if err != nil {
			return err
		}
	default:
		// A prim whose parameters are all values: unary ops keep their
		// operand's dtype (sin of an int is the op's business), the rest
		// promote.
		if len(bound) != len(d.Schema.Params) || len(bound) > 3 {
			return errUnsupported
		}
		ts, err := b.operands(bound, vars, len(bound) > 1)
		if err != nil {
			return err
		}
		if t, err = b.op(op, ts...); err != nil {
			return err
		}
	}
	t = b.cast(t, m.DType)
	v := l.newBuffer("", Intermediate, m, n.Name)
	b.store(v, vars, t)
	l.p.Nodes = append(l.p.Nodes, b.node(v, Pointwise, out, nil, n.Name))
	l.p.Values[n.Name] = v
	return nil
}

// reduction lowers sum/prod/amax/amin/argmax/argmin: kept dimensions are
// the ranges (x), reduced ones the reduction ranges (r); the body loads,
// reduces, and stores one value per kept point.
func (l *lowerer) reduction(n *ir.Node, op string, bound []ir.Arg) error {
	in, _, err := l.value(bound[0])
	if err != nil || in == nil {
		return fmt.Errorf("args[0]: not a tensor")
	}
	rank := len(in.Sizes)
	red := map[int]bool{}
	switch ds := bound[1].(type) {
	case nil:
	case int64:
		d, err := dimArg2(ds, max(rank, 1))
		if err != nil {
			return err
		}
		red[d] = true
	case ir.Tuple, ir.List:
		items := []ir.Arg{}
		if t, ok := ds.(ir.Tuple); ok {
			items = t
		} else {
			items = ds.(ir.List)
		}
		for _, x := range items {
			d, err := dimArg2(x, max(rank, 1))
			if err != nil {
				return err
			}
			red[d] = true
		}
	default:
		return fmt.Errorf("args[1]: dims")
	}
	all := len(red) == 0
	var kept, reduced []Expr
	for i, s := range in.Sizes {
		if all || red[i] {
			reduced = append(reduced, s)
		} else {
			kept = append(kept, s)
		}
	}
	xv, rv := loopVars(kept, "x"), loopVars(reduced, "r")
	idx := make([]Expr, rank)
	ki, ri := 0, 0
	for i := range idx {
		if all || red[i] {
			idx[i], ri = rv[ri], ri+1
		} else {
			idx[i], ki = xv[ki], ki+1
		}
	}
	b := newBody(l)
	t := b.load(in, idx)
	if len(bound) > 3 && bound[3] != nil {
		dt, ok := bound[3].(tensor.DType)
		if !ok {
			return fmt.Errorf("args[3]: dtype")
		}
		t = b.cast(t, dt)
	}
	s := Stmt{Op: "reduction", ReduceOp: op, Args: []string{t}}
	if s.DType, err = probe(s, []tensor.DType{b.dts[t]}); err != nil {
		return err
	}
	t = b.cast(b.emit(s), n.Meta.Tensor.DType)
	v := l.newBuffer("", Intermediate, n.Meta.Tensor, n.Name)
	kv := &View{Buffer: v.Buffer, Sizes: kept, Strides: contiguousStrides(kept), Offset: C(0)}
	b.store(kv, xv, t)
	b.stmts[len(b.stmts)-1].Op = "store_reduction"
	l.p.Nodes = append(l.p.Nodes, b.node(v, Reduction, kept, reduced, n.Name))
	l.p.Values[n.Name] = v
	return nil
}

// gather lowers gather/index_select to a Pointwise node with an indirect
// load: the index is loaded first, then the source at an index expression
// that uses that temporary (an Indirect atom).
func (l *lowerer) gather(n *ir.Node, op string, bound []ir.Arg) error {
	self, _, err := l.value(bound[0])
	idxV, _, err2 := l.value(bound[2])
	if err == nil && err2 == nil && self != nil && idxV != nil && !idxV.DType.IsFloat() &&
		op == "index_select" && len(self.Sizes) == 0 && len(n.Meta.Tensor.Shape) == 0 {
		return l.indexSelect0d(n, self, idxV)
	}
	if err != nil || err2 != nil || self == nil || idxV == nil || len(self.Sizes) == 0 || idxV.DType.IsFloat() {
		return l.fallback(n, op, ir.KindIndex)
	}
	dim, err := dimArg2(bound[1], len(self.Sizes))
	if err != nil {
		return fmt.Errorf("args[1]: %w", err)
	}
	m := n.Meta.Tensor
	out := l.sizesOf(m.Shape)
	if len(out) != len(self.Sizes) {
		return l.fallback(n, op, ir.KindIndex)
	}
	vars := loopVars(out, "x")
	b := newBody(l)
	var ti string
	if op == "index_select" {
		ti = b.load(idxV, vars[dim:dim+1])
	} else {
		ti = b.load(idxV, vars)
	}
	si := append([]Expr{}, vars...)
	si[dim] = Indirect{Tmp: ti, Bound: self.Sizes[dim]}
	t := b.cast(b.loadAt(self.Buffer, self.DType, self.Index(si)), m.DType)
	v := l.newBuffer("", Intermediate, m, n.Name)
	b.store(v, vars, t)
	l.p.Nodes = append(l.p.Nodes, b.node(v, Pointwise, out, nil, n.Name))
	l.p.Values[n.Name] = v
	return nil
}

// indexSelect0d is index_select of a 0-d self (a 0-d result, self's value,
// for an index whose elements are all 0): the index's first element is
// loaded as the indirect offset into self, bounded by 1, so generated code
// checks it before the load; the eager interpreter checks every element.
func (l *lowerer) indexSelect0d(n *ir.Node, self, idxV *View) error {
	m := n.Meta.Tensor
	b := newBody(l)
	first := make([]Expr, len(idxV.Sizes))
	for i := range first {
		first[i] = C(0)
	}
	ti := b.load(idxV, first)
	t := b.cast(b.loadAt(self.Buffer, self.DType, Add(self.Offset, Indirect{Tmp: ti, Bound: C(1)})), m.DType)
	v := l.newBuffer("", Intermediate, m, n.Name)
	b.store(v, nil, t)
	l.p.Nodes = append(l.p.Nodes, b.node(v, Pointwise, nil, nil, n.Name))
	l.p.Values[n.Name] = v
	return nil
}

// exactFloatArange reports whether a floating arange's values are integers
// that the dtype and its accumulate type hold exactly (start, step*i and
// start + step*i): float16 to 2^11, bfloat16 to 2^8, float32 to 2^24,
// float64 to 2^53.
func exactFloatArange(start, step float64, m *ir.TensorMeta) bool {
	if start != math.Trunc(start) || step != math.Trunc(step) || len(m.Shape) != 1 || !m.Shape[0].Static() {
		return false
	}
	lim := map[tensor.DType]float64{tensor.Float16: 1 << 11, tensor.BFloat16: 1 << 8, tensor.Float32: 1 << 24, tensor.Float64: 1 << 53}[m.DType]
	n := float64(max(m.Shape[0].Size-1, 0))
	return math.Abs(start) <= lim && math.Abs(step)*n <= lim && math.Abs(start+step*n) <= lim
}
