package sched

import "gcdbg/loopir"

// Elisions are the renderer's decisions about memory, taken at render
// time (render.PlanMemory runs the renderer's own decisions), that the
// plan honours so that it shows what the program allocates:
//
//   - buffers it leaves out of memory although the schedule writes them (a
//     transposed GEMM result folded into the GEMM's store, a dead all-zero
//     table, a saved input returned as its own slot): the plan lists each
//     with its note and allocates none, and counts the buffer a node writes
//     instead of its own (the GEMM's transposed output);
//   - buffers it gives their own allocation (Own): outputs, handed back in
//     their own slots; buffers of symbolic size; every buffer of a dialect
//     without an arena. Such a buffer takes no other buffer's storage (no
//     reuse, not in place) and hands its own to none.
type Elisions struct {
	Notes  map[string]string         // buffer -> why it gets no memory
	Writes map[*loopir.Node][]string // buffers a node writes besides its own
	Own    map[string]bool           // buffers allocated alone, never sharing storage
}

// PlanElided is Plan over the kernels the renderer keeps, with el's
// buffers listed as not allocated.
func PlanElided(p *loopir.Program, kernels []*loopir.Kernel, el *Elisions) *MemoryPlan {
	s := &state{p: p, env: symbolHints(p), el: el}
	unfused := make([]*loopir.Kernel, len(p.Nodes))
	for i, n := range p.Nodes {
		unfused[i] = &loopir.Kernel{Name: n.Name, Nodes: []*loopir.Node{n}}
	}
	unf, _, _ := (&state{p: p, env: s.env}).allocate(unfused, false)
	before, nb, _ := s.allocate(kernels, false)
	after, na, rows := s.allocate(kernels, true)
	// An elided buffer that no kept kernel writes (a dropped copy's or
	// full's) still gets its row, in the program's buffer order.
	listed := map[string]bool{}
	for _, r := range rows {
		listed[r.Name] = true
	}
	if el != nil {
		for _, name := range p.Order {
			if note, ok := el.Notes[name]; ok && !listed[name] {
				row := BufferLife{Name: name, Bytes: s.bufBytes(name), First: -1, Last: -1, Note: note}
				if b := p.Buffers[name]; b != nil {
					row.Kind = b.Kind
				}
				rows = append(rows, row)
			}
		}
	}
	return &MemoryPlan{Buffers: rows, PeakUnfused: unf, PeakBefore: before, PeakAfter: after,
		AllocsBefore: nb, AllocsAfter: na, Kernels: len(kernels)}
}

// writes lists the buffers n writes: its own, and any el adds.
func (s *state) writes(n *loopir.Node) []string {
	var out []string
	for _, w := range n.Writes {
		out = append(out, w.Buffer)
	}
	if s.el != nil {
		out = append(out, s.el.Writes[n]...)
	}
	return out
}

// own says the renderer allocates name alone (Elisions.Own).
func (s *state) own(name string) bool {
	return s.el != nil && s.el.Own[name]
}

// elided is the note of a buffer the renderer gives no memory, or "".
func (s *state) elided(name string) string {
	if s.el == nil {
		return ""
	}
	return s.el.Notes[name]
}
