package sched

import (
	"fmt"
	"math/bits"

	"gcdbg/loopir"
)

// The index check compares a consumer's read index with its producer's
// write index over the fused kernel's space. Sampling them (space.go)
// built a map per member per point and was most of the pipeline's time,
// so affine indices — nearly all of them — are compared exactly instead:
// every member's loop variables are digits of the flat point
// P = o*R + q (x = unravel(o) over its ranges, r = unravel(q) ...), so an
// affine index is Σ coef*digit + c. Two digit systems over the same P
// share a refinement when their place values divide one another; on it
// the two indices agree at every point iff their coefficients agree on
// every digit and their constants are equal. Anything else (floor
// division, modulo, products of variables, place values that do not
// nest) falls back to sampling.

// monomial is K * Π names: a loop variable or size symbol per name,
// resolved when the node is placed in a space (a bound loop variable
// stays a variable, anything else takes its hint, 0 when it has none, as
// Expr.Eval does).
type monomial struct {
	k     int64
	names []string
}

// linear is an index as a list of monomials; ok is false when the index
// is not a polynomial of atoms (it has floor division or modulo).
type linear struct {
	terms []monomial
	ok    bool
}

func linearOf(e loopir.Expr) linear {
	switch x := e.(type) {
	case loopir.Const:
		return linear{terms: []monomial{{k: x.V}}, ok: true}
	case loopir.Var:
		return linear{terms: []monomial{{k: 1, names: []string{x.Name}}}, ok: true}
	case loopir.Sym:
		return linear{terms: []monomial{{k: 1, names: []string{x.Name}}}, ok: true}
	case *loopir.Sum:
		l := linear{terms: []monomial{{k: x.C}}, ok: true}
		for _, t := range x.Terms {
			m := monomial{k: t.K}
			for _, f := range t.Factors {
				switch a := f.(type) {
				case loopir.Var:
					m.names = append(m.names, a.Name)
				case loopir.Sym:
					m.names = append(m.names, a.Name)
				case loopir.Const:
					m.k *= a.V
				default:
					return linear{}
				}
			}
			l.terms = append(l.terms, m)
		}
		return l
	}
	return linear{}
}

// depKey names one access of a node: reads[i] for i >= 0, the dense or
// indexed write of buf for i < 0.
type depKey struct {
	n   *loopir.Node
	i   int
	buf string
}

// readLinear and writeLinear are the cached linear forms of a node's
// accesses (a node is checked against many candidate partners).
func (s *state) readLinear(c *loopir.Node, i int) linear {
	k := depKey{c, i, ""}
	if l, ok := s.lin[k]; ok {
		return l
	}
	l := linearOf(c.Reads[i].Index)
	s.cacheLinear(k, l)
	return l
}

// writeLinear mirrors writeIndex: the first indexed write of buf, else the
// buffer's strides dotted with the node's x variables; ok is false when
// that dense form does not fit (sampling then reports why).
func (s *state) writeLinear(p *loopir.Node, buf string) linear {
	k := depKey{p, -1, buf}
	if l, ok := s.lin[k]; ok {
		return l
	}
	l := s.buildWriteLinear(p, buf)
	s.cacheLinear(k, l)
	return l
}

func (s *state) cacheLinear(k depKey, l linear) {
	if s.lin == nil {
		s.lin = map[depKey]linear{}
	}
	s.lin[k] = l
}

func (s *state) buildWriteLinear(p *loopir.Node, buf string) linear {
	for _, w := range p.Writes {
		if w.Buffer == buf && w.Index != nil && w.Index != loopir.StarIndex {
			return linearOf(w.Index)
		}
	}
	b := s.p.Buffers[buf]
	if b == nil || len(b.Strides) != len(nodeRanges(p, s.p)) {
		return linear{}
	}
	out := linear{ok: true}
	for i, st := range b.Strides {
		sl := linearOf(st)
		if !sl.ok {
			return linear{}
		}
		x := fmt.Sprintf("x%d", i)
		for _, m := range sl.terms {
			out.terms = append(out.terms, monomial{k: m.k, names: append(append([]string{}, m.names...), x)})
		}
	}
	return out
}

// digits is a member's loop variables as digits of P, most significant
// first: size per digit and the variable bound to it ("" for the reduce
// loop a member running once per outer point ignores).
type digits struct {
	size  []int64
	name  []string
	index map[string]int
}

// digitsOf lays out member m's variables over a space of O outer and R
// reduce points; ok is false when they do not tile P exactly (sampling
// then decides, as unravel wraps).
func digitsOf(m nodeMap, o, r int64) (digits, bool) {
	var d digits
	total, ok := mulOK(o, r)
	if !ok || total == 0 {
		return d, false
	}
	for i, n := range m.x {
		d.size = append(d.size, n)
		d.name = append(d.name, fmt.Sprintf("x%d", i))
	}
	xs, ok := prodOK(m.x)
	switch {
	case m.isRed:
		rs, rok := prodOK(m.r)
		if !ok || !rok || xs != o || rs != r {
			return d, false
		}
		for i, n := range m.r {
			d.size = append(d.size, n)
			d.name = append(d.name, fmt.Sprintf("r%d", i))
		}
	case m.inner:
		if !ok || xs != total {
			return d, false
		}
	default: // x walks o; the reduce loop is a digit it ignores
		if !ok || xs != o {
			return d, false
		}
		d.size = append(d.size, r)
		d.name = append(d.name, "")
	}
	d.index = make(map[string]int, len(d.name))
	for i, n := range d.name {
		if n != "" {
			d.index[n] = i
		}
	}
	return d, true
}

// prodOK multiplies sizes, each at least 1, without overflow.
func prodOK(sizes []int64) (int64, bool) {
	p := int64(1)
	for _, n := range sizes {
		var ok bool
		if n < 1 {
			return 0, false
		}
		if p, ok = mulOK(p, n); !ok {
			return 0, false
		}
	}
	return p, true
}

// form resolves l against a digit system: a coefficient per digit and a
// constant; ok is false when a monomial has two bound variables.
func (s *state) form(l linear, d digits) (coef []int64, c int64, ok bool) {
	coef = make([]int64, len(d.size))
	for _, m := range l.terms {
		k, at := m.k, -1
		for _, n := range m.names {
			if i, bound := d.index[n]; bound {
				if at >= 0 {
					return nil, 0, false
				}
				at = i
				continue
			}
			k *= s.env[n]
		}
		if at < 0 {
			c += k
		} else {
			coef[at] += k
		}
	}
	return coef, c, true
}

// sameAffine compares two affine indices over their digit systems (equal
// products); decided is false when the place values do not nest.
func sameAffine(ca []int64, a digits, cb []int64, b digits) (equal, decided bool) {
	pa, pb := places(a.size), places(b.size)
	// The refinement: the union of both place values, ascending (places
	// lists them descending, the total first).
	var u []int64
	i, j := len(pa)-1, len(pb)-1
	for i >= 0 || j >= 0 {
		var v int64
		switch {
		case j < 0 || (i >= 0 && pa[i] < pb[j]):
			v, i = pa[i], i-1
		case i < 0 || pb[j] < pa[i]:
			v, j = pb[j], j-1
		default:
			v, i, j = pa[i], i-1, j-1
		}
		if len(u) > 0 {
			if v == u[len(u)-1] {
				continue
			}
			if v%u[len(u)-1] != 0 {
				return false, false
			}
		}
		u = append(u, v)
	}
	ra, rb := refine(ca, a.size, pa, u), refine(cb, b.size, pb, u)
	for k := range ra {
		if ra[k] != rb[k] {
			return false, true
		}
	}
	return true, true
}

// places returns the total followed by each digit's place value.
func places(size []int64) []int64 {
	p := make([]int64, len(size)+1)
	p[len(size)] = 1
	for i := len(size) - 1; i >= 0; i-- {
		p[i] = p[i+1] * size[i]
	}
	return p
}

// refine spreads each digit's coefficient over the refined digits it
// covers: digit k (place pv) is Σ y_i * u_i/pv over u_i in [pv, pv*size).
func refine(coef, size, pv []int64, u []int64) []int64 {
	out := make([]int64, len(u)-1) // the last place is the total
	for k, c := range coef {
		if c == 0 || size[k] == 1 {
			continue
		}
		lo, hi := pv[k+1], pv[k]
		for i, ui := range u[:len(u)-1] {
			if ui >= lo && ui < hi {
				out[i] += c * (ui / lo)
			}
		}
	}
	return out
}

func mulOK(a, b int64) (int64, bool) {
	if a < 0 || b < 0 {
		return 0, false
	}
	hi, lo := bits.Mul64(uint64(a), uint64(b))
	if hi != 0 || lo > 1<<62 {
		return 0, false
	}
	return int64(lo), true
}

// affineEqual decides whether consumer c's reads[i] and producer p's
// write of buf address the same element at every point of an O×R space;
// decided is false when either index is not affine or the members' digits
// do not nest.
func (s *state) affineEqual(c *loopir.Node, i int, cm nodeMap, p *loopir.Node, pm nodeMap, buf string, o, r int64) (equal, decided bool) {
	rl, wl := s.readLinear(c, i), s.writeLinear(p, buf)
	if !rl.ok || !wl.ok {
		return false, false
	}
	cd, ok1 := digitsOf(cm, o, r)
	pd, ok2 := digitsOf(pm, o, r)
	if !ok1 || !ok2 {
		return false, false
	}
	rc, rk, ok1 := s.form(rl, cd)
	wc, wk, ok2 := s.form(wl, pd)
	if !ok1 || !ok2 {
		return false, false
	}
	if rk != wk {
		return false, true
	}
	if equal, decided := sameAffine(rc, cd, wc, pd); decided {
		return equal, true
	}
	// The digits do not nest (a transpose of a non-square shape): one
	// point where the indices differ still decides, and the digits'
	// boundaries are where a transposed read first parts from the write.
	for _, pts := range [][]int64{places(cd.size), places(pd.size)} {
		for _, u := range pts[1:] {
			for _, pt := range []int64{u, u - 1, pts[0] - 1} {
				if affineAt(rc, rk, cd.size, pt) != affineAt(wc, wk, pd.size, pt) {
					return false, true
				}
			}
		}
	}
	return false, false
}

// affineAt evaluates an affine index at flat point P.
func affineAt(coef []int64, c int64, size []int64, flat int64) int64 {
	v := c
	for k := len(size) - 1; k >= 0; k-- {
		v += coef[k] * (flat % size[k])
		flat /= size[k]
	}
	return v
}
