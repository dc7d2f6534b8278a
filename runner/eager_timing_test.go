package runner

import (
	"strings"
	"testing"
)

// The eager interpreter is timed Options.Runs times, its native reference
// run counting as the first, until the timings add up to eagerTimingBudget:
// a graph whose eager run is slow is timed by that reference run alone,
// and every view says how many timings its median has (Timing.EagerNote).
func TestEagerTimingStopsAtBudget(t *testing.T) {
	_, units := loadUnits(t, "../fixtures/mlp.json")
	u := units[0]
	fast, err := timeEager(u, 5, 0.001)
	if err != nil {
		t.Fatal(err)
	}
	if fast.EagerRuns != 5 || fast.Runs != 5 || fast.EagerNote() != "" {
		t.Errorf("a fast graph is timed Runs times: %+v, note %q", fast, fast.EagerNote())
	}
	slow, err := timeEager(u, 5, eagerTimingBudget.Seconds()+1)
	if err != nil {
		t.Fatal(err)
	}
	if slow.EagerRuns != 1 || slow.EagerMS != 1000*(eagerTimingBudget.Seconds()+1) {
		t.Errorf("a slow graph is timed by its reference run alone: %+v", slow)
	}
	if note := slow.EagerNote(); !strings.Contains(note, "1 of 5 runs") {
		t.Errorf("the views must say the eager time is one run: %q", note)
	}
}
