package compiler

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"runtime"
	"syscall"
	"time"
	"unsafe"

	"github.com/ebitengine/purego"
)

// The worker is gcdbg re-executed as `gcdbg __worker`: it loads compiled
// libraries and calls their entry points on memory shared with the parent.
// Generated code may crash or hang; in a separate process that costs only
// the worker, and the parent reports which kernel was running (it reads
// current_kernel from the shared memory, which outlives the worker).
//
// Protocol: one JSON request per line on stdin, one JSON reply per line on
// stdout. EOF on stdin ends the worker.

// WorkerEnv is set in a worker's environment so that test binaries (whose
// TestMain calls ServeIfWorker) can act as the worker too.
const WorkerEnv = "GCDBG_WORKER"

// request asks the worker to run one entry point.
type request struct {
	Op      string   `json:"op"` // "run", "attach" (doorbell.go) or "release"
	Library string   `json:"library,omitempty"`
	Entry   string   `json:"entry,omitempty"`
	Entries []string `json:"entries,omitempty"` // attach: the entries the doorbell runs, by index
	Shm     string   `json:"shm,omitempty"`
	Size    int64    `json:"size,omitempty"`
	Layout  layout   `json:"layout"`
	NoTimes bool     `json:"no_times,omitempty"` // run: pass NULL for kernel_seconds
}

// layout says where the entry's arguments live in the shared memory (byte
// offsets). The worker builds the bufs pointer table itself because its
// mapping has its own addresses.
type layout struct {
	Table   int64   `json:"table"`   // bufs: one pointer per slot
	Syms    int64   `json:"syms"`    // int64 per symbol
	Seconds int64   `json:"seconds"` // double per kernel
	Current int64   `json:"current"` // int32 current_kernel
	Choices int64   `json:"choices"` // int32 per kernel: its choice (autotune.go); 0 = none
	Bufs    []int64 `json:"bufs"`    // each slot's offset
}

type reply struct {
	OK      bool    `json:"ok"`
	Error   string  `json:"error,omitempty"`
	Seconds float64 `json:"seconds,omitempty"` // wall time of the call
}

// ServeIfWorker turns the current process into a worker when WorkerEnv is
// set, and exits; a test binary's TestMain calls it first.
func ServeIfWorker() {
	if os.Getenv(WorkerEnv) == "" {
		return
	}
	os.Exit(WorkerMain(os.Stdin, os.Stdout))
}

// WorkerMain serves requests until in ends. It returns the exit status.
func WorkerMain(in io.Reader, out io.Writer) int {
	// OpenMP keeps its thread pool per calling thread: calling every
	// kernel from one OS thread lets the pool be reused between calls.
	runtime.LockOSThread()
	w := &workerState{libs: map[string]uintptr{}, syms: map[string]uintptr{}}
	defer w.unmap()
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 1<<16), 1<<26)
	enc := json.NewEncoder(out)
	for sc.Scan() {
		var req request
		var rep reply
		if err := json.Unmarshal(sc.Bytes(), &req); err != nil {
			rep.Error = "bad request: " + err.Error()
		} else if secs, err := w.serve(&req); err != nil {
			rep.Error = err.Error()
		} else {
			rep.OK, rep.Seconds = true, secs
		}
		if err := enc.Encode(&rep); err != nil {
			return 1
		}
		if rep.OK && req.Op == "attach" {
			// Until the parent detaches, requests come by the doorbell.
			w.serveBell(w.bell, req.Layout)
		}
	}
	return 0
}

type workerState struct {
	libs map[string]uintptr // dlopen handles by path
	syms map[string]uintptr // entry points by path + "\x00" + name
	shm  string
	mem  []byte
	bell []uintptr // the attached entries
}

func (w *workerState) serve(req *request) (float64, error) {
	switch req.Op {
	case "release":
		w.unmap()
		return 0, nil
	case "run", "attach":
	default:
		return 0, fmt.Errorf("unknown op %q", req.Op)
	}
	names := req.Entries
	if req.Op == "run" {
		names = []string{req.Entry}
	}
	fns := make([]uintptr, len(names))
	for i, name := range names {
		fn, err := w.entry(req.Library, name)
		if err != nil {
			return 0, err
		}
		fns[i] = fn
	}
	if err := w.mapShm(req.Shm, req.Size); err != nil {
		return 0, err
	}
	l := req.Layout
	n := int64(len(w.mem))
	for _, off := range []int64{l.Table + 8*int64(len(l.Bufs)), l.Syms, l.Seconds, l.Current + 4} {
		if off < 0 || off > n {
			return 0, fmt.Errorf("layout offset %d outside the %d-byte shared memory", off, n)
		}
	}
	base := uintptr(unsafe.Pointer(&w.mem[0]))
	for i, off := range l.Bufs {
		if off < 0 || off > n {
			return 0, fmt.Errorf("buffer slot %d: offset %d outside the %d-byte shared memory", i, off, n)
		}
		*(*uintptr)(unsafe.Pointer(&w.mem[l.Table+8*int64(i)])) = base + uintptr(off)
	}
	if l.Choices > 0 && l.Choices <= n {
		w.pointChoices(req.Library, base+uintptr(l.Choices))
	}
	if req.Op == "attach" {
		if n < 32 {
			return 0, fmt.Errorf("shared memory of %d bytes has no doorbell", n)
		}
		w.bell = fns
		return 0, nil
	}
	t0 := time.Now()
	callEntry(fns[0], base, l, !req.NoTimes)
	secs := time.Since(t0).Seconds()
	runtime.KeepAlive(w.mem)
	return secs, nil
}

// callEntry calls an entry point with the ABI's four arguments;
// kernel_seconds is NULL unless timed (the kernels' clocks stay off).
func callEntry(fn, base uintptr, l layout, timed bool) {
	secs := uintptr(0)
	if timed {
		secs = base + uintptr(l.Seconds)
	}
	purego.SyscallN(fn, base+uintptr(l.Table), base+uintptr(l.Syms), secs, base+uintptr(l.Current))
}

// entry resolves name in the library at path, loading it once. A library
// is keyed by its path: the builder's cache names each by content hash.
func (w *workerState) entry(path, name string) (uintptr, error) {
	key := path + "\x00" + name
	if fn := w.syms[key]; fn != 0 {
		return fn, nil
	}
	h := w.libs[path]
	if h == 0 {
		var err error
		if h, err = purego.Dlopen(path, purego.RTLD_NOW|purego.RTLD_LOCAL); err != nil {
			return 0, fmt.Errorf("loading %s: %w", path, err)
		}
		w.libs[path] = h
	}
	fn, err := purego.Dlsym(h, name)
	if err != nil {
		return 0, fmt.Errorf("%s: entry point %s: %w", path, name, err)
	}
	w.syms[key] = fn
	return fn, nil
}

// pointChoices points the library's choice words (render/choice.go) at
// the ones in this shared memory, when it has alternatives.
func (w *workerState) pointChoices(path string, at uintptr) {
	h := w.libs[path]
	if h == 0 {
		return
	}
	key := path + "\x00gcdbg_set_choices"
	fn, ok := w.syms[key]
	if !ok {
		fn, _ = purego.Dlsym(h, "gcdbg_set_choices") // 0: a library without alternatives
		w.syms[key] = fn
	}
	if fn != 0 {
		purego.SyscallN(fn, at)
	}
}

func (w *workerState) mapShm(path string, size int64) error {
	if w.shm == path && int64(len(w.mem)) == size {
		return nil
	}
	w.unmap()
	if size <= 0 {
		return fmt.Errorf("shared memory %s: size %d", path, size)
	}
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return fmt.Errorf("shared memory: %w", err)
	}
	defer f.Close()
	// MAP_POPULATE maps every page now, so that the kernels' timed
	// region does not take the worker's first-touch page faults.
	mem, err := syscall.Mmap(int(f.Fd()), 0, int(size), syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_SHARED|syscall.MAP_POPULATE)
	if err != nil {
		return fmt.Errorf("shared memory %s: mmap: %w", path, err)
	}
	w.shm, w.mem = path, mem
	return nil
}

func (w *workerState) unmap() {
	if w.mem != nil {
		_ = syscall.Munmap(w.mem)
	}
	w.shm, w.mem = "", nil
}
