package ir

import (
	"fmt"
	"strconv"
	"strings"
)

// Param is one parameter of an op schema.
type Param struct {
	Name       string
	Default    Arg
	HasDefault bool
	Variadic   bool // *sizes: the rest of the positional args, packed into a Tuple
}

// Schema is a parsed signature such as
// "sum(self, dim=None, keepdim=False, dtype=None)".
type Schema struct {
	Name   string
	Params []Param
}

// ParseSchema parses the small signature language the op table uses:
// names, defaults (None, True, False, ints, floats, 'strings', [lists]) and
// one optional *variadic parameter. It panics on a malformed schema: schemas
// are program text, checked at start-up by the registry's tests.
func ParseSchema(s string) Schema {
	open := strings.IndexByte(s, '(')
	if open < 0 || !strings.HasSuffix(s, ")") {
		panic("ir: bad schema " + s)
	}
	sc := Schema{Name: strings.TrimSpace(s[:open])}
	body := strings.TrimSpace(s[open+1 : len(s)-1])
	if body == "" {
		return sc
	}
	for _, part := range splitTop(body) {
		part = strings.TrimSpace(part)
		p := Param{}
		if strings.HasPrefix(part, "*") {
			p.Variadic = true
			part = part[1:]
		}
		if eq := strings.IndexByte(part, '='); eq >= 0 {
			p.Name = strings.TrimSpace(part[:eq])
			p.Default = parseLiteral(strings.TrimSpace(part[eq+1:]), s)
			p.HasDefault = true
		} else {
			p.Name = part
		}
		sc.Params = append(sc.Params, p)
	}
	return sc
}

func splitTop(s string) []string {
	var parts []string
	depth, start := 0, 0
	for i, c := range s {
		switch c {
		case '[', '(':
			depth++
		case ']', ')':
			depth--
		case ',':
			if depth == 0 {
				parts = append(parts, s[start:i])
				start = i + 1
			}
		}
	}
	return append(parts, s[start:])
}

func parseLiteral(v, schema string) Arg {
	switch v {
	case "None":
		return nil
	case "True":
		return true
	case "False":
		return false
	}
	if strings.HasPrefix(v, "'") && strings.HasSuffix(v, "'") {
		return v[1 : len(v)-1]
	}
	if strings.HasPrefix(v, "[") && strings.HasSuffix(v, "]") {
		inner := strings.TrimSpace(v[1 : len(v)-1])
		t := Tuple{}
		if inner != "" {
			for _, p := range splitTop(inner) {
				t = append(t, parseLiteral(strings.TrimSpace(p), schema))
			}
		}
		return t
	}
	if i, err := strconv.ParseInt(v, 10, 64); err == nil {
		return i
	}
	if f, err := strconv.ParseFloat(v, 64); err == nil {
		return f
	}
	panic(fmt.Sprintf("ir: bad default %q in schema %s", v, schema))
}

// Bind matches positional args and kwargs to the schema's parameters and
// returns one value per parameter (defaults filled in). The first parameter
// answers to both "self" and "input", as PyTorch's APIs use either.
func (sc Schema) Bind(args []Arg, kwargs []Kwarg) ([]Arg, error) {
	out := make([]Arg, len(sc.Params))
	set := make([]bool, len(sc.Params))
	pi := 0
	for ai := 0; ai < len(args); ai++ {
		if pi >= len(sc.Params) {
			return nil, fmt.Errorf("args: %s takes %d arguments, got %d", sc.Name, len(sc.Params), len(args))
		}
		p := sc.Params[pi]
		if p.Variadic {
			rest := args[ai:]
			// A bound canonical node's args (zeros((4, 8), torch.float64)):
			// the sizes already packed in one tuple, the parameters after it
			// positional. Python's *size form cannot spell that (what follows
			// *size is keyword-only), so it is not a nested size.
			if len(rest) > 1 {
				if t, ok := packedSizes(rest[0]); ok {
					out[pi], set[pi] = t, true
					pi++
					continue
				}
			}
			// x.view((2, 3)) and x.view(2, 3) mean the same.
			if len(rest) == 1 {
				if t, ok := rest[0].(Tuple); ok {
					out[pi] = t
				} else if l, ok := rest[0].(List); ok {
					out[pi] = Tuple(l)
				} else {
					out[pi] = Tuple{rest[0]}
				}
			} else {
				out[pi] = Tuple(append([]Arg{}, rest...))
			}
			set[pi] = true
			pi++
			break
		}
		out[pi] = args[ai]
		set[pi] = true
		pi++
	}
	for _, kv := range kwargs {
		idx := sc.index(kv.Name)
		if idx < 0 {
			return nil, fmt.Errorf("kwargs.%s: %s has no parameter %q", kv.Name, sc.Name, kv.Name)
		}
		if set[idx] {
			return nil, fmt.Errorf("kwargs.%s: %s got two values for %q", kv.Name, sc.Name, kv.Name)
		}
		v := kv.Value
		if sc.Params[idx].Variadic {
			if l, ok := v.(List); ok {
				v = Tuple(l)
			} else if _, ok := v.(Tuple); !ok {
				v = Tuple{v}
			}
		}
		out[idx] = v
		set[idx] = true
	}
	for i, p := range sc.Params {
		if set[i] {
			continue
		}
		if !p.HasDefault {
			return nil, fmt.Errorf("args: %s is missing required argument %q", sc.Name, p.Name)
		}
		out[i] = p.Default
	}
	return out, nil
}

func packedSizes(a Arg) (Tuple, bool) {
	switch v := a.(type) {
	case Tuple:
		return v, true
	case List:
		return Tuple(v), true
	}
	return nil, false
}

func (sc Schema) index(name string) int {
	for i, p := range sc.Params {
		if p.Name == name {
			return i
		}
	}
	if name == "input" || name == "self" {
		if len(sc.Params) > 0 && (sc.Params[0].Name == "self" || sc.Params[0].Name == "input") {
			return 0
		}
	}
	return -1
}

// Trim drops trailing arguments equal to their defaults, so normalized
// graphs print as people write them: aten.sum(x) not aten.sum(x, None, False, None).
func (sc Schema) Trim(bound []Arg) []Arg {
	n := len(bound)
	for n > 0 {
		p := sc.Params[n-1]
		if !p.HasDefault || !ArgEqual(bound[n-1], p.Default) {
			break
		}
		n--
	}
	return bound[:n]
}

// ArgEqual compares two constant args (nodes by identity).
func ArgEqual(a, b Arg) bool {
	switch x := a.(type) {
	case Tuple:
		y, ok := b.(Tuple)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !ArgEqual(x[i], y[i]) {
				return false
			}
		}
		return true
	case List:
		y, ok := b.(List)
		return ok && ArgEqual(Tuple(x), Tuple(y))
	case Slice:
		y, ok := b.(Slice)
		return ok && ArgEqual(x.Start, y.Start) && ArgEqual(x.Stop, y.Stop) && ArgEqual(x.Step, y.Step)
	}
	return a == b
}
