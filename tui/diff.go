package tui

import (
	"fmt"
	"strings"

	"gcdbg/watch"
)

// diffStage fills stage i's diff: a graph stage against its provenance
// parent, by identity (stages.Provenance.Diff: a node is added, changed
// or unchanged by what it came from, never by its text); a text stage
// line by line against the last stage before it that has an artifact. A stage without an artifact
// has no diff.
func (ud *unitDoc) diffStage(i int) {
	d := ud.stages[i]
	d.diffMark = make([]byte, len(d.lines))
	if d.err != "" || i == 0 {
		return
	}
	if d.graph != nil {
		sd := ud.prov.Diff(i)
		if sd == nil {
			return
		}
		for _, n := range sd.Added {
			if l, ok := d.defLine[n]; ok {
				d.diffMark[l] = '+'
			}
		}
		for _, n := range sd.Changed {
			if l, ok := d.defLine[n]; ok {
				d.diffMark[l] = '~'
			}
		}
		against := ud.stages[sd.Against].name
		if sd.Unchanged() {
			d.unchanged = true
			d.diffSum = "= " + against
			return
		}
		d.diffSum = fmt.Sprintf("+%d ~%d −%d vs %s", len(sd.Added), len(sd.Changed), len(sd.Removed), against)
		if len(sd.Removed) > 0 {
			names := sd.Removed
			if len(names) > 3 {
				names = append(names[:3:3], "…")
			}
			d.diffSum += " (−" + strings.Join(names, ", ") + ")"
		}
		return
	}
	prev := ud.stages[i-1]
	for j := i - 2; prev.err != "" && j >= 0; j-- {
		prev = ud.stages[j] // the last stage that has an artifact
	}
	if prev.err != "" {
		return
	}
	// A text stage: the lines not in the stage before.
	added, removed := lineDiff(prev.lines, d.lines, d.diffMark)
	if added == 0 && removed == 0 {
		d.unchanged = true
		d.diffSum = "= " + prev.name
		return
	}
	d.diffSum = fmt.Sprintf("+%d −%d lines vs %s", added, removed, prev.name)
}

// diffShort is the stage list's form of a stage's diff: "=" unchanged,
// "+a~c−r" for a graph stage, "+a−r" for a text stage.
func (d *stageDoc) diffShort() string { return shortSum(d.diffSum) }

// What diff mode compares a stage with (Model.diffVs).
const (
	diffPrev    = "prev"    // the stage before (its provenance parent)
	diffPane    = "pane"    // the other pane's stage
	diffCompile = "compile" // the same stage in the previous watch compile
)

// marks returns the diff mode's per-line marks and header text for stage
// d: against the stage before, the previous watch compile, or stage
// `other` (diffPane; -1 when there is no other pane to compare with).
func (ud *unitDoc) marks(d *stageDoc, vs string, other int) ([]byte, string) {
	switch vs {
	case diffCompile:
		return d.wMark, d.wSum
	case diffPane:
		if other < 0 || other == d.idx {
			return nil, ""
		}
		return ud.pairDiff(other, d.idx)
	}
	return d.diffMark, d.diffSum
}

// pairDiff compares stage b with stage a (cached): graph stages by
// identity (stages.Provenance.DiffStages), otherwise line by line.
func (ud *unitDoc) pairDiff(a, b int) ([]byte, string) {
	key := [2]int{a, b}
	if pd, ok := ud.pairs[key]; ok {
		return pd.marks, pd.sum
	}
	da, db := ud.stages[a], ud.stages[b]
	marks := make([]byte, len(db.lines))
	sum := ""
	switch {
	case da.err != "" || db.err != "":
	case da.graph != nil && db.graph != nil:
		sd := ud.prov.DiffStages(a, b)
		for _, n := range sd.Added {
			if l, ok := db.defLine[n]; ok {
				marks[l] = '+'
			}
		}
		for _, n := range sd.Changed {
			if l, ok := db.defLine[n]; ok {
				marks[l] = '~'
			}
		}
		sum = fmt.Sprintf("+%d ~%d −%d vs %s", len(sd.Added), len(sd.Changed), len(sd.Removed), da.name)
		if sd.Unchanged() {
			sum = "= " + da.name
		}
	default:
		added, removed := lineDiff(da.lines, db.lines, marks)
		sum = fmt.Sprintf("+%d −%d lines vs %s", added, removed, da.name)
		if added == 0 && removed == 0 {
			sum = "= " + da.name
		}
	}
	if ud.pairs == nil {
		ud.pairs = map[[2]int]pairDiff{}
	}
	ud.pairs[key] = pairDiff{marks, sum}
	return marks, sum
}

type pairDiff struct {
	marks []byte
	sum   string
}

// lineDiff marks with '+' the lines of b not in a (as a multiset, so a
// moved line is no change; blank lines ignored) and counts the added and
// removed lines.
func lineDiff(a, b []string, marks []byte) (added, removed int) {
	count := map[string]int{}
	for _, l := range a {
		if t := strings.TrimSpace(l); t != "" {
			count[t]++
		}
	}
	for k, l := range b {
		t := strings.TrimSpace(l)
		if t == "" {
			continue
		}
		if count[t] > 0 {
			count[t]--
			continue
		}
		marks[k] = '+'
		added++
	}
	for _, c := range count {
		removed += c
	}
	return added, removed
}

func shortSum(sum string) string {
	switch {
	case sum == "":
		return ""
	case strings.HasPrefix(sum, "= "):
		return "="
	}
	f := strings.Fields(sum)
	if len(f) >= 3 && strings.HasPrefix(f[1], "~") {
		return f[0] + f[1] + f[2]
	}
	return f[0] + f[1]
}

// applyCompileDiff marks, in every graph stage of ud, the nodes a watch
// compile added or changed against the compile before (watch.DiffUnits,
// matched by name across compiles): diff mode's second view ("vs #N").
func (ud *unitDoc) applyCompileDiff(d *watch.Diff, prev int) {
	for _, sd := range ud.stages {
		sd.wMark = make([]byte, len(sd.lines))
		sd.wSum = ""
	}
	if d == nil {
		return
	}
	for _, st := range d.Stages {
		if ud.unit == nil || st.Graph != ud.unit.Captured.Name {
			continue
		}
		i := stageIndex(st.Stage)
		if i < 0 || i >= len(ud.stages) {
			continue
		}
		sd := ud.stages[i]
		for _, n := range st.Added {
			if l, ok := sd.defLine[n]; ok {
				sd.wMark[l] = '+'
			}
		}
		for _, n := range st.Changed {
			if l, ok := sd.defLine[n]; ok {
				sd.wMark[l] = '~'
			}
		}
		sd.wSum = fmt.Sprintf("+%d ~%d −%d vs #%d", len(st.Added), len(st.Changed), len(st.Removed), prev)
	}
	for _, sd := range ud.stages {
		if sd.wSum == "" && sd.graph != nil {
			sd.wSum = fmt.Sprintf("= #%d", prev)
		}
	}
}
