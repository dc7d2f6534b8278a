package watch

import (
	"fmt"
	"regexp"
	"sort"
	"strings"

	"gcdbg/ir"
	"gcdbg/runner"
	"gcdbg/stages"
)

// Diff is what changed between two compiles.
type Diff struct {
	Stages  []StageDiff  // graph stages whose nodes changed, in table order
	Kernels []KernelDiff // generated kernel functions whose source changed
	Timing  []TimingDelta
}

// StageDiff is one stage of one graph. Nodes are matched by name; a node
// changed when its op, target, arguments or inferred type did.
type StageDiff struct {
	Graph, Stage            string
	Added, Removed, Changed []string
}

// KernelDiff is one kernel of a compiled program, matched by its position
// in the program (its name follows its origins, so an edit renames it).
type KernelDiff struct {
	Graph, Role string
	Index       int
	Name, Was   string // the new and the old function name ("" when absent)
	Change      string // "changed", "added" or "removed"
}

// TimingDelta is one time that both runs measured, in milliseconds.
type TimingDelta struct {
	Graph, What       string // What: "eager", "compiled" or "kernel NAME (role)"
	BeforeMS, AfterMS float64
}

// Empty reports whether nothing changed.
func (d *Diff) Empty() bool {
	return d == nil || len(d.Stages) == 0 && len(d.Kernels) == 0
}

// DiffUnits compares two compiles' units, graph by graph (matched by the
// captured graph's name; a graph only one side has compares with nothing).
func DiffUnits(old, cur []*stages.Unit) *Diff {
	d := &Diff{}
	before := map[string]*stages.Unit{}
	for _, u := range old {
		if u != nil && u.Captured != nil {
			before[u.Captured.Name] = u
		}
	}
	for _, u := range cur {
		if u == nil || u.Captured == nil {
			continue
		}
		o := before[u.Captured.Name]
		delete(before, u.Captured.Name)
		d.add(u.Captured.Name, o, u)
	}
	var gone []string
	for name := range before {
		gone = append(gone, name)
	}
	sort.Strings(gone)
	for _, name := range gone {
		d.add(name, before[name], nil)
	}
	return d
}

func (d *Diff) add(graph string, old, cur *stages.Unit) {
	for _, st := range stages.Table {
		if st.Graph == nil {
			continue
		}
		var a, b *ir.Graph
		if old != nil {
			a = st.Graph(old)
		}
		if cur != nil {
			b = st.Graph(cur)
		}
		if sd := diffGraph(a, b); sd != nil {
			sd.Graph, sd.Stage = graph, st.Name
			d.Stages = append(d.Stages, *sd)
		}
	}
	oldK, curK := kernelsOf(old), kernelsOf(cur)
	roles := map[string]bool{}
	for r := range oldK {
		roles[r] = true
	}
	for r := range curK {
		roles[r] = true
	}
	for _, role := range sortedKeys(roles) {
		a, b := oldK[role], curK[role]
		for i := 0; i < max(len(a), len(b)); i++ {
			kd := KernelDiff{Graph: graph, Role: role, Index: i}
			switch {
			case i >= len(a):
				kd.Name, kd.Change = b[i].name, "added"
			case i >= len(b):
				kd.Was, kd.Change = a[i].name, "removed"
			case a[i].text != b[i].text:
				kd.Name, kd.Was, kd.Change = b[i].name, a[i].name, "changed"
			default:
				continue
			}
			d.Kernels = append(d.Kernels, kd)
		}
	}
}

// diffGraph compares two graphs' nodes; nil when they are the same.
func diffGraph(a, b *ir.Graph) *StageDiff {
	before := map[string]string{}
	if a != nil {
		for _, n := range a.Nodes {
			before[n.Name] = stages.NodeSig(n)
		}
	}
	sd := &StageDiff{}
	if b != nil {
		for _, n := range b.Nodes {
			sig, ok := before[n.Name]
			switch {
			case !ok:
				sd.Added = append(sd.Added, n.Name)
			case sig != stages.NodeSig(n):
				sd.Changed = append(sd.Changed, n.Name)
			}
			delete(before, n.Name)
		}
	}
	if a != nil {
		for _, n := range a.Nodes { // graph order, not map order
			if _, ok := before[n.Name]; ok {
				sd.Removed = append(sd.Removed, n.Name)
			}
		}
	}
	if len(sd.Added)+len(sd.Removed)+len(sd.Changed) == 0 {
		return nil
	}
	return sd
}

type kernelSrc struct{ name, text string }

var kernelHead = regexp.MustCompile(`(?m)^// kernel \d+:`)
var kernelName = regexp.MustCompile(`(?m)^static void ([A-Za-z_][A-Za-z0-9_]*)\(`)

// kernelsOf cuts each compiled program's generated C into its kernels
// (each starts at a "// kernel N:" comment and ends at the next one or at
// the driver), keyed by the program's role.
func kernelsOf(u *stages.Unit) map[string][]kernelSrc {
	out := map[string][]kernelSrc{}
	if u == nil {
		return out
	}
	for _, lp := range u.Programs {
		if lp.Source == nil {
			continue
		}
		code := lp.Source.Code
		if end := strings.Index(code, "\nvoid gcdbg_seg"); end >= 0 {
			code = code[:end]
		}
		starts := kernelHead.FindAllStringIndex(code, -1)
		var ks []kernelSrc
		for i, s := range starts {
			end := len(code)
			if i+1 < len(starts) {
				end = starts[i+1][0]
			}
			text := code[s[0]:end]
			k := kernelSrc{text: text, name: fmt.Sprintf("kernel%d", i)}
			if m := kernelName.FindStringSubmatch(text); m != nil {
				k.name = m[1]
			}
			ks = append(ks, k)
		}
		out[lp.Role] = ks
	}
	return out
}

// DiffRuns lists the times both runs measured: per graph the eager and
// compiled medians, and each compiled kernel's (matched by name and role).
func DiffRuns(old, cur *runner.Result) []TimingDelta {
	if old == nil || cur == nil {
		return nil
	}
	before := map[string]runner.GraphResult{}
	for _, g := range old.Graphs {
		before[g.Name] = g
	}
	var out []TimingDelta
	for _, g := range cur.Graphs {
		o, ok := before[g.Name]
		if !ok {
			continue
		}
		if o.Timing.EagerMS > 0 && g.Timing.EagerMS > 0 {
			out = append(out, TimingDelta{g.Name, "eager", o.Timing.EagerMS, g.Timing.EagerMS})
		}
		if o.Timing.CompiledMS > 0 && g.Timing.CompiledMS > 0 {
			out = append(out, TimingDelta{g.Name, "compiled", o.Timing.CompiledMS, g.Timing.CompiledMS})
		}
		ok2 := map[string]float64{}
		for _, k := range o.Kernels {
			if kr, ok := runner.KernelOf(k); ok {
				ok2[kr.Role+"/"+kr.Name] = kr.MS
			}
		}
		for _, k := range g.Kernels {
			kr, ok := runner.KernelOf(k)
			if !ok {
				continue
			}
			if ms, ok := ok2[kr.Role+"/"+kr.Name]; ok && ms > 0 && kr.MS > 0 {
				out = append(out, TimingDelta{g.Name, "kernel " + kr.Name + " (" + kr.Role + ")", ms, kr.MS})
			}
		}
	}
	return out
}

// Summary is the diff in one line: "normalized +1 -0 ~2, decomposed +2
// -0 ~1, kernels: k1_relu_addmm changed". Graph names are added when the
// trace has several graphs.
func (d *Diff) Summary() string {
	if d.Empty() {
		return "no change"
	}
	graphs := map[string]bool{}
	for _, s := range d.Stages {
		graphs[s.Graph] = true
	}
	for _, k := range d.Kernels {
		graphs[k.Graph] = true
	}
	prefix := func(g string) string {
		if len(graphs) > 1 {
			return g + "."
		}
		return ""
	}
	var parts []string
	for _, s := range d.Stages {
		parts = append(parts, fmt.Sprintf("%s%s +%d -%d ~%d", prefix(s.Graph), s.Stage, len(s.Added), len(s.Removed), len(s.Changed)))
	}
	if len(d.Kernels) > 0 {
		var ks []string
		for _, k := range d.Kernels {
			name := k.Name
			if name == "" {
				name = k.Was
			}
			ks = append(ks, prefix(k.Graph)+name+" "+k.Change)
		}
		const most = 4
		if len(ks) > most {
			ks = append(ks[:most], fmt.Sprintf("%d more", len(ks)-most))
		}
		parts = append(parts, "kernels: "+strings.Join(ks, ", "))
	}
	return strings.Join(parts, ", ")
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
