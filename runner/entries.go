package runner

import (
	"fmt"

	"gcdbg/compiler"
	"gcdbg/dynamo"
	"gcdbg/interp"
	"gcdbg/ir"
	"gcdbg/stages"
	"gcdbg/tensor"
	"gcdbg/verdict"
)

// `run --input` with --device cpu runs each call on the compiled programs
// of the cache entry that served it, as torch.compile runs the cached
// artifact: an entry's programs are built once, at its first call, and
// every later call of the entry reuses the same shared objects. A dynamic
// entry's kernels take its symbols as arguments (ks0), so one build
// serves every size along the dynamic dimension.

// CompiledCall is what the compiled programs computed for one call.
type CompiledCall struct {
	// Builds is how many programs were built for this call (0: the
	// entry's programs were built before and are reused).
	Builds int `json:"builds"`
	// Symbols are the size symbols' values the programs ran with (ks0: 4).
	Symbols map[string]int64 `json:"symbols"`
	// Outputs compare with the eager interpreter at this call's inputs;
	// Grads (training graphs: the gradients of sum(out*ones)) with the
	// joint graph of a compile at these sizes under the interpreter.
	Outputs []verdict.Judgement `json:"outputs"`
	Grads   []verdict.Judgement `json:"grads,omitempty"`
}

// entryBuilds holds the built programs of each cache entry.
type entryBuilds struct {
	progs  map[*dynamo.Entry][]*Program
	builds map[*dynamo.Entry]int
	opt    Options // the run's: its Progress gets the compiler's notices
}

func newEntryBuilds(opt Options) *entryBuilds {
	return &entryBuilds{progs: map[*dynamo.Entry][]*Program{}, builds: map[*dynamo.Entry]int{}, opt: opt}
}

// programs builds e's programs the first time and returns them.
func (eb *entryBuilds) programs(e *dynamo.Entry) ([]*Program, int, error) {
	if ps, ok := eb.progs[e]; ok {
		return ps, 0, nil
	}
	if BuildProgram == nil {
		return nil, 0, fmt.Errorf("--device cpu: the C renderer is not part of this build (use --device eager)")
	}
	u := e.Unit()
	if len(u.Programs) == 0 {
		return nil, 0, fmt.Errorf("entry %s: no compiled program (the loop stages did not run)", e.ID)
	}
	var ps []*Program
	for _, lp := range u.Programs {
		p, err := BuildProgram(u.Trace, u, lp, eb.opt)
		if err != nil {
			return nil, 0, fmt.Errorf("entry %s (%s): %w", e.ID, lp.Role, err)
		}
		ps = append(ps, p)
	}
	eb.progs[e] = ps
	eb.builds[e] += len(ps)
	return ps, len(ps), nil
}

// runCompiled runs call's entry on frame f through its built programs and
// compares with the eager references.
func (eb *entryBuilds) runCompiled(call *dynamo.Call, f dynamo.Frame) (*CompiledCall, error) {
	e := call.Entry
	ps, built, err := eb.programs(e)
	if err != nil {
		return nil, err
	}
	u := e.Unit()
	cc := &CompiledCall{Builds: built, Symbols: map[string]int64{}}
	// results.Saved: the forward's saved tensors and the tangents, by target.
	results := stages.NewResults[*tensor.Tensor]()
	for i, lp := range u.Programs {
		p := ps[i]
		in, err := frameInputs(p.Manifest, lp.Graph, f, results.Saved)
		if err != nil {
			return nil, fmt.Errorf("entry %s (%s): %w", e.ID, lp.Role, err)
		}
		res, err := compiler.Exec(p.Library, p.Manifest, in, compiler.ExecOptions{})
		if err != nil {
			return nil, fmt.Errorf("entry %s (%s): %w", e.ID, lp.Role, err)
		}
		if err := symbolValues(p.Manifest, in, cc.Symbols); err != nil {
			return nil, fmt.Errorf("entry %s (%s): %w", e.ID, lp.Role, err)
		}
		if err := results.Add(u, lp.Role, res.Outputs); err != nil {
			return nil, fmt.Errorf("entry %s: %w", e.ID, err)
		}
		if lp.Role == stages.RoleForward {
			for k, v := range onesTangents(u, results.Outputs) {
				results.Saved[k] = v
			}
		}
	}
	outs, grads := results.Outputs, results.Grads
	refs, err := interp.RunRefs(u.Normalized, frameOverride(f))
	if err != nil {
		return nil, fmt.Errorf("entry %s: eager reference: %w", e.ID, err)
	}
	for i := range call.Outputs {
		if i >= len(outs) || outs[i] == nil {
			cc.Outputs = append(cc.Outputs, verdict.Judgement{Why: fmt.Sprintf("output %d: no tensor to compare", i)})
			continue
		}
		cc.Outputs = append(cc.Outputs, refs.Judge(i, outs[i]))
	}
	if grads != nil {
		if cc.Grads, err = compareGrads(call, f, outs, grads); err != nil {
			return nil, fmt.Errorf("entry %s: %w", e.ID, err)
		}
	}
	return cc, nil
}

// frameInputs is programInputs reading the call's frame: a saved tensor
// (or tangent) first, then the frame's value, then the graph's own.
func frameInputs(m *compiler.Manifest, g *ir.Graph, f dynamo.Frame, saved map[string]*tensor.Tensor) (map[string]*tensor.Tensor, error) {
	in := map[string]*tensor.Tensor{}
	for _, b := range m.Buffers {
		if b.Kind != "input" && b.Kind != "constant" {
			continue
		}
		key := b.Target
		if key == "" {
			key = b.Name
		}
		switch {
		case saved[key] != nil:
			in[key] = saved[key]
		case f[key].T != nil:
			in[key] = f[key].T.T
		case g.Tensors[key] != nil && g.Tensors[key].T != nil:
			in[key] = g.Tensors[key].T
		default:
			return nil, fmt.Errorf("buffer %q: no tensor %q in the call, the saved values or the graph", b.Name, key)
		}
	}
	return in, nil
}

// symbolValues records what each symbol of the program is at these inputs
// (as compiler.Exec binds them: a dim whose size is a bare symbol).
func symbolValues(m *compiler.Manifest, in map[string]*tensor.Tensor, out map[string]int64) error {
	isSym := map[string]bool{}
	for _, s := range m.Symbols {
		isSym[s] = true
	}
	for _, b := range m.Buffers {
		key := b.Target
		if key == "" {
			key = b.Name
		}
		t := in[key]
		if t == nil || len(t.Shape) != len(b.Sizes) {
			continue
		}
		for d, s := range b.Sizes {
			if isSym[s] {
				if v, ok := out[s]; ok && v != int64(t.Shape[d]) {
					return fmt.Errorf("symbol %s is %d in one program and %d in another", s, v, t.Shape[d])
				}
				out[s] = int64(t.Shape[d])
			}
		}
	}
	return nil
}

// onesTangents are the backward's tangents for sum(out*ones): ones shaped
// like each floating output, in Joint.Tangents order.
func onesTangents(u *stages.Unit, outs []*tensor.Tensor) map[string]*tensor.Tensor {
	m := map[string]*tensor.Tensor{}
	k := 0
	for _, o := range outs {
		if o == nil || !o.DType.IsFloat() || k >= len(u.Joint.Tangents) {
			continue
		}
		t := tensor.New(o.DType, o.Shape...)
		for i := 0; i < t.Numel(); i++ {
			t.SetFlat(i, 1)
		}
		m[u.Joint.Tangents[k]] = t
		k++
	}
	return m
}

// compareGrads runs the joint graph of a compile at this call's sizes (the
// call's static comparison compile for a symbolic entry, the entry itself
// otherwise) on the frame with ones for tangents, and compares the grads.
func compareGrads(call *dynamo.Call, f dynamo.Frame, outs, grads []*tensor.Tensor) ([]verdict.Judgement, error) {
	ref := call.Entry.Unit()
	if call.Static != nil {
		ref = call.Static
	}
	if ref.Joint == nil {
		return nil, fmt.Errorf("graph %q: no joint graph to compare the grads with", ref.Captured.Name)
	}
	over := frameOverride(f)
	for k, v := range onesTangents(ref, outs) {
		over[k] = v
	}
	refs, err := interp.RunRefs(ref.Joint.Graph, over)
	if err != nil {
		return nil, fmt.Errorf("joint graph at these sizes: %w", err)
	}
	n := ref.Joint.NumOutputs
	var cs []verdict.Judgement
	for i := n; i < len(refs.Native); i++ {
		if i-n >= len(grads) || grads[i-n] == nil {
			cs = append(cs, verdict.Judgement{Why: fmt.Sprintf("grad %d: no tensor to compare", i-n)})
			continue
		}
		cs = append(cs, refs.Judge(i, grads[i-n]))
	}
	return cs, nil
}

// frameOverride is a call's frame as interpreter inputs.
func frameOverride(f dynamo.Frame) interp.Inputs {
	over := interp.Inputs{}
	for k, v := range f {
		if v.T != nil {
			over[k] = v.T.T
		} else {
			over[k] = v.Const
		}
	}
	return over
}
