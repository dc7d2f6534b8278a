package compiler

import (
	"sync"
	"time"
)

// Every calls f with the time since it started, every d, until the
// returned function is called (which waits for a call under way): a step
// that takes long says it is still going (progress in build.go, the
// runner's reference runs).
func Every(d time.Duration, f func(elapsed time.Duration)) (stop func()) {
	start := time.Now()
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		tick := time.NewTicker(d)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-tick.C:
				f(time.Since(start))
			}
		}
	}()
	return func() { close(done); wg.Wait() }
}
