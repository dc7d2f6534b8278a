package compiler

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Choices confirmed in the program (issue 13). chooseAlternatives times
// every candidate with the program's other tunable kernels running the same
// candidate, one program run per candidate, interleaved: each kernel's
// thread setting is timed right after other candidates ran (a GEMM on one
// thread, oneDNN on the OpenMP team, the generated GEMM), never right after
// itself, and each kernel keeps its own winner, so the combination the
// program then runs, over and over, was never timed as such. Where kernels
// contend for the cores (OpenBLAS's pthread pool, libgomp's team and the
// worker's own thread on a 2-CPU machine) that combination can run slower
// than any kernel's timing said: lstm_cell's two back-to-back OpenBLAS
// GEMMs chose all threads at 0.46-0.55 ms each and then ran 0.92-0.94 ms
// each in the timed runs (docs/performance.md).
//
// So, once every kernel has its per-kernel choice, the program is timed as
// it runs: the per-kernel choices against the same program with every
// kernel that has a one-thread candidate on one thread, and with every such
// kernel on all threads, each configuration run `programBurst` times back to
// back with only the last run timed (the first absorbs the switch: a thread
// pool resized or woken), the configurations interleaved over
// `tuneRounds` rounds. The program keeps the configuration with the lowest
// median wall time; the per-kernel choices stay unless another is at least
// switchMargin faster. The check is cached beside the per-kernel decisions,
// keyed by the program's tunable kernels (their cache keys, in program
// order), the symbol values and the machine, so another program that shares
// a kernel keeps its own context; the per-kernel decisions stay cached per
// kernel as before.

// ChoiceOneThread is the choice bit that runs a kernel on the calling
// thread (render/choice.go's candidates; the program check flips it).
const ChoiceOneThread int32 = 1

// programBurst: each configuration runs this many times in a row per
// round; only the last run is timed.
const programBurst = 2

// ProgramConfig is one way to run the whole program: a choice per tunable
// kernel (ProgramCheck.Kernels' order) and the program's median wall time
// with it, and each tunable kernel's median seconds in those runs.
type ProgramConfig struct {
	Label         string    `json:"label"`
	Choices       []int32   `json:"choices"`
	Seconds       float64   `json:"seconds"`
	KernelSeconds []float64 `json:"kernel_seconds,omitempty"`
}

// ProgramCheck is the program-level confirmation of its kernels' choices.
type ProgramCheck struct {
	Kernels []string        `json:"kernels"` // the tunable kernels' cache keys, in program order
	Names   []string        `json:"names"`   // their C functions
	Configs []ProgramConfig `json:"configs"` // Configs[0]: each kernel's own choice
	Chosen  int             `json:"chosen"`  // the configuration the program runs
	Rounds  int             `json:"rounds"`
	Burst   int             `json:"burst"`
	Machine string          `json:"machine"`
	Load    float64         `json:"load,omitempty"`
	Cached  bool            `json:"cached,omitempty"`
}

// String is the check in one line: every configuration's program time.
func (p *ProgramCheck) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "in the program, the choices of its %d tunable kernels together (wall time): ", len(p.Kernels))
	for i, c := range p.Configs {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%s %.4f ms", c.Label, c.Seconds*1e3)
		if i == p.Chosen {
			b.WriteString(" (runs)")
		}
	}
	how := fmt.Sprintf("median of %d rounds of %d back-to-back runs, the last timed", p.Rounds, p.Burst)
	if p.Load > 0 {
		how += fmt.Sprintf(", load %.2f", p.Load)
	}
	if p.Cached {
		how += ", cached"
	}
	fmt.Fprintf(&b, " (%s)", how)
	return b.String()
}

const (
	cfgOwn  = "each kernel's own choice"
	cfgOne  = "every kernel on one thread"
	cfgTeam = "every kernel on all threads"
)

// programConfigs lists the configurations the program check times for the
// tunable kernels ks with their per-kernel choices own (by kernel index):
// own, then own with every kernel that can on one thread, then on all
// threads; a configuration equal to one before it is left out. Only own
// when no kernel has a one-thread candidate.
func programConfigs(ks []KernelSpec, own map[int]int32) []ProgramConfig {
	base := make([]int32, len(ks))
	for i, k := range ks {
		base[i] = own[k.Index]
	}
	cfgs := []ProgramConfig{{Label: cfgOwn, Choices: base}}
	for _, c := range []struct {
		label string
		set   bool
	}{{cfgOne, true}, {cfgTeam, false}} {
		ch := slices.Clone(base)
		for i, k := range ks {
			v := ch[i] &^ ChoiceOneThread
			if c.set {
				v |= ChoiceOneThread
			}
			if validChoice(k, v) {
				ch[i] = v
			}
		}
		dup := false
		for _, p := range cfgs {
			dup = dup || slices.Equal(p.Choices, ch)
		}
		if !dup {
			cfgs = append(cfgs, ProgramConfig{Label: c.label, Choices: ch})
		}
	}
	return cfgs
}

// confirmInProgram times the configurations cfgs of the tunable kernels ks
// as the program runs them (measure runs the program once with the choice
// words given, indexed by KernelSpec.Index, and returns its wall seconds
// and every kernel's seconds): per round, each configuration burst times in
// a row, the last timed; the starting configuration rotates per round. It
// returns the check with every configuration's medians and the chosen one.
func confirmInProgram(ks []KernelSpec, nKernels, rounds, burst int, fixed map[int]int32, cfgs []ProgramConfig,
	measure func(choices []int32) (float64, []float64, error)) (ProgramCheck, error) {
	pc := ProgramCheck{Configs: cfgs, Rounds: rounds, Burst: burst}
	for _, k := range ks {
		pc.Kernels = append(pc.Kernels, k.Key)
		pc.Names = append(pc.Names, k.Name)
	}
	wall := make([][]float64, len(cfgs))
	per := make([][][]float64, len(cfgs)) // config -> kernel -> seconds
	for c := range cfgs {
		per[c] = make([][]float64, len(ks))
	}
	for r := 0; r < rounds; r++ {
		for j := range cfgs {
			c := (j + r) % len(cfgs)
			choices := make([]int32, nKernels)
			for i, v := range fixed {
				if i >= 0 && i < nKernels {
					choices[i] = v
				}
			}
			for i, k := range ks {
				if k.Index >= 0 && k.Index < nKernels {
					choices[k.Index] = cfgs[c].Choices[i]
				}
			}
			for b := 0; b < burst; b++ {
				secs, ksecs, err := measure(choices)
				if err != nil {
					return pc, fmt.Errorf("timing the program with %s: %w", cfgs[c].Label, err)
				}
				if b < burst-1 {
					continue
				}
				wall[c] = append(wall[c], secs)
				for i, k := range ks {
					if k.Index < len(ksecs) {
						per[c][i] = append(per[c][i], ksecs[k.Index])
					}
				}
			}
		}
	}
	for c := range pc.Configs {
		pc.Configs[c].Seconds = Median(wall[c])
		pc.Configs[c].KernelSeconds = nil
		for i := range ks {
			pc.Configs[c].KernelSeconds = append(pc.Configs[c].KernelSeconds, Median(per[c][i]))
		}
	}
	best, bestSecs := 0, pc.Configs[0].Seconds
	for c, cfg := range pc.Configs {
		if c > 0 && cfg.Seconds < pc.Configs[0].Seconds*(1-switchMargin) && cfg.Seconds < bestSecs {
			best, bestSecs = c, cfg.Seconds
		}
	}
	pc.Chosen = best
	return pc, nil
}

// applyProgram sets each decision of out whose kernel is in ks to the
// configuration pc runs; fixed gets the choices.
func applyProgram(ks []KernelSpec, pc *ProgramCheck, out []Decision, fixed map[int]int32) {
	for i, k := range ks {
		fixed[k.Index] = pc.Configs[pc.Chosen].Choices[i]
		for j := range out {
			if out[j].Index == k.Index {
				out[j] = pc.apply(i, k, out[j])
			}
		}
	}
}

// apply returns d, the decision of the check's i'th kernel k, as the
// program runs it: the chosen configuration's choice, with the check, and
// the kernel's own choice's label as Alone where that differs.
func (p *ProgramCheck) apply(i int, k KernelSpec, d Decision) Decision {
	c := p.Configs[p.Chosen].Choices[i]
	d.Program = p
	if d.Choice != c {
		d.Alone = d.Label
		d.Choice, d.Label = c, labelOf(k, c)
	}
	return d
}

// InProgram returns k's cached decision d as the program this check was
// made for runs it (the kernels stage's view), d itself when the check was
// made for another choice of k or is not about k.
func (p *ProgramCheck) InProgram(k KernelSpec, d Decision) Decision {
	for i, key := range p.Kernels {
		if key == k.Key && i < len(p.Configs[0].Choices) && p.Configs[0].Choices[i] == d.Choice {
			return p.apply(i, k, d)
		}
	}
	return d
}

// programKey names the program's tunable kernels in the choice cache:
// their cache keys in order ("" when one has none).
func programKey(ks []KernelSpec) string {
	var keys []string
	for _, k := range ks {
		if k.Key == "" {
			return ""
		}
		keys = append(keys, k.Key)
	}
	return shortHash(keys...)
}

func (s *choiceStore) programPath(pkey, syms string) string {
	return filepath.Join(s.dir, "program-"+pkey+"-"+shortHash(syms)+".json")
}

// loadProgram returns the cached check of the program whose tunable kernels
// give pkey, when it was made for the per-kernel choices own (Configs[0])
// on this machine and not on a busy one that is quiet now.
func (s *choiceStore) loadProgram(pkey, syms string, own []int32) (*ProgramCheck, bool) {
	data, err := os.ReadFile(s.programPath(pkey, syms))
	if err != nil {
		return nil, false
	}
	var p ProgramCheck
	if json.Unmarshal(data, &p) != nil || p.Machine != Machine() || len(p.Configs) == 0 || p.Chosen < 0 ||
		p.Chosen >= len(p.Configs) || !slices.Equal(p.Configs[0].Choices, own) || len(p.Configs[p.Chosen].Choices) != len(own) {
		return nil, false
	}
	if now, ok := LoadAverage(); staleChoice(p.Load, now, ok) {
		return nil, false
	}
	return &p, true
}

func (s *choiceStore) saveProgram(pkey, syms string, p ProgramCheck) error {
	data, err := json.MarshalIndent(p, "", "  ")
	if err != nil {
		return err
	}
	return s.write(s.programPath(pkey, syms), data)
}

// CachedProgramChecks returns the program checks cached on this machine for
// a program's kernels (one per set of symbol values measured); none when
// autotuning is off or nothing was measured yet. The kernels stage shows
// them.
func CachedProgramChecks(ks []KernelSpec) []ProgramCheck {
	ks = tunableOf(ks)
	if len(ks) == 0 || !AutotuneEnabled() {
		return nil
	}
	pkey := programKey(ks)
	if pkey == "" {
		return nil
	}
	var out []ProgramCheck
	cachedFiles("program-"+pkey+"-*.json", func(data []byte) {
		var p ProgramCheck
		if json.Unmarshal(data, &p) == nil && p.Machine == Machine() && p.Chosen >= 0 && p.Chosen < len(p.Configs) {
			out = append(out, p)
		}
	})
	return out
}

// tunableOf is the kernels of ks with alternatives.
func tunableOf(ks []KernelSpec) []KernelSpec {
	var out []KernelSpec
	for _, k := range ks {
		if len(k.Alternatives) > 1 {
			out = append(out, k)
		}
	}
	return out
}

// checkProgram confirms the per-kernel choices fixed of the tunable kernels
// ks in the program (from the cache when the same per-kernel choices were
// checked before on this machine, else by timing, warm saying whether the
// intermediates already hold this program's values) and sets fixed and the
// decisions out to the configuration the program runs.
func (x *execution) checkProgram(ks []KernelSpec, store *choiceStore, syms string, warm bool, fixed map[int]int32, out []Decision) error {
	cfgs := programConfigs(ks, fixed)
	if len(cfgs) < 2 {
		return nil
	}
	pkey := programKey(ks)
	if pkey != "" {
		if pc, ok := store.loadProgram(pkey, syms, cfgs[0].Choices); ok {
			pc.Cached = true
			applyProgram(ks, pc, out, fixed)
			return nil
		}
	}
	if !warm {
		if err := x.warmRun(); err != nil {
			return err
		}
	}
	pc, err := confirmInProgram(ks, x.lay.nKernels, tuneRounds, programBurst, fixed, cfgs, x.timedRun)
	if err != nil {
		return err
	}
	pc.Machine = Machine()
	pc.Load, _ = LoadAverage()
	if pkey != "" {
		if err := store.saveProgram(pkey, syms, pc); err != nil {
			return fmt.Errorf("choice cache: %w", err)
		}
	}
	applyProgram(ks, &pc, out, fixed)
	return nil
}
