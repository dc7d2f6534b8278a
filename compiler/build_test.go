package compiler_test

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
	"unsafe"

	"github.com/ebitengine/purego"

	"gcdbg/compiler"
	"gcdbg/interp"
	"gcdbg/ir"
	"gcdbg/loopir"
	"gcdbg/render"
	"gcdbg/sched"
	"gcdbg/stages"
	"gcdbg/tensor"
	"gcdbg/trace"
)

// A test-only runner: dlopen the library with purego and call its entry
// points on Go-allocated slots, so the compiled numbers are checked here
// without the worker process.

func loadUnits(t testing.TB, path string) []*stages.Unit {
	t.Helper()
	tr, err := trace.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	units, err := stages.Run(tr, "memory")
	if err != nil {
		t.Fatal(err)
	}
	return units
}

func renderLP(t testing.TB, u *stages.Unit, lp *stages.LoopProgram) *render.Source {
	t.Helper()
	src, err := render.Render(lp.Loops, lp.Schedule.Kernels, lp.Memory, render.C,
		render.Options{Trace: filepath.Base(u.Trace.Path), Graph: u.Captured.Name, Role: lp.Role})
	if err != nil {
		t.Fatal(err)
	}
	return src
}

// runLib runs every step of the artifact; inputs are by buffer name.
// Fallback steps are not run here (the worker's job): it fails on them.
func runLib(art *compiler.Artifact, inputs map[string]*tensor.Tensor) ([]*tensor.Tensor, error) {
	m := art.Manifest
	lib, err := purego.Dlopen(art.Library, purego.RTLD_NOW|purego.RTLD_LOCAL)
	if err != nil {
		return nil, err
	}
	// The library stays loaded: unloading code that OpenMP threads ran is not worth the risk in a test.
	syms := map[string]int64{}
	for _, slot := range m.Inputs {
		b := m.Buffers[slot]
		t := inputs[b.Name]
		if t == nil {
			return nil, fmt.Errorf("no input %s", b.Name)
		}
		for i, s := range b.Sizes {
			if strings.HasPrefix(s, "ks") && i < len(t.Shape) {
				syms[s] = int64(t.Shape[i])
			}
		}
	}
	symv := make([]int64, len(m.Symbols)+1)
	for i, s := range m.Symbols {
		symv[i] = syms[s]
	}
	mem := make([][]byte, len(m.Buffers))
	ptrs := make([]unsafe.Pointer, len(m.Buffers)+1)
	for i, b := range m.Buffers {
		n, err := b.Numel(syms)
		if err != nil {
			return nil, err
		}
		dt, ok := tensor.ParseDType(b.DType)
		if !ok {
			return nil, fmt.Errorf("slot %d: dtype %q", i, b.DType)
		}
		mem[i] = make([]byte, n*int64(dt.Size())+64)
		if b.Kind == "input" || b.Kind == "constant" {
			t := inputs[b.Name]
			if t == nil {
				return nil, fmt.Errorf("no value for %s %s", b.Kind, b.Name)
			}
			copy(mem[i], t.Contiguous().Bytes())
		}
		ptrs[i] = unsafe.Pointer(&mem[i][0])
	}
	seconds := make([]float64, 64+len(m.Steps)*64)
	var cur int32
	for _, st := range m.Steps {
		if st.Kind != "segment" {
			return nil, fmt.Errorf("step %s (%s) needs the worker", st.Kind, st.Op)
		}
		var entry func(unsafe.Pointer, unsafe.Pointer, unsafe.Pointer, unsafe.Pointer)
		purego.RegisterLibFunc(&entry, lib, st.Entry)
		entry(unsafe.Pointer(&ptrs[0]), unsafe.Pointer(&symv[0]), unsafe.Pointer(&seconds[0]), unsafe.Pointer(&cur))
	}
	runtime.KeepAlive(mem)
	var out []*tensor.Tensor
	for _, slot := range m.Outputs {
		b := m.Buffers[slot]
		dt, _ := tensor.ParseDType(b.DType)
		shape := make([]int, len(b.Sizes))
		n := 1
		for i, s := range b.Sizes {
			v, err := compiler.EvalSize(s, syms)
			if err != nil {
				return nil, err
			}
			shape[i] = int(v)
			n *= int(v)
		}
		t, err := tensor.FromBytes(dt, shape, mem[slot][:n*dt.Size()])
		if err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, nil
}

func hasFallback(m compiler.Manifest) bool {
	for _, s := range m.Steps {
		if s.Kind == "fallback" {
			return true
		}
	}
	return false
}

// checkNumbers runs one program compiled and eagerly and compares.
func checkNumbers(t *testing.T, art *compiler.Artifact, u *stages.Unit, lp *stages.LoopProgram, saved interp.Inputs) (bool, error) {
	want, err := interp.Run(lp.Graph, saved)
	if err != nil {
		return false, err
	}
	inputs := loopir.InputsFromGraph(lp.Loops)
	for name, buf := range lp.Loops.Buffers {
		if buf.Kind == loopir.Input {
			if n := lp.Graph.Node(buf.Node); n != nil {
				if v, ok := saved[n.Target].(*tensor.Tensor); ok {
					inputs[name] = v
				}
			}
		}
	}
	if lp.Role == "forward" && u.Partition != nil {
		for i, sv := range u.Partition.Saved {
			saved[sv.Name] = want[u.Joint.NumOutputs+i]
		}
	}
	var got []*tensor.Tensor
	if hasFallback(art.Manifest) {
		// Eager fallbacks between segments run in the worker (this test
		// binary re-executed; TestMain serves it).
		// The worker takes inputs by the manifest's Target (the graph's
		// input name), the test runner by loop buffer name.
		byTarget := map[string]*tensor.Tensor{}
		for _, b := range art.Manifest.Buffers {
			if in, ok := inputs[b.Name]; ok {
				key := b.Target
				if key == "" {
					key = b.Name
				}
				byTarget[key] = in
			}
		}
		res, err := compiler.Exec(art.Library, &art.Manifest, byTarget, compiler.ExecOptions{NoKernelTimes: true})
		if err != nil {
			return false, err
		}
		got = res.Outputs
	} else if got, err = runLib(art, inputs); err != nil {
		return false, err
	}
	if len(got) < len(want) {
		return false, fmt.Errorf("%d outputs, want %d", len(got), len(want))
	}
	for i := range want {
		w, err := interp.AsTensor(want[i])
		if err != nil {
			return false, err
		}
		tol := interp.Tolerance{Rtol: 1e-4, Atol: 1e-5}
		if !w.DType.IsFloat() {
			tol = interp.DefaultTolerance(w.DType)
		}
		if c := interp.Compare(got[i], w, tol); !c.Match {
			return false, fmt.Errorf("output %d: %+v", i, c)
		}
	}
	return true, nil
}

// Every fixture and zoo program (forward and backward too) renders and
// builds with -Wall; a second build is a cache hit; every program computes
// what the eager interpreter computes (one with eager fallbacks between its
// segments runs in the worker, which handles them).
func TestBuildFixturesMatchEager(t *testing.T) {
	cache := t.TempDir()
	if d := os.Getenv("GCDBG_TEST_CACHE"); d != "" {
		cache = d
	}
	paths, _ := filepath.Glob("../fixtures/*.json")
	zoo, _ := filepath.Glob("../stages/testdata/*.json")
	for _, path := range append(paths, zoo...) {
		t.Run(filepath.Base(path), func(t *testing.T) {
			for _, u := range loadUnits(t, path) {
				saved := interp.Inputs{}
				var progs []compiler.Program
				for _, lp := range u.Programs {
					progs = append(progs, renderLP(t, u, lp).Program())
				}
				start := time.Now()
				arts, err := compiler.BuildAll(progs, compiler.Options{CacheDir: cache})
				if err != nil {
					t.Fatal(err)
				}
				cold := time.Since(start)
				start = time.Now()
				again, err := compiler.BuildAll(progs, compiler.Options{CacheDir: cache})
				if err != nil {
					t.Fatal(err)
				}
				warm := time.Since(start)
				for i, lp := range u.Programs {
					label := u.Captured.Name + "/" + lp.Role
					if !again[i].Hit || arts[i].Hit {
						t.Errorf("%s: cache hit %v then %v, want miss then hit", label, arts[i].Hit, again[i].Hit)
					}
					if arts[i].Warnings != "" {
						t.Errorf("%s: compiler warnings:\n%s", label, arts[i].Warnings)
					}
					ok, err := checkNumbers(t, arts[i], u, lp, saved)
					if err != nil || !ok {
						t.Errorf("%s: the compiled numbers do not match the eager interpreter's: %v", label, err)
					}
					t.Logf("%s: %d kernels, build cold %v cached %v", label,
						len(lp.Schedule.Kernels), cold.Round(time.Millisecond), warm.Round(time.Microsecond))
				}
			}
		})
	}
}

// symbolize marks every dimension of size n in g's metadata as symbol s
// (the loop IR keeps it symbolic, as the loopir tests do).
func symbolize(g *ir.Graph, n int, s string) {
	for _, node := range g.Nodes {
		for _, m := range append([]*ir.TensorMeta{node.Meta.Tensor}, node.Meta.Items...) {
			if m == nil {
				continue
			}
			for i := range m.Shape {
				if m.Shape[i].Size == n {
					m.Shape[i].Sym = s
				}
			}
		}
	}
}

// The MLP's forward graph made dynamic in its batch dimension builds once
// and computes the right numbers at two batch sizes: sizes are ks0, read
// from syms[] (Inductor's ks0).
func TestDynamicBatchOneBuild(t *testing.T) {
	u := loadUnits(t, "../fixtures/mlp.json")[0]
	g := u.Programs[0].Graph
	symbolize(g, 8, "s0")
	p, err := loopir.Lower(g)
	if err != nil {
		t.Fatal(err)
	}
	s, err := sched.Fuse(p)
	if err != nil {
		t.Fatal(err)
	}
	lp := &stages.LoopProgram{Role: "forward", Graph: g, Loops: p, Schedule: s, Memory: sched.Plan(p, s.Kernels)}
	src := renderLP(t, u, lp)
	if len(src.Manifest.Symbols) != 1 || !strings.Contains(src.Code, "const int64_t ks0 = syms[0];") {
		t.Fatalf("symbols %v; the source does not read ks0 from syms", src.Manifest.Symbols)
	}
	art, err := compiler.Build(src.Program(), compiler.Options{CacheDir: t.TempDir(), Flags: []string{"-Werror"}})
	if err != nil {
		t.Fatal(err)
	}
	// The reference is the eager graph at the traced batch (8); rows are
	// independent, so batch 3 must give its first 3 rows of every output
	// that has the batch dimension, and the rest unchanged.
	x8 := g.Tensors["x"].T
	want, err := interp.Run(g, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, batch := range []int{8, 3} {
		shape := append([]int{batch}, x8.Shape[1:]...)
		x := tensor.New(tensor.Float32, shape...)
		for i := 0; i < x.Numel(); i++ {
			x.SetFlat(i, x8.Flat(i))
		}
		inputs := loopir.InputsFromGraph(p)
		for name, b := range p.Buffers {
			if n := g.Node(b.Node); b.Kind == loopir.Input && n != nil && n.Target == "x" {
				inputs[name] = x
			}
		}
		got, err := runLib(art, inputs)
		if err != nil {
			t.Fatal(err)
		}
		for i := range want {
			w, _ := interp.AsTensor(want[i])
			if len(got[i].Shape) > 0 && len(w.Shape) > 0 && got[i].Shape[0] != w.Shape[0] && got[i].Shape[0] != batch {
				t.Errorf("batch %d: output %d has shape %v", batch, i, got[i].Shape)
				continue
			}
			for k := 0; k < got[i].Numel(); k++ {
				// the same multi-index in the batch-8 reference
				wk, rest, stride := 0, k, 1
				for d := len(w.Shape) - 1; d >= 0; d-- {
					wk += (rest % got[i].Shape[d]) * stride
					rest /= got[i].Shape[d]
					stride *= w.Shape[d]
				}
				a, b := got[i].Flat(k), w.Flat(wk)
				if math.Abs(a-b) > 1e-5+1e-4*math.Abs(b) {
					t.Errorf("batch %d: output %d[%d] = %g, eager %g", batch, i, k, a, b)
					break
				}
			}
		}
	}
}

// A syntax error in the generated source is reported at its generated
// line, with the kernel's name and the lines around it.
func TestCompileErrorPointsAtGeneratedLine(t *testing.T) {
	u := loadUnits(t, "../fixtures/sin_cos.json")[0]
	lp := u.Programs[0]
	src, err := render.Render(lp.Loops, lp.Schedule.Kernels, lp.Memory, render.C,
		render.Options{Graph: "g0", Role: lp.Role, Inject: "this is not C;"})
	if err != nil {
		t.Fatal(err)
	}
	_, err = compiler.Build(src.Program(), compiler.Options{CacheDir: t.TempDir()})
	if err == nil {
		t.Fatal("bad C compiled")
	}
	lines := strings.Split(src.Code, "\n")
	bad := 0
	for i, l := range lines {
		if strings.Contains(l, "this is not C;") {
			bad = i + 1
		}
	}
	msg := err.Error()
	for _, want := range []string{fmt.Sprintf("kernel.c:%d: error:", bad), "in generated kernel " + src.Kernels[0].Name, fmt.Sprintf("> %5d | ", bad), "this is not C;"} {
		if !strings.Contains(msg, want) {
			t.Errorf("error does not mention %q:\n%s", want, msg)
		}
	}
}

// gcdbg compile's output loads back; a tampered library is refused.
func TestAOTRoundTrip(t *testing.T) {
	u := loadUnits(t, "../fixtures/sin_cos.json")[0]
	art, err := compiler.Build(renderLP(t, u, u.Programs[0]).Program(), compiler.Options{CacheDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := compiler.WriteAOT(dir, "sin_cos.json", []*compiler.Artifact{art}); err != nil {
		t.Fatal(err)
	}
	progs, err := compiler.LoadAOT(dir)
	if err != nil || len(progs) != 1 || progs[0].Manifest.Hash != art.Manifest.Hash {
		t.Fatalf("LoadAOT: %v %+v", err, progs)
	}
	lib := filepath.Join(dir, progs[0].Manifest.Library)
	if err := os.WriteFile(lib, []byte("not a library"), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := compiler.LoadAOT(dir); err == nil || !strings.Contains(err.Error(), "sha256") {
		t.Errorf("tampered library: %v", err)
	}
}

// A cache root that others can write is refused.
func TestCacheRootMustBePrivate(t *testing.T) {
	dir := t.TempDir()
	if err := os.Chmod(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	if _, err := compiler.CacheRoot(dir); err == nil || !strings.Contains(err.Error(), "writable by group or others") {
		t.Errorf("world-writable cache root: %v", err)
	}
}

// sin_cos is one kernel with an OpenMP parallel loop whose inner loop gcc
// vectorizes (-fopt-info-vec-optimized names the loop's generated line).
func TestSinCosParallelAndVectorized(t *testing.T) {
	u := loadUnits(t, "../fixtures/sin_cos.json")[0]
	src := renderLP(t, u, u.Programs[0])
	if len(src.Kernels) != 1 || !strings.Contains(src.Code, "#pragma omp parallel for") {
		t.Fatalf("want one kernel with an omp parallel for:\n%s", src.Code)
	}
	art, err := compiler.Build(src.Program(), compiler.Options{CacheDir: t.TempDir(), VecReport: true})
	if err != nil {
		t.Fatal(err)
	}
	inner := 0
	for i, l := range strings.Split(src.Code, "\n") {
		if i+1 > src.Kernels[0].Line && strings.Contains(l, "for (int64_t x1 = 0;") {
			inner = i + 1
			break
		}
	}
	vectorized := false
	for _, l := range strings.Split(art.VecReport, "\n") {
		for ln := inner; ln <= inner+6; ln++ { // gcc names the loop or its first statement
			if strings.HasPrefix(l, fmt.Sprintf("kernel.c:%d:", ln)) && strings.Contains(l, "loop vectorized") {
				vectorized = true
			}
		}
	}
	if inner == 0 || !vectorized {
		t.Errorf("the inner loop (line %d) of %s is not reported vectorized:\n%s", inner, src.Kernels[0].Name, art.VecReport)
	}
}

// Names from a trace are hostile: parameter targets, source lines and
// node origins with quotes, semicolons, newlines, comment ends, C
// keywords and unicode still give C that compiles with -Wall -Werror and
// the right numbers.
func TestHostileNames(t *testing.T) {
	hostile := []string{"int", "return", "a\"b;c", "x*/y/*z", "line\nbreak\\", "ünï ☃", "buf0", "b_int", "0start"}
	u := loadUnits(t, "../fixtures/conv_add.json")[0]
	g := u.Programs[0].Graph
	k := 0
	for _, n := range g.Nodes {
		n.Meta.Stack = []ir.Frame{{File: "evil*/.py", Line: 1, Code: hostile[k%len(hostile)] + " */ #include <x>"}}
		if n.Op == "get_attr" {
			td := g.Tensors[n.Target]
			delete(g.Tensors, n.Target)
			n.Target = hostile[k%len(hostile)]
			g.Tensors[n.Target] = td
			k++
		}
	}
	if k == 0 {
		t.Fatal("conv_add has no parameters to rename")
	}
	p, err := loopir.Lower(g)
	if err != nil {
		t.Fatal(err)
	}
	for i, n := range p.Nodes {
		n.Origins = []string{hostile[i%len(hostile)], "return"}
	}
	s, err := sched.Fuse(p)
	if err != nil {
		t.Fatal(err)
	}
	lp := &stages.LoopProgram{Role: "inference", Graph: g, Loops: p, Schedule: s, Memory: sched.Plan(p, s.Kernels)}
	src := renderLP(t, u, lp)
	for i, r := range src.Code {
		if r > 0x7e || (r < 0x20 && r != '\n') {
			t.Fatalf("non-ASCII or control character %q at byte %d", r, i)
		}
	}
	art, err := compiler.Build(src.Program(), compiler.Options{CacheDir: t.TempDir(), Flags: []string{"-Werror"}})
	if err != nil {
		t.Fatal(err)
	}
	if ok, err := checkNumbers(t, art, u, lp, interp.Inputs{}); err != nil || !ok {
		t.Errorf("numbers: %v %v", ok, err)
	}
}
