package stress

import (
	"fmt"
	"os"
	"syscall"
	"testing"
	"time"

	"gcdbg/stages"
	"gcdbg/trace"
)

// shapes are the scale benchmark's graphs at a given size in nodes.
var shapes = []struct {
	name string
	make func(n int) string
}{
	{"chain", func(n int) string { return Chain(n, 64) }},
	{"fanout", func(n int) string { return FanOut(n, 64) }},
}

// runStages takes tr through every stage (no C compiler), timing each
// stage's Run and Print; it returns the per-stage durations.
func runStages(tb testing.TB, tr *trace.Trace) map[string]time.Duration {
	tb.Helper()
	times := map[string]time.Duration{}
	for _, g := range tr.Graphs {
		u := &stages.Unit{Trace: tr, Captured: g}
		for _, st := range stages.Table {
			t0 := time.Now()
			if st.Run != nil {
				if err := st.Run(u); err != nil {
					tb.Fatalf("stage %s: %v", st.Name, err)
				}
			}
			if st.Print != nil {
				_ = st.Print(u)
			}
			times[st.Name] += time.Since(t0)
		}
		// The provenance index the TUI, report and graph views share.
		t0 := time.Now()
		stages.NewProvenance(u)
		times["provenance"] += time.Since(t0)
	}
	return times
}

// cpuTime is the process's user+system CPU time: on a loaded machine the
// wall-clock stage times stretch with the load, the CPU time does not.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func reportStages(b *testing.B, times map[string]time.Duration) {
	for _, st := range stages.Table {
		if d := times[st.Name]; d > 0 {
			b.ReportMetric(float64(d.Microseconds())/1e3/float64(b.N), st.Name+"-ms")
		}
	}
	b.ReportMetric(float64(times["provenance"].Microseconds())/1e3/float64(b.N), "provenance-ms")
}

// BenchmarkPipeline is every stage's cost (Run and Print, no C compiler)
// against graph size: chains and wide fan-out of 1k, 10k and 100k nodes,
// and a 24-layer transformer with its backward. Each stage's time is a
// metric (NAME-ms, wall clock); ns/op is the whole pipeline, loading
// included, and cpu-ms its CPU time (what a loaded machine does not
// stretch).
// Targets: under 2 s at 10k nodes, under 20 s at 100k. The 100k sizes run
// under `make bench-scale` (GCDBG_BENCH_100K=1), not `make bench`.
func BenchmarkPipeline(b *testing.B) {
	sizes := []int{1000, 10000}
	if os.Getenv("GCDBG_BENCH_100K") != "" { // make bench-scale: minutes per size
		sizes = append(sizes, 100000)
	}
	for _, sh := range shapes {
		for _, n := range sizes {
			text := sh.make(n)
			b.Run(fmt.Sprintf("%s/%dk", sh.name, n/1000), func(b *testing.B) {
				total := map[string]time.Duration{}
				c0 := cpuTime()
				for i := 0; i < b.N; i++ {
					t0 := time.Now()
					tr, err := Load(text, sh.name)
					if err != nil {
						b.Fatal(err)
					}
					total["load"] += time.Since(t0)
					for k, v := range runStages(b, tr) {
						total[k] += v
					}
				}
				b.ReportMetric(float64((cpuTime()-c0).Microseconds())/1e3/float64(b.N), "cpu-ms")
				b.ReportMetric(float64(total["load"].Microseconds())/1e3/float64(b.N), "load-ms")
				reportStages(b, total)
			})
		}
	}
	text := Transformer(24, 16, 32)
	b.Run("transformer/24layers", func(b *testing.B) {
		total := map[string]time.Duration{}
		c0 := cpuTime()
		for i := 0; i < b.N; i++ {
			tr, err := Load(text, "transformer")
			if err != nil {
				b.Fatal(err)
			}
			for k, v := range runStages(b, tr) {
				total[k] += v
			}
		}
		b.ReportMetric(float64((cpuTime()-c0).Microseconds())/1e3/float64(b.N), "cpu-ms")
		reportStages(b, total)
	})
}
