package compiler

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
)

// Choices by measurement (issue 13, item 3), as Inductor's max-autotune
// does: a kernel whose generated C holds more than one way to compute it
// (render/choice.go: OpenBLAS or the generated GEMM, its parallel loops on
// the OpenMP team or on the calling thread) lists them in
// KernelSpec.Alternatives. Exec, with ExecOptions.Autotune, times every
// candidate in the worker on the run's own buffers (the program's real
// inputs, after one untimed run has filled every intermediate), keeps each
// kernel's fastest, and caches the decision per kernel source, symbol
// values and machine under the build cache's root, so the next run — or
// another program with the same kernel — reuses it without measuring.
// GCDBG_AUTOTUNE=0 turns measurement and cached choices off: every kernel
// runs its default (choice 0), the code gcdbg generated before.

// Alternative is one way a kernel can run: the value its choice word takes
// (render/choice.go's bits) and what that means.
type Alternative struct {
	Choice int32  `json:"choice"`
	Label  string `json:"label"`
}

// Decision is a kernel's chosen alternative and the timings that decided it.
type Decision struct {
	Kernel  string          `json:"kernel"` // the C function
	Index   int             `json:"index"`
	Choice  int32           `json:"choice"`
	Label   string          `json:"label"`
	Times   []CandidateTime `json:"times"`
	Rounds  int             `json:"rounds"`
	Machine string          `json:"machine"`
	Cached  bool            `json:"cached,omitempty"` // reused from the cache, not measured by this run
	// Load is the one-minute load average when it was measured; a choice
	// timed on a busy machine is measured again once the machine is quiet
	// (loadavg.go).
	Load float64 `json:"load,omitempty"`
	// Program is the check of the whole program's configurations
	// (autotune_program.go) that decided Choice; Alone is the kernel's own
	// choice's label where the program runs another.
	Program *ProgramCheck `json:"program,omitempty"`
	Alone   string        `json:"alone,omitempty"`
}

// CandidateTime is one alternative's median time over the rounds it ran
// (Pruned: dropped after the first round, more than pruneFactor slower).
type CandidateTime struct {
	Choice  int32   `json:"choice"`
	Label   string  `json:"label"`
	Seconds float64 `json:"seconds"`
	Pruned  bool    `json:"pruned,omitempty"`
}

// String is the decision in one line: the choice, then every candidate's time.
func (d *Decision) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %s (choice %d", d.Kernel, d.Label, d.Choice)
	if d.Alone != "" {
		fmt.Fprintf(&b, ", chosen in the program; timed alone, %s won", d.Alone)
	}
	b.WriteString(")")
	if len(d.Times) == 0 {
		return b.String()
	}
	b.WriteString("; measured: ")
	for i, t := range d.Times {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%s %.4f ms", t.Label, t.Seconds*1e3)
		if t.Pruned {
			b.WriteString(" (1 round)")
		}
	}
	how := fmt.Sprintf("median of %d rounds", d.Rounds)
	if d.Load > 0 {
		how += fmt.Sprintf(", load %.2f", d.Load)
	}
	if d.Cached {
		how += ", cached"
	}
	fmt.Fprintf(&b, " (%s)", how)
	if d.Program != nil && len(d.Program.Names) > 0 && d.Program.Names[0] == d.Kernel {
		// Once per program: on its first tunable kernel's line.
		b.WriteString("; " + d.Program.String())
	}
	return b.String()
}

const (
	// tuneRounds: each candidate runs this many times, interleaved with
	// the others so that a change of machine load hits all of them.
	tuneRounds = 5
	// switchMargin: an alternative replaces the default only when its
	// median is at least this much lower (noise does not flip choices).
	switchMargin = 0.02
	// pruneFactor: a candidate more than this many times slower than its
	// kernel's best after the first round is not run again (a generated
	// GEMM on a large product would cost seconds per round).
	pruneFactor = 4
)

// AutotuneEnabled says whether runs measure alternatives: unless
// GCDBG_AUTOTUNE is 0, off or false.
func AutotuneEnabled() bool {
	switch strings.ToLower(strings.TrimSpace(os.Getenv("GCDBG_AUTOTUNE"))) {
	case "0", "off", "false", "no":
		return false
	}
	return true
}

// chooseAlternatives times the candidates of every kernel in ks with
// measure (which runs the program once with each kernel's choice word set
// as given, indexed by KernelSpec.Index, and returns each kernel's seconds)
// and decides each kernel's choice. fixed holds choices that are already
// decided (cached); those kernels run with them and are not timed.
func chooseAlternatives(ks []KernelSpec, nKernels, rounds int, fixed map[int]int32, measure func(choices []int32) ([]float64, error)) ([]Decision, error) {
	var tune []KernelSpec
	set := map[int32]bool{}
	for _, k := range ks {
		if len(k.Alternatives) < 2 {
			continue
		}
		if _, ok := fixed[k.Index]; ok {
			continue
		}
		tune = append(tune, k)
		for _, a := range k.Alternatives {
			set[a.Choice] = true
		}
	}
	if len(tune) == 0 {
		return nil, nil
	}
	var cands []int32
	for v := range set {
		cands = append(cands, v)
	}
	sort.Slice(cands, func(i, j int) bool { return cands[i] < cands[j] })
	has := func(k KernelSpec, v int32) bool {
		for _, a := range k.Alternatives {
			if a.Choice == v {
				return true
			}
		}
		return false
	}
	times := map[int]map[int32][]float64{} // kernel index -> choice -> seconds per round
	for _, k := range tune {
		times[k.Index] = map[int32][]float64{}
	}
	pruned := map[int32]bool{}
	for r := 0; r < rounds; r++ {
		for _, v := range cands {
			if pruned[v] {
				continue
			}
			choices := make([]int32, nKernels)
			for i, c := range fixed {
				if i >= 0 && i < nKernels {
					choices[i] = c
				}
			}
			for _, k := range tune {
				if has(k, v) && k.Index < nKernels {
					choices[k.Index] = v
				}
			}
			secs, err := measure(choices)
			if err != nil {
				return nil, fmt.Errorf("measuring choice %d: %w", v, err)
			}
			for _, k := range tune {
				if has(k, v) && k.Index < len(secs) {
					times[k.Index][v] = append(times[k.Index][v], secs[k.Index])
				}
			}
		}
		if r == 0 {
			// Drop a candidate that is far slower than the best for every
			// kernel that has it.
			for _, v := range cands {
				slow := v != 0
				for _, k := range tune {
					ts := times[k.Index]
					if len(ts[v]) == 0 {
						continue
					}
					best := ts[v][0]
					for _, t := range ts {
						if len(t) > 0 {
							best = min(best, t[0])
						}
					}
					if ts[v][0] <= pruneFactor*best {
						slow = false
					}
				}
				pruned[v] = slow
			}
		}
	}
	var out []Decision
	for _, k := range tune {
		d := Decision{Kernel: k.Name, Index: k.Index, Rounds: rounds}
		d.Label = labelOf(k, 0)
		var def float64
		for _, a := range k.Alternatives {
			ts := times[k.Index][a.Choice]
			s := Median(ts)
			d.Times = append(d.Times, CandidateTime{Choice: a.Choice, Label: a.Label, Seconds: s, Pruned: len(ts) < rounds})
			if a.Choice == 0 {
				def = s
			}
		}
		best, bestSecs := int32(0), def
		for _, t := range d.Times {
			if t.Choice != 0 && t.Seconds < def*(1-switchMargin) && t.Seconds < bestSecs {
				best, bestSecs = t.Choice, t.Seconds
			}
		}
		d.Choice, d.Label = best, labelOf(k, best)
		out = append(out, d)
	}
	return out, nil
}

// Machine describes this machine for the choice cache: a different CPU,
// core count, host or thread setting measures again.
func Machine() string {
	model := ""
	if f, err := os.Open("/proc/cpuinfo"); err == nil {
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			if k, v, ok := strings.Cut(sc.Text(), ":"); ok && strings.TrimSpace(k) == "model name" {
				model = strings.TrimSpace(v)
				break
			}
		}
		f.Close()
	}
	host, _ := os.Hostname()
	s := fmt.Sprintf("%s; %d CPUs; host %s", model, runtime.NumCPU(), host)
	for _, e := range []string{"OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "GCDBG_NO_BLAS"} {
		if v := os.Getenv(e); v != "" {
			s += fmt.Sprintf("; %s=%s", e, v)
		}
	}
	return s
}

func shortHash(parts ...string) string {
	h := sha256.New()
	for _, p := range parts {
		fmt.Fprintf(h, "%d:%s\x00", len(p), p)
	}
	return hex.EncodeToString(h.Sum(nil))[:32]
}

// choiceStore is the choice cache: <root>/choices/<machine hash>/<kernel
// key>-<symbols hash>.json, one Decision each.
type choiceStore struct{ dir string }

func openChoices(root string) (*choiceStore, error) {
	r, err := cacheRoot(root)
	if err != nil {
		return nil, err
	}
	return &choiceStore{dir: filepath.Join(r, "choices", shortHash(Machine()))}, nil
}

func (s *choiceStore) path(key, syms string) string {
	return filepath.Join(s.dir, key+"-"+shortHash(syms)+".json")
}

func (s *choiceStore) load(key, syms string) (*Decision, bool) {
	data, err := os.ReadFile(s.path(key, syms))
	if err != nil {
		return nil, false
	}
	var d Decision
	if json.Unmarshal(data, &d) != nil || d.Machine != Machine() {
		return nil, false
	}
	if now, ok := LoadAverage(); staleChoice(d.Load, now, ok) {
		return nil, false
	}
	return &d, true
}

func (s *choiceStore) save(key, syms string, d Decision) error {
	data, err := json.MarshalIndent(d, "", "  ")
	if err != nil {
		return err
	}
	return s.write(s.path(key, syms), data)
}

// write puts data at path atomically (a temporary file renamed).
func (s *choiceStore) write(path string, data []byte) error {
	if err := os.MkdirAll(s.dir, 0o700); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(s.dir, ".tmp-*")
	if err != nil {
		return err
	}
	_, werr := tmp.Write(data)
	cerr := tmp.Close()
	if werr != nil || cerr != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("choice cache: %v %v", werr, cerr)
	}
	return os.Rename(tmp.Name(), path)
}

// CachedChoices returns the decisions cached on this machine for a kernel
// key (KernelSpec.Key), one per set of symbol values measured; none when
// autotuning is off (GCDBG_AUTOTUNE=0) or nothing was measured yet. The
// kernels stage shows them.
func CachedChoices(key string) []Decision {
	if key == "" || !AutotuneEnabled() {
		return nil
	}
	var out []Decision
	cachedFiles(key+"-*.json", func(data []byte) {
		var d Decision
		if json.Unmarshal(data, &d) == nil && d.Machine == Machine() {
			out = append(out, d)
		}
	})
	return out
}

// cachedFiles calls use with the contents of every file of this machine's
// choice cache whose name matches pattern, in name order.
func cachedFiles(pattern string, use func(data []byte)) {
	s, err := openChoices("")
	if err != nil {
		return
	}
	files, _ := filepath.Glob(filepath.Join(s.dir, pattern))
	sort.Strings(files)
	for _, f := range files {
		if data, err := os.ReadFile(f); err == nil {
			use(data)
		}
	}
}

// symsKey is the symbol values of a run (shapes of a dynamic program).
func (l *memLayout) symsKey(m *Manifest) string {
	var b strings.Builder
	for _, s := range m.Symbols {
		fmt.Fprintf(&b, "%s=%d;", s, l.syms[s])
	}
	return b.String()
}

// warmRun runs the program once untimed, so that every intermediate holds
// the values this program computes from its inputs.
func (x *execution) warmRun() error {
	x.kernelTimes = false
	_, _, err := x.once()
	return err
}

// timedRun runs the program once with the choice words choices (indexed by
// KernelSpec.Index): its wall seconds and every kernel's seconds.
func (x *execution) timedRun(choices []int32) (float64, []float64, error) {
	x.setChoices(choices)
	ks := x.sh.float64s(x.lay.seconds, x.lay.nKernels)
	clear(ks)
	x.kernelTimes = true
	secs, _, err := x.once()
	if err != nil {
		return 0, nil, err
	}
	return secs, append([]float64(nil), ks...), nil
}

// ForcedChoice is GCDBG_CHOICE's value: every kernel that has that
// alternative runs it, without measuring or caching (to compare
// candidates, or to rule one out while chasing a wrong value); -1 unset.
func ForcedChoice() int32 {
	v := strings.TrimSpace(os.Getenv("GCDBG_CHOICE"))
	if v == "" {
		return -1
	}
	var n int32
	if _, err := fmt.Sscanf(v, "%d", &n); err != nil || n < 0 {
		return -1
	}
	return n
}

// tunable lists m's kernels with alternatives.
func tunable(m *Manifest) []KernelSpec {
	var out []KernelSpec
	for _, st := range m.Steps {
		out = append(out, tunableOf(st.Kernels)...)
	}
	return out
}

// autotune decides every tunable kernel's choice (from the cache, else by
// measuring) and writes the choices into the shared memory, where the
// worker's library reads them for the timed runs that follow.
func (x *execution) autotune() ([]Decision, error) {
	ks := tunable(x.m)
	if len(ks) == 0 {
		return nil, nil
	}
	if f := ForcedChoice(); f >= 0 {
		choices := make([]int32, x.lay.nKernels)
		var out []Decision
		for _, k := range ks {
			if validChoice(k, f) && k.Index < len(choices) {
				choices[k.Index] = f
				out = append(out, Decision{Kernel: k.Name, Index: k.Index, Choice: f, Label: labelOf(k, f) + " (forced by GCDBG_CHOICE)"})
			}
		}
		x.setChoices(choices)
		return out, nil
	}
	if !x.opt.Autotune {
		return nil, nil
	}
	store, err := openChoices(x.opt.CacheDir)
	if err != nil {
		return nil, err
	}
	syms := x.lay.symsKey(x.m)
	machine := Machine()
	fixed := map[int]int32{}
	var out []Decision
	for _, k := range ks {
		if d, ok := store.load(k.Key, syms); ok && k.Key != "" && validChoice(k, d.Choice) {
			d.Cached, d.Kernel, d.Index = true, k.Name, k.Index
			fixed[k.Index] = d.Choice
			out = append(out, *d)
		}
	}
	warm := false
	if len(fixed) < len(ks) {
		// One untimed run fills every intermediate with the values this
		// program computes from its inputs, so each candidate is timed on
		// realistic data (a segment after a fallback reads what the
		// fallback wrote).
		if err := x.warmRun(); err != nil {
			return nil, err
		}
		warm = true
		measure := func(choices []int32) ([]float64, error) {
			_, ks, err := x.timedRun(choices)
			return ks, err
		}
		ds, err := chooseAlternatives(ks, x.lay.nKernels, tuneRounds, fixed, measure)
		if err != nil {
			return nil, err
		}
		load, _ := LoadAverage()
		for _, d := range ds {
			d.Machine, d.Load = machine, load
			for _, k := range ks {
				if k.Index == d.Index && k.Key != "" {
					if err := store.save(k.Key, syms, d); err != nil {
						return nil, fmt.Errorf("choice cache: %w", err)
					}
				}
			}
			fixed[d.Index] = d.Choice
			out = append(out, d)
		}
	}
	if err := x.checkProgram(ks, store, syms, warm, fixed, out); err != nil {
		return nil, err
	}
	choices := make([]int32, x.lay.nKernels)
	for i, c := range fixed {
		choices[i] = c
	}
	x.setChoices(choices)
	sort.Slice(out, func(i, j int) bool { return out[i].Index < out[j].Index })
	return out, nil
}

func labelOf(k KernelSpec, c int32) string {
	for _, a := range k.Alternatives {
		if a.Choice == c {
			return a.Label
		}
	}
	return ""
}

func validChoice(k KernelSpec, c int32) bool {
	for _, a := range k.Alternatives {
		if a.Choice == c {
			return true
		}
	}
	return false
}

// setChoices writes every kernel's choice word into the shared memory.
func (x *execution) setChoices(c []int32) {
	if x.lay.nKernels == 0 {
		return
	}
	w := x.sh.int32s(x.lay.wire.Choices, x.lay.nKernels)
	copy(w, c)
}
