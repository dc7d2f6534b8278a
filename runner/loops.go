package runner

import "gcdbg/stages"

// LoopStats adds the scheduler's and the memory planner's numbers to a
// graph's "stages" map (shared spec run-json.md): kernels_before_fusion,
// kernels, peak_bytes (after memory planning), plus peak_bytes_unfused
// for comparison, summed (kernels) or maxed (peaks) over the compiled
// graphs: forward and backward for a training graph. Graphs without a
// schedule add nothing.
func LoopStats(u *stages.Unit, m map[string]any) {
	if u == nil || m == nil {
		return
	}
	before, after := 0, 0
	var peak, peakUnfused int64
	for _, lp := range u.Programs {
		if s := lp.Schedule; s != nil {
			before += len(s.Before)
			after += len(s.Kernels)
		}
		if mp := lp.Memory; mp != nil {
			peak = max(peak, mp.PeakAfter)
			peakUnfused = max(peakUnfused, mp.PeakUnfused)
		}
	}
	if len(u.Programs) == 0 {
		return
	}
	m["kernels_before_fusion"] = before
	m["kernels"] = after
	m["peak_bytes"] = peak
	m["peak_bytes_unfused"] = peakUnfused
}
