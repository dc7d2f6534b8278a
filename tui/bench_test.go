package tui

import (
	"fmt"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"gcdbg/ir"
	"gcdbg/tensor"
	"gcdbg/trace"
)

// chainTrace is a synthetic trace whose one graph is a chain of n nodes:
// alternating x.mm(w) and .relu() on 4×4 matrices (each mm fuses with the
// relu after it, as the MLP's GEMM epilogues do).
func chainTrace(n int) *trace.Trace {
	meta := func() ir.Meta {
		return ir.Meta{Tensor: &ir.TensorMeta{DType: tensor.Float32, Shape: ir.ShapeOf([]int{4, 4}), Stride: []int{4, 1}}}
	}
	g := &ir.Graph{Name: "g0", Tensors: map[string]*ir.TensorData{
		"x": {T: tensor.New(tensor.Float32, 4, 4), Origin: "data"},
		"w": {T: tensor.New(tensor.Float32, 4, 4), Origin: "data"},
	}}
	prev := &ir.Node{Name: "x", Op: ir.Placeholder, Target: "x", Meta: meta()}
	w := &ir.Node{Name: "w", Op: ir.Placeholder, Target: "w", Meta: meta()}
	g.Nodes = append(g.Nodes, prev, w)
	for i := 2; i < n-1; i++ {
		nd := &ir.Node{Name: fmt.Sprintf("mm_%d", i), Op: ir.CallMethod, Target: "mm", Args: []ir.Arg{prev, w}, Meta: meta()}
		if i%2 == 1 {
			nd = &ir.Node{Name: fmt.Sprintf("relu_%d", i), Op: ir.CallMethod, Target: "relu", Args: []ir.Arg{prev}, Meta: meta()}
		}
		g.Nodes = append(g.Nodes, nd)
		prev = nd
	}
	g.Nodes = append(g.Nodes, &ir.Node{Name: "output", Op: ir.Output, Target: "output", Args: []ir.Arg{prev}})
	return &trace.Trace{Name: "chain", Graphs: []*ir.Graph{g}}
}

func TestChainTraceLoads(t *testing.T) {
	t0 := time.Now()
	msg := loadUntil(chainTrace(500), "")
	if msg.err != nil {
		t.Fatal(msg.err)
	}
	t.Logf("500 nodes, full pipeline: %v", time.Since(t0))
}

// BenchmarkStageSwitch10k measures `]` on a 10k-node graph: moving the
// focused pane to the next stage (the selection follows) and drawing the
// screen. The whole pipeline (fusion, memory plan and kernels included)
// and the stage texts are built once, outside the loop.
func BenchmarkStageSwitch10k(b *testing.B) {
	tr := chainTrace(10000)
	t0 := time.Now()
	msg := loadUntil(tr, "")
	if msg.err != nil {
		b.Fatal(msg.err)
	}
	b.Logf("pipeline and index for %d nodes: %v", len(tr.Graphs[0].Nodes), time.Since(t0))
	m := New(tr, Options{})
	m = send(m, tea.WindowSizeMsg{Width: 200, Height: 50})
	m = send(m, msg)
	m = press(m, "g")
	for _, r := range "relu_5001" {
		m = press(m, string(r))
	}
	m = press(m, "enter")
	n := len(m.doc().stages)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		k := "]"
		if (i/(n-1))%2 == 1 {
			k = "["
		}
		m = press(m, k)
		_ = m.View()
	}
}
