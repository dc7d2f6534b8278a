package stages

import (
	"fmt"
	"os"
	"strconv"
	"testing"
	"time"

	"gcdbg/ir"
	"gcdbg/tensor"
	"gcdbg/trace"
)

// chainTrace is a synthetic trace whose one graph is a chain of n nodes:
// alternating x.mm(w) and .relu() on 4×4 matrices. With grad, w requires
// grad, so the joint graph and the partition run too.
func chainTrace(n int, grad bool) *trace.Trace {
	meta := func() ir.Meta {
		return ir.Meta{Tensor: &ir.TensorMeta{DType: tensor.Float32, Shape: ir.ShapeOf([]int{4, 4}), Stride: []int{4, 1}, RequiresGrad: false}}
	}
	g := &ir.Graph{Name: "g0", Tensors: map[string]*ir.TensorData{
		"x": {T: tensor.New(tensor.Float32, 4, 4), Origin: "data"},
		"w": {T: tensor.New(tensor.Float32, 4, 4), Origin: "data", RequiresGrad: grad},
	}}
	prev := &ir.Node{Name: "x", Op: ir.Placeholder, Target: "x", Meta: meta()}
	w := &ir.Node{Name: "w", Op: ir.Placeholder, Target: "w", Meta: meta()}
	w.Meta.Tensor.RequiresGrad = grad
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

// TestScaleChain takes a long chain through every stage and its printer,
// timing each, and fails when the whole run exceeds a generous bound: a
// superlinear stage (fusion's reachability was quadratic-to-cubic) shows
// up as minutes. GCDBG_SCALE_N sets the length (default 1000; 10000 for
// the target).
func TestScaleChain(t *testing.T) {
	n := 1000
	if testing.Short() {
		n = 300
	}
	if v, err := strconv.Atoi(os.Getenv("GCDBG_SCALE_N")); err == nil && v > 3 {
		n = v
	}
	for _, grad := range []bool{false, true} {
		t.Run(fmt.Sprintf("grad=%v", grad), func(t *testing.T) {
			tr := chainTrace(n, grad)
			u := &Unit{Trace: tr, Captured: tr.Graphs[0]}
			start := time.Now()
			for _, st := range Table {
				t0 := time.Now()
				if st.Run != nil {
					if err := st.Run(u); err != nil {
						t.Fatalf("stage %s: %v", st.Name, err)
					}
				}
				t1 := time.Now()
				text := ""
				if st.Print != nil {
					text = st.Print(u)
				}
				t.Logf("%-11s run %8.1f ms  print %8.1f ms  (%d bytes)", st.Name,
					float64(t1.Sub(t0).Microseconds())/1000, float64(time.Since(t1).Microseconds())/1000, len(text))
			}
			total := time.Since(start)
			// Times are logged, not asserted: speed lives in benchmarks
			// (tui's BenchmarkStageSwitch10k); this test checks the whole
			// pipeline still completes on a long chain.
			t.Logf("%d nodes, grad=%v: total %v", n, grad, total)
			if grad && u.Joint == nil {
				t.Errorf("grad chain has no joint graph")
			}
			if len(u.Programs) == 0 || u.Programs[0].Schedule == nil {
				t.Fatalf("no schedule")
			}
		})
	}
}
