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
// that run. Which buffers may share storage is the renderer's too (inArena:
// outputs, buffers of symbolic size and a dialect without an arena get
// their own allocation), so the plan shares only what layout shares.

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
	el := &sched.Elisions{Notes: r.why, Writes: map[*loopir.Node][]string{}, Own: map[string]bool{}}
	for n, st := range r.folded {
		el.Writes[n] = append(el.Writes[n], st.buf)
	}
	outputs := r.outputSet()
	for _, name := range p.Order {
		if !r.inArena(name, outputs) {
			el.Own[name] = true
		}
	}
	return sched.PlanElided(p, r.kernels, el)
}

// inArena says whether buffer name, when it needs memory, lives in the
// arena, where the memory plan's storage decides its offset (buffers of
// one storage share it); any other buffer gets its own slot. Only an
// intermediate of static size does, in a dialect with entry points (the
// GPU dialects allocate every buffer alone); outputs are handed back in
// their own slots.
func (r *renderer) inArena(name string, outputs map[string]bool) bool {
	b := r.p.Buffers[name]
	if b == nil || b.Kind != loopir.Intermediate || outputs[name] || !r.d.Entry {
		return false
	}
	_, ok := static(b.Sizes)
	return ok
}
