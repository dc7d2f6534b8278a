package compiler

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
	"unsafe"

	"gcdbg/tensor"
)

// Exec runs a compiled program: the worker runs its segments of compiled
// kernels, the parent runs its fallback nodes with the eager interpreter,
// both on buffers in one shared memory file laid out per Manifest.Buffers.

// ExecOptions tune Exec.
type ExecOptions struct {
	Runs    int           // repetitions of the whole program (timings per run); default 1
	Timeout time.Duration // limit for one segment call; default 60s
	// NoKernelTimes skips the per-kernel timing pass: only the whole
	// program's Seconds are measured (KernelSeconds stays empty).
	NoKernelTimes bool
	// Autotune decides the choice of every kernel with alternatives before
	// the timed runs: from the choice cache, else by timing each candidate
	// (autotune.go). Off, every kernel runs its default (choice 0).
	Autotune bool
	// CacheDir is the cache root for the choice cache ("" = CacheRoot's default).
	CacheDir string
}

// ExecResult is what a program computed and how long it took.
type ExecResult struct {
	Outputs []*tensor.Tensor // in Manifest.Outputs order (nil for a slot -1)
	// Seconds is each run's wall time of all steps (segment calls,
	// fallbacks, the pipe round trips), inputs copied in excluded.
	Seconds []float64
	// KernelSeconds[r][k] is kernel k's (KernelSpec.Index) time in run r.
	KernelSeconds [][]float64
	// FallbackSeconds is each run's time in fallback nodes.
	FallbackSeconds []float64
	// OutsideSeconds is, for each run with kernel times, its wall time
	// outside the kernels and the fallbacks: the wrapper's own code and the
	// parent-worker round trip of every segment.
	OutsideSeconds []float64
	// Choices are the decisions of the kernels with alternatives (Autotune).
	Choices []Decision
}

// ExecError is a failure inside a compiled kernel: a crash or a time limit.
type ExecError struct {
	Kernel *KernelSpec // nil when no kernel had started
	Entry  string
	Why    string
	Stderr string // the worker's last output
}

func (e *ExecError) Error() string {
	if e.Kernel == nil {
		return fmt.Sprintf("segment %s: %s (before any kernel started)", e.Entry, e.Why)
	}
	return fmt.Sprintf("kernel %s: %s", DescribeKernel(e.Kernel, e.Entry), e.Why)
}

// DescribeKernel names a kernel with its provenance: what the user wrote
// and where the generated source is.
func DescribeKernel(k *KernelSpec, entry string) string {
	s := fmt.Sprintf("%d %s (%s", k.Index, k.Name, k.Kind)
	if entry != "" {
		s += " in " + entry
	}
	if k.Line > 0 {
		s += fmt.Sprintf(", generated source line %d", k.Line)
	}
	if len(k.Origins) > 0 {
		s += ", nodes " + strings.Join(k.Origins, ", ")
	}
	s += ")"
	if len(k.Stack) > 0 {
		s += "; user source: " + strings.Join(k.Stack, " | ")
	}
	return s
}

// Exec runs m (its library at lib) on inputs, keyed by each input or
// constant slot's Target (or Name when it has none).
func Exec(lib string, m *Manifest, inputs map[string]*tensor.Tensor, opt ExecOptions) (*ExecResult, error) {
	if opt.Runs <= 0 {
		opt.Runs = 1
	}
	if opt.Timeout <= 0 {
		opt.Timeout = 60 * time.Second
	}
	if abs, err := filepath.Abs(lib); err == nil {
		lib = abs
	}
	lay, err := planLayout(m, inputs)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", m.where(), err)
	}
	sh, err := newShared(lay.size)
	if err != nil {
		return nil, err
	}
	defer sh.close()
	// One execution at a time per process: an attached worker reads no
	// pipe requests until it is detached.
	execMu.Lock()
	defer execMu.Unlock()
	x := &execution{m: m, lib: lib, lay: lay, sh: sh, opt: opt}
	if x.bell, err = x.attach(); err != nil {
		var d *workerDeath
		if errors.As(err, &d) {
			err = &ExecError{Entry: "attach", Why: d.why, Stderr: d.stderr}
		}
		return nil, fmt.Errorf("%s: %w", m.where(), err)
	}
	if x.bell != nil {
		// Both sides have the file mapped: its name is no longer needed.
		sh.unlink()
	}
	res, err := x.run(inputs)
	if x.bell != nil && WorkerPID() == x.bell.w.cmd.Process.Pid {
		x.bell.detach(x)
	}
	// The worker lets go of the file before it is removed (a dead worker
	// already has).
	if WorkerPID() != 0 {
		_, _ = call(&request{Op: "release"}, opt.Timeout)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", m.where(), err)
	}
	return res, nil
}

func (m *Manifest) where() string {
	s := "compiled program"
	if m.Graph != "" {
		s += fmt.Sprintf(" of graph %q", m.Graph)
	}
	if m.Role != "" {
		s += " (" + m.Role + ")"
	}
	return s
}

type execution struct {
	m    *Manifest
	lib  string
	lay  *memLayout
	sh   *shared
	opt  ExecOptions
	bell *bell // the attached worker (doorbell.go), nil for the pipe protocol
	// kernelTimes: the current run records each kernel's time (the entry
	// gets kernel_seconds; otherwise NULL and the kernels' clocks are off).
	kernelTimes bool
}

var execMu sync.Mutex

// run times the program: opt.Runs runs with the kernels' clocks off (the
// whole program's Seconds), then, unless NoKernelTimes, as many runs with
// each kernel timed (KernelSeconds). The inputs are copied in once: no
// compiled kernel or fallback writes an input or constant slot (each node
// writes buffers of its own; checked after the runs), so back-to-back runs
// keep the worker spinning instead of letting it fall asleep while the
// parent refills megabytes of weights.
func (x *execution) run(inputs map[string]*tensor.Tensor) (*ExecResult, error) {
	res := &ExecResult{}
	if err := x.fillInputs(inputs); err != nil {
		return nil, err
	}
	defer quietHeap()()
	if x.opt.Autotune || ForcedChoice() >= 0 {
		ds, err := x.autotune()
		if err != nil {
			return nil, err
		}
		res.Choices = ds
	}
	passes := []bool{false}
	if !x.opt.NoKernelTimes {
		passes = append(passes, true)
	}
	for _, timed := range passes {
		x.kernelTimes = timed
		// Run -1 is an untimed warm-up: the first touch of every shared
		// page (page faults), the OpenMP and OpenBLAS thread pools'
		// start and the instruction cache stay out of the timed runs,
		// as they are out of PyTorch's warm timings (bench_eager.py).
		if !timed {
			if err := x.warmUp(); err != nil {
				return nil, err
			}
		}
		for r := 0; r < x.opt.Runs; r++ {
			ks := x.sh.float64s(x.lay.seconds, x.lay.nKernels)
			clear(ks)
			secs, fallback, err := x.once()
			if err != nil {
				return nil, err
			}
			if timed {
				res.KernelSeconds = append(res.KernelSeconds, append([]float64(nil), ks...))
				in := fallback
				for _, k := range ks {
					in += k
				}
				res.OutsideSeconds = append(res.OutsideSeconds, max(0, secs-in))
				continue
			}
			res.Seconds = append(res.Seconds, secs)
			res.FallbackSeconds = append(res.FallbackSeconds, fallback)
		}
	}
	if err := x.checkInputs(inputs); err != nil {
		return nil, err
	}
	outs, err := x.readOutputs()
	if err != nil {
		return nil, err
	}
	res.Outputs = outs
	return res, nil
}

// warmUp runs the program untimed: once, then again until warmUpTime has
// passed (at most warmUpMax runs). One run was the warm-up until
// 2026-11-27; on this VM the next runs were then often twice as slow as
// the later ones for minutes at a time (softmax_rows: 2.2-2.3 ms per run
// against 1.17 ms for its one kernel in the per-kernel pass right after;
// `gcdbg run` 1.74, 1.31, 1.22 ms in three calls), as if memory the run
// touches had to be brought back first. PyTorch's side gets its own warm
// calls (bench_eager.py).
func (x *execution) warmUp() error {
	t0 := time.Now()
	for i := 0; i < warmUpMax; i++ {
		if _, _, err := x.once(); err != nil {
			return err
		}
		if time.Since(t0) >= warmUpTime {
			break
		}
	}
	return nil
}

const (
	warmUpTime = 50 * time.Millisecond
	warmUpMax  = 100
)

// quietHeap keeps the Go collector out of the timed runs, and returns
// what restores it. The parent waits for each segment in a futex, so its
// scheduler counts the CPU as idle and lends it to a mark phase's idle
// workers, beside the worker's OpenMP threads on a 2-CPU machine: in
// softmax_rows' bench a cycle ran inside the timed runs (3 ms, its idle
// workers 1 ms of CPU), begun by the eager interpreter's float64 heap
// (400 MB). So the heap is collected first (a cycle in progress finishes)
// and none starts during the runs unless the heap grows 1 GiB (a fallback
// step's interpreter allocates; the memory limit still bounds it).
func quietHeap() func() {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	pct := debug.SetGCPercent(-1)
	limit := debug.SetMemoryLimit(int64(ms.HeapAlloc) + 1<<30)
	return func() {
		debug.SetGCPercent(pct)
		debug.SetMemoryLimit(limit)
	}
}

// once runs every step of the program one time: its wall time and the
// part spent in fallbacks.
func (x *execution) once() (float64, float64, error) {
	var fallback time.Duration
	t0 := time.Now()
	for i := range x.m.Steps {
		st := &x.m.Steps[i]
		switch st.Kind {
		case "segment":
			if err := x.segment(st); err != nil {
				return 0, 0, err
			}
		case "fallback":
			f0 := time.Now()
			if err := x.fallback(st); err != nil {
				return 0, 0, fmt.Errorf("step %d: fallback %s (%s): %w", i, st.Op, st.IRNode, err)
			}
			fallback += time.Since(f0)
		default:
			return 0, 0, fmt.Errorf("step %d: unknown kind %q (want segment or fallback)", i, st.Kind)
		}
	}
	return time.Since(t0).Seconds(), fallback.Seconds(), nil
}

// checkInputs verifies, after the runs, that every input and constant slot
// still holds what was copied in: a program that wrote one would have
// computed its later runs from changed inputs.
func (x *execution) checkInputs(inputs map[string]*tensor.Tensor) error {
	for i, b := range x.m.Buffers {
		if b.Kind != "input" && b.Kind != "constant" {
			continue
		}
		if !bytes.Equal(x.sh.slot(x.lay, i), inputs[b.key()].Bytes()) {
			return fmt.Errorf("buffer %q (slot %d, %s): overwritten by the program; inputs must stay read-only", b.Name, i, b.Kind)
		}
	}
	return nil
}

func (x *execution) segment(st *Step) error {
	cur := x.sh.int32At(x.lay.current)
	*cur = -1
	if x.bell != nil {
		if err := x.bell.ring(x, st.Entry); err != nil {
			var d *workerDeath
			if !errors.As(err, &d) {
				return fmt.Errorf("segment %s: %w", st.Entry, err)
			}
			return &ExecError{Kernel: kernelByIndex(st, int(*cur)), Entry: st.Entry, Why: d.why, Stderr: d.stderr}
		}
		return nil
	}
	req := &request{Op: "run", Library: x.lib, Entry: st.Entry, Shm: x.sh.path, Size: x.lay.size, Layout: x.lay.wire,
		NoTimes: !x.kernelTimes}
	rep, err := call(req, x.opt.Timeout)
	if err != nil {
		var d *workerDeath
		if !errors.As(err, &d) {
			return fmt.Errorf("segment %s: %w", st.Entry, err)
		}
		return &ExecError{Kernel: kernelByIndex(st, int(*cur)), Entry: st.Entry, Why: d.why, Stderr: d.stderr}
	}
	if !rep.OK {
		return fmt.Errorf("segment %s: %s", st.Entry, rep.Error)
	}
	// Both sides have the file mapped now: its name is no longer needed,
	// and without one nothing can leak even if this process is killed.
	// The worker keeps its mapping for the following calls (same path).
	x.sh.unlink()
	return nil
}

func kernelByIndex(st *Step, idx int) *KernelSpec {
	for i := range st.Kernels {
		if st.Kernels[i].Index == idx {
			return &st.Kernels[i]
		}
	}
	return nil
}

// fillInputs copies every input and constant into its slot.
func (x *execution) fillInputs(inputs map[string]*tensor.Tensor) error {
	syms := x.sh.int64s(x.lay.wire.Syms, len(x.m.Symbols))
	for i, s := range x.m.Symbols {
		syms[i] = x.lay.syms[s]
	}
	for i, b := range x.m.Buffers {
		if b.Kind != "input" && b.Kind != "constant" {
			continue
		}
		t := inputs[b.key()]
		data := t.Bytes()
		if int64(len(data)) != x.lay.bytes[i] {
			return fmt.Errorf("buffer %q (slot %d): %d bytes of data for a %d-byte slot", b.Name, i, len(data), x.lay.bytes[i])
		}
		copy(x.sh.slot(x.lay, i), data)
	}
	return nil
}

func (b *BufferSpec) key() string {
	if b.Target != "" {
		return b.Target
	}
	return b.Name
}

func (x *execution) readOutputs() ([]*tensor.Tensor, error) {
	outs := make([]*tensor.Tensor, len(x.m.Outputs))
	for i, s := range x.m.Outputs {
		if s < 0 {
			continue
		}
		t, err := x.view(s)
		if err != nil {
			return nil, fmt.Errorf("output %d: %w", i, err)
		}
		outs[i] = t
	}
	return outs, nil
}

// view copies slot s out of the shared memory as a contiguous tensor.
func (x *execution) view(s int) (*tensor.Tensor, error) {
	b := &x.m.Buffers[s]
	t, err := tensor.FromBytes(x.lay.dtypes[s], x.lay.shapes[s], x.sh.slot(x.lay, s))
	if err != nil {
		return nil, fmt.Errorf("buffer %q (slot %d): %w", b.Name, s, err)
	}
	return t, nil
}

// shared is the memory file both processes map: in a private directory
// (mode 0700), on tmpfs when /dev/shm exists, removed when Exec returns.
type shared struct {
	dir, path string
	mem       []byte
}

func newShared(size int64) (*shared, error) {
	base := ""
	if st, err := os.Stat("/dev/shm"); err == nil && st.IsDir() {
		base = "/dev/shm"
	}
	sweepShared(base)
	// The directory names the parent's pid, so that a later run can
	// remove what a killed parent left behind (sweepShared).
	prefix := fmt.Sprintf("%s%d-", shmPrefix, os.Getpid())
	dir, err := os.MkdirTemp(base, prefix)
	if err != nil {
		if dir, err = os.MkdirTemp("", prefix); err != nil {
			return nil, fmt.Errorf("shared memory: %w", err)
		}
	}
	sh := &shared{dir: dir, path: filepath.Join(dir, "buffers")}
	track(sh)
	f, err := os.OpenFile(sh.path, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0600)
	if err == nil {
		err = f.Truncate(size)
		if err == nil {
			sh.mem, err = syscall.Mmap(int(f.Fd()), 0, int(size), syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_SHARED)
		}
		f.Close()
	}
	if err != nil {
		sh.close()
		return nil, fmt.Errorf("shared memory of %d bytes: %w", size, err)
	}
	return sh, nil
}

func (sh *shared) close() {
	if sh.mem != nil {
		_ = syscall.Munmap(sh.mem)
		sh.mem = nil
	}
	sh.unlink()
	untrack(sh)
}

func (sh *shared) slot(l *memLayout, i int) []byte {
	off := l.wire.Bufs[i]
	return sh.mem[off : off+l.bytes[i]]
}

func (sh *shared) int32At(off int64) *int32 { return (*int32)(unsafe.Pointer(&sh.mem[off])) }

func (sh *shared) float64s(off int64, n int) []float64 {
	if n == 0 {
		return nil
	}
	return unsafe.Slice((*float64)(unsafe.Pointer(&sh.mem[off])), n)
}

func (sh *shared) int32s(off int64, n int) []int32 {
	if n == 0 {
		return nil
	}
	return unsafe.Slice((*int32)(unsafe.Pointer(&sh.mem[off])), n)
}

func (sh *shared) int64s(off int64, n int) []int64 {
	if n == 0 {
		return nil
	}
	return unsafe.Slice((*int64)(unsafe.Pointer(&sh.mem[off])), n)
}

// memLayout places the ABI's arguments and every buffer slot in the file:
// current_kernel, kernel_seconds, syms and the bufs table first, then the
// arena the memory plan shares between intermediates, then the slots with
// their own allocation, each 64-byte aligned.
type memLayout struct {
	wire     layout
	size     int64
	nKernels int
	current  int64
	seconds  int64
	bytes    []int64
	dtypes   []tensor.DType
	shapes   [][]int
	syms     map[string]int64
	pending  []boundDim // input dims that are expressions (bind, check)
}

const align = 64

func up(n int64) int64 { return (n + align - 1) / align * align }

func planLayout(m *Manifest, inputs map[string]*tensor.Tensor) (*memLayout, error) {
	l := &memLayout{syms: map[string]int64{}}
	nb := len(m.Buffers)
	l.bytes, l.dtypes, l.shapes = make([]int64, nb), make([]tensor.DType, nb), make([][]int, nb)
	for i := range m.Buffers {
		b := &m.Buffers[i]
		dt, ok := tensor.ParseDType(b.DType)
		if !ok || dt.Size() == 0 {
			return nil, fmt.Errorf("buffer %q (slot %d): dtype %q is not a tensor dtype", b.Name, i, b.DType)
		}
		l.dtypes[i] = dt
		if b.Kind == "input" || b.Kind == "constant" {
			t := inputs[b.key()]
			if t == nil {
				return nil, fmt.Errorf("buffer %q (slot %d, %s): no tensor given for %q", b.Name, i, b.Kind, b.key())
			}
			if t.DType != dt {
				return nil, fmt.Errorf("buffer %q (slot %d): given a %s tensor, the program takes %s", b.Name, i, t.DType, dt)
			}
			if err := l.bind(b, t.Shape); err != nil {
				return nil, fmt.Errorf("buffer %q (slot %d): %w", b.Name, i, err)
			}
		}
	}
	if err := l.check(); err != nil {
		return nil, err
	}
	for i := range m.Buffers {
		b := &m.Buffers[i]
		shape, err := l.resolve(b.Sizes)
		if err != nil {
			return nil, fmt.Errorf("buffer %q (slot %d): %w", b.Name, i, err)
		}
		l.shapes[i] = shape
		l.bytes[i] = int64(tensor.Numel(shape) * l.dtypes[i].Size())
	}
	for _, st := range m.Steps {
		for _, k := range st.Kernels {
			if k.Index < 0 || k.Index > 1<<20 {
				return nil, fmt.Errorf("kernel %s: index %d out of range", k.Name, k.Index)
			}
			l.nKernels = max(l.nKernels, k.Index+1)
		}
	}
	for _, s := range m.Symbols {
		if _, ok := l.syms[s]; !ok {
			return nil, fmt.Errorf("symbol %s: no input's shape gives its value", s)
		}
	}
	for _, s := range m.Outputs {
		if s >= nb {
			return nil, fmt.Errorf("outputs: slot %d of %d", s, nb)
		}
	}
	l.current = 0
	l.seconds = align
	l.wire.Current, l.wire.Seconds = l.current, l.seconds
	l.wire.Choices = up(l.seconds + 8*int64(l.nKernels))
	l.wire.Syms = up(l.wire.Choices + 4*int64(l.nKernels))
	l.wire.Table = up(l.wire.Syms + 8*int64(len(m.Symbols)))
	// The arena slot (ArenaKind), when there is one, starts the arena:
	// generated code addresses an arena-resident intermediate as
	// bufs[arena] + offset, and the parent (fallbacks, outputs) must see
	// the same bytes, so both resolve to the arena base plus b.Arena.
	arena := up(l.wire.Table + 8*int64(nb))
	end := arena
	for i, b := range m.Buffers {
		switch {
		case b.Kind == ArenaKind:
			end = max(end, up(arena+l.bytes[i]))
		case b.Arena >= 0 && b.Kind == "intermediate":
			if b.Arena > 1<<40 {
				return nil, fmt.Errorf("buffer %q (slot %d): arena offset %d out of range", b.Name, i, b.Arena)
			}
			end = max(end, up(arena+b.Arena+l.bytes[i]))
		}
	}
	l.wire.Bufs = make([]int64, nb)
	for i, b := range m.Buffers {
		switch {
		case b.Kind == ArenaKind:
			l.wire.Bufs[i] = arena
			l.bytes[i] = end - arena
			l.shapes[i] = []int{int(end - arena)}
			continue
		case b.Arena >= 0 && b.Kind == "intermediate":
			l.wire.Bufs[i] = arena + b.Arena
			continue
		}
		l.wire.Bufs[i] = end
		end = up(end + max(l.bytes[i], 1))
	}
	l.size = end
	return l, nil
}

// bind learns symbol values from an input's actual shape: a dim whose
// size is a bare symbol (ks0) gives the symbol its value; an int must
// match; a dim that is an expression (8*ks0) is checked later by check,
// once every input has been bound (the symbol may come from a later one).
func (l *memLayout) bind(b *BufferSpec, shape []int) error {
	if len(shape) != len(b.Sizes) {
		return fmt.Errorf("given shape %v, the program takes %d dims %v", shape, len(b.Sizes), b.Sizes)
	}
	for d, s := range b.Sizes {
		if n, err := strconv.ParseInt(s, 10, 64); err == nil {
			if n != int64(shape[d]) {
				return fmt.Errorf("given shape %v, the program was compiled for %v", shape, b.Sizes)
			}
			continue
		}
		if !isSymbol(s) {
			l.pending = append(l.pending, boundDim{buf: b.Name, dim: d, size: s, got: int64(shape[d]), shape: shape})
			continue
		}
		if v, ok := l.syms[s]; ok && v != int64(shape[d]) {
			return fmt.Errorf("dim %d: %s is %d here but %d in another input", d, s, shape[d], v)
		}
		l.syms[s] = int64(shape[d])
	}
	return nil
}

// boundDim is an input dim whose size is an expression of the symbols.
type boundDim struct {
	buf   string
	dim   int
	size  string
	got   int64
	shape []int
}

// check verifies every input dim that is an expression against the
// symbols the bare dims bound. A symbol no bare dim gives is solved from
// a dim that is affine in it alone (2*ks0 + 1 = 9 gives ks0 = 4).
func (l *memLayout) check() error {
	for progress := true; progress; {
		progress = false
		for _, p := range l.pending {
			if sym, v, ok := l.solve(p.size, p.got); ok {
				l.syms[sym] = v
				progress = true
			}
		}
	}
	for _, p := range l.pending {
		want, err := EvalSize(p.size, l.syms)
		if err != nil {
			return fmt.Errorf("input buffer %q dim %d: given shape %v, %s = %d gives no value to its symbols (no input dim is the symbol alone): %w", p.buf, p.dim, p.shape, p.size, p.got, err)
		}
		if want != p.got {
			return fmt.Errorf("input buffer %q dim %d: given shape %v, the program takes %s = %d there (%s)", p.buf, p.dim, p.shape, p.size, want, l.symText())
		}
	}
	return nil
}

// solve finds the value of the one unbound symbol in size when size is
// affine in it: evaluated at 0, 1 and 2 it must step evenly.
func (l *memLayout) solve(size string, got int64) (string, int64, bool) {
	var free string
	for _, w := range symbolsIn(size) {
		if _, ok := l.syms[w]; !ok {
			if free != "" && free != w {
				return "", 0, false
			}
			free = w
		}
	}
	if free == "" {
		return "", 0, false
	}
	at := func(v int64) (int64, bool) {
		l.syms[free] = v
		r, err := EvalSize(size, l.syms)
		delete(l.syms, free)
		return r, err == nil
	}
	f0, ok0 := at(0)
	f1, ok1 := at(1)
	f2, ok2 := at(2)
	a := f1 - f0
	if !ok0 || !ok1 || !ok2 || a == 0 || f2-f1 != a || (got-f0)%a != 0 {
		return "", 0, false
	}
	return free, (got - f0) / a, true
}

func (l *memLayout) symText() string {
	names := make([]string, 0, len(l.syms))
	for s := range l.syms {
		names = append(names, s)
	}
	sort.Strings(names)
	for i, s := range names {
		names[i] = fmt.Sprintf("%s = %d", s, l.syms[s])
	}
	return strings.Join(names, ", ")
}

// isSymbol reports whether a manifest size is one symbol's name.
func isSymbol(s string) bool {
	w := symbolsIn(s)
	return len(w) == 1 && w[0] == s
}

// symbolsIn lists the symbol names in a size expression.
func symbolsIn(s string) []string {
	var out []string
	for _, w := range strings.FieldsFunc(s, func(r rune) bool {
		return !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9')
	}) {
		if w[0] < '0' || w[0] > '9' { // not an integer
			out = append(out, w)
		}
	}
	return out
}

// resolve evaluates a buffer's sizes (ints or expressions of the bound
// symbols) to a shape.
func (l *memLayout) resolve(sizes []string) ([]int, error) {
	shape := make([]int, len(sizes))
	for d, s := range sizes {
		n, err := EvalSize(s, l.syms)
		if err != nil {
			return nil, fmt.Errorf("dim %d: %w", d, err)
		}
		if n < 0 || n > 1<<40 {
			return nil, fmt.Errorf("dim %d: size %s = %d out of range", d, s, n)
		}
		shape[d] = int(n)
	}
	if tensor.Numel(shape) > 1<<36 {
		return nil, fmt.Errorf("shape %v is too large", shape)
	}
	return shape, nil
}

// BestKernelSeconds is kernel k's shortest time over the runs (0: none
// timed): a roof's measurement (Triad, SgemmPeak), as STREAM reports its
// best — other processes on a shared machine only slow a run.
func (r *ExecResult) BestKernelSeconds(k int) float64 {
	best := 0.0
	for _, run := range r.KernelSeconds {
		if k < len(run) && run[k] > 0 && (best == 0 || run[k] < best) {
			best = run[k]
		}
	}
	return best
}

// MedianKernelSeconds is each kernel's median over the runs.
func (r *ExecResult) MedianKernelSeconds() []float64 {
	if len(r.KernelSeconds) == 0 {
		return nil
	}
	out := make([]float64, len(r.KernelSeconds[0]))
	for k := range out {
		col := make([]float64, len(r.KernelSeconds))
		for i, run := range r.KernelSeconds {
			col[i] = run[k]
		}
		out[k] = Median(col)
	}
	return out
}

// Median of xs (0 for none).
func Median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	return s[len(s)/2]
}
