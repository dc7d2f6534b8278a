package loopir

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// Index expressions are kept in one canonical form so that two equal
// expressions print the same (the contract compares them by String): a
// polynomial with integer coefficients over atoms. Atoms are loop
// variables (Var, carrying their range so the simplifier can bound them),
// size symbols (Sym), the values of indirect loads (Indirect), and the
// non-linear FloorDivE / ModE that reshapes introduce. Constructors
// simplify on the way in; nothing is ever simplified later.

// Const is an integer constant.
type Const struct{ V int64 }

// Var is a loop variable (x0.. pointwise, r0.. reduction). Range is its
// extent (nil when unknown); 0 <= Var < Range.
type Var struct {
	Name  string
	Range Expr
}

// Sym is a size symbol (s0..) made dynamic by the guards stage; >= 1.
type Sym struct{ Name string }

// Indirect is the integer value of an earlier temporary (tmpN), used in
// the index of an indirect load (gather, index_select): Inductor's
// indirect indexing. Its value is bound per point by the interpreter.
type Indirect struct {
	Tmp string
	// Bound, when known, is the size of the dimension the value indexes:
	// generated code checks 0 <= value < Bound before the load (render's
	// checkedLoad), so an index out of range stops the kernel naming its
	// node instead of reading another element or outside the buffer.
	Bound Expr
}

// Sum is a polynomial: Σ Terms + C. It only appears when the expression is
// not a bare constant or atom.
type Sum struct {
	Terms []Term
	C     int64
}

// Term is K * Π Factors; Factors are atoms sorted by String.
type Term struct {
	K       int64
	Factors []Expr
}

// FloorDivE is floor(A / B) for B > 0 (Python's //).
type FloorDivE struct{ A, B Expr }

// ModE is A mod B for B > 0 (Python's %, never negative).
type ModE struct{ A, B Expr }

// star is the index of a whole-buffer access (Inductor's StarDep): extern
// and fallback nodes read and write whole buffers.
type star struct{}

// StarIndex marks a Dep that covers a whole buffer (extern/fallback).
var StarIndex Expr = star{}

func (star) String() string              { return "*" }
func (star) Eval(map[string]int64) int64 { return 0 }

// C makes a constant; V a loop variable with its range; S a size symbol.
func C(v int64) Expr                               { return Const{v} }
func V(name string, rng Expr) Expr                 { return Var{Name: name, Range: rng} }
func S(name string) Expr                           { return Sym{Name: name} }
func (c Const) String() string                     { return strconv.FormatInt(c.V, 10) }
func (v Var) String() string                       { return v.Name }
func (s Sym) String() string                       { return s.Name }
func (i Indirect) String() string                  { return i.Tmp }
func (c Const) Eval(map[string]int64) int64        { return c.V }
func (v Var) Eval(env map[string]int64) int64      { return env[v.Name] }
func (s Sym) Eval(env map[string]int64) int64      { return env[s.Name] }
func (i Indirect) Eval(env map[string]int64) int64 { return env[i.Tmp] }

func (e *FloorDivE) String() string { return "(" + e.A.String() + "//" + e.B.String() + ")" }
func (e *ModE) String() string      { return "(" + e.A.String() + " % " + e.B.String() + ")" }
func (e *FloorDivE) Eval(env map[string]int64) int64 {
	return floorDiv(e.A.Eval(env), e.B.Eval(env))
}
func (e *ModE) Eval(env map[string]int64) int64 { return pyMod(e.A.Eval(env), e.B.Eval(env)) }

func (s *Sum) Eval(env map[string]int64) int64 {
	r := s.C
	for _, t := range s.Terms {
		p := t.K
		for _, f := range t.Factors {
			p *= f.Eval(env)
		}
		r += p
	}
	return r
}

// String prints like sympy: innermost variables first (x1 + 784*x0), the
// constant last, subtraction written as such.
func (s *Sum) String() string {
	var b strings.Builder
	for i, t := range s.Terms {
		ts := t.String()
		switch {
		case i == 0:
			b.WriteString(ts)
		case strings.HasPrefix(ts, "-"):
			b.WriteString(" - " + ts[1:])
		default:
			b.WriteString(" + " + ts)
		}
	}
	if s.C != 0 || len(s.Terms) == 0 {
		switch {
		case len(s.Terms) == 0:
			b.WriteString(strconv.FormatInt(s.C, 10))
		case s.C < 0:
			b.WriteString(" - " + strconv.FormatInt(-s.C, 10))
		default:
			b.WriteString(" + " + strconv.FormatInt(s.C, 10))
		}
	}
	return b.String()
}

func (t Term) key() string {
	parts := make([]string, len(t.Factors))
	for i, f := range t.Factors {
		parts[i] = f.String()
	}
	return strings.Join(parts, "*")
}

func (t Term) String() string {
	k := t.key()
	switch t.K {
	case 1:
		return k
	case -1:
		return "-" + k
	}
	return strconv.FormatInt(t.K, 10) + "*" + k
}

func floorDiv(a, b int64) int64 {
	if b == 0 {
		return 0 // never produced by lowering; Eval must not panic on hostile sizes
	}
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}

func pyMod(a, b int64) int64 {
	if b == 0 {
		return 0
	}
	return a - floorDiv(a, b)*b
}

// poly is the working form of a Sum: terms by key.
type poly struct {
	terms map[string]*Term
	c     int64
}

func toPoly(e Expr) *poly {
	p := &poly{terms: map[string]*Term{}}
	switch x := e.(type) {
	case Const:
		p.c = x.V
	case *Sum:
		p.c = x.C
		for _, t := range x.Terms {
			p.add(t.K, t.Factors)
		}
	default:
		p.add(1, []Expr{e})
	}
	return p
}

func (p *poly) add(k int64, factors []Expr) {
	if k == 0 {
		return
	}
	if len(factors) == 0 {
		p.c += k
		return
	}
	t := Term{K: k, Factors: factors}
	key := t.key()
	if old, ok := p.terms[key]; ok {
		old.K += k
		if old.K == 0 {
			delete(p.terms, key)
		}
		return
	}
	p.terms[key] = &Term{K: k, Factors: append([]Expr{}, factors...)}
}

func (p *poly) expr() Expr {
	if len(p.terms) == 0 {
		return Const{p.c}
	}
	if len(p.terms) == 1 && p.c == 0 {
		for _, t := range p.terms {
			if t.K == 1 && len(t.Factors) == 1 {
				return t.Factors[0]
			}
		}
	}
	s := &Sum{C: p.c}
	for _, t := range p.terms {
		s.Terms = append(s.Terms, *t)
	}
	// Innermost first: descending natural order of the factor product.
	sort.Slice(s.Terms, func(i, j int) bool { return natLess(s.Terms[j].key(), s.Terms[i].key()) })
	return s
}

// natLess orders strings with embedded numbers numerically (x9 < x10).
func natLess(a, b string) bool {
	for a != "" && b != "" {
		da, db := digitsPrefix(a), digitsPrefix(b)
		if da != "" && db != "" {
			na, _ := strconv.ParseInt(da, 10, 64)
			nb, _ := strconv.ParseInt(db, 10, 64)
			if na != nb {
				return na < nb
			}
			a, b = a[len(da):], b[len(db):]
			continue
		}
		if a[0] != b[0] {
			return a[0] < b[0]
		}
		a, b = a[1:], b[1:]
	}
	return len(a) < len(b)
}

func digitsPrefix(s string) string {
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	return s[:i]
}

// Add sums expressions, collecting like terms, and folds the reshape
// identity d*(x//d) + (x % d) = x.
func Add(es ...Expr) Expr {
	p := &poly{terms: map[string]*Term{}}
	for _, e := range es {
		q := toPoly(e)
		p.c += q.c
		for _, t := range q.terms {
			p.add(t.K, t.Factors)
		}
	}
	foldDivMod(p)
	return p.expr()
}

// Sub is a - b.
func Sub(a, b Expr) Expr { return Add(a, Mul(C(-1), b)) }

// Mul multiplies expressions, distributing over sums.
func Mul(es ...Expr) Expr {
	acc := &poly{terms: map[string]*Term{}, c: 1}
	for _, e := range es {
		q := toPoly(e)
		next := &poly{terms: map[string]*Term{}}
		mulInto(next, acc, q)
		acc = next
	}
	return acc.expr()
}

func mulInto(out, a, b *poly) {
	aTerms := append(a.termList(), Term{K: a.c})
	bTerms := append(b.termList(), Term{K: b.c})
	for _, x := range aTerms {
		for _, y := range bTerms {
			f := append(append([]Expr{}, x.Factors...), y.Factors...)
			sort.Slice(f, func(i, j int) bool { return natLess(f[i].String(), f[j].String()) })
			out.add(x.K*y.K, f)
		}
	}
}

func (p *poly) termList() []Term {
	out := make([]Term, 0, len(p.terms))
	for _, t := range p.terms {
		out = append(out, *t)
	}
	return out
}

// foldDivMod rewrites k*d*(x//d) + k*(x % d) into k*x (reshapes of
// reshapes produce exactly this pair).
func foldDivMod(p *poly) {
	for key, t := range p.terms {
		if len(t.Factors) != 1 {
			continue
		}
		m, ok := t.Factors[0].(*ModE)
		if !ok {
			continue
		}
		want := Term{K: 1, Factors: []Expr{FloorDiv(m.A, m.B)}} // (y//a)//b is y//(a*b): FloorDiv nests
		wp := toPoly(Mul(Const{t.K}, m.B, want.Factors[0]))
		if len(wp.terms) != 1 || wp.c != 0 {
			continue
		}
		for wk, wt := range wp.terms {
			if have, ok := p.terms[wk]; ok && have.K == wt.K {
				k := t.K
				delete(p.terms, key)
				delete(p.terms, wk)
				x := toPoly(m.A)
				p.c += k * x.c
				for _, xt := range x.terms {
					p.add(k*xt.K, xt.Factors)
				}
				foldDivMod(p)
				return
			}
		}
		// k*d*((x//d) % n) + k*(x % d) = k*(x % (d*n)) for positive
		// constants d, n: a flat index split over three or more dims of
		// a view (GroupNorm's [N, C, H, W] <-> [N, G, C/G*H*W]) folds
		// pairwise down to the flat index, instead of a / and % per element.
		d, dok := m.B.(Const)
		if !dok || d.V <= 0 {
			continue
		}
		for wk, wt := range p.terms {
			if wk == key || len(wt.Factors) != 1 || wt.K != t.K*d.V {
				continue
			}
			outer, ok := wt.Factors[0].(*ModE)
			if !ok {
				continue
			}
			n, nok := outer.B.(Const)
			q, qok := outer.A.(*FloorDivE)
			if !nok || n.V <= 0 || !qok || q.A.String() != m.A.String() || q.B.String() != d.String() {
				continue
			}
			k := t.K
			delete(p.terms, key)
			delete(p.terms, wk)
			folded := toPoly(Mul(Const{k}, Mod(m.A, Const{d.V * n.V})))
			p.c += folded.c
			for _, ft := range folded.terms {
				p.add(ft.K, ft.Factors)
			}
			foldDivMod(p)
			return
		}
	}
}

// split separates the terms of a divisible by d (returning their
// quotient) from the rest.
func split(a, d Expr) (q, r Expr) {
	pa := toPoly(a)
	pd := toPoly(d)
	qp := &poly{terms: map[string]*Term{}}
	rp := &poly{terms: map[string]*Term{}}
	dc, dConst := d.(Const)
	var dt *Term
	if !dConst && pd.c == 0 && len(pd.terms) == 1 {
		for _, t := range pd.terms {
			dt = t
		}
	}
	for _, t := range pa.terms {
		switch {
		case dConst && dc.V != 0 && t.K%dc.V == 0:
			qp.add(t.K/dc.V, t.Factors)
		case dt != nil && t.K%dt.K == 0:
			if rest, ok := removeFactors(t.Factors, dt.Factors); ok {
				qp.add(t.K/dt.K, rest)
				continue
			}
			rp.add(t.K, t.Factors)
		default:
			rp.add(t.K, t.Factors)
		}
	}
	if dConst && dc.V != 0 {
		qp.c = floorDiv(pa.c, dc.V)
		rp.c = pyMod(pa.c, dc.V)
	} else {
		rp.c = pa.c
	}
	return qp.expr(), rp.expr()
}

func removeFactors(fs, sub []Expr) ([]Expr, bool) {
	rest := append([]Expr{}, fs...)
	for _, s := range sub {
		found := false
		for i, f := range rest {
			if f.String() == s.String() {
				rest = append(rest[:i], rest[i+1:]...)
				found = true
				break
			}
		}
		if !found {
			return nil, false
		}
	}
	return rest, true
}

// FloorDiv is a // b for b > 0: divisible terms leave as the quotient
// ((x0*8 + x1)//8 = x0 + x1//8), and a remainder proven to lie in [0, b)
// vanishes (x1//8 = 0 when x1 < 8).
func FloorDiv(a, b Expr) Expr {
	if bc, ok := b.(Const); ok {
		if bc.V == 1 {
			return a
		}
		if ac, ok := a.(Const); ok {
			return Const{floorDiv(ac.V, bc.V)}
		}
		if inner, ok := a.(*FloorDivE); ok {
			if ic, ok := inner.B.(Const); ok && ic.V > 0 && bc.V > 0 {
				return FloorDiv(inner.A, Const{ic.V * bc.V})
			}
		}
	}
	q, r := split(a, b)
	if inRange(r, b) {
		return q
	}
	if rc, ok := r.(Const); ok && rc.V == 0 {
		return q
	}
	if bc, ok := b.(Const); ok {
		if A, _, g, ok := divSplit(r, bc.V); ok { // divsplit.go
			return Add(q, FloorDiv(A, Const{bc.V / g}))
		}
	}
	return Add(q, &FloorDivE{r, b})
}

// Mod is a % b for b > 0: divisible terms drop, and a remainder proven to
// lie in [0, b) is the answer.
func Mod(a, b Expr) Expr {
	if bc, ok := b.(Const); ok {
		if bc.V == 1 {
			return Const{0}
		}
		if ac, ok := a.(Const); ok {
			return Const{pyMod(ac.V, bc.V)}
		}
	}
	_, r := split(a, b)
	if inRange(r, b) {
		return r
	}
	if bc, ok := b.(Const); ok {
		if A, R, g, ok := divSplit(r, bc.V); ok { // divsplit.go
			return Add(Mul(Const{g}, Mod(A, Const{bc.V / g})), R)
		}
	}
	return &ModE{r, b}
}

// inRange proves 0 <= e < b from the ranges of the variables in e.
func inRange(e, b Expr) bool {
	lo, hi, ok := bounds(e)
	if !ok {
		return false
	}
	return nonneg(lo) && nonneg(Sub(Sub(b, C(1)), hi))
}

// bounds returns inclusive lower and upper bounds of e as expressions.
func bounds(e Expr) (lo, hi Expr, ok bool) { return boundsWith(e, nil) }

// IndirectRange bounds the value of an indirect atom (inclusive); ok false
// where it is unknown.
type IndirectRange func(tmp string) (lo, hi int64, ok bool)

// ProvenWithin proves 0 <= e < n from the ranges of e's loop variables and
// of its indirect atoms (ind): an index computed from the loop variables
// alone, clamped (a strided slice_scatter's source index), needs no check
// at run time.
func ProvenWithin(e, n Expr, ind IndirectRange) bool {
	lo, hi, ok := boundsWith(e, ind)
	if !ok {
		return false
	}
	return nonneg(lo) && nonneg(Sub(Sub(n, C(1)), hi))
}

// BoundsConst is e's inclusive bounds where both are constants.
func BoundsConst(e Expr, ind IndirectRange) (lo, hi int64, ok bool) {
	l, h, ok := boundsWith(e, ind)
	if !ok {
		return 0, 0, false
	}
	lc, ok1 := l.(Const)
	hc, ok2 := h.(Const)
	if !ok1 || !ok2 {
		return 0, 0, false
	}
	return lc.V, hc.V, true
}

func boundsWith(e Expr, ind IndirectRange) (lo, hi Expr, ok bool) {
	switch x := e.(type) {
	case Indirect:
		if ind == nil {
			return nil, nil, false
		}
		l, h, ok := ind(x.Tmp)
		if !ok {
			return nil, nil, false
		}
		return C(l), C(h), true
	case Const:
		return x, x, true
	case Var:
		if x.Range == nil {
			return nil, nil, false
		}
		return C(0), Sub(x.Range, C(1)), true
	case Sym:
		return C(1), x, true
	case *FloorDivE:
		l, h, ok := boundsWith(x.A, ind)
		if !ok || !nonneg(l) {
			return nil, nil, false
		}
		if bc, isC := x.B.(Const); isC && bc.V > 0 {
			return FloorDiv(l, bc), FloorDiv(h, bc), true
		}
		return C(0), h, true
	case *ModE:
		return C(0), Sub(x.B, C(1)), true
	case *Sum:
		los, his := []Expr{C(x.C)}, []Expr{C(x.C)}
		for _, t := range x.Terms {
			pl, ph := C(1), C(1)
			for _, f := range t.Factors {
				fl, fh, fok := boundsWith(f, ind)
				if !fok || !nonneg(fl) {
					return nil, nil, false
				}
				pl, ph = Mul(pl, fl), Mul(ph, fh)
			}
			if t.K > 0 {
				los, his = append(los, Mul(C(t.K), pl)), append(his, Mul(C(t.K), ph))
			} else {
				los, his = append(los, Mul(C(t.K), ph)), append(his, Mul(C(t.K), pl))
			}
		}
		return Add(los...), Add(his...), true
	}
	return nil, nil, false
}

// nonneg proves e >= 0: a polynomial with non-negative coefficients over
// non-negative atoms (sizes, loop variables).
func nonneg(e Expr) bool {
	p := toPoly(e)
	if p.c < 0 {
		return false
	}
	for _, t := range p.terms {
		if t.K < 0 {
			return false
		}
		for _, f := range t.Factors {
			switch f.(type) {
			case Var, Sym:
			default:
				return false
			}
		}
	}
	return true
}

// Subst rebuilds e with atoms replaced by name (loop variables, symbols,
// indirect temporaries), simplifying again.
func Subst(e Expr, m map[string]Expr) Expr {
	switch x := e.(type) {
	case Var:
		if r, ok := m[x.Name]; ok {
			return r
		}
	case Sym:
		if r, ok := m[x.Name]; ok {
			return r
		}
	case Indirect:
		if r, ok := m[x.Tmp]; ok {
			return r
		}
	case *Sum:
		parts := []Expr{C(x.C)}
		for _, t := range x.Terms {
			fs := []Expr{C(t.K)}
			for _, f := range t.Factors {
				fs = append(fs, Subst(f, m))
			}
			parts = append(parts, Mul(fs...))
		}
		return Add(parts...)
	case *FloorDivE:
		return FloorDiv(Subst(x.A, m), Subst(x.B, m))
	case *ModE:
		return Mod(Subst(x.A, m), Subst(x.B, m))
	}
	return e
}

// evalVec evaluates e at n points at once; env holds one value per point
// for each variable, symbols as length-1 slices.
func evalVec(e Expr, env map[string][]int64, n int) []int64 {
	out := make([]int64, n)
	switch x := e.(type) {
	case Const:
		for i := range out {
			out[i] = x.V
		}
	case Var:
		fill(out, env[x.Name])
	case Sym:
		fill(out, env[x.Name])
	case Indirect:
		fill(out, env[x.Tmp])
	case *Sum:
		for i := range out {
			out[i] = x.C
		}
		for _, t := range x.Terms {
			prod := make([]int64, n)
			for i := range prod {
				prod[i] = t.K
			}
			for _, f := range t.Factors {
				fv := evalVec(f, env, n)
				for i := range prod {
					prod[i] *= fv[i]
				}
			}
			for i := range out {
				out[i] += prod[i]
			}
		}
	case *FloorDivE:
		a, b := evalVec(x.A, env, n), evalVec(x.B, env, n)
		for i := range out {
			out[i] = floorDiv(a[i], b[i])
		}
	case *ModE:
		a, b := evalVec(x.A, env, n), evalVec(x.B, env, n)
		for i := range out {
			out[i] = pyMod(a[i], b[i])
		}
	}
	return out
}

// fill copies src into out, broadcasting a length-1 src (symbols).
func fill(out, src []int64) {
	switch len(src) {
	case len(out):
		copy(out, src)
	case 1:
		for i := range out {
			out[i] = src[0]
		}
	}
}

// ParseSize reads a symbolic size as the shape metadata writes it (s0,
// 8*s0, s0*784, 2*s0 + 1, s0*s1 - 2): integers and symbol names joined by
// +, - and *, with parentheses. The result is in canonical form, so the
// ranges, strides and indices built from it stay polynomials in the
// symbols (the guards stage only ever writes affine ones).
func ParseSize(text string) (Expr, error) {
	p := &sizeParser{s: strings.ReplaceAll(text, " ", "")}
	e, err := p.sum()
	if err == nil && p.i != len(p.s) {
		err = fmt.Errorf("unexpected %q", p.s[p.i:])
	}
	if err != nil {
		return nil, fmt.Errorf("size %q: %w", text, err)
	}
	return e, nil
}

type sizeParser struct {
	s string
	i int
}

func (p *sizeParser) sum() (Expr, error) {
	e, err := p.product()
	for err == nil && p.i < len(p.s) && (p.s[p.i] == '+' || p.s[p.i] == '-') {
		neg := p.s[p.i] == '-'
		p.i++
		var t Expr
		if t, err = p.product(); err == nil {
			if neg {
				e = Sub(e, t)
			} else {
				e = Add(e, t)
			}
		}
	}
	return e, err
}

func (p *sizeParser) product() (Expr, error) {
	e, err := p.atom()
	for err == nil && p.i < len(p.s) && p.s[p.i] == '*' {
		p.i++
		var f Expr
		if f, err = p.atom(); err == nil {
			e = Mul(e, f)
		}
	}
	return e, err
}

func (p *sizeParser) atom() (Expr, error) {
	if p.i >= len(p.s) {
		return nil, fmt.Errorf("unexpected end")
	}
	isLetter := func(c byte) bool { return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
	isDigit := func(c byte) bool { return c >= '0' && c <= '9' }
	j := p.i
	switch c := p.s[p.i]; {
	case c == '(':
		p.i++
		e, err := p.sum()
		if err != nil {
			return nil, err
		}
		if p.i >= len(p.s) || p.s[p.i] != ')' {
			return nil, fmt.Errorf("missing )")
		}
		p.i++
		return e, nil
	case c == '-':
		p.i++
		e, err := p.atom()
		if err != nil {
			return nil, err
		}
		return Mul(C(-1), e), nil
	case isDigit(c):
		for j < len(p.s) && isDigit(p.s[j]) {
			j++
		}
		v, err := strconv.ParseInt(p.s[p.i:j], 10, 64)
		if err != nil {
			return nil, fmt.Errorf("%q: %w", p.s[p.i:j], err)
		}
		p.i = j
		return C(v), nil
	case isLetter(c):
		for j < len(p.s) && (isLetter(p.s[j]) || isDigit(p.s[j])) {
			j++
		}
		name := p.s[p.i:j]
		p.i = j
		return S(name), nil
	}
	return nil, fmt.Errorf("unexpected %q", p.s[p.i:])
}

// SymHint solves size = e for the one symbol of an affine e (8*s0 = 40
// gives s0 = 5). ok is false when e has another form (no symbol, two
// symbols, a product of symbols) or the size is not reachable.
func SymHint(e Expr, size int64) (sym string, v int64, ok bool) {
	p := toPoly(e)
	if len(p.terms) != 1 {
		return "", 0, false
	}
	for _, t := range p.terms {
		s, isSym := t.Factors[0].(Sym)
		if len(t.Factors) != 1 || !isSym || (size-p.c)%t.K != 0 {
			return "", 0, false
		}
		return s.Name, (size - p.c) / t.K, true
	}
	return "", 0, false
}
