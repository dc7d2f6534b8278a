package torchtrace

import (
	"regexp"
	"strings"

	"gcdbg/ir"
)

// ProducerGuards turns Dynamo's guard listings into ir.Guards, so gcdbg's
// guards stage shows PyTorch's guards beside the ones it derives itself.
// The C++ guard tree (dynamo_cpp_guards_str) is preferred: it names each
// guard's kind and the source it hangs off. The older dynamo_guards JSON
// only has the guard code, so its kind is read from the code.
func (c *Compile) ProducerGuards() []ir.Guard {
	for _, g := range c.Guards {
		if g.Kind == "dynamo_cpp_guards_str" {
			if gs := cppGuards(g.Text); len(gs) > 0 {
				return gs
			}
		}
	}
	var out []ir.Guard
	for _, g := range c.Guards {
		if g.Kind != "dynamo_guards" {
			continue
		}
		for _, code := range strings.Split(g.Text, "\n") {
			if code = strings.TrimSpace(code); code != "" && code != "[" && code != "]" {
				out = append(out, ir.Guard{Kind: kindOfCode(code), Source: sourceOf(code), Text: code})
			}
		}
	}
	return out
}

// guardLine is one leaf of the tree: "| | +- TENSOR_MATCH: check_tensor(L['x'], ...)".
var guardLine = regexp.MustCompile(`^([| ]*)\+- ([A-Z][A-Z_]*): (.*)$`)

// managerLine opens a subtree for one source: "| +- GuardManager: source=L['x'], accessed_by=...".
var managerLine = regexp.MustCompile(`^([| ]*)\+- \w*GuardManager: source=([^,]*)`)

// trailing is the "# file.py:12 in fn" note some guards carry.
var trailing = regexp.MustCompile(`\s{2,}#.*$|\s+$`)

func cppGuards(text string) []ir.Guard {
	type scope struct {
		depth  int
		source string
	}
	var scopes []scope
	var out []ir.Guard
	for _, line := range strings.Split(text, "\n") {
		if m := managerLine.FindStringSubmatch(line); m != nil {
			d := len(m[1])
			for len(scopes) > 0 && scopes[len(scopes)-1].depth >= d {
				scopes = scopes[:len(scopes)-1]
			}
			scopes = append(scopes, scope{d, m[2]})
			continue
		}
		m := guardLine.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		d := len(m[1])
		for len(scopes) > 0 && scopes[len(scopes)-1].depth >= d {
			scopes = scopes[:len(scopes)-1]
		}
		code := trailing.ReplaceAllString(m[3], "")
		src := sourceOf(code)
		if len(scopes) > 0 {
			src = scopes[len(scopes)-1].source
		}
		out = append(out, ir.Guard{Kind: m[2], Source: src, Text: code})
	}
	return out
}

// codeKinds maps a guard's code to the GuardBuilder kind that emits it.
var codeKinds = []struct{ prefix, kind string }{
	{"check_tensor(", "TENSOR_MATCH"},
	{"check_no_aliasing(", "NO_TENSOR_ALIASING"},
	{"hasattr(", "NO_HASATTR"},
	{"___check_global_state(", "GLOBAL_STATE"},
	{"utils_device.CURRENT_DEVICE", "DEFAULT_DEVICE"},
	{"___check_obj_id(", "ID_MATCH"},
	{"___check_type_id(", "TYPE_MATCH"},
	{"___dict_contains(", "DICT_CONTAINS"},
	{"___is_grad_enabled()", "GRAD_MODE"},
	{"not ___is_grad_enabled()", "GRAD_MODE"},
	{"___check_torch_function_mode_stack(", "TORCH_FUNCTION_STATE"},
}

func kindOfCode(code string) string {
	for _, k := range codeKinds {
		if strings.HasPrefix(code, k.prefix) {
			return k.kind
		}
	}
	if strings.Contains(code, ".size()[") || strings.Contains(code, ".stride()[") {
		return "SHAPE_ENV"
	}
	return "GUARD"
}

// sourceRe finds the first Dynamo source a guard reads: L['x'], G['w'].
var sourceRe = regexp.MustCompile(`[LG]\['[^']*'\]`)

func sourceOf(code string) string {
	return sourceRe.FindString(code)
}
