package sched

import (
	"fmt"
	"strings"

	"gcdbg/loopir"
)

// Log prints the fusion rounds as TORCH_LOGS=fusion does: each round's
// size, then every pair tried, fused or refused with its reason and score.
func (s *Schedule) Log() string {
	var b strings.Builder
	for i, rd := range s.Rounds {
		r := i + 1
		fmt.Fprintf(&b, "attempting fusion (%d/%d): %d nodes\n", r, MaxRounds, rd.N)
		fmt.Fprintf(&b, "found %d possible fusions\n", rd.Candidates)
		for _, d := range s.Decisions {
			if d.Round != r {
				continue
			}
			if d.Action == "fuse" {
				note := ""
				if d.Note != "" {
					note = " (" + d.Note + ")"
				}
				fmt.Fprintf(&b, "  fusing %s with %s: %s, %d bytes saved, proximity %d, score %s%s\n",
					d.A, d.B, d.Category, d.BytesSaved, d.Proximity, d.Score, note)
			} else {
				fmt.Fprintf(&b, "  cannot fuse %s with %s: %s  (score %s)\n", d.A, d.B, d.Reason, d.Score)
			}
		}
		fmt.Fprintf(&b, "completed fusion round (%d/%d): fused %d nodes into %d nodes\n", r, MaxRounds, rd.N, rd.After)
	}
	fmt.Fprintf(&b, "kernels: %d before fusion, %d after\n", len(s.Before), len(s.Kernels))
	return b.String()
}

// PostFusion lists the kernels as ir_post_fusion.txt does: each kernel
// with its nodes, their reads and writes as MemoryDeps over their ranges,
// and their loop bodies.
func (s *Schedule) PostFusion() string {
	var b strings.Builder
	internal := s.internalBuffers()
	for _, k := range s.Kernels {
		names := make([]string, len(k.Nodes))
		for i, n := range k.Nodes {
			names[i] = n.Name
		}
		kind := "SchedulerNode"
		if len(k.Nodes) > 1 {
			kind = "FusedSchedulerNode"
		}
		fmt.Fprintf(&b, "%s: %s(%s)\n", k.Name, kind, strings.Join(names, ", "))
		for _, n := range k.Nodes {
			printNode(&b, n, internal)
		}
		b.WriteString("\n")
	}
	return b.String()
}

// internalBuffers are the buffers written and read only inside one
// kernel: they live in registers, not memory.
func (s *Schedule) internalBuffers() map[string]bool {
	kernelOf := map[string]int{}
	for i, k := range s.Kernels {
		for _, n := range k.Nodes {
			for _, w := range n.Writes {
				kernelOf[w.Buffer] = i
			}
		}
	}
	out := map[string]bool{}
	for b := range kernelOf {
		out[b] = true
	}
	for _, o := range s.Program.Outputs {
		delete(out, o)
	}
	for i, k := range s.Kernels {
		for _, n := range k.Nodes {
			for _, r := range n.Reads {
				if ki, ok := kernelOf[r.Buffer]; ok && ki != i {
					delete(out, r.Buffer)
				}
			}
		}
	}
	return out
}

func printNode(b *strings.Builder, n *loopir.Node, internal map[string]bool) {
	fmt.Fprintf(b, "  %s: %s", n.Name, n.Kind)
	if n.Op != "" {
		fmt.Fprintf(b, " %s", n.Op)
	}
	fmt.Fprintf(b, "  ranges %s", tuple(n.Ranges))
	if len(n.ReduceRanges) > 0 {
		fmt.Fprintf(b, " reduce %s", tuple(n.ReduceRanges))
	}
	b.WriteString("\n")
	deps := func(label string, ds []loopir.Dep) {
		parts := make([]string, len(ds))
		for i, d := range ds {
			parts[i] = fmt.Sprintf("MemoryDep('%s', %s)", d.Buffer, str(d.Index))
			if internal[d.Buffer] {
				parts[i] += "*"
			}
		}
		fmt.Fprintf(b, "    %s.%s = [%s]\n", n.Name, label, strings.Join(parts, ", "))
	}
	deps("writes", n.Writes)
	deps("reads", n.Reads)
	for _, st := range n.Body {
		fmt.Fprintf(b, "    %s\n", stmtString(st))
	}
}

// stmtString prints one line of a loop body in Inductor's ops.* spelling.
func stmtString(st loopir.Stmt) string {
	var rhs string
	switch st.Op {
	case "load":
		rhs = fmt.Sprintf("ops.load(%s, %s)", st.Buffer, str(st.Index))
	case "store", "store_reduction":
		return fmt.Sprintf("ops.%s(%s, %s, %s)", st.Op, st.Buffer, str(st.Index), strings.Join(st.Args, ", "))
	case "reduction":
		rhs = fmt.Sprintf("ops.reduction(%s, %s)", st.ReduceOp, strings.Join(st.Args, ", "))
	case "constant":
		rhs = fmt.Sprintf("ops.constant(%v, %s)", st.Value, st.DType)
	case "index_expr":
		rhs = fmt.Sprintf("ops.index_expr(%s, %s)", str(st.Index), st.DType)
	default:
		rhs = fmt.Sprintf("ops.%s(%s)", st.Op, strings.Join(st.Args, ", "))
	}
	if st.Dst == "" {
		return rhs
	}
	return st.Dst + " = " + rhs
}

// Status is a buffer's storage in words, the note column of the memory
// plan (Table, the report): not allocated (the renderer's note), not
// materialized, a new allocation, or another buffer's storage it takes.
func (r BufferLife) Status() string {
	switch {
	case r.Note != "":
		return "not allocated: " + r.Note
	case !r.Materialized:
		return "not materialized: lives inside one kernel"
	case r.Reuse == "reuse":
		return "reuses " + r.Storage + " (dead by then)"
	case r.Reuse == "inplace":
		return "in place over " + r.Storage
	}
	return "new allocation"
}

// Table prints the memory plan: one row per written buffer, then the peaks.
func (m *MemoryPlan) Table() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%-14s %-12s %10s  %-9s %-14s %s\n", "buffer", "kind", "bytes", "live", "storage", "note")
	for _, r := range m.Buffers {
		live, storage := "-", "-"
		if r.Materialized {
			live, storage = fmt.Sprintf("%d..%d", r.First, r.Last), r.Storage
		}
		fmt.Fprintf(&b, "%-14s %-12s %10d  %-9s %-14s %s\n", r.Name, r.Kind, r.Bytes, live, storage, r.Status())
	}
	fmt.Fprintf(&b, "allocations: %d before planning, %d after\n", m.AllocsBefore, m.AllocsAfter)
	fmt.Fprintf(&b, "peak bytes: %d before planning, %d after (%d kernels); %d unfused (one kernel per node)\n",
		m.PeakBefore, m.PeakAfter, m.Kernels, m.PeakUnfused)
	return b.String()
}
