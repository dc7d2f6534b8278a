package stages

import (
	"fmt"
	"time"

	"gcdbg/interp"
	"gcdbg/ir"
	"gcdbg/tensor"
)

// Execution of a Unit's artifacts under the eager interpreter: what `run`
// compares with PyTorch, and what later compiled code is compared with.

// UserOutputs is how many leading outputs of the functional and later
// graphs are the user's (the rest are written-back mutated inputs).
func (u *Unit) UserOutputs() int {
	if u.Functional != nil {
		return u.FunctionalInfo().NumOutputs
	}
	return len(u.Captured.Outputs())
}

// RunEager runs the normalized graph: gcdbg's eager reference result.
func (u *Unit) RunEager() ([]ir.Value, error) {
	return interp.Run(u.Normalized, nil)
}

// RunJoint runs the joint graph and splits its results into outputs and grads.
func (u *Unit) RunJoint() (outs, grads []ir.Value, err error) {
	if u.Joint == nil {
		return nil, nil, fmt.Errorf("graph %q has no joint graph (nothing requires grad)", u.Captured.Name)
	}
	vals, err := interp.Run(u.Joint.Graph, nil)
	if err != nil {
		return nil, nil, err
	}
	if len(vals) != u.Joint.NumOutputs+len(u.Joint.GradTargets) {
		return nil, nil, fmt.Errorf("graph %q: joint graph returned %d values, want %d outputs + %d grads", u.Captured.Name, len(vals), u.Joint.NumOutputs, len(u.Joint.GradTargets))
	}
	return vals[:u.Joint.NumOutputs], vals[u.Joint.NumOutputs:], nil
}

// RunPipeline runs what the pipeline produced for this graph: the
// partition's forward then backward graph when the graph trains, the
// decomposed graph otherwise. grads is nil for inference graphs.
func (u *Unit) RunPipeline() (outs, grads []ir.Value, err error) {
	outs, grads, _, err = u.RunPipelineSaved()
	return outs, grads, err
}

// RunPipelineSaved is RunPipeline that also returns the forward's saved
// tensors by name (nil for an inference graph).
func (u *Unit) RunPipelineSaved() (outs, grads []ir.Value, saved map[string]ir.Value, err error) {
	if u.Partition == nil || u.Joint == nil {
		outs, err = interp.Run(u.Decomposed, nil)
		return outs, nil, nil, err
	}
	res := NewResults[ir.Value]()
	fwd, err := interp.Run(u.Partition.Forward, nil)
	if err != nil {
		return nil, nil, nil, err
	}
	if err := res.Add(u, RoleForward, fwd); err != nil {
		return nil, nil, nil, err
	}
	grads, err = interp.Run(u.Partition.Backward, interp.Inputs(res.Saved))
	if err != nil {
		return nil, nil, nil, err
	}
	return res.Outputs, grads, res.Saved, nil
}

// RefRun is one graph's results under one interpreter precision: the
// user's outputs, the grads (training graphs) and the values after the run
// of every buffer the graph mutates, keyed by the buffer's Target.
type RefRun struct {
	// Env is every node's value of the normalized graph's run (nil from
	// RunReferenceValues).
	Env     map[*ir.Node]ir.Value
	Outputs []ir.Value
	Grads   []ir.Value
	Buffers map[string]*tensor.Tensor
	// Seconds is the wall time of the part of the run that RunJoint
	// (training graphs) or RunEager (inference graphs) repeats: the joint
	// graph's run, or the normalized graph's. With Native precision it is
	// one timing of gcdbg's eager interpreter (runner's timeEager).
	Seconds float64
}

// RunReference runs gcdbg's eager reference under opt: the normalized
// graph for outputs and mutated buffers, the joint graph for grads. The
// accuracy verdict runs it in float64 (and in float64 with simulated
// float32 rounding) beside the native run. Env holds every node's value
// (the native run's: ties.go reads them).
func (u *Unit) RunReference(opt interp.Options) (*RefRun, error) {
	return u.runReference(opt, true, nil)
}

// RunReferenceValues is RunReference that drops each value of the
// normalized graph after its last reader, except the outputs, the mutated
// buffers and the nodes in keep, so the runs do not hold every activation
// at once: Env holds those (nil when keep is nil). The values are
// RunReference's.
func (u *Unit) RunReferenceValues(opt interp.Options, keep map[*ir.Node]bool) (*RefRun, error) {
	return u.runReference(opt, false, keep)
}

func (u *Unit) runReference(opt interp.Options, keepEnv bool, keepNodes map[*ir.Node]bool) (*RefRun, error) {
	var buffers []*ir.Node
	for _, wb := range u.Writebacks() {
		for _, n := range u.Normalized.Nodes {
			if (n.Op == ir.Placeholder || n.Op == ir.GetAttr) && n.Target == wb.Target {
				buffers = append(buffers, n)
			}
		}
	}
	t0 := time.Now()
	var env map[*ir.Node]ir.Value
	var err error
	if keepEnv {
		env, err = interp.EvalWith(u.Normalized, nil, opt)
	} else {
		keep := map[*ir.Node]bool{}
		for n := range keepNodes {
			keep[n] = true
		}
		for _, n := range buffers {
			keep[n] = true
		}
		env, err = interp.EvalKeeping(u.Normalized, nil, opt, keep)
	}
	if err != nil {
		return nil, err
	}
	ref := &RefRun{Buffers: map[string]*tensor.Tensor{}, Seconds: time.Since(t0).Seconds()}
	if keepEnv || keepNodes != nil {
		ref.Env = env
	}
	if out := u.Normalized.OutputNode(); out != nil && len(out.Args) > 0 {
		v := ir.MapArg(out.Args[0], func(n *ir.Node) ir.Arg { return env[n] })
		switch x := v.(type) {
		case ir.Tuple:
			ref.Outputs = []ir.Value(x)
		case ir.List:
			ref.Outputs = []ir.Value(x)
		default:
			ref.Outputs = []ir.Value{v}
		}
	}
	for _, n := range buffers {
		if t, ok := env[n].(*tensor.Tensor); ok {
			ref.Buffers[n.Target] = t
		}
	}
	env = nil
	if u.Joint != nil {
		t0 = time.Now()
		vals, err := interp.RunWith(u.Joint.Graph, nil, opt)
		if err != nil {
			return nil, err
		}
		ref.Seconds = time.Since(t0).Seconds()
		if len(vals) != u.Joint.NumOutputs+len(u.Joint.GradTargets) {
			return nil, fmt.Errorf("graph %q: joint graph returned %d values, want %d outputs + %d grads", u.Captured.Name, len(vals), u.Joint.NumOutputs, len(u.Joint.GradTargets))
		}
		ref.Grads = vals[u.Joint.NumOutputs:]
	}
	return ref, nil
}

// Writebacks are the graph's mutated inputs (BatchNorm's running stats in
// training mode): the functional graph returns each after the user's
// outputs, at Writeback.Output.
func (u *Unit) Writebacks() []Writeback {
	return u.FunctionalInfo().Writebacks
}

// The roles of a compiled unit (LoopProgram.Role): an inference graph,
// or the forward and backward graphs of the partition.
const (
	RoleInference = "inference"
	RoleForward   = "forward"
	RoleBackward  = "backward"
)

// Results is the typed contract between the partition's programs: the
// forward returns the user's outputs (write-backs included) followed by
// the saved tensors; the backward takes the saved tensors (and tangents)
// and returns one grad per Joint.GradTargets; an inference program
// returns the outputs. Every backend (eager, CPU, GPU, AOT, `run --input`)
// splits its results with Add and nothing else.
type Results[T any] struct {
	Outputs, Grads []T
	// Saved are the forward's saved tensors by name, the backward's inputs.
	Saved map[string]T
}

// NewResults is an empty Results.
func NewResults[T any]() *Results[T] { return &Results[T]{Saved: map[string]T{}} }

// Add files one program's results under its role.
func (r *Results[T]) Add(u *Unit, role string, vals []T) error {
	switch role {
	case RoleForward:
		if u.Joint == nil || u.Partition == nil {
			return fmt.Errorf("graph %q: a forward program without a partition", u.Captured.Name)
		}
		n, saved := u.Joint.NumOutputs, u.Partition.Saved
		if len(vals) < n+len(saved) {
			return fmt.Errorf("graph %q (forward): %d outputs, want %d + %d saved", u.Captured.Name, len(vals), n, len(saved))
		}
		r.Outputs = vals[:n]
		for i, s := range saved {
			r.Saved[s.Name] = vals[n+i]
		}
	case RoleBackward:
		r.Grads = vals
	case RoleInference:
		r.Outputs = vals
	default:
		return fmt.Errorf("graph %q: unknown program role %q", u.Captured.Name, role)
	}
	return nil
}
