package render

import (
	"fmt"
	"regexp"
	"strings"
)

// Kernels with the same code share one C function. An unrolled recurrence
// (an LSTM or GRU cell per time step, a decoder loop) renders the same
// kernel once per step, differing only in the buffers it is passed and its
// index into the choices table: a GRU seq2seq's two programs had 623
// kernels, 24,202 lines of C in `gcdbg dump --stage kernels`, of which 259
// functions and 13,660 lines remain once repeats share (docs/performance.md;
// examples/review4/seq2seq_attn). gcc's time goes with the lines, so the
// later copies are not written: their call sites call the first one with
// their own buffers, and, where the code reads a choice by measurement,
// their own index into the choices table as an argument (gcdbg_ci). Each
// call site keeps its index, its entry in kernel_seconds and its manifest
// entry (the kernels stage shows the shared function's lines).
//
// Two kernels are the same when their text is, after the function's name,
// its parameters (by position) and its choice index are abstracted and the
// comments dropped. A kernel holding function-local state ("static ": a
// oneDNN primitive of its call site) is never shared.

// sharedChoiceVar is the parameter a shared kernel reads its choice by.
const sharedChoiceVar = "gcdbg_ci"

var (
	choiceIndex = regexp.MustCompile(`gcdbg_choices\[\d+\]`)
)

// shareKernels finds the C dialect's repeated kernels among bodies (one
// per kernel, "" for fallbacks): it sets each repeat's g.fn to the first
// one's name and empties its body, and rewrites a first kernel whose
// repeats read choices to take its choice index as gcdbg_ci.
func (r *renderer) shareKernels(bodies []string) {
	first := map[string]int{}
	for ki, b := range bodies {
		g := r.gens[ki]
		if b == "" || g == nil || hasLocalState(b) {
			continue
		}
		key := g.shareKey(b)
		f, ok := first[key]
		if !ok {
			first[key] = ki
			continue
		}
		fg := r.gens[f]
		fg.sharedBy = append(fg.sharedBy, ki)
		g.fn, g.from = fg.name, f
		bodies[ki] = ""
	}
	for ki, b := range bodies {
		g := r.gens[ki]
		if b == "" || g == nil || len(g.sharedBy) == 0 {
			continue
		}
		var names []string
		for _, s := range g.sharedBy {
			names = append(names, r.gens[s].name)
		}
		list := strings.Join(names, ", ")
		if len(names) > 4 {
			list = strings.Join(names[:4], ", ") + fmt.Sprintf(" and %d more", len(names)-4)
		}
		note := fmt.Sprintf("/* also called for %d later kernels with their own buffers (the same code): %s */\n",
			len(names), Comment(list))
		if !choiceIndex.MatchString(b) {
			bodies[ki] = note + b
			continue
		}
		// The first kernel reads the choice of the call site it is called for.
		g.ci = true
		for _, s := range g.sharedBy {
			r.gens[s].ci = true
		}
		head := fmt.Sprintf("%s %s(%s) {\n", r.d.KernelPrefix, g.name, strings.Join(g.signature(), ", "))
		withCI := fmt.Sprintf("%s %s(%s) {\n", r.d.KernelPrefix, g.name, strings.Join(append(g.signature(), "const int32_t "+sharedChoiceVar), ", "))
		b = strings.Replace(b, head, withCI, 1)
		b = strings.Replace(b, fmt.Sprintf("gcdbg_choices[%d]", ki), "gcdbg_choices["+sharedChoiceVar+"]", 1)
		bodies[ki] = note + b
	}
}

// shareKey is body with the function's name, its parameters and its choice
// index abstracted and the comments dropped.
func (g *kernelGen) shareKey(body string) string {
	body = dropComments(body)
	body = strings.Replace(body, " "+g.name+"(", " K(", 1)
	body = choiceIndex.ReplaceAllString(body, "gcdbg_choices[CI]")
	pos := make(map[string]int, len(g.params))
	for i, p := range g.params {
		if _, ok := pos[g.r.store[p].c]; !ok {
			pos[g.r.store[p].c] = i
		}
	}
	if len(pos) == 0 {
		return body
	}
	// One scan over the body's words: a regexp of the parameters per kernel
	// and the comments' regexps took shareKernels 0.94 s on crnn_ctc's 2,557
	// kernels (gcdbg dump --stage kernels), these scans 0.10 s.
	var b strings.Builder
	b.Grow(len(body))
	for i := 0; i < len(body); {
		if !isWordByte(body[i]) {
			b.WriteByte(body[i])
			i++
			continue
		}
		j := i
		for j < len(body) && isWordByte(body[j]) {
			j++
		}
		if p, ok := pos[body[i:j]]; ok {
			fmt.Fprintf(&b, "P%d", p)
		} else {
			b.WriteString(body[i:j])
		}
		i = j
	}
	return b.String()
}

// isWordByte is regexp's \b word class: [0-9A-Za-z_].
func isWordByte(c byte) bool {
	return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// dropComments is body without its /* */ comments, then without its //
// comments (to the line's end).
func dropComments(body string) string {
	var b strings.Builder
	b.Grow(len(body))
	for {
		i := strings.Index(body, "/*")
		if i < 0 {
			break
		}
		j := strings.Index(body[i+2:], "*/")
		if j < 0 {
			break
		}
		b.WriteString(body[:i])
		body = body[i+2+j+2:]
	}
	b.WriteString(body)
	body, b = b.String(), strings.Builder{}
	for {
		i := strings.Index(body, "//")
		if i < 0 {
			break
		}
		b.WriteString(body[:i])
		j := strings.IndexByte(body[i:], '\n')
		if j < 0 {
			body = ""
			break
		}
		body = body[i+j:]
	}
	b.WriteString(body)
	return b.String()
}

// hasLocalState says whether a kernel's body (past its signature) declares
// a function-local static: state of its own call site.
func hasLocalState(body string) bool {
	if i := strings.Index(body, ") {\n"); i >= 0 {
		body = body[i:]
	}
	return strings.Contains(body, "static ")
}
