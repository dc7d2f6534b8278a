package graphtext

import (
	"errors"
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"gcdbg/ir"
	"gcdbg/tensor"
	"gcdbg/trace"
)

// maxInitElements bounds the elements one file's generated inputs may hold
// (8 bytes each in memory), like the trace loader's `init` budget. A var so
// that the fuzz test can lower it.
var maxInitElements = int64(1) << 27

// Load reads a graph text file; a sidecar NAME.safetensors beside it (for
// graph.py, graph.safetensors) supplies any input or parameter it has a
// tensor for. Every error is an *Error.
func Load(path string) (*trace.Trace, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, &Error{File: filepath.Base(path), Msg: err.Error()}
	}
	t, err := Parse(data, filepath.Dir(path), filepath.Base(path))
	if err != nil {
		return nil, err
	}
	t.Path = path
	return t, nil
}

// Parse reads graph text held in data. dir is the folder the sidecar is
// looked for in (it may not lead outside it); name is the file name used
// in messages and to seed the random inputs. No expected values are set:
// there is no PyTorch run to compare with.
func Parse(data []byte, dir, name string) (*trace.Trace, error) {
	f, err := parseFile(name, data)
	if err != nil {
		return nil, err
	}
	stem := strings.TrimSuffix(name, filepath.Ext(name))
	side, err := openSidecar(dir, stem+".safetensors")
	if err != nil {
		return nil, &Error{File: name, Msg: err.Error()}
	}
	dims := &dimEnv{file: name, hints: f.hints}
	tr := &trace.Trace{
		Dir: dir, Name: stem,
		Producer: map[string]any{"name": "gcdbg graphtext", "file": name},
		Sources:  []trace.Source{{File: name, Text: string(data)}},
	}
	if name != "" {
		tr.Path = filepath.Join(dir, name)
	}
	for _, a := range f.attrs {
		if _, err := dims.tensorMeta(a.ann); err != nil {
			return nil, err
		}
	}
	b := &builder{file: name, f: f, dims: dims, attrs: map[string]*tensorSpec{}}
	for _, a := range f.attrs {
		if prev := b.attrs[a.name]; prev != nil {
			return nil, b.errf(a.p, "parameter %q is declared twice (first at line %d)", a.name, prev.pos.Line)
		}
		meta, _ := dims.tensorMeta(a.ann)
		if meta == nil {
			return nil, b.errf(a.p, "parameter %q needs a tensor type such as \"f32[4, 8]\"", a.name)
		}
		b.attrs[a.name] = &tensorSpec{target: a.name, pos: a.p, meta: meta, attr: true, grad: meta.DType.IsFloat() || f.grad[a.name]}
	}
	gen := &generator{file: name, side: side, budget: maxInitElements, done: map[*tensorSpec]*ir.TensorData{}, used: map[string]bool{}}
	i := 0
	for _, fn := range f.funcs {
		if fn.nested {
			continue // a higher-order op's body: the op names it (lower.go isSubgraph)
		}
		g, err := b.function(fn, fmt.Sprintf("g%d", i))
		i++
		if err != nil {
			return nil, err
		}
		for _, sp := range b.order {
			td, err := gen.tensor(sp)
			if err != nil {
				return nil, err
			}
			c := *td
			g.Tensors[sp.target] = &c
		}
		if err := g.Validate(); err != nil {
			return nil, &Error{File: name, Pos: fn.p, Msg: err.Error()}
		}
		tr.Graphs = append(tr.Graphs, g)
	}
	if side != nil {
		var unused []string
		for k := range side {
			if !gen.used[k] {
				unused = append(unused, k)
			}
		}
		if len(unused) > 0 {
			sort.Strings(unused)
			return nil, &Error{File: name, Msg: fmt.Sprintf("%s.safetensors: tensor %q is no input or parameter of the graph", stem, unused[0])}
		}
	}
	return tr, nil
}

// generator makes each input tensor once: from the sidecar when it holds
// the name, else random (normal floats, ints in [0, 10), random bools),
// seeded by the file name and the input's name so every run sees the same
// numbers.
type generator struct {
	file   string
	side   map[string]*tensor.Tensor
	budget int64
	done   map[*tensorSpec]*ir.TensorData
	used   map[string]bool
}

func (g *generator) errf(at Pos, format string, a ...any) error {
	return &Error{File: g.file, Pos: at, Msg: fmt.Sprintf(format, a...)}
}

func (g *generator) tensor(sp *tensorSpec) (*ir.TensorData, error) {
	if td := g.done[sp]; td != nil {
		return td, nil
	}
	what := "input"
	if sp.attr {
		what = "parameter"
	}
	td := &ir.TensorData{RequiresGrad: sp.grad}
	if t, ok := g.side[sp.target]; ok {
		g.used[sp.target] = true
		if m := sp.meta; m != nil && (m.DType != t.DType || !m.Shape.Equal(ir.ShapeOf(t.Shape))) {
			return nil, g.errf(sp.pos, "%s %q is %s%s in the sidecar but %s here", what, sp.target, t.DType.Short(), ir.ShapeOf(t.Shape), m)
		}
		td.T, td.Origin = t, "file:"+sp.target
	} else {
		if sp.meta == nil {
			return nil, g.errf(sp.pos, "%s %q has no shape: annotate it (%s: \"f32[8, 16]\"), add `# gcdbg: input %s f32[8, 16]`, or put a tensor %q in the sidecar .safetensors", what, sp.target, sp.target, sp.target, sp.target)
		}
		t, dist, err := g.random(sp)
		if err != nil {
			return nil, err
		}
		td.T, td.Origin = t, "init:"+dist
	}
	// The nodes' meta describes the tensor they get.
	for _, n := range sp.nodes {
		n.Meta.Tensor = &ir.TensorMeta{DType: td.T.DType, Shape: ir.ShapeOf(td.T.Shape), Stride: td.T.Strides, RequiresGrad: sp.grad}
	}
	g.done[sp] = td
	return td, nil
}

func (g *generator) random(sp *tensorSpec) (*tensor.Tensor, string, error) {
	m := sp.meta
	sizes := m.Shape.Sizes()
	numel := int64(1)
	for _, s := range sizes {
		numel *= int64(s) // tensorMeta bounded the product
	}
	if numel > g.budget {
		return nil, "", g.errf(sp.pos, "%q needs %d random elements, more than one file may generate (%d left); give it in the sidecar", sp.target, numel, g.budget)
	}
	g.budget -= numel
	h := fnv.New64a()
	h.Write([]byte(g.file + "\x00" + sp.target))
	r := rand.New(rand.NewPCG(h.Sum64(), 0))
	t := tensor.New(m.DType, sizes...)
	if dense(sizes, m.Stride) {
		// Keep the annotated layout (channels-last, transposed): the guards
		// and the scheduler see the strides PyTorch had.
		t = t.View(sizes, append([]int(nil), m.Stride...), 0)
	}
	n := int(numel)
	switch {
	case m.DType.IsFloat() && sp.attr:
		// Parameters start as torch.nn's layers start them: uniform in
		// ±1/sqrt(fan_in) (Linear, Conv) — not N(0, 1), which makes a deep
		// MLP's activations grow by sqrt(fan_in) per layer until float32
		// accumulation error alone exceeds any sensible tolerance.
		bound := 1 / math.Sqrt(float64(fanIn(sizes)))
		for i := 0; i < n; i++ {
			t.SetFlat(i, (2*r.Float64()-1)*bound)
		}
		return t, fmt.Sprintf("uniform(±%.3g)", bound), nil
	case m.DType.IsFloat():
		for i := 0; i < n; i++ {
			t.SetFlat(i, r.NormFloat64())
		}
		return t, "normal", nil
	case m.DType.IsBool():
		for i := 0; i < n; i++ {
			t.SetFlatInt(i, int64(r.IntN(2)))
		}
		return t, "randint(0, 2)", nil
	}
	for i := 0; i < n; i++ {
		t.SetFlatInt(i, int64(r.IntN(10)))
	}
	return t, "randint(0, 10)", nil
}

// dense reports whether strides lay the sizes out densely in some
// dimension order (a permutation of a contiguous layout).
func dense(sizes, strides []int) bool {
	if len(strides) != len(sizes) {
		return false
	}
	idx := make([]int, 0, len(sizes))
	for d, s := range sizes {
		if s > 1 {
			idx = append(idx, d)
		}
	}
	sort.SliceStable(idx, func(a, b int) bool { return strides[idx[a]] < strides[idx[b]] })
	want := 1
	for _, d := range idx {
		if strides[d] != want {
			return false
		}
		want *= sizes[d]
	}
	return true
}

// openSidecar reads dir/file when it exists, refusing a file whose real
// path (symlinks followed) leaves dir.
func openSidecar(dir, file string) (map[string]*tensor.Tensor, error) {
	if dir == "" {
		dir = "."
	}
	p := filepath.Join(dir, file)
	if _, err := os.Lstat(p); errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	realDir, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return nil, fmt.Errorf("%s: cannot resolve the folder: %v", file, err)
	}
	realPath, err := filepath.EvalSymlinks(p)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", file, err)
	}
	realDir, _ = filepath.Abs(realDir)
	realPath, _ = filepath.Abs(realPath)
	rel, err := filepath.Rel(realDir, realPath)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return nil, fmt.Errorf("%s resolves to %s, outside the graph's folder", file, realPath)
	}
	st, err := os.Stat(realPath)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", file, err)
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", file)
	}
	data, err := os.ReadFile(realPath)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", file, err)
	}
	m, err := trace.ParseSafetensors(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", file, err)
	}
	return m, nil
}

// fanIn is what torch.nn.init calls fan_in: the input features of a weight
// (all dims but the first for a ≥2-D tensor); a bias or other 1-D
// parameter uses its own length.
func fanIn(sizes []int) int {
	f := 1
	switch len(sizes) {
	case 0:
	case 1:
		f = sizes[0]
	default:
		for _, s := range sizes[1:] {
			f *= s
		}
	}
	return max(f, 1)
}
