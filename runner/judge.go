package runner

import (
	"fmt"
	"strings"

	"gcdbg/interp"
	"gcdbg/ir"
	"gcdbg/stages"
	"gcdbg/tensor"
	"gcdbg/verdict"
)

// references are the runs of gcdbg's eager reference one graph's verdicts
// need: in the graph's own dtype (vs_eager's values), in float64 (F) and in
// float64 with simulated float32 rounding (the baseline's noise).
type references struct {
	native, f64, noise *stages.RefRun
	// flipped is F with the comparisons decided by rounding decided the
	// other way (flips.go), run when a value first needs it; nil if none.
	flipped *flippedRef
	// nativeFlips are the elements the eager run in the graph's dtype
	// decided the other way from F; their effect is taken out of that
	// baseline (judge). nil where none is ambiguous.
	nativeFlips *decidedFlips
	// f64Err says why there is no float64 reference.
	f64Err error
	exp    *ir.Expected
	// initial holds each mutated buffer's value before the run: PyTorch's
	// value of a buffer it recorded no update for.
	initial map[string]*tensor.Tensor
	// returned maps a mutated buffer the graph also returns to that
	// output's index (returnedBuffers).
	returned map[string]int
}

func newReferences(u *stages.Unit) (*references, error) {
	return newReferencesSaying(u, func(string) func() { return func() {} })
}

// newReferencesSaying is newReferences that calls running(what) as each
// run starts and the function it returns as the run ends (runGraph's
// progress notices name the run going on).
func newReferencesSaying(u *stages.Unit, running func(what string) func()) (*references, error) {
	run := func(what string, opt interp.Options, keep map[*ir.Node]bool) (*stages.RefRun, error) {
		defer running(what)()
		return u.RunReferenceValues(opt, keep)
	}
	// The native run keeps the node values ties.go reads (Env), the
	// float64 runs their outputs, grads and buffers; each drops the rest
	// as it goes.
	// Every run also keeps the values the joint graph's comparisons decide
	// on (flips.go): the eager run's show how it decided them.
	var sites []flipSite
	if u.Joint != nil {
		sites = flipSites(u.Joint.Graph)
	}
	nativeOpt := interp.Options{Keep: flipKeep(sites), Kept: map[*ir.Node]ir.Value{}}
	native, err := run("reference runs: 1 of 3 (eager, the graph's own dtypes)", nativeOpt, tieInputs(u.Normalized))
	if err != nil {
		return nil, err
	}
	r := &references{native: native, exp: u.Captured.Expected, initial: map[string]*tensor.Tensor{}, returned: returnedBuffers(u)}
	for _, wb := range u.Writebacks() {
		if td := u.Normalized.Tensors[wb.Target]; td != nil && td.T != nil {
			r.initial[wb.Target] = td.T
		}
	}
	fOpt := interp.Options{Precision: interp.Float64, Keep: flipKeep(sites), Kept: map[*ir.Node]ir.Value{}}
	nOpt := interp.Options{Precision: interp.Float64Noise, Seed: interp.NoiseSeed, Keep: fOpt.Keep, Kept: map[*ir.Node]ir.Value{}}
	if r.f64, r.f64Err = run("reference runs: 2 of 3 (float64)", fOpt, nil); r.f64Err == nil {
		nOpt.Pin = pinDecisions(sites, fOpt.Kept)
		r.noise, _ = run("reference runs: 3 of 3 (float64 with simulated float32 rounding)", nOpt, nil)
		if r.noise != nil && len(sites) > 0 {
			r.flipped = newFlippedRef(u, fOpt.Kept, nOpt.Kept, sites, running)
			r.nativeFlips = r.flipped.decided(keptByName(nativeOpt.Kept), nil)
			if r.nativeFlips != nil {
				r.nativeFlips.from = "as gcdbg's eager run decided them: read from its values"
				r.nativeFlips.resolve() // and the kept values go
			}
		}
	}
	return r, nil
}

// what selects one compared value across the reference runs.
type what struct {
	kind  string // output, grad, buffer
	index int    // outputs and grads
	name  string // grads and buffers
}

func (w what) pick(rr *stages.RefRun) *tensor.Tensor {
	if rr == nil {
		return nil
	}
	var v ir.Value
	switch w.kind {
	case "output":
		if w.index < len(rr.Outputs) {
			v = rr.Outputs[w.index]
		}
	case "grad":
		if w.index < len(rr.Grads) {
			v = rr.Grads[w.index]
		}
	case "buffer":
		if t := rr.Buffers[w.name]; t != nil {
			return t
		}
	}
	if v == nil {
		return nil
	}
	t, err := interp.AsTensor(v)
	if err != nil {
		return nil
	}
	return t
}

// expected is PyTorch's value of w, nil when the trace has none.
func (r *references) expected(w what) *tensor.Tensor {
	if r.exp == nil || r.unstable(w) {
		return nil
	}
	switch w.kind {
	case "output":
		if w.index < len(r.exp.Outputs) {
			return r.exp.Outputs[w.index]
		}
	case "grad":
		if r.exp.Grads[w.name] == nil && r.exp.NoGrad[w.name] {
			return r.noGradZero(w)
		}
		return r.exp.Grads[w.name]
	case "buffer":
		if t := r.exp.Buffers[w.name]; t != nil {
			return t
		}
		if i, ok := r.returned[w.name]; ok && i < len(r.exp.Outputs) {
			return r.exp.Outputs[i] // the output is the buffer
		}
		if r.buffersRecorded() {
			// PyTorch recorded its buffer updates and this one is not
			// among them: PyTorch left it as it was.
			return r.initial[w.name]
		}
	}
	return nil
}

// buffersRecorded reports whether the trace records PyTorch's buffer
// updates (expected.buffers), even an empty set of them.
func (r *references) buffersRecorded() bool {
	return r.exp != nil && (r.exp.Buffers != nil || r.exp.BufferOrder != nil)
}

// judge gives got's two verdicts: against PyTorch's value (nil when the
// trace has none: no comparison is claimed) and against gcdbg's eager
// result; both under the one accuracy rule of package verdict.
func (r *references) judge(w what, got *tensor.Tensor) (vsExpected, vsEager *verdict.Judgement) {
	return r.judgeDecided(w, got, nil)
}

// judgeDecided is judge for a backend whose own decisions of the
// ambiguous comparisons were read from its saved tensors (dec, nil where
// none was): a gradient that fails is judged again with those flips, and
// searched for only at the comparisons it did not save.
func (r *references) judgeDecided(w what, got *tensor.Tensor, dec *decidedFlips) (vsExpected, vsEager *verdict.Judgement) {
	native, f64, noise, pt := w.pick(r.native), w.pick(r.f64), w.pick(r.noise), r.expected(w)
	note := ""
	if r.f64Err != nil {
		note = r.f64Err.Error()
	} else if f64 == nil {
		note = "the float64 run has no such value"
	}
	// gcdbg's eager float32 run flips such elements too, and its distance
	// from F was then that flip's effect, 10⁴× rounding: a MobileNetV2's
	// ReLU6 input at -7.4e-7 (examples/review9 finding 4) made nine
	// gradients' bounds that wide, and the compiled kernels, which flipped
	// the same element, matched without a word of it. Its flips are read
	// from its own values and taken out of its baseline.
	nativeBase, nativeName := native, ""
	if native != nil && f64 != nil && w.kind == "grad" && r.nativeFlips != nil {
		if e := r.nativeFlips.effect(w, f64); e != nil {
			nativeBase = withFlips(native, []flipEffect{*e}, []int{0}, -1)
			nativeName = fmt.Sprintf("gcdbg eager %s less the effect of its %d comparison element(s) within float32 rounding of their threshold decided the other way (%s)",
				native.DType, e.n, e.label)
		}
	}
	// PyTorch's float32 run decides comparisons by rounding too, and where
	// it flipped one, its distance from F is that flip's effect: as a
	// baseline it let a gradient 0.1% off match (examples/review7 finding
	// 1). Its flips are explained first, as secondChance explains R's,
	// where it sits far beyond gcdbg's float32 runs (the eager one less
	// its own flips).
	ptBase := pt
	ptName := ""
	if pt != nil && r.flipped != nil && f64 != nil && w.kind == "grad" {
		ptBase, ptName = r.flipped.explain(w, f64, pt, nativeBase, noise)
	}
	base := verdict.Baselines(ptBase, nativeBase, noise)
	if ptName != "" && len(base) > 0 {
		base[0].Name = ptName
	}
	if nativeName != "" {
		for i := range base {
			if base[i].T == nativeBase {
				base[i].Name = nativeName
			}
		}
	}
	judge := verdict.Judge
	if r.flipped != nil && f64 != nil && w.kind == "grad" {
		effs := func() []flipEffect { return r.flipped.effects(w, f64) }
		if dec != nil {
			effs = func() []flipEffect { return dec.effects(w, f64) }
		}
		judge = func(in verdict.Input) verdict.Judgement { return secondChance(in, effs) }
	}
	if pt != nil {
		var raw *tensor.Tensor
		if nativeName != "" {
			raw = native
		}
		j := judge(verdict.Input{Result: got, Against: pt, Ref64: f64, RefNote: note, Baselines: base,
			Independent: ptBase, Noise: noise, Raw: raw})
		vsExpected = &j
		if w.kind == "grad" && r.exp.Grads[w.name] == nil && r.exp.NoGrad[w.name] {
			if j.Match {
				// a zero that matches says why it is zero (examples/review9
				// finding 1: checkpointed blocks whose input needs no grad)
				j.Reference += "; PyTorch gives this no gradient (None: expected.no_grad), taken as zero"
			} else {
				j.Why = "PyTorch gives this no gradient (None: expected.no_grad; nothing from it reaches an output that needs grad, e.g. through torch.no_grad()), so its gradient is zero, and gcdbg's is not; " + j.Why
			}
		}
		if j.Check != nil && !j.Check.Agree {
			// PyTorch computes something else: its distance from F says
			// nothing about float32 rounding, so it is no baseline for
			// judging gcdbg against its own reference.
			base = base[1:]
		}
	}
	if native != nil {
		j := judge(verdict.Input{Result: got, Against: native, Ref64: f64, RefNote: note, Baselines: base})
		vsEager = &j
	}
	if dec != nil && dec.probeErr != nil {
		for _, j := range []*verdict.Judgement{vsExpected, vsEager} {
			if j != nil && !j.Match {
				j.Why += fmt.Sprintf("; how this run decided the comparisons its backward recomputes could not be read (%v), so only the %d nearest their threshold were tried", dec.probeErr, flipMost)
			}
		}
	}
	if native == nil {
		vsEager = &verdict.Judgement{Why: fmt.Sprintf("gcdbg's eager run has no %s %s", w.kind, w.label())}
	}
	return vsExpected, vsEager
}

func (w what) label() string {
	if w.name != "" {
		return w.name
	}
	return fmt.Sprint(w.index)
}

// judgeGraph fills gr's outputs, grads and buffers with the verdicts on
// the values a backend computed: outs (every output of the program that
// computes the user's outputs, write-backs included) and grads; saved
// are its forward's saved tensors by name (nil: none), where its own
// decisions of the comparisons within rounding are read, and probe
// (nil: none) reads those the saved tensors do not show (flips.go).
func judgeGraph(u *stages.Unit, r *references, gr *GraphResult, outs, grads []ir.Value, saved map[string]*tensor.Tensor, probe func(names []string) (map[string]*tensor.Tensor, error)) error {
	if err := judgeValues(u, r, gr, outs, grads, r.flipped.decided(saved, probe)); err != nil {
		return err
	}
	defer noteUnstable(r, gr)
	if own := u.OwnRandom(); len(own) > 0 && r.exp != nil {
		// gcdbg drew its own random numbers: PyTorch's values came from
		// other draws, so no elementwise comparison is claimed.
		gr.NotComparedWithPyTorch = fmt.Sprintf("random node(s) %s drew gcdbg's own numbers (the trace records no PyTorch draws in expected.random): the comparison with PyTorch is not elementwise, so none is made; re-export with the exporter to record PyTorch's draws",
			strings.Join(own, ", "))
		for i := range gr.Outputs {
			gr.Outputs[i].VsExpected = nil
		}
		for i := range gr.Grads {
			gr.Grads[i].VsExpected = nil
		}
		for i := range gr.Buffers {
			gr.Buffers[i].VsExpected = nil
		}
	}
	return nil
}

func judgeValues(u *stages.Unit, r *references, gr *GraphResult, outs, grads []ir.Value, dec *decidedFlips) error {
	nUser := u.UserOutputs()
	if len(outs) < nUser {
		return fmt.Errorf("the backend returned %d outputs, the user's graph %d", len(outs), nUser)
	}
	if r.exp != nil && len(r.exp.Outputs) != nUser {
		return fmt.Errorf("expected.outputs: the trace lists %d outputs, the graph returns %d", len(r.exp.Outputs), nUser)
	}
	gr.Outputs = gr.Outputs[:0]
	for i := 0; i < nUser; i++ {
		got, err := interp.AsTensor(outs[i])
		if err != nil {
			return fmt.Errorf("output %d: %w", i, err)
		}
		or := OutputResult{Index: i, DType: got.DType.String(), Shape: got.Shape}
		w := what{kind: "output", index: i}
		or.VsExpected, or.VsEager = r.judge(w, got)
		if !got.DType.IsFloat() && r.native != nil {
			if ts := tieSourceOf(u, r.native.Env, i); ts != nil {
				relaxTies(or.VsExpected, ts, got, r.expected(w))
				relaxTies(or.VsEager, ts, got, w.pick(r.native))
			}
		}
		gr.Outputs = append(gr.Outputs, or)
	}
	gr.Buffers = gr.Buffers[:0]
	for _, wb := range u.Writebacks() {
		b := BufferResult{Name: wb.Target}
		if wb.Output < len(outs) {
			if got, err := interp.AsTensor(outs[wb.Output]); err == nil {
				b.VsExpected, b.VsEager = r.judge(what{kind: "buffer", name: wb.Target}, got)
				r.relaxBufferTies(u, &b, got)
				_, returned := r.returned[wb.Target]
				if j := b.VsExpected; j != nil && !j.Match && r.exp.Buffers[wb.Target] == nil && !returned {
					j.Why = "PyTorch left this buffer unchanged (expected.buffers has no update of it), gcdbg's graph writes it; " + j.Why
				}
			}
		}
		if b.VsEager == nil {
			b.VsEager = &verdict.Judgement{Why: fmt.Sprintf("the backend returned no value for buffer %s", wb.Target)}
		}
		gr.Buffers = append(gr.Buffers, b)
	}
	if r.exp != nil {
		for _, name := range r.exp.BufferOrder {
			if !hasBuffer(gr.Buffers, name) {
				gr.Buffers = append(gr.Buffers, BufferResult{Name: name, VsExpected: &verdict.Judgement{
					Why: "PyTorch updated this buffer, gcdbg's graph does not write it"}})
			}
		}
	}
	gr.Grads = gr.Grads[:0]
	if u.Joint == nil {
		return nil
	}
	for i, target := range u.Joint.GradTargets {
		g := GradResult{Name: target}
		if i >= len(grads) || grads[i] == nil {
			g.VsEager = &verdict.Judgement{Why: "the backend returned no gradient"}
		} else if got, err := interp.AsTensor(grads[i]); err != nil {
			return fmt.Errorf("grad of %s: %w", target, err)
		} else {
			g.VsExpected, g.VsEager = r.judgeDecided(what{kind: "grad", index: i, name: target}, got, dec)
		}
		gr.Grads = append(gr.Grads, g)
	}
	return nil
}

func hasBuffer(bs []BufferResult, name string) bool {
	for _, b := range bs {
		if b.Name == name {
			return true
		}
	}
	return false
}

func tensorsToValues(ts []*tensor.Tensor) []ir.Value {
	vs := make([]ir.Value, len(ts))
	for i, t := range ts {
		if t != nil {
			vs[i] = t
		}
	}
	return vs
}

// Judgements calls fn for every comparison made in g, in order: outputs,
// grads, buffers, each vs PyTorch (when compared) then vs eager. what is
// "output 0", "grad of fc.weight" or "buffer bn.running_mean"; against is
// "vs PyTorch" or "vs eager". Every view that lists or counts verdicts
// walks them through here.
func (g *GraphResult) Judgements(fn func(what, against string, j *verdict.Judgement)) {
	each := func(what string, vsExpected, vsEager *verdict.Judgement) {
		if vsExpected != nil {
			fn(what, "vs PyTorch", vsExpected)
		}
		if vsEager != nil {
			fn(what, "vs eager", vsEager)
		}
	}
	for _, o := range g.Outputs {
		each(fmt.Sprintf("output %d", o.Index), o.VsExpected, o.VsEager)
	}
	for _, gd := range g.Grads {
		each("grad of "+gd.Name, gd.VsExpected, gd.VsEager)
	}
	for _, b := range g.Buffers {
		each("buffer "+b.Name, b.VsExpected, b.VsEager)
	}
}

// Summary is the run's verdict in a few words for one-line views (watch
// mode): "values match" or "MISMATCH: g0 grad of fc.weight vs PyTorch ✗
// rmse 3.1e-03 > 6.8e-07" (the first failing comparison, and how many fail).
func (res *Result) Summary() string {
	if res.OK {
		return "values match"
	}
	first, n := "", 0
	for i := range res.Graphs {
		g := &res.Graphs[i]
		g.Judgements(func(what, against string, j *verdict.Judgement) {
			if j.Match {
				return
			}
			n++
			if first == "" {
				first = fmt.Sprintf("%s %s %s %s", g.Name, what, against, j.Short())
			}
		})
	}
	if n > 1 {
		return fmt.Sprintf("MISMATCH: %s (and %d more)", first, n-1)
	}
	return "MISMATCH: " + first
}

// Coverage says what the run compared: how many outputs, grads and
// buffers against PyTorch's values, and that all were judged against
// gcdbg's float64 reference. Views end with it so that no comparison is
// claimed that did not happen.
func (res *Result) Coverage() string {
	type count struct{ pt, all int }
	var o, g, b count
	for _, gr := range res.Graphs {
		for _, x := range gr.Outputs {
			o.all++
			if x.VsExpected != nil {
				o.pt++
			}
		}
		for _, x := range gr.Grads {
			g.all++
			if x.VsExpected != nil {
				g.pt++
			}
		}
		for _, x := range gr.Buffers {
			b.all++
			if x.VsExpected != nil {
				b.pt++
			}
		}
	}
	part := func(c count, what string) string {
		if c.all == 0 {
			return ""
		}
		return fmt.Sprintf("%d/%d %s", c.pt, c.all, what)
	}
	var parts []string
	for _, p := range []string{part(o, "outputs"), part(g, "grads"), part(b, "buffers")} {
		if p != "" {
			parts = append(parts, p)
		}
	}
	if len(parts) == 0 {
		return "nothing to compare"
	}
	return "compared with PyTorch: " + strings.Join(parts, ", ") + "; every value against gcdbg's float64 reference"
}

// matches is a comparison's verdict; nil (not compared) is no mismatch.
func matches(c *verdict.Judgement) bool { return c == nil || c.Match }
