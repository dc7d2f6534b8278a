package compiler

import (
	"runtime"
	"testing"
)

// A choice measured on a busy machine is measured again when the machine
// is quiet; one measured quiet, or read while still busy, is reused; an
// unreadable load keeps the cache as it is.
func TestStaleChoiceUnderLoad(t *testing.T) {
	n := float64(runtime.NumCPU())
	busy, quiet := 2*n, 0.1*n
	for _, c := range []struct {
		at, now float64
		ok      bool
		stale   bool
	}{
		{busy, quiet, true, true},
		{busy, busy, true, false},
		{quiet, quiet, true, false},
		{n, quiet, true, false}, // the measuring worker's own threads: not others' load
		{quiet, busy, true, false},
		{0, quiet, true, false}, // a decision cached before loads were recorded
		{busy, quiet, false, false},
	} {
		if got := staleChoice(c.at, c.now, c.ok); got != c.stale {
			t.Errorf("measured at load %.2f, now %.2f (readable %v): stale %v, want %v", c.at, c.now, c.ok, got, c.stale)
		}
	}
}

// The store drops a decision measured busy when read on a quiet machine,
// and keeps it while the machine is still busy or when it was measured
// quiet.
func TestChoiceStoreRemeasuresBusyChoices(t *testing.T) {
	s := &choiceStore{dir: t.TempDir()}
	n := float64(runtime.NumCPU())
	for _, c := range []struct {
		at, now float64
		hit     bool
	}{{2 * n, 0, false}, {2 * n, 2 * n, true}, {n, 0, true}, {0, 0, true}, {0, n, true}} {
		if err := s.save("k", "syms", Decision{Kernel: "k", Choice: 1, Machine: Machine(), Load: c.at}); err != nil {
			t.Fatal(err)
		}
		restore := SetLoadForTest(c.now, true)
		_, hit := s.load("k", "syms")
		restore()
		if hit != c.hit {
			t.Errorf("measured at load %.0f, read at %.0f: cache hit %v, want %v", c.at, c.now, hit, c.hit)
		}
	}
}
