package compiler

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// ArenaKind is the Kind of the one buffer slot that holds every static
// intermediate: a slot with Arena >= 0 lives at that byte offset inside
// it (the generated code addresses it there; a fallback step's view of
// such a slot must be resolved the same way).
const ArenaKind = "arena"

// Program is generated source and its manifest, ready to build
// (render.Source.Program makes one).
type Program struct {
	Code     string
	Ext      string // ".c"
	Manifest Manifest
}

// Options configure the C compiler and the cache.
type Options struct {
	CC       string   // compiler; default $CC or "cc"
	Flags    []string // extra flags (tests add -Werror)
	CacheDir string   // default $GCDBG_CACHE_DIR or os.UserCacheDir()/gcdbg
	// VecReport adds -fopt-info-vec-optimized and keeps gcc's report of
	// the loops it vectorized in Artifact.VecReport.
	VecReport bool
	// Timeout bounds one program's compilation; 0: $GCDBG_CC_TIMEOUT (a
	// Go duration such as 90s, or seconds), else DefaultTimeout per
	// linesPerDefault lines of C (at least DefaultTimeout). A compiler
	// still running then is killed with its children and its build
	// directory removed.
	Timeout time.Duration
	// Progress is how often a compilation still running says so through
	// Notify (0: every 10 s).
	Progress time.Duration
	// Notify receives one-line notices: a corrupt cache entry rebuilt, a
	// compilation still running. nil: written to standard error.
	Notify func(msg string)
}

// DefaultTimeout is the compiler timeout when neither Options.Timeout nor
// $GCDBG_CC_TIMEOUT sets one, for a program of up to linesPerDefault
// lines of C; a longer program gets DefaultTimeout per linesPerDefault
// lines. The limit is there to stop a hung compiler, not a large model:
// a bidirectional 2-layer nn.LSTM unrolled over 160 frames (a CTC speech
// model, examples/review3/crnn_ctc.py) is 144k lines, and its backward
// took 293 s of a 2-core machine under load, past a flat 5 minutes.
const DefaultTimeout = 5 * time.Minute

const linesPerDefault = 40000

// timeoutFor is the limit for compiling code: the one set by
// Options.Timeout or $GCDBG_CC_TIMEOUT, else the size-scaled default.
func (o Options) timeoutFor(code string) time.Duration {
	if d, set := o.timeout(); set {
		return d
	}
	if lines := strings.Count(code, "\n") + 1; lines > linesPerDefault {
		return time.Duration(float64(DefaultTimeout) * float64(lines) / linesPerDefault).Round(time.Second)
	}
	return DefaultTimeout
}

// timeout is the limit set by Options.Timeout or $GCDBG_CC_TIMEOUT, and
// whether one was.
func (o Options) timeout() (time.Duration, bool) {
	if o.Timeout > 0 {
		return o.Timeout, true
	}
	if v := strings.TrimSpace(os.Getenv("GCDBG_CC_TIMEOUT")); v != "" {
		if d, err := time.ParseDuration(v); err == nil && d > 0 {
			return d, true
		}
		if n, err := strconv.ParseFloat(v, 64); err == nil && n > 0 {
			return time.Duration(n * float64(time.Second)), true
		}
	}
	return DefaultTimeout, false
}

func (o Options) notify(msg string) {
	if o.Notify != nil {
		o.Notify(msg)
		return
	}
	fmt.Fprintln(os.Stderr, msg)
}

// Artifact is a built program.
type Artifact struct {
	Dir       string // the cache entry
	Library   string // absolute path of the shared object
	Source    string // absolute path of the source it was built from
	Manifest  Manifest
	Hit       bool          // found in the cache, not compiled
	Elapsed   time.Duration // time to compile (or to find it)
	Warnings  string        // the compiler's diagnostics when it succeeded
	VecReport string
	// ObjectsBuilt and ObjectsCached count the objects of the kernel
	// groups (and the entry points' object) compiled or found in the
	// object cache on a miss (objcache.go); both are 0 on a hit or a
	// whole-program build.
	ObjectsBuilt, ObjectsCached int
}

// baseFlags are the flags of every build; the libraries come last.
// -fno-math-errno changes no value (NaN, ±Inf and -0 stay IEEE; only the
// errno side effect goes): without it sqrtf keeps a branch to set errno
// and libm calls count as memory writes, and gcc vectorizes neither loops
// with a sqrt (layer_norm's rsqrt) nor hoists an invariant logf. No
// -ffast-math: it would reorder and drop NaN/Inf handling.
//
// -fno-tree-pre keeps the pointwise loops vectorizable: partial redundancy
// elimination splits a compare of a select's result (a ReLU's value and its
// `gt` mask for the backward) into the select's branches, and gcc's
// if-conversion then gives up ("control flow in loop"), leaving the loop
// scalar with a data-dependent branch (convnet_train's BatchNorm+ReLU
// recompute: 3.4 ms instead of ~0.3). It changes no value.
//
// -fno-thread-jumps does the same for a ReLU6 (clamp: two selects) whose
// recompute stores both masks: jump threading knows the second compare
// false on the path where the first select took 0, duplicates the rest of
// the loop body into the two paths and if-conversion gives up again; on
// random signs each element then pays two mispredicted branches
// (MobileNetV2's backward BN+ReLU6 recompute, [16,16,64,64]: 9.7 ms scalar
// against 0.17 ms vectorized; TestReLU6MasksVectorize). It changes no value.
//
// -fno-trapping-math lets gcc assume no FP operation traps: the kernels
// never unmask FP exceptions nor read the exception flags, so it changes
// no value either (IEEE results, NaN, ±Inf and -0 as before; unlike
// -ffast-math it neither reorders nor assumes finite values). With trapping
// math gcc zero-masked the division of gcdbg_erff/gcdbg_tanhf
// (render/erf_tanh.go) under the saturation compare and computed that
// compare twice (TestErfTanhDivisionUnmasked); the GELU loop of
// gelu_variants took ~7% longer.
var baseFlags = []string{"-O3", "-march=native", "-fno-math-errno", "-fno-trapping-math", "-fno-tree-pre", "-fno-thread-jumps", "-fopenmp", "-fPIC", "-shared", "-Wall"}

// toolchain is what a cc binary contributes to the hash.
type toolchain struct {
	path, version string
	mvec          bool // glibc's libmvec is there: vector sinf/expf
}

var (
	toolMu sync.Mutex
	tools  = map[string]*toolchain{}
)

func lookupCC(cc string) (*toolchain, error) {
	toolMu.Lock()
	defer toolMu.Unlock()
	if t := tools[cc]; t != nil {
		return t, nil
	}
	path, err := exec.LookPath(cc)
	if err != nil {
		return nil, fmt.Errorf("compiler: C compiler %q not found: %w", cc, err)
	}
	out, err := exec.Command(path, "--version").Output()
	if err != nil {
		return nil, fmt.Errorf("compiler: %s --version: %w", path, err)
	}
	t := &toolchain{path: path, version: string(out)}
	if lib, err := exec.Command(path, "-print-file-name=libmvec.so").Output(); err == nil {
		t.mvec = strings.Contains(strings.TrimSpace(string(lib)), "/")
	}
	tools[cc] = t
	return t, nil
}

func (o Options) cc() string {
	if o.CC != "" {
		return o.CC
	}
	if cc := os.Getenv("CC"); cc != "" {
		return cc
	}
	return "cc"
}

// flags lists the full command-line flags (before -o) and libraries.
func (o Options) flags(t *toolchain) (flags, libs []string) {
	flags = append(append([]string{}, baseFlags...), o.Flags...)
	libs = []string{"-ldl", "-lm"}
	if t.mvec {
		flags = append(flags, "-DGCDBG_MVEC")
		libs = append(libs, "-lmvec")
	}
	if o.VecReport {
		flags = append(flags, "-fopt-info-vec-optimized")
	}
	return flags, libs
}

// Build compiles p into the cache (or finds it there). A cached entry is
// used only when its library still hashes to the sum recorded when it was
// built; a corrupt or incomplete entry is rebuilt with a notice
// (integrity.go).
func Build(p Program, opts Options) (*Artifact, error) {
	start := time.Now()
	label := fmt.Sprintf("graph %q (%s)", p.Manifest.Graph, p.Manifest.Role)
	if p.Manifest.Device != "" && p.Manifest.Device != "cpu" {
		return nil, fmt.Errorf("compiler: %s: device %s is not built by cc", label, p.Manifest.Device)
	}
	t, err := lookupCC(opts.cc())
	if err != nil {
		return nil, err
	}
	flags, libs := opts.flags(t)
	hash := contentHash(codeForHash(p.Code), t, flags, libs)
	root, err := cacheRoot(opts.CacheDir)
	if err != nil {
		return nil, err
	}
	man := p.Manifest
	man.Library, man.Hash = "lib.so", hash
	dir := filepath.Join(root, hash)
	art := &Artifact{Dir: dir, Library: filepath.Join(dir, "lib.so"), Source: filepath.Join(dir, "kernel.c"), Manifest: man}
	// One build per entry at a time in this process: identical programs
	// (graphs that differ only in name) compile once and share it.
	defer lockEntry(hash)()
	why, missing := checkEntry(dir)
	if why == "" && !opts.VecReport {
		art.Hit, art.Elapsed = true, time.Since(start)
		return art, nil
	}
	sweepBuilds(root)
	if !missing && why != "" {
		opts.notify(fmt.Sprintf("gcdbg: cache entry %.12s… for %s is damaged (%s): rebuilding it", hash, label, why))
		if err := discard(root, dir); err != nil {
			return nil, fmt.Errorf("compiler: %s: removing the damaged cache entry %s: %w", label, dir, err)
		}
	}
	tmp, err := os.MkdirTemp(root, fmt.Sprintf("%s%d-", buildPrefix, os.Getpid()))
	if err != nil {
		return nil, fmt.Errorf("compiler: %s: %w", label, err)
	}
	defer os.RemoveAll(tmp)
	if err := os.WriteFile(filepath.Join(tmp, "kernel.c"), []byte(p.Code), 0o600); err != nil {
		return nil, fmt.Errorf("compiler: %s: %w", label, err)
	}
	mj, _ := json.MarshalIndent(man, "", "  ")
	if err := os.WriteFile(filepath.Join(tmp, "manifest.json"), mj, 0o600); err != nil {
		return nil, fmt.Errorf("compiler: %s: %w", label, err)
	}
	limit := opts.timeoutFor(p.Code)
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	stopProgress := progress(opts, label, start, limit)
	defer stopProgress()
	timedOut := func(err error) error {
		if ctx.Err() == context.DeadlineExceeded {
			return fmt.Errorf("compiler: %s: the C compiler did not finish within %v and was stopped (GCDBG_CC_TIMEOUT sets the limit)", label, limit)
		}
		return err
	}
	// A vectorization report is of the whole program; anything else is
	// built from one object per group of kernels when the source splits
	// (objcache.go).
	whole := true
	if parts, ok := splitProgram(p); ok && !opts.VecReport {
		w, built, cached, err := buildIncremental(ctx, p, parts, t, flags, libs, root, tmp, label)
		switch {
		case err == nil:
			whole = false
			art.Warnings, art.ObjectsBuilt, art.ObjectsCached = w, built, cached
		case !errors.Is(err, errLink) || ctx.Err() != nil:
			return nil, timedOut(err)
		}
	}
	if whole {
		args := append(append(append([]string{}, flags...), "-o", "lib.so", "kernel.c"), libs...)
		cmd := ccCommand(ctx, t.path, args...)
		cmd.Dir = tmp
		out, err := cmd.CombinedOutput()
		if err != nil {
			return nil, timedOut(fmt.Errorf("compiler: %s: %s %s failed: %w\n%s", label, t.path, strings.Join(args, " "), err, explain(string(out), p)))
		}
		if opts.VecReport {
			art.VecReport = string(out)
		} else {
			art.Warnings = string(out)
		}
	}
	if opts.VecReport && why == "" {
		// A report build of a good cached entry: keep the entry.
		art.Elapsed = time.Since(start)
		return art, nil
	}
	if err := install(root, tmp, dir); err != nil {
		return nil, fmt.Errorf("compiler: %s: installing the cache entry %s: %w", label, dir, err)
	}
	art.Elapsed = time.Since(start)
	return art, nil
}

// progress notifies every opts.Progress while a compilation runs; the
// returned function stops it.
func progress(opts Options, label string, start time.Time, limit time.Duration) func() {
	every := opts.Progress
	if every <= 0 {
		every = 10 * time.Second
	}
	return Every(every, func(time.Duration) {
		opts.notify(fmt.Sprintf("gcdbg: still compiling %s: %.0f s so far (gives up after %v, GCDBG_CC_TIMEOUT)", label, time.Since(start).Seconds(), limit))
	})
}

// ccCommand runs the compiler in its own process group, so that a timeout
// kills cc with the cc1, as and ld it started, not cc alone.
func ccCommand(ctx context.Context, path string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, path, args...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error {
		if cmd.Process == nil {
			return nil
		}
		return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
	cmd.WaitDelay = 5 * time.Second
	return cmd
}

// BuildAll builds programs in parallel, at most runtime.NumCPU() compilers
// at a time; results are in input order.
func BuildAll(ps []Program, opts Options) ([]*Artifact, error) {
	arts := make([]*Artifact, len(ps))
	errs := make([]error, len(ps))
	sem := make(chan struct{}, runtime.NumCPU())
	var wg sync.WaitGroup
	for i := range ps {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			arts[i], errs[i] = Build(ps[i], opts)
		}(i)
	}
	wg.Wait()
	return arts, errors.Join(errs...)
}

var diagRE = regexp.MustCompile(`^kernel\.c:(\d+):(\d+): (error|warning): (.*)$`)

// explain shows the compiler's first error against the generated source:
// the kernel it is in and the offending line with 2 lines of context.
func explain(out string, p Program) string {
	lines := strings.Split(p.Code, "\n")
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		m := diagRE.FindStringSubmatch(sc.Text())
		if m == nil || m[3] != "error" {
			continue
		}
		ln, _ := strconv.Atoi(m[1])
		var b strings.Builder
		fmt.Fprintf(&b, "kernel.c:%s: error: %s\n", m[1], m[4])
		if k := kernelAt(p.Manifest, ln); k != "" {
			fmt.Fprintf(&b, "in generated kernel %s:\n", k)
		}
		for i := max(1, ln-2); i <= min(len(lines), ln+2); i++ {
			mark := "  "
			if i == ln {
				mark = "> "
			}
			fmt.Fprintf(&b, "%s%5d | %s\n", mark, i, lines[i-1])
		}
		b.WriteString("\ncompiler output:\n")
		b.WriteString(out)
		return b.String()
	}
	return out
}

// kernelAt names the kernel whose definition contains source line ln.
func kernelAt(m Manifest, ln int) string {
	best, name := 0, ""
	for _, s := range m.Steps {
		for _, k := range s.Kernels {
			if k.Line <= ln && k.Line > best && k.Shares == "" {
				best, name = k.Line, k.Name
			}
		}
	}
	return name
}
