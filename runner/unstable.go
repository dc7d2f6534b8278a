package runner

import (
	"fmt"
	"sort"
	"strings"

	"gcdbg/tensor"
	"gcdbg/verdict"
)

// PyTorch's reference that disagrees with itself (expected.unstable: the
// exporter ran the model twice from the same state, parameters, buffers
// and draws, and these values were not bitwise the same; PyTorch 1.13's
// GELU backward on a non-contiguous gradient reads uninitialised memory,
// examples/unseen2/repro/gelu_einsum_bwd.py). Such a value is no
// reference: it is not compared with PyTorch, and the graph says why
// instead of blaming gcdbg's semantics. gcdbg's result is still judged
// against its own float64 reference and its eager run.

// unstableKey is w's key in expected.unstable.
func (w what) unstableKey() string {
	switch w.kind {
	case "output":
		return fmt.Sprintf("outputs/%d", w.index)
	case "grad":
		return "grads/" + w.name
	case "buffer":
		return "buffers/" + w.name
	}
	return ""
}

// unstable reports whether PyTorch's value of w disagreed with itself.
func (r *references) unstable(w what) bool {
	return r.exp != nil && r.exp.Unstable[w.unstableKey()] != ""
}

// noteUnstable adds to gr's NotComparedWithPyTorch the values PyTorch's
// reference did not reproduce.
func noteUnstable(r *references, gr *GraphResult) {
	if r.exp == nil || len(r.exp.Unstable) == 0 {
		return
	}
	keys := make([]string, 0, len(r.exp.Unstable))
	for k := range r.exp.Unstable {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var parts []string
	for _, k := range keys {
		what, name, _ := strings.Cut(k, "/")
		label := map[string]string{"outputs": "output ", "grads": "grad of ", "buffers": "buffer "}[what] + name
		parts = append(parts, label+" ("+r.exp.Unstable[k]+")")
	}
	note := "PyTorch's reference disagrees with itself: two identical PyTorch runs (same inputs, parameters, buffers and random draws) gave different values for " +
		strings.Join(parts, ", ") + "; the recorded value is one of several, so these are not compared with PyTorch (gcdbg's are judged against its own float64 reference and eager run)"
	// A value of the same backward can hold the same garbage in both runs
	// (stale memory that happened to repeat): a mismatch against PyTorch
	// in this graph says so first.
	suspect := "PyTorch's reference disagrees with itself elsewhere in this graph (" + strings.Join(keys, ", ") +
		"), and bad values can reach this one unchanged between runs: suspect PyTorch's value first; "
	gr.Judgements(func(_, against string, j *verdict.Judgement) {
		if against == "vs PyTorch" && !j.Match && !strings.HasPrefix(j.Why, suspect) {
			j.Why = suspect + j.Why
		}
	})
	switch {
	case strings.Contains(gr.NotComparedWithPyTorch, note): // judged again (a second backend)
		return
	case gr.NotComparedWithPyTorch != "":
		note = gr.NotComparedWithPyTorch + "; " + note
	}
	gr.NotComparedWithPyTorch = note
}

// noGradZero is PyTorch's gradient of a target it gave none (None, listed
// in expected.no_grad): zero, in the shape and dtype of gcdbg's eager
// gradient (nil when that run has none).
func (r *references) noGradZero(w what) *tensor.Tensor {
	n := w.pick(r.native)
	if n == nil {
		return nil
	}
	return tensor.New(n.DType, n.Shape...)
}
