package render

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"gcdbg/loopir"
	"gcdbg/tensor"
)

// kernelGen writes one fused kernel as one C function. Values flow in
// registers inside the loop nest: a member's stored value is remembered
// for the rest of the scope (the scheduler proved every in-kernel reader
// reads the element its producer stores at the same point), and a
// pointwise member whose buffer never leaves the kernel is not emitted at
// all but computed where it is loaded (inlined), as Inductor's loop bodies do.
type kernelGen struct {
	// pure caches pureRanges per node (computed_index.go).
	pure   map[*loopir.Node]map[string]irange
	r      *renderer
	idx    int
	k      *loopir.Kernel
	name   string
	inline map[string]*loopir.Node // internal pointwise members, computed on demand
	member map[*loopir.Node]bool
	sp     space
	b      strings.Builder
	ind    int
	ntmp   int
	scopes []map[string]value // buffer -> its value at the current point
	err    error
	cur    *loopir.Node // the node whose statements are being written (checkedLoad names it)
	rs     *rowStream   // a gathered row being copied whole (gather_stream.go)
	params []string     // buffers the kernel touches, in parameter order
	flops  int64
	// note is a trailing comment for the next declared temporary: the
	// graph nodes whose value it is, so a reader (and the TUI) can go from
	// a ReLU in the captured graph to the exact C line computing it.
	note string
	// vecNotes say how the kernel's loops are vectorized (vector.go), for
	// the kernel's comment.
	vecNotes []string
	stash    *stashPlan // values stashed between a row kernel's passes (stash.go)
	// unravel maps an unravelled variable's C text to its expression over
	// the loop variables (unravel.go).
	unravel map[string]loopir.Expr
	// fn is the C function a repeated kernel's call site calls (the first
	// kernel of the same code, kernel_share.go); "" calls its own. ci: the
	// call passes its choice index. sharedBy: the later kernels calling
	// this one's function.
	fn       string
	from     int // the kernel whose function fn is
	ci       bool
	sharedBy []int
	// defs records each temporary's prim and operands, written the buffers
	// the kernel's nodes write (gelu.go).
	defs    map[string]geluDef
	written map[string]bool
}

// value is a C expression (a temporary's name) and its dtype.
type value struct {
	c  string
	dt tensor.DType
}

// space is the kernel's loop nest: outer loops (x0 ..) and, for a
// reduction kernel, reduce loops (r0 ..); size-1 dimensions dropped.
type space struct {
	outer, reduce []loopir.Expr
}

func newKernelGen(r *renderer, idx int, k *loopir.Kernel) *kernelGen {
	g := &kernelGen{r: r, idx: idx, k: k, inline: map[string]*loopir.Node{}, member: map[*loopir.Node]bool{}}
	for _, n := range k.Nodes {
		g.member[n] = true
	}
	for _, n := range k.Nodes {
		if n.Kind == loopir.Pointwise && r.internal(n, g.member) {
			g.inline[n.Name] = n
		}
	}
	var origins []string
	for _, n := range k.Nodes {
		origins = append(origins, n.Origins...)
	}
	// Inductor names kernels by their origins, last (the result) first.
	var parts []string
	for i := len(origins) - 1; i >= 0 && len(parts) < 3; i-- {
		if s := sanitizeIdent(origins[i]); s != "" {
			parts = append(parts, s)
		}
	}
	g.name = r.names.name(fmt.Sprintf("k%d_", idx), strings.Join(parts, "_"))
	return g
}

// indexReaders builds r.readers, every buffer's reading nodes, once:
// scanning the program per node was quadratic.
func (r *renderer) indexReaders() {
	if r.readers != nil {
		return
	}
	r.readers = map[string][]*loopir.Node{}
	for _, m := range r.p.Nodes {
		for _, rd := range m.Reads {
			r.readers[rd.Buffer] = append(r.readers[rd.Buffer], m)
		}
	}
}

// internal reports whether every buffer n writes is read only by members
// and is no output: it needs no memory.
func (r *renderer) internal(n *loopir.Node, members map[*loopir.Node]bool) bool {
	r.indexReaders()
	for _, w := range n.Writes {
		if st := r.store[w.Buffer]; st != nil {
			return false
		}
		for _, m := range r.readers[w.Buffer] {
			if !members[m] {
				return false
			}
		}
	}
	return true
}

func (g *kernelGen) fail(format string, args ...any) {
	if g.err == nil {
		g.err = fmt.Errorf(format, args...)
	}
}

func (g *kernelGen) line(format string, args ...any) {
	g.b.WriteString(strings.Repeat("  ", g.ind))
	fmt.Fprintf(&g.b, format, args...)
	g.b.WriteString("\n")
}

func (g *kernelGen) tmp() string {
	g.ntmp++
	return fmt.Sprintf("t%d", g.ntmp-1)
}

func (g *kernelGen) push() { g.scopes = append(g.scopes, map[string]value{}) }
func (g *kernelGen) pop()  { g.scopes = g.scopes[:len(g.scopes)-1] }

func (g *kernelGen) lookup(buf string) (value, bool) {
	for i := len(g.scopes) - 1; i >= 0; i-- {
		if v, ok := g.scopes[i][buf]; ok {
			return v, true
		}
	}
	return value{}, false
}

func (g *kernelGen) remember(buf string, v value) { g.scopes[len(g.scopes)-1][buf] = v }

// ctype is the dialect's spelling of a value of dtype dt in a register
// (a narrow float computes in float: narrow.go); stype of its storage.
func (g *kernelGen) ctype(dt tensor.DType) string {
	if _, ok := g.narrow(dt); ok {
		dt = tensor.Float32
	}
	return g.stype(dt)
}

func (g *kernelGen) stype(dt tensor.DType) string {
	t, ok := g.r.d.Types[dt]
	if !ok {
		g.fail("dtype %s has no %s type%s", dt, g.r.d.Name, noTypeHint(dt))
		return "void"
	}
	return t
}

func (g *kernelGen) idxType() string { return g.r.d.Types[tensor.Int64] }

// expr renders an index expression; vars maps the node's loop variables
// to C expressions, tmps its temporaries (indirect indexing).
func (g *kernelGen) expr(e loopir.Expr, vars map[string]string, tmps map[string]value) string {
	switch e.(type) {
	case *loopir.Sum, loopir.Var, *loopir.FloorDivE, *loopir.ModE:
		if folded, rest, ok := g.substUnravelled(e, vars); ok { // unravel.go
			return g.expr(folded, rest, tmps)
		}
	}
	switch x := e.(type) {
	case loopir.Const:
		if x.V < 0 {
			return "(" + strconv.FormatInt(x.V, 10) + ")"
		}
		return strconv.FormatInt(x.V, 10)
	case loopir.Var:
		if v, ok := vars[x.Name]; ok {
			return v
		}
		if name, ok := strings.CutPrefix(x.Name, loopVarPrefix); ok {
			return name // a loop variable in a substituted index (unravel.go)
		}
		g.fail("loop variable %s is not bound in this kernel", x.Name)
		return "0"
	case loopir.Sym:
		if c, ok := g.r.symC[x.Name]; ok {
			return c
		}
		g.fail("unknown size symbol %s", x.Name)
		return "0"
	case loopir.Indirect:
		if v, ok := tmps[x.Tmp]; ok {
			return "((" + g.idxType() + ")" + v.c + ")"
		}
		g.fail("indirect index %s is not computed", x.Tmp)
		return "0"
	case *loopir.Sum:
		var parts []string
		for _, t := range x.Terms {
			fs := make([]string, 0, len(t.Factors)+1)
			if t.K != 1 {
				fs = append(fs, strconv.FormatInt(t.K, 10))
			}
			for _, f := range t.Factors {
				fs = append(fs, g.expr(f, vars, tmps))
			}
			parts = append(parts, strings.Join(fs, "*"))
		}
		if x.C != 0 {
			parts = append(parts, strconv.FormatInt(x.C, 10))
		}
		return "(" + strings.Join(parts, " + ") + ")"
	case *loopir.FloorDivE:
		a, b := g.expr(x.A, vars, tmps), g.expr(x.B, vars, tmps)
		if nonneg(x.A) && nonneg(x.B) {
			return "(" + a + " / " + b + ")"
		}
		return "gcdbg_floordiv_i64(" + a + ", " + b + ")"
	case *loopir.ModE:
		a, b := g.expr(x.A, vars, tmps), g.expr(x.B, vars, tmps)
		if nonneg(x.A) && nonneg(x.B) {
			return "(" + a + " % " + b + ")"
		}
		return "gcdbg_mod_i64(" + a + ", " + b + ")"
	}
	g.fail("cannot render index %v", e)
	return "0"
}

// nonneg proves e >= 0: non-negative coefficients over loop variables,
// sizes and (non-negative) floor divisions and modulos of those.
func nonneg(e loopir.Expr) bool {
	switch x := e.(type) {
	case loopir.Const:
		return x.V >= 0
	case loopir.Var, loopir.Sym:
		return true
	case *loopir.FloorDivE:
		return nonneg(x.A) && nonneg(x.B)
	case *loopir.ModE:
		return nonneg(x.A) && nonneg(x.B)
	case *loopir.Sum:
		if x.C < 0 {
			return false
		}
		for _, t := range x.Terms {
			if t.K < 0 {
				return false
			}
			for _, f := range t.Factors {
				if !nonneg(f) {
					return false
				}
			}
		}
		return true
	}
	return false
}

// literal spells a constant of dtype dt.
func (g *kernelGen) literal(v float64, dt tensor.DType) string {
	switch {
	case dt == tensor.Bool:
		if v != 0 {
			return "1"
		}
		return "0"
	case dt.IsFloat():
		t := g.ctype(dt)
		switch {
		case math.IsNaN(v):
			return "((" + t + ")" + g.r.d.NaN + ")"
		case math.IsInf(v, 1):
			return "((" + t + ")" + g.r.d.Inf + ")"
		case math.IsInf(v, -1):
			return "(-(" + t + ")" + g.r.d.Inf + ")"
		}
		bits := 64
		switch dt {
		case tensor.Float32:
			bits = 32
		case tensor.Float16, tensor.BFloat16:
			// A narrow constant is the narrow value (PyTorch casts a
			// scalar operand to the tensor's dtype), spelled as a float.
			if _, ok := g.narrow(dt); ok {
				bits, v = 32, tensor.Round(dt, v)
			}
		}
		s := strconv.FormatFloat(v, 'g', -1, bits)
		if !strings.ContainsAny(s, ".eEn") {
			s += ".0"
		}
		s += g.r.d.FloatSuffix[dt]
		if v < 0 {
			return "(" + s + ")"
		}
		return s
	case v == math.MinInt64:
		return "(-9223372036854775807LL - 1)"
	}
	// An integer constant is the value cast to its dtype, wrapping as PyTorch casts a
	// scalar operand to a uint8/int8/int32 tensor's dtype: uint8 x == -1 is x == 255
	// (C would compare the promoted int with -1).
	v = tensor.Round(dt, v)
	s := strconv.FormatInt(int64(v), 10)
	if dt == tensor.Int64 {
		s = "((" + g.ctype(dt) + ")" + s + "LL)"
	}
	if v < 0 {
		return "(" + s + ")"
	}
	return s
}

// cast converts v to dt (bool by comparison with zero, as PyTorch does).
func (g *kernelGen) cast(v value, dt tensor.DType) value {
	if v.dt == dt {
		return v
	}
	if dt == tensor.Bool {
		return g.decl(dt, "("+v.c+" != 0)")
	}
	if v.dt.IsFloat() && dt.IsInt() {
		return g.floatToInt(v, dt)
	}
	if v.dt == tensor.Bool {
		// A select, not a C cast: gcc 12 finds no vector type for a
		// bool-to-float conversion and leaves the whole loop scalar (the
		// cross-entropy backward's eq mask: its output loop, and with it a
		// scalar expf per element, 5x slower).
		t := g.ctype(dt)
		return g.decl(dt, "("+v.c+" ? ("+t+")1 : ("+t+")0)")
	}
	return g.decl(dt, "(("+g.ctype(dt)+")"+v.c+")")
}

// floatToInt converts a float to an integer dtype as PyTorch does on the
// CPU, where C leaves NaN, ±Inf and values out of range undefined: int64
// truncates through int64 and int32, int8 and uint8 through int32 (then
// wrap), and NaN, ±Inf or a value outside that intermediate's range gives
// its minimum (x86's cvttss2si, which PyTorch's static_cast compiles to).
// tensor.FloatToInt is the same rule for the eager interpreter.
func (g *kernelGen) floatToInt(v value, dt tensor.DType) value {
	x := v
	if !isIdent(x.c) {
		x = g.decl(v.dt, v.c)
	}
	f := "f"
	if v.dt == tensor.Float64 {
		f = ""
	}
	if dt == tensor.Int64 {
		it := g.ctype(tensor.Int64)
		return g.decl(dt, fmt.Sprintf("((%s >= -9223372036854775808.0%s && %s < 9223372036854775808.0%s) ? (%s)%s : (%s)(-9223372036854775807L - 1L))",
			x.c, f, x.c, f, it, x.c, it))
	}
	i32 := fmt.Sprintf("((%s >= -2147483648.0%s && %s < 2147483648.0%s) ? (%s)%s : (%s)(-2147483647 - 1))",
		x.c, f, x.c, f, g.ctype(tensor.Int32), x.c, g.ctype(tensor.Int32))
	if dt == tensor.Int32 {
		return g.decl(dt, i32)
	}
	return g.decl(dt, "(("+g.ctype(dt)+")"+i32+")")
}

// isIdent reports whether c is a plain C identifier (a temporary), safe to
// name twice in one expression.
func isIdent(c string) bool {
	if c == "" {
		return false
	}
	for i, r := range c {
		if !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || i > 0 && r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}

// decl binds expr to a fresh temporary of dtype dt, rounded to dt when
// dt is a narrow float computed in float (narrow.go).
func (g *kernelGen) decl(dt tensor.DType, expr string) value {
	return g.declExact(dt, g.rounded(dt, expr))
}

// declExact is decl of a value that dt already holds exactly (a load).
func (g *kernelGen) declExact(dt tensor.DType, expr string) value {
	t := g.tmp()
	g.declared(t, g.note) // gelu.go
	if g.note != "" {
		g.line("const %s %s = %s;  // %s", g.ctype(dt), t, expr, g.note)
		g.note = ""
	} else {
		g.line("const %s %s = %s;", g.ctype(dt), t, expr)
	}
	return value{t, dt}
}

// op spells one pointwise prim and records what it computed (gelu.go
// matches GELU's decomposition on those records).
func (g *kernelGen) op(s loopir.Stmt, args []value) value {
	g.flops++
	v, ok := g.gelu(s, args) // gelu.go
	if !ok {
		v = g.spell(s, args)
	}
	g.define(v, s.Op, args)
	return v
}

// spell spells one pointwise prim from the dialect's tables.
func (g *kernelGen) spell(s loopir.Stmt, args []value) value {
	d := g.r.d
	isInt := len(args) > 0 && !args[len(args)-1].dt.IsFloat()
	if fn := g.maskedExp(s); fn != "" { // expf.go
		return g.decl(s.DType, fn+"("+g.cast(args[0], s.DType).c+")")
	}
	if e, ok := g.smallPow(s, args); ok { // pow_small.go
		return e
	}
	if fns, ok := d.Math[s.Op]; ok && s.DType.IsFloat() && len(args) >= 1 {
		if fn := fns[s.DType]; fn != "" {
			cs := make([]string, len(args))
			for i, a := range args {
				cs[i] = g.cast(a, s.DType).c
			}
			return g.decl(s.DType, fn+"("+strings.Join(cs, ", ")+")")
		}
	}
	tpl := ""
	if isInt {
		if args[len(args)-1].dt == tensor.Bool {
			tpl = d.Ops[s.Op+":bool"]
		}
		if tpl == "" {
			tpl = d.Ops[s.Op+":int"]
		}
	}
	if tpl == "" {
		tpl = d.Ops[s.Op]
	}
	if tpl == "" {
		g.fail("op %s has no %s spelling", s.Op, d.Name)
		return value{"0", s.DType}
	}
	// Float results of integer operands (true division, exp of an int)
	// compute in the result type.
	for i := range args {
		if s.DType.IsFloat() && !args[i].dt.IsFloat() && !(s.Op == "where" && i == 0) {
			args[i] = g.cast(args[i], s.DType)
		}
	}
	out := tpl
	for i := len(args) - 1; i >= 0; i-- {
		out = strings.ReplaceAll(out, "$"+strconv.Itoa(i), args[i].c)
	}
	// Upper-case names in a template are libm functions of the result type.
	for _, fn := range []string{"FLOOR", "EXP", "SQRT", "POW", "ATAN2"} {
		if strings.Contains(out, fn) {
			dt := s.DType
			if !dt.IsFloat() {
				dt = tensor.Float64
			}
			out = strings.ReplaceAll(out, fn, d.Math[strings.ToLower(fn)][dt])
		}
	}
	if strings.Contains(out, "$") {
		g.fail("op %s: template %q needs more operands than %d", s.Op, tpl, len(args))
	}
	return g.decl(s.DType, out)
}

// stmts emits statements of n (from..to) at the point vars and returns the
// temporaries; a store's value comes back as the result.
func (g *kernelGen) stmts(n *loopir.Node, body []loopir.Stmt, vars map[string]string, tmps map[string]value) (value, bool) {
	outer := g.cur
	g.cur = n
	defer func() { g.cur = outer }()
	// The statement computing the stored value gets the node's origins as
	// a trailing comment.
	result := ""
	for _, s := range body {
		if (s.Op == "store" || s.Op == "store_reduction") && len(s.Args) == 1 {
			result = s.Args[0]
		}
	}
	for _, s := range body {
		if s.Dst != "" && s.Dst == result && len(n.Origins) > 0 {
			g.note = Comment(strings.Join(n.Origins, ", "))
		}
		args := make([]value, len(s.Args))
		for i, a := range s.Args {
			v, ok := tmps[a]
			if !ok {
				g.fail("node %s: %s reads %s before it is set", n.Name, s.Op, a)
				return value{}, false
			}
			args[i] = v
		}
		var v value
		switch s.Op {
		case "load":
			v = g.load(s, vars, tmps)
		case "constant":
			v = value{g.literal(s.Value, s.DType), s.DType}
		case "index_expr":
			v = g.decl(s.DType, "(("+g.ctype(s.DType)+")"+g.expr(s.Index, vars, tmps)+")")
		case "to_dtype":
			v = g.cast(args[0], s.DType)
		case "clone":
			v = args[0]
		case "store", "store_reduction":
			if len(args) != 1 {
				g.fail("node %s: %s needs one value", n.Name, s.Op)
				return value{}, false
			}
			return args[0], true
		case "reduction":
			g.fail("node %s: reduction outside a reduction loop", n.Name)
			return value{}, false
		default:
			v = g.op(s, args)
		}
		g.note = "" // the result was a load, constant or cast: no new line to mark
		tmps[s.Dst] = v
	}
	return value{}, false
}

// load reads a buffer at a point: a value already in a register, an
// inlined producer computed here, or memory.
func (g *kernelGen) load(s loopir.Stmt, vars map[string]string, tmps map[string]value) value {
	if v, ok := g.lookup(s.Buffer); ok {
		return v
	}
	if p := g.inline[s.Buffer]; p != nil {
		if v, ok := g.stashedLoad(s.Buffer); ok { // stash.go
			g.remember(s.Buffer, v)
			return v
		}
		v, ok := g.stmts(p, p.Body, g.varsOf(p), map[string]value{})
		if !ok {
			g.fail("inlined node %s has no store", p.Name)
		}
		g.stashStore(s.Buffer, v)
		g.remember(s.Buffer, v)
		return v
	}
	st := g.r.store[s.Buffer]
	if st == nil {
		g.fail("buffer %q is read but has no storage and no producer in this kernel", s.Buffer)
		return value{"0", s.DType}
	}
	g.use(s.Buffer)
	if g.r.d.Name == "c" && hasIndirect(s.Index) && !g.computedLoad(g.cur, s) {
		return g.checkedLoad(s, st, vars, tmps)
	}
	elem := st.c + "[" + g.expr(s.Index, vars, tmps) + "]"
	if g.r.d.Name == "c" && st.dt == tensor.Bool {
		// gcc 12 vectorizes no loop that selects floats by a _Bool read
		// from memory ("no vectype"), but does when the byte is read as
		// uint8_t: a mask's where/mul chain (a ReLU or max-pool backward)
		// stayed scalar. Bool storage holds 0 or 1, so the value is the same.
		elem = "((const uint8_t *)" + st.c + ")[" + g.expr(s.Index, vars, tmps) + "]"
	}
	v := g.declExact(st.dt, g.loadExpr(st.dt, elem))
	g.defineLoad(v, s.Buffer, elem)
	return v
}

// checkedLoad is a load at a data-dependent index (gather, index_select,
// indexing): the element must lie inside the buffer, or gcdbg_oob names
// the node and stops, so no index value can make a kernel read memory it
// does not own. One compare on an index already in a register; the eager
// interpreter's own check still gives PyTorch's error first on a normal run.
func (g *kernelGen) checkedLoad(s loopir.Stmt, st *storage, vars map[string]string, tmps map[string]value) value {
	b := g.r.p.Buffers[s.Buffer]
	if b == nil || len(b.Strides) != len(b.Sizes) {
		g.fail("indexed load of %q: the buffer's layout is unknown", s.Buffer)
		return value{"0", s.DType}
	}
	// The buffer's extent in elements: 1 + sum((size-1)*stride), 0 when
	// a size is 0 (strides are never negative).
	extent, empty := "1", ""
	for i := range b.Sizes {
		sz, sd := g.expr(b.Sizes[i], vars, tmps), g.expr(b.Strides[i], vars, tmps)
		extent += " + (" + sz + " - 1) * " + sd
		if empty != "" {
			empty += " || "
		}
		empty += sz + " == 0"
	}
	if empty != "" {
		extent = "((" + empty + ") ? 0 : (" + extent + "))"
	}
	node := "?"
	if n := g.cur; n != nil {
		node = sanitizeIdent(n.Name)
		if len(n.Origins) > 0 {
			node = sanitizeIdent(n.Origins[len(n.Origins)-1]) + " (" + node + ")"
		}
	}
	// Each index against its dimension (PyTorch's condition: an index that
	// still lands inside the buffer is out of range too), then the element
	// against the buffer (any other data-dependent index).
	for _, ind := range indirectsOf(s.Index) {
		if ind.Bound == nil {
			continue
		}
		v, ok := tmps[ind.Tmp]
		if !ok {
			continue // expr reports it
		}
		iv := g.decl(tensor.Int64, "(("+g.idxType()+")"+v.c+")")
		bound := g.decl(tensor.Int64, g.expr(ind.Bound, vars, tmps))
		g.line("if (__builtin_expect(%s < 0 || %s >= %s, 0)) gcdbg_oob(\"%s\", \"an index of %s\", %s, %s);", iv.c, iv.c, bound.c, node, sanitizeIdent(s.Buffer), iv.c, bound.c)
	}
	at := g.decl(tensor.Int64, g.expr(s.Index, vars, tmps))
	ext := g.decl(tensor.Int64, extent)
	g.line("if (__builtin_expect(%s < 0 || %s >= %s, 0)) gcdbg_oob(\"%s\", \"the elements of %s\", %s, %s);", at.c, at.c, ext.c, node, sanitizeIdent(s.Buffer), at.c, ext.c)
	if v, ok := g.streamRow(s, st, at, ext, node); ok { // gather_stream.go
		return v
	}
	return g.declExact(st.dt, g.loadExpr(st.dt, st.c+"["+at.c+"]"))
}

// indirectsOf lists the data-dependent atoms of an index expression.
func indirectsOf(e loopir.Expr) []loopir.Indirect {
	switch x := e.(type) {
	case loopir.Indirect:
		return []loopir.Indirect{x}
	case *loopir.Sum:
		var out []loopir.Indirect
		for _, t := range x.Terms {
			for _, f := range t.Factors {
				out = append(out, indirectsOf(f)...)
			}
		}
		return out
	case *loopir.FloorDivE:
		return append(indirectsOf(x.A), indirectsOf(x.B)...)
	case *loopir.ModE:
		return append(indirectsOf(x.A), indirectsOf(x.B)...)
	}
	return nil
}

// use records that the kernel takes buf as a parameter.
func (g *kernelGen) use(buf string) {
	for _, p := range g.params {
		if p == buf {
			return
		}
	}
	g.params = append(g.params, buf)
}

// emitMember computes a member at the current point and stores its value
// when its buffer lives in memory.
func (g *kernelGen) emitMember(n *loopir.Node) {
	v, ok := g.stmts(n, n.Body, g.varsOf(n), map[string]value{})
	if !ok {
		g.fail("node %s has no store", n.Name)
		return
	}
	g.storeValue(n, v, g.varsOf(n), nil)
}

// storeValue writes v to n's buffer (when it has memory) and remembers it.
func (g *kernelGen) storeValue(n *loopir.Node, v value, vars map[string]string, tmps map[string]value) {
	var st loopir.Stmt
	for _, s := range n.Body {
		if s.Op == "store" || s.Op == "store_reduction" {
			st = s
		}
	}
	if mem := g.r.store[n.Name]; mem != nil {
		g.use(n.Name)
		if idx := g.expr(st.Index, vars, tmps); !g.streamStore(n, mem, idx) { // gather_stream.go
			g.line("%s[%s] = %s;", mem.c, idx, g.storeExpr(mem.dt, v.c))
		}
		g.stashWrote(n) // stash.go
	}
	g.remember(n.Name, v)
}

// comment writes the kernel's provenance: loop nodes, origins, and the
// user's source lines (from the graph nodes' meta.stack), all escaped.
func (g *kernelGen) comment() string {
	var b strings.Builder
	var nodes, origins []string
	seen := map[string]bool{}
	var stack []string
	for _, n := range g.k.Nodes {
		desc := n.Name + " " + string(n.Kind)
		if n.Op != "" {
			desc += " " + n.Op
		}
		nodes = append(nodes, desc)
		origins = append(origins, n.Origins...)
		for _, o := range n.Origins {
			if g.r.p.Graph == nil {
				continue
			}
			gn := g.r.irNode(o)
			if gn == nil {
				continue
			}
			for _, f := range gn.Meta.Stack {
				line := fmt.Sprintf("File: %s:%d, code: %s", f.File, f.Line, strings.TrimSpace(f.Code))
				if !seen[line] {
					seen[line] = true
					stack = append(stack, line)
				}
			}
		}
	}
	fmt.Fprintf(&b, "// kernel %d: %s\n", g.idx, Comment(strings.Join(nodes, ", ")))
	fmt.Fprintf(&b, "// origins: %s\n", Comment(strings.Join(origins, ", ")))
	for _, s := range stack {
		fmt.Fprintf(&b, "// %s\n", Comment(s))
	}
	for _, s := range g.vecNotes {
		fmt.Fprintf(&b, "// %s\n", Comment(s))
	}
	return b.String()
}

// stackLines are the user source lines of the kernel's nodes, for the manifest.
func (g *kernelGen) stackLines() []string {
	var out []string
	seen := map[string]bool{}
	for _, n := range g.k.Nodes {
		for _, o := range n.Origins {
			if g.r.p.Graph == nil {
				break
			}
			if gn := g.r.irNode(o); gn != nil {
				for _, f := range gn.Meta.Stack {
					s := fmt.Sprintf("%s:%d: %s", f.File, f.Line, strings.TrimSpace(f.Code))
					if !seen[s] {
						seen[s] = true
						out = append(out, s)
					}
				}
			}
		}
	}
	return out
}
