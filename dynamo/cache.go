package dynamo

import (
	"fmt"
	"strings"

	"gcdbg/interp"
	"gcdbg/ir"
	"gcdbg/stages"
	"gcdbg/trace"
	"gcdbg/verdict"
)

// DefaultDynamicAfter is how many size changes along one input dimension
// make it dynamic: the first change recompiles static, the second marks
// the dimension symbolic. (Stock Dynamo with automatic_dynamic_shapes
// already goes dynamic on the first change; Cache.DynamicAfter = 1 gives that.)
const DefaultDynamicAfter = 2

// Cache is one graph's compile cache: entries keyed by their guards, each
// holding the pipeline's artifact, checked newest first as Dynamo does.
type Cache struct {
	Graph        string
	Entries      []*Entry
	Compiles     int
	DynamicAfter int

	tr      *trace.Trace
	example Frame
	dynamic map[string]string // "x:0" -> "s0": dims marked dynamic so far
	changes map[string]int    // size changes seen per input dim
	seen    map[string][]int  // frame state: the sizes of the last compile
}

// Entry is one compiled artifact and the guards that protect it.
type Entry struct {
	ID     string         // "g0/1": graph and compile number, as Dynamo logs [0/1]
	Units  []*stages.Unit // the artifact: what the pipeline produced
	Inputs []stages.GuardInput
	Shapes string // the graph inputs it was compiled for: x=f32[s0, 28, 28]
	Hits   int
}

// Unit is the entry's graph as it went through the pipeline.
func (e *Entry) Unit() *stages.Unit { return e.Units[0] }

// Call is what happened when the graph was called once.
type Call struct {
	Inputs   string // the call's graph inputs: x=f32[4, 28, 28]
	Hit      bool
	Entry    *Entry   // the entry that ran (hit or freshly compiled)
	Failures []string // per entry checked, newest first: "g0/0: tensor 'L['x']' size mismatch ..."
	Actions  []string // recompiling graph g0 (attempt 2), marking x dim 0 dynamic (s0), ...
	Outputs  []ir.Value
	// VsStatic compares, for an entry with symbolic shapes, each output
	// with a fresh static compile at this call's sizes.
	VsStatic []verdict.Judgement
	// Static is that static compile (nil for a static entry): a reference
	// at this call's sizes for what the symbolic artifact computes.
	Static *stages.Unit
}

// New makes the cache of graph `name` of tr and compiles it for the
// trace's example inputs (attempt 1), as the first call would.
func New(tr *trace.Trace, name string) (*Cache, *Call, error) {
	c := &Cache{Graph: name, DynamicAfter: DefaultDynamicAfter, tr: tr,
		dynamic: map[string]string{}, changes: map[string]int{}, seen: map[string][]int{}}
	for _, g := range tr.Graphs {
		if g.Name == name {
			c.example = ExampleFrame(g)
		}
	}
	if c.example == nil {
		return nil, nil, fmt.Errorf("%s: no graph %q", tr.Name, name)
	}
	call, err := c.Call(c.example)
	return c, call, err
}

// Example is the trace's own call of the graph.
func (c *Cache) Example() Frame { return c.example }

// Call runs the graph on frame f: a cache hit runs the entry whose guards
// hold; a miss records every entry's failing guard, recompiles (marking
// dimensions dynamic after repeated size changes) and runs the new entry.
func (c *Cache) Call(f Frame) (*Call, error) {
	call := &Call{Inputs: Describe(c.graph(), f)}
	for i := len(c.Entries) - 1; i >= 0; i-- {
		e := c.Entries[i]
		why := Check(e.Inputs, f)
		if why == "" {
			e.Hits++
			call.Hit, call.Entry = true, e
			break
		}
		call.Failures = append(call.Failures, e.ID+": "+why)
	}
	if !call.Hit {
		e, err := c.recompile(f, call)
		if err != nil {
			return call, err
		}
		call.Entry = e
	}
	outs, err := interp.Run(call.Entry.Unit().Normalized, overrides(f))
	if err != nil {
		return call, fmt.Errorf("%s: running %s: %w", c.Graph, call.Entry.ID, err)
	}
	call.Outputs = outs
	if len(call.Entry.Unit().Guards.Dynamic) > 0 {
		if err := c.vsStatic(f, call); err != nil {
			return call, err
		}
	}
	return call, nil
}

func (c *Cache) graph() *ir.Graph {
	for _, g := range c.tr.Graphs {
		if g.Name == c.Graph {
			return g
		}
	}
	return nil
}

// recompile updates the automatic-dynamic bookkeeping from the sizes of
// f and compiles a new entry.
func (c *Cache) recompile(f Frame, call *Call) (*Entry, error) {
	if c.Compiles > 0 {
		call.Actions = append(call.Actions, fmt.Sprintf("recompiling graph %s (attempt %d)", c.Graph, c.Compiles+1))
	} else {
		call.Actions = append(call.Actions, fmt.Sprintf("compiling graph %s (attempt 1)", c.Graph))
	}
	var marked [][2]any
	for _, name := range placeholderTensors(c.graph()) {
		v := f[name]
		prev, ok := c.seen[name]
		if !ok || v.T == nil || len(prev) != len(v.T.T.Shape) {
			continue
		}
		for d, size := range v.T.T.Shape {
			key := stages.DimKey(name, d)
			if sym := c.dynamic[key]; sym != "" {
				if size < 2 {
					call.Actions = append(call.Actions, fmt.Sprintf("%s dim %d (%s): size %d is specialised (Dynamo never makes 0 or 1 symbolic)", name, d, sym, size))
				}
				continue
			}
			if size == prev[d] {
				continue
			}
			c.changes[key]++
			switch {
			case size < 2:
				call.Actions = append(call.Actions, fmt.Sprintf("%s dim %d: size %d is specialised (Dynamo never makes 0 or 1 symbolic)", name, d, size))
			case c.changes[key] >= c.DynamicAfter:
				c.dynamic[key] = "?" // its symbol is allocated below
				marked = append(marked, [2]any{name, d})
			default:
				call.Actions = append(call.Actions, fmt.Sprintf("%s dim %d changed size %d -> %d (change %d): compiling static", name, d, prev[d], size, c.changes[key]))
			}
		}
	}
	// Symbolic dims of this compile: the marked ones, except where this
	// call's size is 0 or 1 (specialised, so that call gets its own entry).
	// Symbols are allocated by duck sizing, as Dynamo does: dims of equal
	// size share one symbol (so x + y of two [s0, 32] inputs broadcasts),
	// guarded by an equality between the sizes.
	dyn := map[string]string{}
	symOf := map[int]string{}
	var dims []SymDim
	for _, name := range placeholderTensors(c.graph()) {
		v := f[name]
		if v.T == nil {
			continue
		}
		for d, size := range v.T.T.Shape {
			key := stages.DimKey(name, d)
			if c.dynamic[key] != "" && size >= 2 {
				s, ok := symOf[size]
				if !ok {
					s = fmt.Sprintf("s%d", len(symOf))
					symOf[size] = s
				}
				c.dynamic[key], dyn[key] = s, s
				dims = append(dims, SymDim{Input: name, Dim: d, Sym: s, Hint: size})
			}
		}
	}
	for _, m := range marked {
		call.Actions = append(call.Actions, fmt.Sprintf("marking %s dim %d dynamic (%s)", m[0], m[1], dyn[stages.DimKey(m[0].(string), m[1].(int))]))
	}
	var units []*stages.Unit
	if len(dims) > 0 {
		var err error
		if units, err = c.compileDynamic(f, dims); err != nil {
			// Dynamo too falls back to specialising when a size cannot stay symbolic.
			call.Actions = append(call.Actions, fmt.Sprintf("cannot compile %s dynamic: %v; compiling static", describeDims(dims), err))
			for _, sd := range dims {
				delete(c.dynamic, stages.DimKey(sd.Input, sd.Dim))
			}
			dyn, units = nil, nil
		} else if err := stages.DeriveGuards(units[0], dyn); err != nil {
			return nil, err
		}
	}
	if units == nil {
		var err error
		if units, err = c.compile(f); err != nil {
			return nil, err
		}
	}
	u := units[0]
	ins, err := stages.GuardInputs(u)
	if err != nil {
		return nil, err
	}
	for _, name := range placeholderTensors(c.graph()) {
		if v := f[name]; v.T != nil {
			c.seen[name] = append([]int{}, v.T.T.Shape...)
		}
	}
	e := &Entry{ID: fmt.Sprintf("%s/%d", c.Graph, c.Compiles), Units: units, Inputs: ins, Shapes: entryShapes(ins, u.Captured)}
	c.Compiles++
	c.Entries = append(c.Entries, e)
	return e, nil
}

// compile takes the graph through the whole pipeline on frame f.
func (c *Cache) compile(f Frame) ([]*stages.Unit, error) {
	tr, err := TraceWith(c.tr, c.Graph, f)
	if err != nil {
		return nil, err
	}
	units, err := stages.Run(tr, "")
	if err != nil {
		return nil, err
	}
	if len(units) != 1 {
		return nil, fmt.Errorf("%s: compiling %s gave %d units", c.tr.Name, c.Graph, len(units))
	}
	return units, nil
}

// vsStatic checks a symbolic artifact against a static compile at the
// call's own sizes: the symbolic one must compute the same values.
func (c *Cache) vsStatic(f Frame, call *Call) error {
	units, err := c.compile(f)
	if err != nil {
		return fmt.Errorf("%s: static compile for comparison: %w", c.Graph, err)
	}
	call.Static = units[0]
	refs, err := interp.RunRefs(units[0].Normalized, overrides(f))
	if err != nil {
		return fmt.Errorf("%s: static compile for comparison: %w", c.Graph, err)
	}
	want := refs.Native
	if len(want) != len(call.Outputs) {
		return fmt.Errorf("%s: the symbolic compile returns %d outputs, the static one %d", c.Graph, len(call.Outputs), len(want))
	}
	for i := range want {
		got, err1 := interp.AsTensor(call.Outputs[i])
		_, err2 := interp.AsTensor(want[i])
		if err1 != nil || err2 != nil {
			call.VsStatic = append(call.VsStatic, verdict.Judgement{Match: ir.ArgEqual(call.Outputs[i], want[i]), Why: "not a tensor"})
			continue
		}
		call.VsStatic = append(call.VsStatic, refs.Judge(i, got))
	}
	return nil
}

func placeholderTensors(g *ir.Graph) []string {
	var out []string
	for _, n := range g.Placeholders() {
		if g.Tensors[n.Target] != nil {
			out = append(out, n.Target)
		}
	}
	return out
}

func describeDims(dims []SymDim) string {
	parts := make([]string, len(dims))
	for i, d := range dims {
		parts[i] = fmt.Sprintf("%s dim %d (%s)", d.Input, d.Dim, d.Sym)
	}
	return strings.Join(parts, ", ")
}

// entryShapes prints the graph inputs an entry accepts: x=f32[s0, 28, 28].
func entryShapes(ins []stages.GuardInput, g *ir.Graph) string {
	isPH := map[string]bool{}
	for _, n := range g.Placeholders() {
		isPH[n.Target] = true
	}
	var parts []string
	for _, in := range ins {
		if !isPH[in.Name] {
			continue
		}
		if !in.Tensor {
			parts = append(parts, in.Name+"="+ir.FormatArg(in.Value, func(n *ir.Node) string { return n.Name }))
			continue
		}
		sh := make(ir.Shape, len(in.Sizes))
		for d, s := range in.Sizes {
			sh[d] = ir.Dim{Size: s, Sym: in.Syms[d]}
		}
		parts = append(parts, fmt.Sprintf("%s=%s%s", in.Name, in.DType.Short(), sh))
	}
	return strings.Join(parts, ", ")
}
