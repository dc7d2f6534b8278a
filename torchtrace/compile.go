package torchtrace

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
)

// Compile is everything a log says about one compilation attempt (one
// compile id). Attempts of the same frame compile are separate Compiles
// ("[0/0]" then "[0/0_1]" after a graph-break restart), as in tlparse.
type Compile struct {
	ID               string // as tlparse shows it: "[0/0]", "[0/1_1]", "[!0/0/0]"
	Frame            int    // frame_id (-1 when absent)
	CompileIndex     int    // frame_compile_id (-1 when absent)
	Attempt          int
	CompiledAutograd *int
	// Graph is the dynamo_output_graph payload: the captured fx graph as
	// GraphModule.print_readable() wrote it. "" when Dynamo produced none
	// (the attempt restarted, or failed before the graph was built).
	Graph string
	// Sizes is dynamo_output_graph's "sizes": node name -> shape (an entry
	// is a string for a symbolic dimension). Older logs annotate placeholders
	// only as "torch.Tensor", and this is where their shapes are.
	Sizes map[string][]any
	// Guards is Dynamo's guard list: the dynamo_guards JSON payload, then
	// the dynamo_cpp_guards_str tree, whichever the log has.
	Guards []GuardText
	// Reference holds PyTorch's own later artifacts by name:
	// aot_joint_graph, aot_forward_graph, aot_backward_graph,
	// aot_inference_graph, inductor_post_grad_graph, inductor_output_code,
	// and every "artifact" event under its own name (fx_graph_runnable,
	// dynamo_error, ...). A name seen twice gets " (2)" appended.
	Reference map[string]string
	// RefOrder lists Reference's keys in the order the log wrote them.
	RefOrder []string
	// refNext is, per artifact name, the next suffix to try for a repeat
	// ("name (3)"): counting from 2 for every repeat made a log of n
	// artifacts of one name cost n²/2 (the slow FuzzReadLog input).
	refNext map[string]int
	// Metrics is the compilation_metrics event (the last one, if several).
	Metrics map[string]any
	// RestartReasons are compilation_metrics' restart_reasons: why Dynamo
	// threw this attempt away and tried again (a graph break).
	RestartReasons []string
	// FailType / FailReason say why the compilation failed, "" if it did not.
	FailType, FailReason string
	// Stack is dynamo_start's user stack, innermost last, with the
	// interned file names resolved: "file.py:12 in fn".
	Stack []string
	// Tensors are the describe_tensor events (the real inputs' metadata:
	// dtype, device, size, stride), decoded from JSON.
	Tensors []map[string]any
	// Line is where the compile's first event is in the log.
	Line int
	// Imported says the graph became a graph of the trace; ImportError says
	// why it did not, when there was a graph to import.
	Imported    bool
	ImportError string
}

// GuardText is one guard listing as PyTorch printed it.
type GuardText struct {
	Kind string // "dynamo_guards" or "dynamo_cpp_guards_str"
	Text string
}

// referenceKinds are the events whose payload is one of PyTorch's own
// compilation stages; they are shown in this order beside gcdbg's stages.
var referenceKinds = []string{
	"aot_joint_graph", "aot_forward_graph", "aot_backward_graph", "aot_inference_graph",
	"inductor_pre_grad_graph", "inductor_post_grad_graph", "inductor_output_code",
	"dynamo_graph_break_reason", "optimize_ddp_split_graph", "optimize_ddp_split_child",
	"compiled_autograd_graph", "aot_autograd_backward_compilation_metrics", "bwd_compilation_metrics",
}

func isReferenceKind(k string) bool {
	for _, r := range referenceKinds {
		if r == k {
			return true
		}
	}
	return false
}

// Group sorts the envelopes of a log into Compiles, in order of first
// appearance. Events without a compile id ("str", global chromium events)
// belong to no compile. A payload that does not decode (a dynamo_guards
// payload that is not JSON) is kept as text, never an error.
func Group(l *Log) []*Compile {
	byID := map[string]*Compile{}
	var order []*Compile
	for _, e := range l.Envelopes {
		if e.CompileID == nil {
			continue
		}
		id := e.CompileID.String()
		c := byID[id]
		if c == nil {
			c = &Compile{ID: id, Frame: orMinus(e.CompileID.Frame), CompileIndex: orMinus(e.CompileID.CompileIndex),
				Attempt: e.CompileID.Attempt, CompiledAutograd: e.CompileID.CompiledAutograd,
				Reference: map[string]string{}, Line: e.Line}
			byID[id] = c
			order = append(order, c)
		}
		c.add(e, l)
	}
	return order
}

func orMinus(p *int) int {
	if p == nil {
		return -1
	}
	return *p
}

func (c *Compile) add(e *Envelope, l *Log) {
	switch {
	case e.Kind == "dynamo_output_graph":
		c.Graph = e.Payload
		var meta struct {
			Sizes map[string][]any `json:"sizes"`
		}
		if json.Unmarshal(e.Meta, &meta) == nil {
			c.Sizes = meta.Sizes
		}
	case e.Kind == "dynamo_guards" || e.Kind == "dynamo_cpp_guards_str":
		c.Guards = append(c.Guards, GuardText{Kind: e.Kind, Text: guardText(e)})
	case e.Kind == "compilation_metrics":
		c.metrics(e)
	case e.Kind == "dynamo_start":
		c.Stack = stack(e.Meta, l.Strings)
	case e.Kind == "describe_tensor":
		var t map[string]any
		if json.Unmarshal(e.Meta, &t) == nil {
			c.Tensors = append(c.Tensors, t)
		}
	case e.Kind == "artifact":
		var meta struct {
			Name string `json:"name"`
		}
		if json.Unmarshal(e.Meta, &meta) == nil && meta.Name != "" {
			c.addRef(meta.Name, e.Payload)
		}
	case isReferenceKind(e.Kind):
		text := e.Payload
		if !e.HasPayload {
			text = string(e.Meta) // metrics-like events carry everything in the envelope
		}
		c.addRef(e.Kind, text)
	}
}

func (c *Compile) addRef(name, text string) {
	key := name
	if _, dup := c.Reference[key]; dup {
		if c.refNext == nil {
			c.refNext = map[string]int{}
		}
		i := max(c.refNext[name], 2)
		for {
			key = fmt.Sprintf("%s (%d)", name, i)
			i++
			if _, dup := c.Reference[key]; !dup {
				break
			}
		}
		c.refNext[name] = i
	}
	c.Reference[key] = text
	c.RefOrder = append(c.RefOrder, key)
}

// guardText renders a dynamo_guards JSON payload one guard per line (its
// "code"); the C++ guard tree and undecodable payloads stay as written.
func guardText(e *Envelope) string {
	if e.Kind != "dynamo_guards" {
		return strings.Trim(e.Payload, "\n")
	}
	var guards []struct {
		Code string `json:"code"`
	}
	if err := json.Unmarshal([]byte(e.Payload), &guards); err != nil {
		return e.Payload
	}
	lines := make([]string, len(guards))
	for i, g := range guards {
		lines[i] = g.Code
	}
	return strings.Join(lines, "\n")
}

func (c *Compile) metrics(e *Envelope) {
	var m map[string]any
	if json.Unmarshal(e.Meta, &m) != nil {
		return
	}
	c.Metrics = m
	c.RestartReasons = nil
	if rs, ok := m["restart_reasons"].([]any); ok {
		for _, r := range rs {
			if s, ok := r.(string); ok {
				c.RestartReasons = append(c.RestartReasons, s)
			}
		}
	}
	c.FailType, _ = m["fail_type"].(string)
	c.FailReason, _ = m["fail_reason"].(string)
}

// stack resolves dynamo_start's frames against the "str" interning table.
func stack(meta json.RawMessage, strs map[int]string) []string {
	var m struct {
		Stack []struct {
			Line     int    `json:"line"`
			Name     string `json:"name"`
			Filename any    `json:"filename"`
		} `json:"stack"`
	}
	if json.Unmarshal(meta, &m) != nil {
		return nil
	}
	out := make([]string, 0, len(m.Stack))
	for _, f := range m.Stack {
		file := "(unknown)"
		switch v := f.Filename.(type) {
		case float64:
			if s, ok := strs[int(v)]; ok {
				file = s
			}
		case string:
			file = v
		}
		out = append(out, fmt.Sprintf("%s:%d in %s", file, f.Line, f.Name))
	}
	return out
}

// MetricsText prints compilation_metrics one "key: value" per line, keys
// sorted, nulls and empty lists left out (they say nothing).
func (c *Compile) MetricsText() string {
	keys := make([]string, 0, len(c.Metrics))
	for k, v := range c.Metrics {
		if v == nil {
			continue
		}
		if l, ok := v.([]any); ok && len(l) == 0 {
			continue
		}
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	for _, k := range keys {
		v := c.Metrics[k]
		var s string
		switch x := v.(type) {
		case string:
			s = x
		default:
			j, _ := json.Marshal(x)
			s = string(j)
		}
		if len(s) > 200 {
			s = s[:200] + "..."
		}
		fmt.Fprintf(&b, "%s: %s\n", k, s)
	}
	return b.String()
}
