package torchtrace

import (
	"fmt"
	"regexp"
	"strings"
)

// Older PyTorch (2.3 and before) printed Dynamo's inputs without a shape:
//
//	def forward(self, L_x_ : torch.Tensor):
//
// The shape is in the envelope's "sizes" (keyed by the node name, the
// lower-cased placeholder name l_x_) and the dtype and requires_grad in the
// input's TENSOR_MATCH guard. graphText adds a `# gcdbg: input` directive
// (and `# gcdbg: requires_grad`) for each such input, so package graphtext
// can generate inputs of the recorded shapes.

var untypedInput = regexp.MustCompile(`(\w+) ?: torch\.Tensor\b`)

// tensorMatch reads check_tensor(L['x'], Tensor, DispatchKeySet(...), torch.float32, device=None, requires_grad=False, ...).
var tensorMatch = regexp.MustCompile(`^check_tensor\(([^,]+), .*?torch\.(\w+), device=[^,]*, requires_grad=(True|False)`)

// shortDType is the annotation spelling of a torch dtype.
var shortDType = map[string]string{
	"float32": "f32", "float": "f32", "float64": "f64", "double": "f64", "float16": "f16", "half": "f16",
	"bfloat16": "bf16", "int64": "i64", "long": "i64", "int32": "i32", "int": "i32", "int16": "i16",
	"int8": "i8", "uint8": "u8", "bool": "b8",
}

type guardedTensor struct {
	dtype string
	grad  bool
}

// graphText is the compile's graph with directives: the shape of each
// untyped input, and requires_grad for the inputs a training log says are
// trainable (trainableInputs), so gcdbg builds its own joint graph.
func (c *Compile) graphText() string {
	def := c.Graph
	if i := strings.Index(def, "def forward("); i >= 0 {
		def = def[i:]
		if j := strings.Index(def, "):"); j >= 0 {
			def = def[:j]
		}
	}
	ms := untypedInput.FindAllStringSubmatch(def, -1)
	trainable, _ := c.trainableInputs()
	if len(ms) == 0 && len(trainable) == 0 {
		return c.Graph
	}
	guarded := map[string]guardedTensor{}
	if len(ms) > 0 {
		for _, g := range c.ProducerGuards() {
			if m := tensorMatch.FindStringSubmatch(g.Text); m != nil {
				guarded[squash(m[1])] = guardedTensor{dtype: shortDType[m[2]], grad: m[3] == "True"}
			}
		}
	}
	var b strings.Builder
	for _, m := range ms {
		name := m[1]
		size, ok := c.Sizes[strings.ToLower(name)]
		if !ok {
			continue // graphtext then names the input that has no shape
		}
		gt := guarded[squash(name)]
		dtype := gt.dtype
		if dtype == "" {
			// No guard gave the dtype; Dynamo's default dtype is float32.
			dtype = "f32"
		}
		dims := make([]string, len(size))
		for i, d := range size {
			switch v := d.(type) {
			case float64:
				dims[i] = fmt.Sprint(int64(v))
			case string:
				dims[i] = v // a symbol (s0): graphtext gives it a hint
			default:
				dims[i] = "?"
			}
		}
		fmt.Fprintf(&b, "# gcdbg: input %s %s[%s]\n", name, dtype, strings.Join(dims, ", "))
	}
	for _, p := range forwardParams(c.Graph) {
		if trainable[p] && identifier.MatchString(p) {
			fmt.Fprintf(&b, "# gcdbg: requires_grad %s\n", p)
		}
	}
	return b.String() + c.Graph
}

// identifier is a name a directive may carry.
var identifier = regexp.MustCompile(`^[A-Za-z_]\w*$`)

// squash reduces a Dynamo source (L['x']) and the placeholder Dynamo names
// after it (L_x_) to the same key: lower-case letters and digits only.
func squash(s string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// maxLogElements bounds the random input elements one log's graphs may
// need together (graphtext bounds each graph alone): a log of a large
// model, or a damaged one, must not make gcdbg allocate without limit.
// A var so the fuzz target can lower it.
var maxLogElements = int64(1) << 28

// annotated reads a dtype-and-shape annotation: "f32[1, 320, 128, 128]...".
var annotated = regexp.MustCompile(`"[a-z]+\d*\[([^\]]*)\]`)

// directiveShape reads the shape of a `# gcdbg: input x f32[4, 4]` line.
var directiveShape = regexp.MustCompile(`(?m)^# gcdbg: input \S+ [a-z]+\d*\[([^\]]*)\]`)

// inputElements estimates the elements of the graph's inputs from the
// forward signature's annotations and `# gcdbg: input` lines (symbols count as 1: graphtext gives
// them small hints). ok is false when a size does not fit an int64.
func inputElements(graph string) (n int64, ok bool) {
	def := graph
	if i := strings.Index(def, "def forward("); i >= 0 {
		def = def[i:]
	}
	if j := strings.Index(def, "):"); j >= 0 {
		def = def[:j]
	}
	ms := annotated.FindAllStringSubmatch(def, -1)
	ms = append(ms, directiveShape.FindAllStringSubmatch(graph, -1)...)
	for _, m := range ms {
		numel := int64(1)
		for _, d := range strings.Split(m[1], ",") {
			var v int64
			if _, err := fmt.Sscan(strings.TrimSpace(d), &v); err != nil || v <= 0 {
				continue
			}
			if numel > (1<<62)/v {
				return 0, false
			}
			numel *= v
		}
		n += numel
		if n > 1<<62 {
			return 0, false
		}
	}
	return n, true
}
