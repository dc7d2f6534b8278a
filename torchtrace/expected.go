package torchtrace

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"

	"gcdbg/ir"
	"gcdbg/tensor"
	"gcdbg/trace"
)

// A TORCH_TRACE log holds no tensors, so by itself gcdbg can compare its
// pipeline only with its own eager interpreter. PyTorch's numbers for a
// compile [F/C] of LOG.log can be put beside it in
// LOG-F_C.expected.safetensors (torchtrace/testdata/pt2/gen_train_logs.py
// writes one), holding
//
//	outputs/I       the graph's I-th output
//	grad_outputs/I  the gradient that flowed into output I (default: ones)
//	grads/NAME      the gradient of the input NAME (a trainable placeholder)
//
// They become the graph's Expected, which the runner compares with
// ("vs PyTorch"). They only make sense for the inputs PyTorch ran on, so
// the graph's inputs must come from the LOG-F_C.safetensors sidecar.

// maxExpectedBytes bounds the sidecar a log may bring along.
const maxExpectedBytes = 1 << 30

// expectedFor reads the expected sidecar of compile c, if there is one,
// and checks it against graph g. (nil, nil) when there is none.
func expectedFor(g *ir.Graph, c *Compile, logName, dir string) (*ir.Expected, error) {
	file := logName + "-" + c.fileID() + ".expected.safetensors"
	if dir == "" {
		dir = "."
	}
	p := filepath.Join(dir, file)
	st, err := os.Lstat(p)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	fail := func(format string, args ...any) error {
		return fmt.Errorf("%s: %s: %s", c.ID, file, fmt.Sprintf(format, args...))
	}
	if err != nil {
		return nil, fail("%v", err)
	}
	if !st.Mode().IsRegular() {
		return nil, fail("not a regular file")
	}
	if st.Size() > maxExpectedBytes {
		return nil, fail("%d bytes, more than the %d an expected sidecar may hold", st.Size(), maxExpectedBytes)
	}
	if _, err := os.Lstat(filepath.Join(dir, logName+"-"+c.fileID()+".safetensors")); err != nil {
		return nil, fail("PyTorch's values need PyTorch's inputs: %s-%s.safetensors is missing", logName, c.fileID())
	}
	data, err := os.ReadFile(p)
	if err != nil {
		return nil, fail("%v", err)
	}
	ts, err := trace.ParseSafetensors(data)
	if err != nil {
		return nil, fail("%v", err)
	}
	outs := g.Outputs()
	inputs := map[string]*ir.Node{}
	for _, n := range g.Placeholders() {
		inputs[n.Target] = n
	}
	e := &ir.Expected{Grads: map[string]*tensor.Tensor{}}
	keys := make([]string, 0, len(ts))
	for k := range ts {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	byIndex := func(kind, rest string, t *tensor.Tensor, dst *[]*tensor.Tensor) error {
		i, err := strconv.Atoi(rest)
		if err != nil || i < 0 || i >= len(outs) {
			return fail("tensor %q: the graph has %d outputs", kind+"/"+rest, len(outs))
		}
		if err := sameMeta(outs[i], t); err != nil {
			return fail("tensor %q: %v", kind+"/"+rest, err)
		}
		for len(*dst) <= i {
			*dst = append(*dst, nil)
		}
		(*dst)[i] = t
		return nil
	}
	for _, k := range keys {
		t := ts[k]
		kind, rest, _ := strings.Cut(k, "/")
		switch kind {
		case "outputs":
			if err := byIndex(kind, rest, t, &e.Outputs); err != nil {
				return nil, err
			}
		case "grad_outputs":
			if err := byIndex(kind, rest, t, &e.GradOutputs); err != nil {
				return nil, err
			}
		case "grads":
			n := inputs[rest]
			if n == nil {
				return nil, fail("tensor %q: the graph has no input %q", k, rest)
			}
			if err := sameMeta(n, t); err != nil {
				return nil, fail("tensor %q: %v", k, err)
			}
			e.Grads[rest] = t
			e.GradOrder = append(e.GradOrder, rest)
		default:
			return nil, fail("tensor %q: want outputs/I, grad_outputs/I or grads/NAME", k)
		}
	}
	if len(e.Outputs) != len(outs) || slices.Contains(e.Outputs, nil) {
		return nil, fail("holds %d of the graph's %d outputs", countNonNil(e.Outputs), len(outs))
	}
	if len(e.GradOutputs) > 0 && (len(e.GradOutputs) != len(outs) || slices.Contains(e.GradOutputs, nil)) {
		return nil, fail("holds grad_outputs for %d of the graph's %d outputs", countNonNil(e.GradOutputs), len(outs))
	}
	// The grads in the order of the graph's inputs, as a trace lists them.
	order := map[string]int{}
	for i, n := range g.Placeholders() {
		order[n.Target] = i
	}
	sort.Slice(e.GradOrder, func(a, b int) bool { return order[e.GradOrder[a]] < order[e.GradOrder[b]] })
	if len(e.Grads) == 0 {
		e.Grads, e.GradOrder = nil, nil
	}
	return e, nil
}

func countNonNil(ts []*tensor.Tensor) int {
	n := 0
	for _, t := range ts {
		if t != nil {
			n++
		}
	}
	return n
}

// sameMeta checks a tensor against the dtype and shape the graph gives a
// value (its annotation), so a sidecar for another graph is refused.
func sameMeta(a ir.Arg, t *tensor.Tensor) error {
	n, ok := a.(*ir.Node)
	if !ok || n.Meta.Tensor == nil {
		return fmt.Errorf("the graph's value is not a tensor")
	}
	m := n.Meta.Tensor
	if m.DType != t.DType || !slices.Equal(m.Shape.Sizes(), t.Shape) {
		return fmt.Errorf("is %s%v, the graph's %q is %s", t.DType.Short(), ir.ShapeOf(t.Shape), n.Name, m)
	}
	return nil
}
