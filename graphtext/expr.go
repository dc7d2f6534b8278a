package graphtext

import (
	"math"
	"strconv"
	"strings"
)

// Expressions, by Python's precedence (lowest first): not, comparisons,
// |, ^, &, shifts, + -, * / // % @, unary + - ~, **, then atoms with
// their trailers (.name, (args), [index]).

// exprList parses `a` or `a, b` (a tuple without parentheses).
func (p *parser) exprList() (expr, error) {
	start := p.tok().pos
	e, err := p.expr()
	if err != nil {
		return nil, err
	}
	if !p.isOp(",") {
		return e, nil
	}
	items := []expr{e}
	for p.isOp(",") {
		p.next()
		if p.endsList() {
			break
		}
		e, err := p.expr()
		if err != nil {
			return nil, err
		}
		items = append(items, e)
	}
	return &seqExpr{p: start, items: items}, nil
}

// endsList reports whether the current token cannot start an expression
// (after a trailing comma).
func (p *parser) endsList() bool {
	t := p.tok()
	switch t.kind {
	case tNewline, tEOF:
		return true
	case tOp:
		switch t.text {
		case ")", "]", "}", "=", ";", ":":
			return true
		}
	}
	return false
}

func (p *parser) expr() (expr, error) {
	p.depth++
	defer func() { p.depth-- }()
	if p.depth > maxDepth {
		return nil, p.errf(p.tok().pos, "expression nested deeper than %d levels", maxDepth)
	}
	t := p.tok()
	if t.kind == tName && (t.text == "lambda" || t.text == "yield" || t.text == "await") {
		return nil, p.errf(t.pos, "`%s` is not part of the graph language", t.text)
	}
	e, err := p.notTest()
	if err != nil {
		return nil, err
	}
	if p.isName("if") || p.isName("and") || p.isName("or") {
		return nil, p.errf(p.tok().pos, "`%s` is not part of the graph language (a graph is straight-line calls)", p.tok().text)
	}
	return e, nil
}

func (p *parser) notTest() (expr, error) {
	if t := p.tok(); t.kind == tName && t.text == "not" {
		p.next()
		x, err := p.notTest()
		if err != nil {
			return nil, err
		}
		return &unaryExpr{p: t.pos, op: "not", x: x}, nil
	}
	return p.comparison()
}

var compareOps = map[string]bool{"<": true, ">": true, "<=": true, ">=": true, "==": true, "!=": true}

func (p *parser) comparison() (expr, error) {
	x, err := p.binary(0)
	if err != nil {
		return nil, err
	}
	t := p.tok()
	if t.kind == tName && (t.text == "in" || t.text == "is") {
		return nil, p.errf(t.pos, "`%s` is not supported in a graph", t.text)
	}
	if t.kind != tOp || !compareOps[t.text] {
		return x, nil
	}
	p.next()
	y, err := p.binary(0)
	if err != nil {
		return nil, err
	}
	if u := p.tok(); u.kind == tOp && compareOps[u.text] {
		return nil, p.errf(u.pos, "chained comparisons are not supported; compare two values per statement")
	}
	return &binExpr{p: t.pos, op: t.text, x: x, y: y}, nil
}

// binLevels are the left-associative binary operator levels, loosest first.
var binLevels = [][]string{{"|"}, {"^"}, {"&"}, {"<<", ">>"}, {"+", "-"}, {"*", "/", "//", "%", "@"}}

func (p *parser) binary(level int) (expr, error) {
	if level == len(binLevels) {
		return p.factor()
	}
	x, err := p.binary(level + 1)
	if err != nil {
		return nil, err
	}
	for {
		t := p.tok()
		if t.kind != tOp || !contains(binLevels[level], t.text) {
			return x, nil
		}
		p.next()
		y, err := p.binary(level + 1)
		if err != nil {
			return nil, err
		}
		x = &binExpr{p: t.pos, op: t.text, x: x, y: y}
	}
}

func contains(xs []string, s string) bool {
	for _, x := range xs {
		if x == s {
			return true
		}
	}
	return false
}

// factor is a unary operator or a power; -1 and -inf fold to constants.
func (p *parser) factor() (expr, error) {
	t := p.tok()
	if t.kind == tOp && (t.text == "-" || t.text == "+" || t.text == "~") {
		p.next()
		p.depth++
		defer func() { p.depth-- }()
		if p.depth > maxDepth {
			return nil, p.errf(t.pos, "expression nested deeper than %d levels", maxDepth)
		}
		x, err := p.factor()
		if err != nil {
			return nil, err
		}
		if n, ok := x.(*numExpr); ok && t.text != "~" {
			if t.text == "+" {
				return &numExpr{p: t.pos, v: n.v}, nil
			}
			switch v := n.v.(type) {
			case int64:
				if v != math.MinInt64 {
					return &numExpr{p: t.pos, v: -v}, nil
				}
			case float64:
				return &numExpr{p: t.pos, v: -v}, nil
			}
		}
		return &unaryExpr{p: t.pos, op: t.text, x: x}, nil
	}
	return p.power()
}

func (p *parser) power() (expr, error) {
	x, err := p.primary()
	if err != nil {
		return nil, err
	}
	if t := p.tok(); t.kind == tOp && t.text == "**" {
		p.next()
		p.depth++
		defer func() { p.depth-- }()
		if p.depth > maxDepth {
			return nil, p.errf(t.pos, "expression nested deeper than %d levels", maxDepth)
		}
		y, err := p.factor()
		if err != nil {
			return nil, err
		}
		return &binExpr{p: t.pos, op: "**", x: x, y: y}, nil
	}
	return x, nil
}

func (p *parser) primary() (expr, error) {
	x, err := p.atom()
	if err != nil {
		return nil, err
	}
	for {
		t := p.tok()
		if t.kind != tOp {
			return x, nil
		}
		switch t.text {
		case ".":
			p.next()
			n, err := p.expectName("an attribute name after '.'")
			if err != nil {
				return nil, err
			}
			x = &attrExpr{p: n.pos, x: x, name: n.text}
		case "(":
			p.next()
			c := &callExpr{p: t.pos, fn: x}
			if err := p.callArgs(c); err != nil {
				return nil, err
			}
			x = c
		case "[":
			p.next()
			idx, err := p.subscript()
			if err != nil {
				return nil, err
			}
			x = &indexExpr{p: t.pos, x: x, index: idx}
		default:
			return x, nil
		}
	}
}

func (p *parser) callArgs(c *callExpr) error {
	for !p.isOp(")") {
		t := p.tok()
		if t.kind == tOp && (t.text == "*" || t.text == "**") {
			return p.errf(t.pos, "%s-unpacking in a call is not supported", t.text)
		}
		if t.kind == tName && p.peekAt(1).kind == tOp && p.peekAt(1).text == "=" {
			p.next()
			p.next()
			v, err := p.expr()
			if err != nil {
				return err
			}
			for _, kw := range c.kwargs {
				if kw.name == t.text {
					return p.errf(t.pos, "keyword argument %q given twice", t.text)
				}
			}
			c.kwargs = append(c.kwargs, kwarg{p: t.pos, name: t.text, value: v})
		} else {
			if len(c.kwargs) > 0 {
				return p.errf(t.pos, "positional argument after keyword arguments")
			}
			v, err := p.expr()
			if err != nil {
				return err
			}
			c.args = append(c.args, v)
		}
		if !p.isOp(",") {
			break
		}
		p.next()
	}
	_, err := p.expectOp(")", "to close the call")
	return err
}

// subscript parses what is inside x[...]: items that may be slices; more
// than one item (or a trailing comma) makes a tuple.
func (p *parser) subscript() (expr, error) {
	start := p.tok().pos
	var items []expr
	comma := false
	for !p.isOp("]") {
		it, err := p.sliceItem()
		if err != nil {
			return nil, err
		}
		items = append(items, it)
		if !p.isOp(",") {
			break
		}
		comma = true
		p.next()
	}
	if _, err := p.expectOp("]", "to close the subscript"); err != nil {
		return nil, err
	}
	if len(items) == 0 {
		return nil, p.errf(start, "empty subscript")
	}
	if len(items) == 1 && !comma {
		return items[0], nil
	}
	return &seqExpr{p: start, items: items}, nil
}

func (p *parser) sliceItem() (expr, error) {
	start := p.tok().pos
	var parts [3]expr
	k := 0
	isSlice := false
	for {
		if !p.isOp(":") && !p.isOp(",") && !p.isOp("]") {
			e, err := p.expr()
			if err != nil {
				return nil, err
			}
			parts[k] = e
		}
		if !p.isOp(":") {
			break
		}
		if k == 2 {
			return nil, p.errf(p.tok().pos, "a slice has at most three parts")
		}
		isSlice = true
		k++
		p.next()
	}
	if !isSlice {
		if parts[0] == nil {
			return nil, p.errf(start, "expected an index, found %s", p.tok())
		}
		return parts[0], nil
	}
	return &sliceExpr{p: start, lo: parts[0], hi: parts[1], step: parts[2]}, nil
}

func (p *parser) atom() (expr, error) {
	t := p.tok()
	switch t.kind {
	case tName:
		p.next()
		switch t.text {
		case "True":
			return &constExpr{p: t.pos, v: true}, nil
		case "False":
			return &constExpr{p: t.pos, v: false}, nil
		case "None":
			return &constExpr{p: t.pos, v: nil}, nil
		}
		return &nameExpr{p: t.pos, name: t.text}, nil
	case tInt:
		p.next()
		v, err := strconv.ParseInt(strings.ReplaceAll(t.text, "_", ""), 0, 64)
		if err != nil {
			return nil, p.errf(t.pos, "int %s is out of range", t.text)
		}
		return &numExpr{p: t.pos, v: v}, nil
	case tFloat:
		p.next()
		v, err := strconv.ParseFloat(strings.ReplaceAll(t.text, "_", ""), 64)
		if err != nil && !math.IsInf(v, 0) {
			return nil, p.errf(t.pos, "malformed float %s", t.text)
		}
		return &numExpr{p: t.pos, v: v}, nil
	case tString:
		p.next()
		s := t.text
		for p.tok().kind == tString { // "a" "b" concatenates
			s += p.next().text
		}
		return &strExpr{p: t.pos, s: s}, nil
	case tOp:
		switch t.text {
		case "(":
			p.next()
			if p.isOp(")") {
				p.next()
				return &seqExpr{p: t.pos}, nil
			}
			e, err := p.expr()
			if err != nil {
				return nil, err
			}
			if p.isOp(")") {
				p.next()
				return e, nil
			}
			items := []expr{e}
			for p.isOp(",") {
				p.next()
				if p.isOp(")") {
					break
				}
				e, err := p.expr()
				if err != nil {
					return nil, err
				}
				items = append(items, e)
			}
			if _, err := p.expectOp(")", "to close the tuple"); err != nil {
				return nil, err
			}
			return &seqExpr{p: t.pos, items: items}, nil
		case "[":
			p.next()
			s := &seqExpr{p: t.pos, list: true}
			for !p.isOp("]") {
				e, err := p.expr()
				if err != nil {
					return nil, err
				}
				s.items = append(s.items, e)
				if !p.isOp(",") {
					break
				}
				p.next()
			}
			if _, err := p.expectOp("]", "to close the list"); err != nil {
				return nil, err
			}
			return s, nil
		case "...":
			p.next()
			return &constExpr{p: t.pos, v: ellipsis{}}, nil
		case "{":
			return p.dictOrSet(t.pos)
		}
	}
	return nil, p.errf(t.pos, "expected an expression, found %s", t)
}

type ellipsis struct{}

// dictOrSet reads a dict {k: v, ...} or a set {a, b} literal. Graphs hold
// them only as arguments of ops gcdbg does not model (a higher-order op's
// kernel options, say), so they are kept as data for the captured graph: a
// dict as a tuple of (key, value) tuples, a set as a tuple of its items. The
// op that takes one stops the pipeline at the normalized stage, by name.
func (p *parser) dictOrSet(at Pos) (expr, error) {
	p.next()
	s := &seqExpr{p: at}
	for !p.isOp("}") {
		k, err := p.expr()
		if err != nil {
			return nil, err
		}
		if p.isOp(":") {
			p.next()
			v, err := p.expr()
			if err != nil {
				return nil, err
			}
			k = &seqExpr{p: k.at(), items: []expr{k, v}}
		}
		s.items = append(s.items, k)
		if !p.isOp(",") {
			break
		}
		p.next()
	}
	if _, err := p.expectOp("}", "to close the dict or set"); err != nil {
		return nil, err
	}
	return s, nil
}
