package compiler

import (
	"fmt"
	"os"
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"
)

// The doorbell: a low-latency way to run a segment. A JSON request over
// the pipes costs two process wake-ups and two encodings per segment
// (tens of microseconds, more than a small program's kernels); after one
// "attach" request the worker instead waits on words in the shared memory
// — spinning briefly, then sleeping in a futex — and the parent rings it
// by bumping a sequence number. Crashes and time limits are handled as
// before: the parent waits in short futex slices and checks between them
// whether the worker has died or the segment's time is up.
//
// Words in the first 64 bytes of the shared memory (current_kernel is at
// offset 0): the request sequence, the done sequence and the entry index,
// each an int32 (a futex word); the call's flags (bellTimed: pass
// kernel_seconds); and one word per side saying it is asleep in the futex,
// so that the other side makes the wake-up system call only then (a
// futex wake costs a microsecond or two, as much as a small kernel).
// Sequence -1 detaches the worker, which goes back to reading requests
// from its stdin.
const (
	bellReq         = 8
	bellDone        = 16
	bellEntry       = 24
	bellFlags       = 32
	bellParentSleep = 40
	bellWorkerSleep = 48
	bellStop        = -1

	bellTimed = 1
)

const (
	futexWait = 0
	futexWake = 1
)

// futex on a word in a MAP_SHARED mapping: not FUTEX_PRIVATE, so that it
// works between the two processes.
func futex(addr *int32, op int, val int32, timeout time.Duration) {
	var ts *syscall.Timespec
	if op == futexWait && timeout > 0 {
		t := syscall.NsecToTimespec(timeout.Nanoseconds())
		ts = &t
	}
	_, _, _ = syscall.Syscall6(syscall.SYS_FUTEX, uintptr(unsafe.Pointer(addr)), uintptr(op), uintptr(val), uintptr(unsafe.Pointer(ts)), 0, 0)
}

// waitChange waits until *addr != old: spins for spin, then sleeps in the
// futex for at most slice, with *asleep set meanwhile. It returns the new
// value, or old when the slice ran out. (No wake-up is lost: the waker
// stores *addr before it reads *asleep, and the futex sleeps only while
// *addr is still old; Go's atomics are sequentially consistent.)
func waitChange(addr *int32, old int32, spin, slice time.Duration, asleep *int32) int32 {
	deadline := time.Now().Add(spin)
	for i := 0; ; i++ {
		if v := atomic.LoadInt32(addr); v != old {
			return v
		}
		if i&63 == 63 {
			if time.Now().After(deadline) {
				break
			}
			// When the scheduler put both processes on one CPU, spinning
			// only burns the slice the other side needs to answer: yield.
			syscall.Syscall(syscall.SYS_SCHED_YIELD, 0, 0, 0)
		}
	}
	atomic.StoreInt32(asleep, 1)
	futex(addr, futexWait, old, slice)
	atomic.StoreInt32(asleep, 0)
	return atomic.LoadInt32(addr)
}

// wake wakes the other side if it is asleep on addr.
func wake(addr, asleep *int32) {
	if atomic.LoadInt32(asleep) != 0 {
		futex(addr, futexWake, 1, 0)
	}
}

// bell is the parent's side of an attached worker.
type bell struct {
	w       *workerProc
	entries map[string]int32
	seq     int32
}

// attach asks the worker to serve the doorbell for this execution's
// entries; nil (and no error) means the pipe protocol is to be used.
func (x *execution) attach() (*bell, error) {
	var entries []string
	index := map[string]int32{}
	for _, st := range x.m.Steps {
		if st.Kind == "segment" {
			if _, ok := index[st.Entry]; !ok {
				index[st.Entry] = int32(len(entries))
				entries = append(entries, st.Entry)
			}
		}
	}
	// GCDBG_EXEC_PIPE=1 keeps the pipe protocol (to compare the two).
	if len(entries) == 0 || os.Getenv("GCDBG_EXEC_PIPE") != "" {
		return nil, nil
	}
	*x.sh.int32At(bellReq), *x.sh.int32At(bellDone) = 0, 0
	req := &request{Op: "attach", Library: x.lib, Entries: entries, Shm: x.sh.path, Size: x.lay.size, Layout: x.lay.wire}
	rep, w, err := callWorker(req, x.opt.Timeout)
	if err != nil {
		return nil, err
	}
	if !rep.OK {
		return nil, fmt.Errorf("%s", rep.Error)
	}
	return &bell{w: w, entries: index}, nil
}

// ring runs one entry and waits for it: nil, or a *workerDeath.
func (b *bell) ring(x *execution, entry string) error {
	idx, ok := b.entries[entry]
	if !ok {
		return fmt.Errorf("entry %s was not attached", entry)
	}
	b.seq++
	if b.seq == bellStop || b.seq <= 0 {
		b.seq = 1
	}
	atomic.StoreInt32(x.sh.int32At(bellEntry), idx)
	flags := int32(0)
	if x.kernelTimes {
		flags = bellTimed
	}
	atomic.StoreInt32(x.sh.int32At(bellFlags), flags)
	req, done := x.sh.int32At(bellReq), x.sh.int32At(bellDone)
	old := atomic.LoadInt32(done)
	atomic.StoreInt32(req, b.seq)
	wake(req, x.sh.int32At(bellWorkerSleep))
	deadline := time.Now().Add(x.opt.Timeout)
	for {
		if v := waitChange(done, old, 30*time.Microsecond, 5*time.Millisecond, x.sh.int32At(bellParentSleep)); v == b.seq {
			return nil
		} else if v != old {
			old = v
		}
		select {
		case <-b.w.exited:
			return killWorker(b.w, x.opt.Timeout, false)
		default:
		}
		if time.Now().After(deadline) {
			return killWorker(b.w, x.opt.Timeout, true)
		}
	}
}

// detach sends the worker back to its pipe; it does not reply there.
func (b *bell) detach(x *execution) {
	atomic.StoreInt32(x.sh.int32At(bellReq), bellStop)
	wake(x.sh.int32At(bellReq), x.sh.int32At(bellWorkerSleep))
}

// serveBell is the worker's side: run entries as the parent rings, until
// it detaches. fns are the attached entries in order.
func (w *workerState) serveBell(fns []uintptr, l layout) {
	base := uintptr(unsafe.Pointer(&w.mem[0]))
	req := (*int32)(unsafe.Pointer(&w.mem[bellReq]))
	done := (*int32)(unsafe.Pointer(&w.mem[bellDone]))
	entry := (*int32)(unsafe.Pointer(&w.mem[bellEntry]))
	flags := (*int32)(unsafe.Pointer(&w.mem[bellFlags]))
	asleep := (*int32)(unsafe.Pointer(&w.mem[bellWorkerSleep]))
	parentAsleep := (*int32)(unsafe.Pointer(&w.mem[bellParentSleep]))
	// The parent zeroed the sequence before attaching and may ring before
	// this loop starts: start from 0, not from what is there now.
	last := int32(0)
	for {
		v := waitChange(req, last, 200*time.Microsecond, 100*time.Millisecond, asleep)
		if v == last {
			continue
		}
		last = v
		if v == bellStop {
			return
		}
		i := atomic.LoadInt32(entry)
		if i >= 0 && int(i) < len(fns) {
			callEntry(fns[i], base, l, atomic.LoadInt32(flags)&bellTimed != 0)
		}
		atomic.StoreInt32(done, v)
		wake(done, parentAsleep)
	}
}
