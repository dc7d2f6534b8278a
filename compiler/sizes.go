package compiler

import (
	"fmt"
	"strconv"
	"strings"
)

// Sizes in a manifest are ints or expressions over the symbols (ks0,
// 8*ks0, (ks0//2)): EvalSize evaluates one for the runner and the worker.

// EvalSize evaluates a size expression: integers, symbol names, + - *,
// // (floor division), % and parentheses.
func EvalSize(expr string, syms map[string]int64) (int64, error) {
	p := &sizeParser{s: strings.ReplaceAll(expr, " ", ""), syms: syms}
	v, err := p.sum()
	if err == nil && p.i != len(p.s) {
		err = fmt.Errorf("unexpected %q", p.s[p.i:])
	}
	if err != nil {
		return 0, fmt.Errorf("size %q: %w", expr, err)
	}
	return v, nil
}

// Numel is the product of a slot's sizes.
func (b BufferSpec) Numel(syms map[string]int64) (int64, error) {
	n := int64(1)
	for _, s := range b.Sizes {
		v, err := EvalSize(s, syms)
		if err != nil {
			return 0, fmt.Errorf("buffer %q: %w", b.Name, err)
		}
		if v < 0 {
			return 0, fmt.Errorf("buffer %q: negative size %d", b.Name, v)
		}
		n *= v
	}
	return n, nil
}

type sizeParser struct {
	s    string
	i    int
	syms map[string]int64
}

func (p *sizeParser) sum() (int64, error) {
	v, err := p.product()
	for err == nil && p.i < len(p.s) && (p.s[p.i] == '+' || p.s[p.i] == '-') {
		op := p.s[p.i]
		p.i++
		var w int64
		if w, err = p.product(); op == '+' {
			v += w
		} else {
			v -= w
		}
	}
	return v, err
}

func (p *sizeParser) product() (int64, error) {
	v, err := p.atom()
	for err == nil && p.i < len(p.s) {
		var op string
		switch {
		case strings.HasPrefix(p.s[p.i:], "//"):
			op = "//"
		case p.s[p.i] == '*' || p.s[p.i] == '%':
			op = p.s[p.i : p.i+1]
		default:
			return v, nil
		}
		p.i += len(op)
		var w int64
		if w, err = p.atom(); err != nil {
			break
		}
		switch op {
		case "*":
			v *= w
		case "//", "%":
			if w == 0 {
				return 0, fmt.Errorf("division by zero")
			}
			q := v / w
			if (v%w != 0) && ((v < 0) != (w < 0)) {
				q--
			}
			if op == "//" {
				v = q
			} else {
				v -= q * w
			}
		}
	}
	return v, err
}

func (p *sizeParser) atom() (int64, error) {
	if p.i >= len(p.s) {
		return 0, fmt.Errorf("unexpected end")
	}
	c := p.s[p.i]
	switch {
	case c == '(':
		p.i++
		v, err := p.sum()
		if err != nil {
			return 0, err
		}
		if p.i >= len(p.s) || p.s[p.i] != ')' {
			return 0, fmt.Errorf("missing )")
		}
		p.i++
		return v, nil
	case c == '-':
		p.i++
		v, err := p.atom()
		return -v, err
	case c >= '0' && c <= '9':
		j := p.i
		for j < len(p.s) && p.s[j] >= '0' && p.s[j] <= '9' {
			j++
		}
		v, err := strconv.ParseInt(p.s[p.i:j], 10, 64)
		p.i = j
		return v, err
	case c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
		j := p.i
		for j < len(p.s) && (p.s[j] == '_' || p.s[j] >= 'a' && p.s[j] <= 'z' || p.s[j] >= 'A' && p.s[j] <= 'Z' || p.s[j] >= '0' && p.s[j] <= '9') {
			j++
		}
		name := p.s[p.i:j]
		p.i = j
		v, ok := p.syms[name]
		if !ok {
			return 0, fmt.Errorf("unknown symbol %s", name)
		}
		return v, nil
	}
	return 0, fmt.Errorf("unexpected %q", p.s[p.i:])
}
