package tui

import (
	"fmt"
	"regexp"
	"strings"

	"gcdbg/ir"
	"gcdbg/stages"
	"gcdbg/termsafe"
)

// nodeID names one node of one graph stage (stages.Provenance's NodeRef):
// the stage's index in stages.Table and the node's name in its graph.
type nodeID = stages.NodeRef

// stageDoc is one stage's artifact for one Unit, split into lines, with
// what each line stands for. Built once per Unit (buildUnitDoc), so
// switching stages only re-renders the visible lines.
type stageDoc struct {
	idx   int // index in stages.Table
	name  string
	graph *ir.Graph // nil for text stages
	lines []string
	// refs are the graph nodes a line stands for: the nodes a graph stage's
	// line defines, or the nodes a text stage's line mentions (buffers and
	// kernels resolved to their origins). The cursor selects them.
	refs [][]nodeID
	// hl are the nodes whose selection highlights the line: refs plus, for
	// comment lines and lines inside a block, the nodes they mention.
	hl [][]nodeID
	// direct are the nodes a text stage's line names itself (not through
	// its block's header): the C line `t3 = ...;  // relu` computing a
	// node, as opposed to the rest of its kernel's body.
	direct  [][]nodeID
	defLine map[string]int // graph stages: node name -> the line defining it
	lexer   string         // chroma lexer name, "" for plain text
	err     string         // why the stage has no artifact
	// lineOf is the reverse of hl: the lines each node highlights.
	lineOf  map[nodeID][]int
	colored map[int]string // syntax-coloured lines, filled as they are drawn
	// What the stage changed against the one before (diff.go): a mark
	// per line ('+' added, '~' changed), the counts, and whether nothing
	// changed at all.
	diffMark  []byte
	diffSum   string
	unchanged bool
	// The same against the previous watch compile (applyCompileDiff).
	wMark []byte
	wSum  string
}

// count is the stage list's per-stage number: nodes of a graph stage,
// lines of a text stage.
func (d *stageDoc) count() string {
	if d.err != "" {
		return "-"
	}
	if d.graph != nil {
		return fmt.Sprint(len(d.graph.Nodes))
	}
	return ""
}

// unitDoc is everything the TUI shows for one captured graph.
type unitDoc struct {
	unit   *stages.Unit
	stages []*stageDoc
	prov   *stages.Provenance
	pairs  map[[2]int]pairDiff // diff mode's stage-against-stage comparisons, made on demand
}

// buildUnitDoc prints every stage once and indexes lines and provenance.
func buildUnitDoc(u *stages.Unit) *unitDoc {
	ud := &unitDoc{unit: u, prov: stages.NewProvenance(u)}
	for i, st := range stages.Table {
		d := &stageDoc{idx: i, name: st.Name, lexer: st.Lang}
		text, err := safePrint(st, u)
		if err != nil {
			d.err = err.Error()
			text = "(" + st.Name + " has no artifact for this graph: " + d.err + ")"
		}
		// Names come from the trace: no control sequence reaches the terminal.
		d.lines = strings.Split(strings.TrimRight(termsafe.Text(text), "\n"), "\n")
		if d.err == "" {
			d.graph = ud.prov.Graph(i)
		}
		ud.stages = append(ud.stages, d)
	}
	for i, d := range ud.stages {
		switch {
		case d.graph != nil:
			indexGraphLines(d)
		case stages.Table[i].Loop:
			indexTextLines(d, ud.prov)
		default:
			d.refs = make([][]nodeID, len(d.lines))
			d.hl = make([][]nodeID, len(d.lines))
			d.direct = make([][]nodeID, len(d.lines))
		}
		d.lineOf = map[nodeID][]int{}
		for i, ids := range d.hl {
			for _, id := range ids {
				if l := d.lineOf[id]; len(l) == 0 || l[len(l)-1] != i {
					d.lineOf[id] = append(d.lineOf[id], i)
				}
			}
		}
	}
	for i := range ud.stages {
		ud.diffStage(i)
	}
	return ud
}

// safePrint prints a stage; a printer that fails on a half-run unit (an
// earlier stage failed) becomes an error instead of a crash.
func safePrint(st stages.Stage, u *stages.Unit) (text string, err error) {
	if st.Graph != nil && st.Print != nil && stages.StageGraph(st, u) == nil && u.Failure == nil {
		return "", fmt.Errorf("no %s graph (nothing requires grad, or an earlier stage failed)", st.Name)
	}
	// (with a Failure, the printer says where and why the pipeline stopped)
	return stages.PrintStage(st, u)
}

var (
	fxDef       = regexp.MustCompile(`^\s*%([A-Za-z_][A-Za-z0-9_]*) :`)
	readableDef = regexp.MustCompile(`^\s*([A-Za-z_][A-Za-z0-9_]*)(?:: | = )`)
	commentDef  = regexp.MustCompile(`^\s*#\s*([A-Za-z_][A-Za-z0-9_]*): `)
	sourceLine  = regexp.MustCompile(`^\s*# File: `)
	identRE     = regexp.MustCompile(`[A-Za-z_][A-Za-z0-9_]*`)
)

// indexGraphLines finds the line defining each node of a graph stage (the
// fx form "%name :", the readable forms "name: ..." and "name = ..." for a
// node without a tensor type); placeholders printed only in a signature or
// a comment, and the output node ("return"), are found by their first
// mention. A comment line names at most one node, by position, never by
// a word in its prose: its first token that is a node of this graph
// ("# backward of relu_1 (relu)", "#   relu_1  f32[8, 512]  saved",
// "# primals_1: ... is x"); a user-source comment ("# File: ..., code:
// ...") names none (its code is the user's, not the graph's).
func indexGraphLines(d *stageDoc) {
	d.refs = make([][]nodeID, len(d.lines))
	d.hl = make([][]nodeID, len(d.lines))
	d.defLine = map[string]int{}
	g := d.graph
	byName := make(map[string]bool, len(g.Nodes)) // not g.Node: its scan is quadratic here
	for _, n := range g.Nodes {
		byName[n.Name] = true
	}
	first := map[string]int{}
	for i, l := range d.lines {
		trim := strings.TrimSpace(l)
		comment := strings.HasPrefix(trim, "#")
		var m []string
		if m = fxDef.FindStringSubmatch(l); m == nil && !comment {
			m = readableDef.FindStringSubmatch(l)
		}
		if m == nil {
			m = commentDef.FindStringSubmatch(l)
		}
		if m != nil && byName[m[1]] {
			if _, seen := d.defLine[m[1]]; !seen || !comment {
				d.defLine[m[1]] = i
			}
		}
		if strings.HasPrefix(trim, "return") {
			if out := g.OutputNode(); out != nil {
				d.defLine[out.Name] = i
			}
		}
		if sourceLine.MatchString(l) {
			continue // the user's code is prose here, not node names
		}
		for _, tok := range identRE.FindAllString(l, -1) {
			if !byName[tok] {
				continue
			}
			if _, ok := first[tok]; !ok {
				first[tok] = i
			}
			if comment {
				d.hl[i] = append(d.hl[i], nodeID{Stage: d.idx, Name: tok})
				break
			}
		}
	}
	for _, n := range g.Nodes {
		if _, ok := d.defLine[n.Name]; !ok {
			if i, ok := first[n.Name]; ok {
				d.defLine[n.Name] = i
			}
		}
	}
	for _, n := range g.Nodes { // in graph order, so a line's first ref is its first node
		if i, ok := d.defLine[n.Name]; ok {
			d.refs[i] = append(d.refs[i], nodeID{Stage: d.idx, Name: n.Name})
			d.hl[i] = appendID(d.hl[i], nodeID{Stage: d.idx, Name: n.Name})
		}
	}
}

func appendID(xs []nodeID, id nodeID) []nodeID {
	for _, x := range xs {
		if x == id {
			return xs
		}
	}
	return append(xs, id)
}
