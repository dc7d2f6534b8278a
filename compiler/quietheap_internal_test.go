package compiler

import (
	"runtime"
	"runtime/debug"
	"testing"
)

// The timed runs start with no collection pending or running and none
// starts during them; afterwards the collector is as the caller had it.
func TestQuietHeapHoldsTheCollectorAndRestoresIt(t *testing.T) {
	prev := debug.SetGCPercent(150)
	defer debug.SetGCPercent(prev)
	restore := quietHeap()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	n := ms.NumGC
	var keep [][]byte
	for i := 0; i < 64; i++ { // 64 MB of allocations: several cycles at GOGC=150 on a small heap
		keep = append(keep, make([]byte, 1<<20))
	}
	runtime.ReadMemStats(&ms)
	if got := ms.NumGC; got != n {
		t.Errorf("%d collections ran while the heap was held", got-n)
	}
	restore()
	if got := debug.SetGCPercent(150); got != 150 {
		t.Errorf("GC percent after restore = %d, want 150", got)
	}
	runtime.KeepAlive(keep)
}
