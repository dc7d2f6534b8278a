package render_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"gcdbg/compiler"
	"gcdbg/render"
	"gcdbg/sched"
	"gcdbg/stages"
	"gcdbg/tensor"
)

// The memory stage's plan is what the rendered program allocates: a
// buffer the renderer elides (the MLP's transposed weight-gradient GEMM
// results, its forward's saved inputs, gather_rows' zero table for the
// scatter_add) is listed as not allocated with the renderer's note.
func TestMemoryPlanMatchesRenderedBuffers(t *testing.T) {
	wantNotes := map[string]string{
		"../fixtures/mlp.json":                  "the GEMM writes",
		"../fixtures/transformer_block.json":    "'s slot is this output",
		"../compiler/testdata/gather_rows.json": "written by the scatter_add itself",
	}
	for path, want := range wantNotes {
		units := loadUnits(t, path)
		seen := false
		for _, u := range units {
			for _, lp := range u.Programs {
				checkPlanIsRendered(t, path, u, lp, lp.Memory, render.C)
				for _, row := range lp.Memory.Buffers {
					if row.Note == "" {
						continue
					}
					seen = seen || strings.Contains(row.Note, want)
					if !strings.Contains(lp.Memory.Table(), "not allocated: "+row.Note) {
						t.Errorf("%s %s: the table does not show %s's note", path, lp.Role, row.Name)
					}
				}
			}
		}
		if !seen {
			t.Errorf("%s: no buffer is listed as not allocated with a note containing %q", path, want)
		}
	}
}

// Every buffer's status in the memory plan (not allocated, its own
// storage, or the storage of the buffer its Storage names: in place over
// it or reusing it) and the plan's allocations and peak are those of the
// rendered program's manifest, which is what the worker allocates (one
// slot per buffer, arena-resident intermediates at their offsets, held for
// the whole call), on PyTorch-exported traces: every fixture and zoo
// trace, and the benchmark and unseen models where they have been
// exported (bench/run.sh, the session's /tmp/unseen).
func TestMemoryPlanStatusesAndPeakAreRendered(t *testing.T) {
	paths := allTraces()
	extra, _ := filepath.Glob("../compiler/testdata/*.json")
	paths = append(paths, extra...)
	for _, p := range []string{"../bench/out/ffn_train.json", "../bench/out/attention.json", "../bench/out/convnet_train.json", "/tmp/unseen/gpt2_block.json"} {
		if _, err := os.Stat(p); err != nil {
			t.Logf("%s: not exported here, not checked", p)
			continue
		}
		paths = append(paths, p)
	}
	for _, path := range paths {
		units := loadUnits(t, path)
		for _, u := range units {
			for _, lp := range u.Programs {
				if lp.Memory == nil || u.Failure != nil {
					continue
				}
				checkPlanIsRendered(t, path, u, lp, lp.Memory, render.C)
				// A dialect without an arena allocates every buffer alone
				// (runner/gpu.go plans for it).
				checkPlanIsRendered(t, path, u, lp, render.PlanMemory(lp.Loops, lp.Schedule.Kernels, render.OpenCL), render.OpenCL)
			}
		}
	}
}

// checkPlanIsRendered renders lp with plan in d and compares every plan
// row with the manifest the worker allocates from.
func checkPlanIsRendered(t *testing.T, path string, u *stages.Unit, lp *stages.LoopProgram, plan *sched.MemoryPlan, d render.Dialect) {
	t.Helper()
	src, err := render.Render(lp.Loops, lp.Schedule.Kernels, plan, d, render.Options{Trace: filepath.Base(path), Graph: u.Captured.Name, Role: lp.Role})
	if err != nil {
		t.Fatal(err)
	}
	where := fmt.Sprintf("%s graph %s (%s, %s)", path, u.Captured.Name, lp.Role, d.Name)
	// The storage each allocated buffer lives in, as the worker lays it
	// out (compiler/exec.go): its own slot, or the arena at its offset.
	storage := map[string]string{}
	bytes := map[string]int64{} // storage -> bytes (the largest holder)
	static := true
	for i, b := range src.Manifest.Buffers {
		if b.Kind == "input" || b.Kind == "constant" || b.Kind == compiler.ArenaKind {
			continue
		}
		id := fmt.Sprintf("slot %d", i)
		if b.Arena >= 0 {
			id = fmt.Sprintf("arena+%d", b.Arena)
		}
		storage[b.Name] = id
		n, ok := specBytes(b)
		static = static && ok
		bytes[id] = max(bytes[id], n)
	}
	rows := map[string]sched.BufferLife{}
	for _, row := range plan.Buffers {
		rows[row.Name] = row
	}
	owner := map[string]string{} // storage id -> the plan's Storage of its buffers
	for _, row := range plan.Buffers {
		id, allocated := storage[row.Name]
		status := func() string {
			switch {
			case row.Note != "":
				return "not allocated: " + row.Note
			case !row.Materialized:
				return "not materialized"
			case row.Storage == row.Name:
				return "own storage"
			}
			return row.Reuse + " over " + row.Storage
		}()
		planned := row.Materialized && row.Note == ""
		if planned != allocated {
			t.Errorf("%s: %s (%s) is %q in the memory plan, but the rendered program %s\n%s", where, row.Name, row.Kind, status,
				map[bool]string{true: "allocates it (" + id + ")", false: "gives it no memory"}[allocated], plan.Table())
			continue
		}
		if !allocated {
			continue
		}
		if prev, ok := owner[id]; ok && prev != row.Storage {
			t.Errorf("%s: %s is %q in the memory plan, but the rendered program puts it in %s, %s's storage\n%s", where, row.Name, status, id, prev, plan.Table())
		}
		owner[id] = row.Storage
		if want := storage[row.Storage]; row.Storage != row.Name && want != id {
			t.Errorf("%s: %s is %q in the memory plan, but the rendered program puts it in %s and %s in %s\n%s", where, row.Name, status, id, row.Storage, want, plan.Table())
		}
	}
	for name, id := range storage {
		if _, ok := rows[name]; !ok {
			t.Errorf("%s: the rendered program allocates %s (%s), which the memory plan does not list\n%s", where, name, id, plan.Table())
		}
	}
	if plan.AllocsAfter != len(bytes) {
		t.Errorf("%s: the memory plan makes %d allocations, the rendered program %d\n%s", where, plan.AllocsAfter, len(bytes), plan.Table())
	}
	if !static {
		return // symbolic sizes: the plan's bytes take the symbols' example values
	}
	var total int64
	for _, n := range bytes {
		total += n
	}
	if plan.PeakAfter != total {
		t.Errorf("%s: the memory plan's peak is %d bytes, the rendered program allocates %d (held for the whole call)\n%s", where, plan.PeakAfter, total, plan.Table())
	}
	if plan.PeakAfter > plan.PeakBefore || plan.PeakBefore > plan.PeakUnfused {
		t.Errorf("%s: peaks unfused %d, before %d, after %d: planning raised one\n%s", where, plan.PeakUnfused, plan.PeakBefore, plan.PeakAfter, plan.Table())
	}
}

// specBytes is a manifest buffer's size in bytes when its sizes are
// numbers.
func specBytes(b compiler.BufferSpec) (int64, bool) {
	dt, ok := tensor.ParseDType(b.DType)
	if !ok {
		return 0, false
	}
	n := int64(dt.Size())
	for _, s := range b.Sizes {
		v, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return 0, false
		}
		n *= v
	}
	return n, true
}
