package sched

import (
	"sort"

	"gcdbg/loopir"
)

// MemoryPlan is where every buffer a program allocates lives: its
// lifetime in kernels, and which storage it takes (its own, a dead
// buffer's, or an input's it overwrites in place). Inputs and parameters
// are the caller's and not counted.
//
// The rendered program holds every allocation for the whole call (one
// arena at the plan's storage, one slot per output: render.layout, the
// worker's compiler/exec.go), so a peak is the bytes of its allocations.
// PeakBefore is one allocation per materialized buffer; PeakAfter the
// plan's: a dead buffer of the same size handing its storage to a later
// one, or an output overwriting a dying input in place, saves the later
// buffer's bytes. PeakUnfused is the program run one node per kernel
// without a plan: every intermediate in memory.
type MemoryPlan struct {
	Buffers                            []BufferLife
	PeakUnfused, PeakBefore, PeakAfter int64
	AllocsBefore, AllocsAfter          int
	Kernels                            int
}

// BufferLife is one written buffer in the plan.
type BufferLife struct {
	Name  string
	Kind  loopir.BufferKind
	Bytes int64
	// First and Last are the kernels that write it and last read it
	// (outputs live to the end); both -1 when it is not materialized.
	First, Last int
	// Materialized is false when the buffer is written and read only
	// inside one kernel by loops (an extern or fallback writes its
	// result to memory), or elided.
	Materialized bool
	Note         string // why the renderer gives it no memory (Elisions), "" otherwise
	Storage      string // the buffer whose allocation it uses (itself when new)
	Reuse        string // "", "reuse" (a dead buffer's storage) or "inplace"
}

// slot is one allocation; buffers with disjoint lifetimes share it.
type slot struct {
	owner string // the buffer that allocated it
	bytes int64
	dtype string
	last  int  // last use of the buffer holding it now
	own   bool // allocated alone (Elisions.Own): no later buffer takes it
}

// Plan computes lifetimes and storage for kernels (a schedule of p).
// The renderer may still leave buffers out (render.PlanMemory gives the
// plan of what it allocates: PlanElided).
func Plan(p *loopir.Program, kernels []*loopir.Kernel) *MemoryPlan {
	return PlanElided(p, kernels, nil)
}

// allocate walks kernels in order, giving each materialized buffer a
// slot (reusing dead ones when reuse is on); it returns the peak bytes
// and the number of allocations.
func (s *state) allocate(kernels []*loopir.Kernel, reuse bool) (int64, int, []BufferLife) {
	outputs := map[string]bool{}
	for _, o := range s.p.Outputs {
		outputs[o] = true
	}
	first, last := map[string]int{}, map[string]int{}
	readIn := map[string]map[int]bool{}
	inMemory := map[string]bool{} // written by an extern call or a fallback
	var written []string
	for k, kern := range kernels {
		for _, n := range kern.Nodes {
			for _, w := range s.writes(n) {
				if n.Kind == loopir.Extern || n.Kind == loopir.Fallback {
					inMemory[w] = true
				}
				if _, ok := first[w]; !ok {
					first[w] = k
					last[w] = k
					written = append(written, w)
				}
			}
			for _, r := range n.Reads {
				last[r.Buffer] = max(last[r.Buffer], k)
				if readIn[r.Buffer] == nil {
					readIn[r.Buffer] = map[int]bool{}
				}
				readIn[r.Buffer][k] = true
			}
		}
	}
	readElsewhere := func(name string) bool {
		for k := range readIn[name] {
			if k != first[name] {
				return true
			}
		}
		return false
	}
	end := len(kernels) - 1
	var rows []BufferLife
	holder := map[string]*slot{} // buffer -> the slot it occupies
	var slots []*slot
	for _, name := range written {
		b := s.p.Buffers[name]
		row := BufferLife{Name: name, Bytes: s.bufBytes(name), First: -1, Last: -1}
		if b != nil {
			row.Kind = b.Kind
		}
		if b != nil && (b.Kind == loopir.Input || b.Kind == loopir.Constant) {
			continue // written in place into an input: the caller's storage
		}
		if row.Note = s.elided(name); row.Note != "" {
			rows = append(rows, row)
			continue
		}
		f := first[name]
		if !outputs[name] && !readElsewhere(name) && !inMemory[name] {
			rows = append(rows, row)
			continue
		}
		row.Materialized, row.First, row.Last = true, f, last[name]
		if outputs[name] {
			row.Last = end
		}
		var sl *slot
		if reuse && !s.own(name) {
			if in := s.inPlace(kernels[f], name, row, holder, last, readElsewhere); in != "" {
				sl, row.Reuse = holder[in], "inplace"
			} else if sl = pickFree(slots, row, s.dtype(name)); sl != nil {
				row.Reuse = "reuse"
			}
		}
		if sl == nil {
			sl = &slot{owner: name, bytes: row.Bytes, dtype: s.dtype(name), own: s.own(name)}
			slots = append(slots, sl)
		}
		sl.last = row.Last
		holder[name] = sl
		row.Storage = sl.owner
		rows = append(rows, row)
	}
	var peak int64
	for _, sl := range slots {
		peak += sl.bytes
	}
	return peak, len(slots), rows
}

func (s *state) dtype(name string) string {
	if b := s.p.Buffers[name]; b != nil {
		return b.DType.String()
	}
	return ""
}

// pickFree returns a slot of the same dtype and size whose buffer died
// before this one is written (Inductor keys its reuse pool the same way).
// A larger slot is not taken: the buffer would hold all of it for its
// whole life, raising the peak (a 24-byte output kept a dead 96-byte
// buffer's storage to the end of a zoo graph).
func pickFree(slots []*slot, row BufferLife, dtype string) *slot {
	for _, sl := range slots {
		if !sl.own && sl.last < row.First && sl.dtype == dtype && sl.bytes == row.Bytes {
			return sl
		}
	}
	return nil
}

// inPlace finds an input of the pointwise node writing out, in kernel
// kern, that the output can overwrite: an intermediate that dies in this
// kernel, has the same dtype, sizes and strides, and is read in this
// kernel only at the index out is written and only by members whose
// loads run by the writer's store (LoadsRunBy: a member inlined into a
// later one would read the overwritten value). No other member writes
// out (a GEMM writing its epilogue's output, gemm_inplace.go, would
// overwrite the input before the epilogue reads it), and the kernel has
// no reduction: the renderer runs such a kernel in passes over each row,
// and a later pass may recompute from the overwritten input (render's
// stash.go relies on a multi-pass kernel's output sharing no memory with
// a buffer it reads).
func (s *state) inPlace(kern *loopir.Kernel, out string, row BufferLife, holder map[string]*slot, last map[string]int, readElsewhere func(string) bool) string {
	var writer *loopir.Node
	var wIdx loopir.Expr
	for _, n := range kern.Nodes {
		for _, w := range n.Writes {
			if w.Buffer == out {
				writer, wIdx = n, w.Index
			}
		}
	}
	if writer == nil || writer.Kind != loopir.Pointwise || wIdx == nil || wIdx == loopir.StarIndex {
		return ""
	}
	for _, n := range kern.Nodes {
		if n.Kind == loopir.Reduction {
			return ""
		}
		for _, w := range s.writes(n) {
			if w == out && n != writer {
				return ""
			}
		}
	}
	var runBy map[*loopir.Node]int // LoadsRunBy, once a candidate needs it
	ob := s.p.Buffers[out]
	if ob == nil {
		return ""
	}
	cands := []string{}
	for _, r := range writer.Reads {
		cands = append(cands, r.Buffer)
	}
	sort.Strings(cands)
	for _, in := range cands {
		ib, sl := s.p.Buffers[in], holder[in]
		if ib == nil || sl == nil || sl.own || ib.Kind != loopir.Intermediate || last[in] != row.First || sl.last != row.First {
			continue
		}
		if ib.DType != ob.DType || !rangesEqual(ib.Sizes, ob.Sizes) || !rangesEqual(ib.Strides, ob.Strides) {
			continue
		}
		if runBy == nil {
			runBy = LoadsRunBy(s.p, kern, readElsewhere)
		}
		ok := true
		for _, n := range kern.Nodes {
			for _, r := range n.Reads {
				if r.Buffer == in && (runBy[n] > runBy[writer] || r.Index == nil || r.Index.String() != wIdx.String()) {
					ok = false
				}
			}
		}
		if ok {
			return in
		}
	}
	return ""
}
