package torchtrace

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// A training log (the model ran with gradients) holds, besides Dynamo's
// graph, AOTAutograd's aot_joint_graph, aot_forward_graph and
// aot_backward_graph. Since PyTorch 2.5 Dynamo lifts a module's parameters
// to inputs of its graph (L_self_modules_fc1_parameters_weight_), and the
// graph text does not say which inputs require grad. Without that gcdbg
// would compile an inference graph and its joint, forward and backward
// stages would be empty. Which inputs are trainable is read from, in order:
//
//  1. AOTAutograd's graphs. aot_backward_graph returns one value per
//     primal (the graph's inputs, in order), None where no gradient flows;
//     aot_joint_graph returns the outputs, then the same list. They are
//     used when they have exactly one entry per input of Dynamo's graph
//     (logs before 2.5 put the parameters first among the primals and keep
//     them out of Dynamo's inputs, so the positions would not line up).
//     A compile with aot graphs but no backward (an aot_inference_graph,
//     or an aot_forward_graph alone as older logs write it) ran without
//     gradients: nothing is trainable, whatever the guards say.
//  2. Otherwise the TENSOR_MATCH guards: requires_grad=True on the input's
//     source (L['self']._modules['fc1']._parameters['weight'] squashes to
//     the same key as the placeholder L_self_modules_fc1_parameters_weight_).

// trainableInputs returns the forward's inputs (as the signature names
// them) that require grad, and where that was read ("aot_backward_graph",
// "aot_joint_graph", "guards"; "" when nothing is trainable).
func (c *Compile) trainableInputs() (map[string]bool, string) {
	params := forwardParams(c.Graph)
	if len(params) == 0 {
		return nil, ""
	}
	for _, key := range []string{"aot_backward_graph", "aot_joint_graph"} {
		text, ok := c.Reference[key]
		if !ok {
			continue
		}
		grads := aotGrads(key, text)
		if len(grads) != len(params) {
			continue // positions do not line up with Dynamo's inputs
		}
		out := map[string]bool{}
		for i, g := range grads {
			if g {
				out[params[i]] = true
			}
		}
		return out, key
	}
	for _, key := range []string{"aot_inference_graph", "aot_forward_graph"} {
		if _, ok := c.Reference[key]; ok {
			return nil, "" // compiled without gradients
		}
	}
	byKey := map[string]bool{}
	for _, g := range c.ProducerGuards() {
		if m := tensorMatch.FindStringSubmatch(g.Text); m != nil && m[3] == "True" {
			byKey[squash(m[1])] = true
		}
	}
	out := map[string]bool{}
	for _, p := range params {
		if byKey[squash(p)] {
			out[p] = true
		}
	}
	if len(out) == 0 {
		return nil, ""
	}
	return out, "guards"
}

// forwardParams lists the parameters of a graph's `def forward(self, ...)`
// after self, in order. Annotations may hold commas ("f32[4, 8][8, 1]cpu").
func forwardParams(graph string) []string {
	i := strings.Index(graph, "def forward(")
	if i < 0 {
		return nil
	}
	args, ok := balanced(graph[i+len("def forward("):], ')')
	if !ok {
		return nil
	}
	var out []string
	for k, a := range splitTop(args) {
		name := strings.TrimSpace(a)
		if j := strings.IndexAny(name, ":="); j >= 0 {
			name = strings.TrimSpace(name[:j])
		}
		if k == 0 && name == "self" {
			continue
		}
		if name != "" {
			out = append(out, name)
		}
	}
	return out
}

// balanced returns s up to the close that ends the already-open bracket,
// skipping nested brackets and quoted strings.
func balanced(s string, close byte) (string, bool) {
	depth := 0
	var quote byte
	for i := 0; i < len(s); i++ {
		ch := s[i]
		switch {
		case quote != 0:
			if ch == '\\' {
				i++
			} else if ch == quote {
				quote = 0
			}
		case ch == '"' || ch == '\'':
			quote = ch
		case ch == '(' || ch == '[' || ch == '{':
			depth++
		case ch == ')' || ch == ']' || ch == '}':
			if depth == 0 {
				if ch != close {
					return "", false
				}
				return s[:i], true
			}
			depth--
		}
	}
	return "", false
}

// splitTop splits s at the commas outside brackets and quotes.
func splitTop(s string) []string {
	var out []string
	depth, start := 0, 0
	var quote byte
	for i := 0; i < len(s); i++ {
		ch := s[i]
		switch {
		case quote != 0:
			if ch == '\\' {
				i++
			} else if ch == quote {
				quote = 0
			}
		case ch == '"' || ch == '\'':
			quote = ch
		case ch == '(' || ch == '[' || ch == '{':
			depth++
		case ch == ')' || ch == ']' || ch == '}':
			depth--
		case ch == ',' && depth == 0:
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	if strings.TrimSpace(s[start:]) != "" {
		out = append(out, s[start:])
	}
	return out
}

// jointPrimal counts the primals the joint graph declares ("primals_3: ...").
var jointPrimal = regexp.MustCompile(`\bprimals_(\d+)\s*:`)

// aotGrads reads which primals get a gradient from an AOT graph's last
// return: aot_backward_graph's `return (mm_2, view_1, None, ...)`, one per
// primal, or aot_joint_graph's
// `return pytree.tree_unflatten([outs..., grads...], self._out_spec)`,
// whose last entries (one per primal) are the gradients. nil when the
// text does not have that form.
func aotGrads(kind, text string) []bool {
	i := strings.LastIndex(text, "return ")
	if i < 0 {
		return nil
	}
	ret := strings.TrimSpace(text[i+len("return "):])
	var items []string
	switch {
	case kind == "aot_joint_graph":
		const head = "pytree.tree_unflatten(["
		if !strings.HasPrefix(ret, head) {
			return nil
		}
		body, ok := balanced(ret[len(head):], ']')
		if !ok {
			return nil
		}
		items = splitTop(body)
		primals := map[string]bool{}
		for _, m := range jointPrimal.FindAllStringSubmatch(text[:i], -1) {
			primals[m[1]] = true
		}
		if len(primals) == 0 || len(primals) > len(items) {
			return nil
		}
		items = items[len(items)-len(primals):]
	case strings.HasPrefix(ret, "("):
		body, ok := balanced(ret[1:], ')')
		if !ok {
			return nil
		}
		items = splitTop(body)
	default: // a single value, written bare
		items = []string{strings.SplitN(ret, "\n", 2)[0]}
	}
	out := make([]bool, len(items))
	for k, it := range items {
		out[k] = strings.TrimSpace(it) != "None"
	}
	return out
}

// SavedTensor is one value AOTAutograd's partitioner handed from the
// forward graph to the backward graph.
type SavedTensor struct {
	Name  string
	Type  string // the annotation: "f32[16, 20]"
	Bytes int64  // numel × element size; -1 when a size is symbolic
}

// elementBytes are the sizes of the annotation dtypes.
var elementBytes = map[string]int64{"f64": 8, "f32": 4, "f16": 2, "bf16": 2, "i64": 8, "i32": 4, "i16": 2,
	"i8": 1, "u8": 1, "b8": 1, "c64": 8, "c128": 16}

var annotationType = regexp.MustCompile(`^"?([a-z]+\d*)\[([^\]]*)\]`)

// PyTorchSaved lists what PyTorch's partitioner (Inductor uses functorch's
// min_cut_rematerialization_partition) saved for backward in this compile:
// the inputs of aot_backward_graph other than the tangents, with their
// bytes, and the total (-1 if a size is symbolic). ok is false when the log
// has no readable aot_backward_graph.
func (c *Compile) PyTorchSaved() (saved []SavedTensor, total int64, ok bool) {
	text, has := c.Reference["aot_backward_graph"]
	if !has {
		return nil, 0, false
	}
	i := strings.Index(text, "def forward(")
	if i < 0 {
		return nil, 0, false
	}
	args, fine := balanced(text[i+len("def forward("):], ')')
	if !fine {
		return nil, 0, false
	}
	for k, a := range splitTop(args) {
		name, ann, _ := strings.Cut(a, ":")
		name, ann = strings.TrimSpace(name), strings.TrimSpace(ann)
		if (k == 0 && name == "self") || strings.HasPrefix(name, "tangents_") || name == "" {
			continue
		}
		s := SavedTensor{Name: name, Bytes: -1}
		if m := annotationType.FindStringSubmatch(ann); m != nil {
			s.Type = m[1] + "[" + m[2] + "]"
			if eb, known := elementBytes[m[1]]; known {
				s.Bytes = eb
				for _, d := range strings.Split(m[2], ",") {
					if d = strings.TrimSpace(d); d == "" {
						continue
					}
					v, err := strconv.ParseInt(d, 10, 64)
					if err != nil || v < 0 || (v > 0 && s.Bytes > (1<<62)/v) {
						s.Bytes = -1
						break
					}
					s.Bytes *= v
				}
			}
		} else if strings.HasPrefix(ann, `"Sym(`) {
			s.Type, s.Bytes = strings.Trim(ann, `"`), 0 // a size: no tensor memory
		}
		saved = append(saved, s)
	}
	for _, s := range saved {
		if s.Bytes < 0 {
			return saved, -1, true
		}
		total += s.Bytes
	}
	return saved, total, true
}

// savedText prints PyTorchSaved as the pytorch stage shows it, beside
// gcdbg's own forward stage header ("saved for backward").
func (c *Compile) savedText() string {
	saved, total, ok := c.PyTorchSaved()
	if !ok {
		return ""
	}
	var b strings.Builder
	if total >= 0 {
		fmt.Fprintf(&b, "# PyTorch's partition (the inputs of aot_backward_graph but the tangents): %d saved, %d bytes\n", len(saved), total)
	} else {
		fmt.Fprintf(&b, "# PyTorch's partition (the inputs of aot_backward_graph but the tangents): %d saved, symbolic sizes\n", len(saved))
	}
	for _, s := range saved {
		bytes := "?"
		if s.Bytes >= 0 {
			bytes = fmt.Sprint(s.Bytes)
		}
		fmt.Fprintf(&b, "#   %-24s %-20s %8s bytes\n", s.Name, s.Type, bytes)
	}
	return b.String()
}
