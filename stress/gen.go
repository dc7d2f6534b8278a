// Package stress generates valid graphs of any size (graph text, the form
// graphtext reads) for the scale benchmarks and the random stress test:
// long chains, wide fan-out, an N-layer transformer, and random graphs of
// the ops whose semantics gcdbg's eager interpreter and compiled code share.
package stress

import (
	"fmt"
	"math/rand/v2"
	"strings"

	"gcdbg/graphtext"
	"gcdbg/trace"
)

// Chain is n pointwise ops in a line: sin(sin(...sin(x))) on f32[width].
func Chain(n, width int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "def forward(self, x: \"f32[%d]\"):\n", width)
	prev := "x"
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "    y%d = torch.sin(%s)\n", i, prev)
		prev = fmt.Sprintf("y%d", i)
	}
	fmt.Fprintf(&b, "    return (%s,)\n", prev)
	return b.String()
}

// FanOut is one input read by n/2 ops whose results are summed in a line:
// n nodes, every second one a sibling of the others.
func FanOut(n, width int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "def forward(self, x: \"f32[%d]\"):\n", width)
	acc := ""
	ops := []string{"sin", "cos", "exp", "tanh", "sigmoid", "abs"}
	for i := 0; i < n/2; i++ {
		fmt.Fprintf(&b, "    b%d = torch.%s(x)\n", i, ops[i%len(ops)])
		if acc == "" {
			acc = fmt.Sprintf("b%d", i)
			continue
		}
		fmt.Fprintf(&b, "    a%d = %s + b%d\n", i, acc, i)
		acc = fmt.Sprintf("a%d", i)
	}
	if acc == "" {
		acc = "x"
	}
	fmt.Fprintf(&b, "    return (%s,)\n", acc)
	return b.String()
}

// Transformer is a pre-norm decoder of `layers` blocks (layer norm,
// single-head attention with a softmax, a GELU MLP, residuals) on a
// [seq, dim] input, with parameters that require grad: the joint graph,
// partition and backward stages run too.
func Transformer(layers, seq, dim int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "def forward(self, x: \"f32[%d, %d]\"):\n", seq, dim)
	h := "x"
	for l := 0; l < layers; l++ {
		p := func(name string, shape string) string {
			v := fmt.Sprintf("p%d_%s", l, name)
			fmt.Fprintf(&b, "    %s: \"f32[%s]\" = self.l%d_%s\n", v, shape, l, name)
			return v
		}
		w1, b1 := p("ln1_w", fmt.Sprint(dim)), p("ln1_b", fmt.Sprint(dim))
		fmt.Fprintf(&b, "    n%d = torch.nn.functional.layer_norm(%s, (%d,), %s, %s)\n", l, h, dim, w1, b1)
		for _, q := range []string{"q", "k", "v"} {
			w := p("w"+q, fmt.Sprintf("%d, %d", dim, dim))
			fmt.Fprintf(&b, "    %s%d = torch.nn.functional.linear(n%d, %s)\n", q, l, l, w)
		}
		fmt.Fprintf(&b, "    s%d = torch.matmul(q%d, k%d.transpose(0, 1)) * %g\n", l, l, l, 1/float64(dim))
		fmt.Fprintf(&b, "    a%d = torch.softmax(s%d, dim=-1)\n", l, l)
		fmt.Fprintf(&b, "    o%d = torch.matmul(a%d, v%d)\n", l, l, l)
		wo := p("wo", fmt.Sprintf("%d, %d", dim, dim))
		fmt.Fprintf(&b, "    r%d = %s + torch.nn.functional.linear(o%d, %s)\n", l, h, l, wo)
		w2, b2 := p("ln2_w", fmt.Sprint(dim)), p("ln2_b", fmt.Sprint(dim))
		fmt.Fprintf(&b, "    m%d = torch.nn.functional.layer_norm(r%d, (%d,), %s, %s)\n", l, l, dim, w2, b2)
		fc1, fb1 := p("fc1", fmt.Sprintf("%d, %d", 2*dim, dim)), p("fb1", fmt.Sprint(2*dim))
		fc2, fb2 := p("fc2", fmt.Sprintf("%d, %d", dim, 2*dim)), p("fb2", fmt.Sprint(dim))
		fmt.Fprintf(&b, "    g%d = torch.nn.functional.gelu(torch.nn.functional.linear(m%d, %s, %s))\n", l, l, fc1, fb1)
		fmt.Fprintf(&b, "    h%d = r%d + torch.nn.functional.linear(g%d, %s, %s)\n", l, l, l, fc2, fb2)
		h = fmt.Sprintf("h%d", l)
	}
	fmt.Fprintf(&b, "    return (%s.sum(),)\n", h)
	return b.String()
}

// Load parses generated graph text as a trace named name.
func Load(text, name string) (*trace.Trace, error) {
	return graphtext.Parse([]byte(text), "", name+".py")
}

// randomOps are the unary pointwise ops the random generator draws from:
// total on every finite input (no log of a negative number), so eager and
// compiled code must agree everywhere.
var randomOps = []string{"sin", "cos", "tanh", "sigmoid", "abs", "neg", "exp", "relu"}

// Random is a random valid graph of n ops: pointwise unary and binary ops
// (with broadcasting against a row input), reductions that keep their
// dimension, clamps, softmax, a matmul, where/maximum, a safe division and
// a final sum, on float32 inputs. The same seed
// gives the same graph.
func Random(seed uint64, n int) string {
	r := rand.New(rand.NewPCG(seed, 0x5eed))
	rows, cols := 1+r.IntN(16), 1+r.IntN(64)
	var b strings.Builder
	fmt.Fprintf(&b, "# gcdbg stress graph, seed %d\n", seed)
	fmt.Fprintf(&b, "def forward(self, x: \"f32[%d, %d]\", y: \"f32[%d, %d]\", w: \"f32[%d]\", m: \"f32[%d, %d]\"):\n", rows, cols, rows, cols, cols, cols, cols)
	// full are values of shape [rows, cols]; every op keeps that shape.
	full := []string{"x", "y"}
	pick := func() string { return full[r.IntN(len(full))] }
	for i := 0; i < n; i++ {
		v := fmt.Sprintf("v%d", i)
		switch k := r.IntN(14); {
		case k < 4:
			op := randomOps[r.IntN(len(randomOps))]
			a := pick()
			if op == "exp" { // keep values bounded: exp of a tanh
				fmt.Fprintf(&b, "    %s = torch.exp(torch.tanh(%s))\n", v, a)
			} else {
				fmt.Fprintf(&b, "    %s = torch.%s(%s)\n", v, op, a)
			}
		case k < 7:
			ops := []string{"+", "-", "*"}
			fmt.Fprintf(&b, "    %s = %s %s %s\n", v, pick(), ops[r.IntN(len(ops))], pick())
		case k < 8:
			fmt.Fprintf(&b, "    %s = %s * w + %g\n", v, pick(), float64(r.IntN(7)-3)/2)
		case k < 9:
			red := []string{"sum", "amax", "mean"}[r.IntN(3)]
			fmt.Fprintf(&b, "    %s = %s - torch.%s(%s, dim=-1, keepdim=True)\n", v, pick(), red, pick())
		case k < 10:
			fmt.Fprintf(&b, "    %s = torch.clamp(%s, min=%g, max=%g)\n", v, pick(), -1-float64(r.IntN(3)), 1+float64(r.IntN(3)))
		case k < 11:
			fmt.Fprintf(&b, "    %s = torch.softmax(%s, dim=-1)\n", v, pick())
		case k < 12:
			fmt.Fprintf(&b, "    %s = torch.matmul(%s, m) * %g\n", v, pick(), 1/float64(cols))
		case k < 13:
			a, c := pick(), pick()
			fmt.Fprintf(&b, "    %s = torch.where(%s > %s, %s, torch.maximum(%s, %s * 0.5))\n", v, a, c, a, c, a)
		default:
			fmt.Fprintf(&b, "    %s = %s / (1.0 + torch.abs(%s))\n", v, pick(), pick())
		}
		full = append(full, v)
		// Values can grow through products: squash every few ops.
		if i%4 == 3 {
			fmt.Fprintf(&b, "    %s_t = torch.tanh(%s)\n", v, v)
			full[len(full)-1] = v + "_t"
		}
	}
	outs := []string{full[len(full)-1]}
	if len(full) > 3 {
		outs = append(outs, full[len(full)/2]+".sum()")
	}
	fmt.Fprintf(&b, "    return (%s,)\n", strings.Join(outs, ", "))
	return b.String()
}
