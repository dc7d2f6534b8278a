package watch

import (
	"context"
	"path/filepath"
	"runtime"
	"testing"
	"time"
)

// heapAfterGC is the live heap, in bytes, after a full collection.
func heapAfterGC() uint64 {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// Watch mode keeps only the last good compile: over 1,000 recompiles of an
// edited file the live heap stays flat (nothing is kept per compile in a
// global table keyed by graph, as the functional stage's write-backs once
// were). The compiles run the whole pipeline (every stage, C source
// included) as the watcher's worker does, without the file-event delay.
func TestMemoryFlatOverAThousandRecompiles(t *testing.T) {
	if testing.Short() {
		t.Skip("1,000 compiles")
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "g.py")
	save(t, path, graph(1))
	w := &Watcher{opt: Options{Load: load, Trace: path}, path: path, results: make(chan Result, 4), done: make(chan struct{})}
	drained := make(chan struct{})
	compiles := 0
	go func() {
		defer close(drained)
		for r := range w.results {
			if r.Err != nil {
				t.Errorf("compile %d: %v", r.Seq, r.Err)
			}
			compiles++
		}
	}()
	var base uint64
	const n, warm = 1000, 100
	for i := 1; i <= n; i++ {
		save(t, path, graph(i))
		w.compile(context.Background(), time.Now())
		if i == warm {
			base = heapAfterGC()
		}
	}
	end := heapAfterGC()
	close(w.results)
	<-drained
	if compiles != n {
		t.Fatalf("%d compiles, want %d", compiles, n)
	}
	// 900 compiles after the warm-up: a leak of one graph per compile
	// would be megabytes; allow 1 MiB of noise.
	growth := int64(end) - int64(base)
	t.Logf("live heap after %d compiles: %d bytes; after %d: %d bytes (%+d)", warm, base, n, end, growth)
	if growth > 1<<20 {
		t.Errorf("the live heap grew by %d bytes over %d recompiles", growth, n-warm)
	}
}
