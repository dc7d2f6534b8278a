package runner

import (
	"fmt"

	"gcdbg/dynamo"
	"gcdbg/interp"
	"gcdbg/ir"
	"gcdbg/trace"
	"gcdbg/verdict"
)

// GraphRecompiles is `run --input`'s record for one graph: each call (the
// trace's own inputs first, then one per --input set that names one of
// the graph's inputs) and the compile cache it left behind.
type GraphRecompiles struct {
	Graph    string            `json:"graph"`
	Calls    []CallResult      `json:"calls"`
	Cache    []CacheEntry      `json:"cache"`
	Compiles int               `json:"compiles"`
	Dynamic  map[string]string `json:"dynamic"` // "x:0" -> "s0"
}

// CallResult is one call: hit or miss, why, what was done.
type CallResult struct {
	Set      string   `json:"set"`    // the --input text ("" for the trace's own inputs)
	Inputs   string   `json:"inputs"` // x=f32[4, 28, 28]
	Hit      bool     `json:"hit"`
	Entry    string   `json:"entry"`    // the entry that ran: g0/1
	Failures []string `json:"failures"` // each entry's first failing guard, newest entry first
	Actions  []string `json:"actions"`
	Outputs  []string `json:"outputs"` // f32[4, 10]
	// VsStatic: the symbolic entry's outputs against a static compile at these sizes.
	VsStatic []verdict.Judgement `json:"vs_static,omitempty"`
	// Reference says why PyTorch's expected values do not apply.
	Reference string `json:"reference"`
	// Compiled is the entry's compiled programs run on these inputs
	// (--device cpu; runner/entries.go).
	Compiled *CompiledCall `json:"compiled,omitempty"`
}

// CacheEntry is one compiled artifact of the cache.
type CacheEntry struct {
	ID     string     `json:"id"`
	Inputs string     `json:"inputs"`
	Guards []ir.Guard `json:"guards"`
	Hits   int        `json:"hits"`
	Stages int        `json:"stages"` // units the pipeline produced (the artifact)
	// Builds is how many programs were built for the entry over all its
	// calls (--device cpu): one per compiled graph, however many sizes it served.
	Builds int `json:"builds"`
	// Symbols are the size symbols its kernels take as arguments (ks0).
	Symbols []string `json:"symbols,omitempty"`
}

// RecompilesWith calls every graph of tr with its own inputs, then with
// each --input set (NAME=SPEC,... ; see dynamo.Spec), through a per-graph
// compile cache. With opt.Device "cpu" every call also runs the serving
// entry's compiled programs (runner/entries.go). A name that is no
// graph's input is an error.
func RecompilesWith(tr *trace.Trace, sets []string, opt Options) ([]GraphRecompiles, error) {
	parsed := make([][]dynamo.Spec, len(sets))
	used := map[string]bool{}
	for i, s := range sets {
		sp, err := dynamo.ParseSet(s)
		if err != nil {
			return nil, err
		}
		parsed[i] = sp
	}
	var out []GraphRecompiles
	for _, g := range tr.Graphs {
		c, first, err := dynamo.New(tr, g.Name)
		if err != nil {
			return out, err
		}
		eb := newEntryBuilds(opt)
		compiled := func(call *dynamo.Call, f dynamo.Frame, r *CallResult) error {
			if opt.Device != "cpu" {
				return nil
			}
			cc, err := eb.runCompiled(call, f)
			if err != nil {
				return fmt.Errorf("%s: graph %q: %w", tr.Name, g.Name, err)
			}
			r.Compiled = cc
			return nil
		}
		gr := GraphRecompiles{Graph: g.Name, Calls: []CallResult{callResult("", first, "the trace's own inputs: compared with PyTorch above")}}
		if err := compiled(first, c.Example(), &gr.Calls[0]); err != nil {
			return out, err
		}
		for i, specs := range parsed {
			var mine []dynamo.Spec
			for _, sp := range specs {
				if _, ok := c.Example()[sp.Name]; ok {
					mine = append(mine, sp)
					used[sp.Name] = true
				}
			}
			if len(mine) == 0 {
				continue
			}
			f, err := c.Example().Apply(mine)
			if err != nil {
				return out, fmt.Errorf("%s: graph %q: %w", tr.Name, g.Name, err)
			}
			call, err := c.Call(f)
			if err != nil {
				return out, fmt.Errorf("%s: graph %q: --input %s: %w", tr.Name, g.Name, sets[i], err)
			}
			r := callResult(sets[i], call,
				"random inputs: PyTorch's expected values are for the trace's own inputs, so there is no reference; compared with gcdbg's eager interpreter only")
			if err := compiled(call, f, &r); err != nil {
				return out, err
			}
			gr.Calls = append(gr.Calls, r)
		}
		for _, e := range c.Entries {
			ce := CacheEntry{ID: e.ID, Inputs: e.Shapes, Guards: e.Unit().Guards.Derived, Hits: e.Hits, Stages: len(e.Units), Builds: eb.builds[e]}
			for _, lp := range e.Unit().Programs {
				if lp.Source != nil {
					ce.Symbols = appendNew(ce.Symbols, lp.Source.Manifest.Symbols...)
				}
			}
			gr.Cache = append(gr.Cache, ce)
		}
		gr.Compiles = c.Compiles
		gr.Dynamic = map[string]string{}
		for _, e := range c.Entries {
			for k, v := range e.Unit().Guards.Dynamic {
				gr.Dynamic[k] = v
			}
		}
		out = append(out, gr)
	}
	for i, specs := range parsed {
		for _, sp := range specs {
			if !used[sp.Name] {
				return out, fmt.Errorf("%s: --input %s: no graph has an input called %q", tr.Name, sets[i], sp.Name)
			}
		}
	}
	return out, nil
}

func callResult(set string, c *dynamo.Call, ref string) CallResult {
	r := CallResult{Set: set, Inputs: c.Inputs, Hit: c.Hit, Entry: c.Entry.ID, Failures: c.Failures, Actions: c.Actions,
		VsStatic: c.VsStatic, Reference: ref}
	if r.Failures == nil {
		r.Failures = []string{}
	}
	if r.Actions == nil {
		r.Actions = []string{}
	}
	r.Outputs = []string{}
	for _, v := range c.Outputs {
		if t, err := interp.AsTensor(v); err == nil {
			r.Outputs = append(r.Outputs, fmt.Sprintf("%s%s", t.DType.Short(), ir.ShapeOf(t.Shape)))
		} else {
			r.Outputs = append(r.Outputs, fmt.Sprintf("%T", v))
		}
	}
	return r
}

func appendNew(xs []string, ys ...string) []string {
	for _, y := range ys {
		dup := false
		for _, x := range xs {
			dup = dup || x == y
		}
		if !dup {
			xs = append(xs, y)
		}
	}
	return xs
}
