package torchtrace

import (
	"fmt"
	"path/filepath"
	"strings"

	"gcdbg/graphtext"
	"gcdbg/ir"
	"gcdbg/stages"
	"gcdbg/trace"
)

// Imported is a TORCH_TRACE log turned into a gcdbg trace.
type Imported struct {
	Trace    *trace.Trace
	Compiles []*Compile
	Log      *Log
}

// Import reads the TORCH_TRACE log at path and returns a trace with one
// graph per compile that has a dynamo_output_graph (named by its compile
// id, "[0/0]"), with random inputs of the recorded shapes, and every
// compile of the log. PyTorch's own artifacts for each graph are recorded
// with stages.SetReferences, so the "pytorch" stage prints them (see
// References). Only an unreadable file is an error: damaged lines are
// skipped (Log.Skipped), and a graph gcdbg cannot read is left out of the
// trace with the reason in its Compile's ImportError.
func Import(path string) (*trace.Trace, []*Compile, error) {
	im, err := ImportLog(path)
	if err != nil {
		return nil, nil, err
	}
	return im.Trace, im.Compiles, nil
}

// ImportLog is Import, also returning the read log (line and skip counts).
func ImportLog(path string) (*Imported, error) {
	l, err := ReadFile(path)
	if err != nil {
		return nil, err
	}
	name := strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	im := FromLog(l, name, filepath.Dir(path))
	im.Trace.Path = path
	return im, nil
}

// FromLog builds the trace from a log already read; name names the trace.
// dir is the log's folder: a graph's inputs are random unless a sidecar
// NAME-F_C.safetensors there (simple-0_0.safetensors for [0/0] of
// simple.log) holds real tensors for them (package graphtext reads it).
func FromLog(l *Log, name, dir string) *Imported {
	compiles := Group(l)
	tr := &trace.Trace{Name: name, Dir: dir, Producer: map[string]any{
		"tool":      "TORCH_TRACE",
		"lines":     l.Lines,
		"envelopes": len(l.Envelopes),
		"skipped":   len(l.Skipped),
	}}
	if len(l.Skipped) > 0 {
		tr.Producer["skipped_reasons"] = l.SkipSummary()
	}
	inheritStacks(compiles)
	refs := map[string][]stages.Reference{}
	budget := maxLogElements
	for _, c := range compiles {
		if c.Graph == "" {
			continue
		}
		need, ok := inputElements(c.graphText())
		if !ok {
			c.ImportError = fmt.Sprintf("%s: its inputs need more than 2^62 random elements (an element count that overflows int64), more than the %d left for this log", c.ID, budget)
			continue
		}
		if need > budget {
			c.ImportError = fmt.Sprintf("%s: its inputs need %d random elements, more than the %d left for this log", c.ID, need, budget)
			continue
		}
		budget -= need
		g, err := convertGraph(c, name, dir)
		if err != nil {
			c.ImportError = err.Error()
			continue
		}
		g.Name = c.ID
		g.Guards = c.ProducerGuards()
		if g.Expected, err = expectedFor(g, c, name, dir); err != nil {
			c.ImportError = err.Error()
			continue
		}
		c.Imported = true
		tr.Graphs = append(tr.Graphs, g)
		refs[g.Name] = c.References()
	}
	var notImported []string
	for _, c := range compiles {
		if c.ImportError != "" {
			notImported = append(notImported, c.ImportError)
		}
	}
	if len(notImported) > 0 {
		tr.Producer["not_imported"] = notImported
	}
	stages.SetReferences(tr, refs)
	return &Imported{Trace: tr, Compiles: compiles, Log: l}
}

// inheritStacks gives a restarted attempt ("[0/0_1]") the user stack its
// first attempt logged: dynamo_start is written once per frame compile.
func inheritStacks(cs []*Compile) {
	first := map[[3]int]*Compile{}
	for _, c := range cs {
		k := [3]int{c.Frame, c.CompileIndex, caID(c)}
		if f := first[k]; f == nil {
			first[k] = c
		} else if len(c.Stack) == 0 {
			c.Stack = f.Stack
		}
	}
}

func caID(c *Compile) int {
	if c.CompiledAutograd == nil {
		return -1
	}
	return *c.CompiledAutograd
}

// Reference is one of PyTorch's artifacts for a graph (stages.Reference).
type Reference = stages.Reference

// References returns PyTorch's artifacts for each graph of an imported
// trace, by graph name; nil for a trace that is not a TORCH_TRACE import.
// They are held in a registry in package stages keyed by the trace (weakly,
// so a dropped trace takes its entry with it), which keeps trace.Trace
// free of TORCH_TRACE fields.
func References(tr *trace.Trace) map[string][]Reference {
	return stages.ReferencesOf(tr)
}

// pipelineOrder is the order PyTorch produces its stages in, which is the
// order the pytorch stage shows them.
var pipelineOrder = []string{
	"aot_joint_graph", "aot_forward_graph", "aot_backward_graph", "aot_inference_graph",
	"inductor_pre_grad_graph", "inductor_post_grad_graph", "inductor_output_code",
}

// References lists this compile's artifacts as the pytorch stage prints
// them: guards, PyTorch's graphs in pipeline order, the other artifacts in
// log order, compilation metrics, recompile/restart reasons, the failure
// and the user stack.
func (c *Compile) References() []Reference {
	var out []Reference
	for _, g := range c.Guards {
		if strings.TrimSpace(g.Text) != "" { // newer logs write an empty dynamo_guards beside the C++ tree
			out = append(out, Reference{Name: g.Kind, Text: g.Text})
		}
	}
	shown := map[string]bool{}
	for _, k := range pipelineOrder {
		for _, key := range c.RefOrder {
			if key == k || strings.HasPrefix(key, k+" (") {
				out = append(out, Reference{Name: key, Text: c.Reference[key]})
				shown[key] = true
			}
		}
		if k == "aot_backward_graph" {
			if s := c.savedText(); s != "" {
				out = append(out, Reference{Name: "saved for backward (PyTorch)", Text: s})
			}
		}
	}
	for _, key := range c.RefOrder {
		if !shown[key] {
			out = append(out, Reference{Name: key, Text: c.Reference[key]})
		}
	}
	if c.Metrics != nil {
		out = append(out, Reference{Name: "compilation_metrics", Text: c.MetricsText()})
	}
	if len(c.RestartReasons) > 0 {
		out = append(out, Reference{Name: "restart_reasons", Text: strings.Join(c.RestartReasons, "\n")})
	}
	if c.FailType != "" || c.FailReason != "" {
		out = append(out, Reference{Name: "failure", Text: strings.TrimSpace(c.FailType + ": " + c.FailReason)})
	}
	if len(c.Stack) > 0 {
		out = append(out, Reference{Name: "user_stack", Text: strings.Join(c.Stack, "\n")})
	}
	return out
}

// convertGraph turns a compile's dynamo_output_graph text into a graph
// with inputs. It is the one place that depends on package graphtext.
func convertGraph(c *Compile, logName, dir string) (*ir.Graph, error) {
	file := logName + "-" + c.fileID() + ".py"
	tr, err := graphtext.Parse([]byte(c.graphText()), dir, file)
	if err != nil {
		return nil, fmt.Errorf("%s: dynamo_output_graph (line %d): %w", c.ID, c.Line, err)
	}
	if len(tr.Graphs) != 1 {
		return nil, fmt.Errorf("%s: dynamo_output_graph holds %d graphs, want 1", c.ID, len(tr.Graphs))
	}
	return tr.Graphs[0], nil
}

// fileID is the compile id as a file name part: [0/1_1] -> 0_1_1,
// [!2/0/0] -> ca2_0_0.
func (c *Compile) fileID() string {
	r := strings.NewReplacer("[", "", "]", "", "/", "_", "!", "ca", "-", "x")
	return r.Replace(c.ID)
}

// IsLog reports whether head (the first bytes of a file) starts like a
// structured trace log: a glog prefix followed by a JSON envelope.
func IsLog(head []byte) bool {
	line, _, _ := strings.Cut(string(head), "\n")
	m := glogPrefix.FindStringIndex(line)
	return m != nil && strings.HasPrefix(line[m[1]:], "{")
}

// LoadTrace is Import for callers that want only the trace (the CLI's
// loader). A log none of whose graphs could be imported is an error that
// says why for each; a log with some is not (the others' reasons are in
// the trace's Producer["not_imported"]).
func LoadTrace(path string) (*trace.Trace, error) {
	im, err := ImportLog(path)
	if err != nil {
		return nil, err
	}
	if len(im.Trace.Graphs) > 0 {
		return im.Trace, nil
	}
	var why []string
	for _, c := range im.Compiles {
		if c.ImportError != "" {
			why = append(why, c.ImportError)
		}
	}
	if len(why) == 0 {
		return nil, fmt.Errorf("%s: TORCH_TRACE log with %d compiles and no dynamo_output_graph (%d lines, %d skipped)",
			path, len(im.Compiles), im.Log.Lines, len(im.Log.Skipped))
	}
	return nil, fmt.Errorf("%s: no graph of the log could be imported:\n  %s", path, strings.Join(why, "\n  "))
}
