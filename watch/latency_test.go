package watch_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"gcdbg/graphtext"
	"gcdbg/trace"
	"gcdbg/tui"
	"gcdbg/watch"
)

// TestOneNodeEditLatency measures watch mode on the seed MLP written as
// graph text (testdata/mlp.py): ten one-node edits (the clamp's bound of
// the second layer changes), each timed from the file write to
//   - the stages Result (every stage rerun, the diff made),
//   - the explorer's screen drawn from it (tui.NewWatchMsg + Update + View),
//   - the run Result (programs built through the cache, then run).
//
// The medians go to docs/performance.md (## Watch mode); GCDBG_WATCH_LOG=1
// prints each edit.
func TestOneNodeEditLatency(t *testing.T) {
	if testing.Short() {
		t.Skip("measures 10 recompiles of the MLP")
	}
	device := "eager"
	if _, err := exec.LookPath("cc"); err == nil {
		device = "cpu"
	}
	t.Setenv("GCDBG_CACHE_DIR", t.TempDir())
	src, err := os.ReadFile("testdata/mlp.py")
	if err != nil {
		t.Fatal(err)
	}
	const relu2 = "h2 = torch.relu(torch.nn.functional.linear(h1, w2, b2))"
	if !strings.Contains(string(src), relu2) {
		t.Fatal("testdata/mlp.py changed: no second ReLU to edit")
	}
	version := func(i int) string {
		return strings.Replace(string(src), relu2,
			fmt.Sprintf("h2 = torch.clamp(torch.nn.functional.linear(h1, w2, b2), min=%g)", 0.001*float64(i)), 1)
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "mlp.py")
	if err := os.WriteFile(path, []byte(version(0)), 0o600); err != nil {
		t.Fatal(err)
	}
	load := func(p string) (*trace.Trace, error) { return graphtext.Load(p) }
	w, err := watch.New(path, watch.Options{Load: load, Device: device, Runs: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	var m tea.Model = tui.New(&trace.Trace{Name: "mlp"}, tui.Options{Watch: true})
	m, _ = m.Update(tea.WindowSizeMsg{Width: 160, Height: 50})
	wait := func(phase string) watch.Result {
		t.Helper()
		for {
			select {
			case r := <-w.Results():
				if r.Err != nil {
					t.Fatalf("#%d: %v", r.Seq, r.Err)
				}
				if r.Phase == phase {
					return r
				}
			case <-time.After(60 * time.Second):
				t.Fatalf("no %s result", phase)
			}
		}
	}
	first := wait(watch.PhaseStages)
	m, _ = m.Update(tui.NewWatchMsg(first))
	wait(watch.PhaseRun)
	var stagesMS, screenMS, runMS, cpuMS []float64
	for i := 1; i <= 10; i++ {
		c0 := cpuTime()
		t0 := time.Now()
		if err := os.WriteFile(path, []byte(version(i)), 0o600); err != nil {
			t.Fatal(err)
		}
		r := wait(watch.PhaseStages)
		tStages := time.Since(t0)
		m, _ = m.Update(tui.NewWatchMsg(r))
		screen := m.View().Content
		tScreen := time.Since(t0)
		cpu := cpuTime() - c0
		rr := wait(watch.PhaseRun)
		tRun := time.Since(t0)
		if !strings.Contains(screen, fmt.Sprintf("#%d", r.Seq)) {
			t.Fatalf("the status line does not show compile #%d", r.Seq)
		}
		if r.Diff == nil || len(r.Diff.Kernels) == 0 {
			t.Fatalf("edit %d: the diff names no changed kernel: %v", i, r.Diff.Summary())
		}
		rebuilt := 0
		for _, b := range rr.Builds {
			if !b.Hit {
				rebuilt++
			}
		}
		if os.Getenv("GCDBG_WATCH_LOG") != "" {
			t.Logf("edit %d: stages %v, screen %v (cpu %v), run %v (%d of %d programs rebuilt) — %s", i,
				tStages.Round(time.Millisecond), tScreen.Round(time.Millisecond), cpu.Round(time.Millisecond), tRun.Round(time.Millisecond), rebuilt, len(rr.Builds), r.Diff.Summary())
		}
		stagesMS = append(stagesMS, ms(tStages))
		screenMS = append(screenMS, ms(tScreen))
		runMS = append(runMS, ms(tRun))
		cpuMS = append(cpuMS, ms(cpu))
	}
	t.Logf("one-node edit of the MLP, median of 10 (device %s, debounce 50 ms included): stages %.0f ms, screen %.0f ms (CPU time %.0f ms), run %.0f ms",
		device, median(stagesMS), median(screenMS), median(cpuMS), median(runMS))
	// The goal (300 ms) is a benchmark target, recorded in
	// docs/performance.md; timings are logged here, never asserted.
}

// cpuTime is the CPU time this process has used (every thread): a
// measure of the work that a loaded machine's wall clock inflates.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func median(xs []float64) float64 {
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	return s[len(s)/2]
}
