package stages

import (
	"fmt"

	"gcdbg/interp"
	"gcdbg/ir"
)

// Execution of a Unit's artifacts under the eager interpreter: what `run`
// compares with PyTorch, and what later compiled code is compared with.

// UserOutputs is how many leading outputs of the functional and later
// graphs are the user's (the rest are written-back mutated inputs).
func (u *Unit) UserOutputs() int {
	if u.Functional != nil {
		return FunctionalInfoOf(u.Functional).NumOutputs
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
	if u.Partition == nil || u.Joint == nil {
		outs, err = interp.Run(u.Decomposed, nil)
		return outs, nil, err
	}
	p, j := u.Partition, u.Joint
	fwd, err := interp.Run(p.Forward, nil)
	if err != nil {
		return nil, nil, err
	}
	if len(fwd) != j.NumOutputs+len(p.Saved) {
		return nil, nil, fmt.Errorf("graph %q: forward graph returned %d values, want %d outputs + %d saved", u.Captured.Name, len(fwd), j.NumOutputs, len(p.Saved))
	}
	saved := interp.Inputs{}
	for i, s := range p.Saved {
		saved[s.Name] = fwd[j.NumOutputs+i]
	}
	grads, err = interp.Run(p.Backward, saved)
	if err != nil {
		return nil, nil, err
	}
	return fwd[:j.NumOutputs], grads, nil
}
