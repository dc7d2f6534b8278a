package render

import (
	"gcdbg/loopir"
	"gcdbg/sched"
)

// The memory plan of what the renderer allocates. Some buffers the
// schedule writes get no memory once rendered (a transposed GEMM result
// the GEMM writes straight into the output, an all-zero table a
// scatter_add writes itself, a saved input returned as its own slot):
// those decisions are the renderer's (newRenderer takes them), and
// PlanMemory hands them to the memory planner, so the `memory` stage
// lists no buffer that is never allocated and its peaks count the kernels
// that run.

// elide records that buf gets no memory, and why.
func (r *renderer) elide(buf, why string) {
	r.why[buf] = why
}

// PlanMemory is the memory plan of kernels (a schedule of p) as d renders
// them. A program the renderer cannot index (it then fails with the
// error) gets the schedule's plan.
func PlanMemory(p *loopir.Program, kernels []*loopir.Kernel, d Dialect) (plan *sched.MemoryPlan) {
	defer func() {
		if x := recover(); x != nil {
			plan = sched.Plan(p, kernels)
		}
	}()
	if p == nil {
		return sched.Plan(p, kernels)
	}
	r, err := newRenderer(p, kernels, nil, d, Options{})
	if err != nil {
		return sched.Plan(p, kernels)
	}
	el := &sched.Elisions{Notes: r.why, Writes: map[*loopir.Node][]string{}}
	for n, st := range r.folded {
		el.Writes[n] = append(el.Writes[n], st.buf)
	}
	return sched.PlanElided(p, r.kernels, el)
}
