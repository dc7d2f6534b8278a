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
	// A text stage: the lines not in the stage before (as a multiset, so
	// a moved line is not a change), ignoring blank lines.
	count := map[string]int{}
	for _, l := range prev.lines {
		if t := strings.TrimSpace(l); t != "" {
			count[t]++
		}
	}
	added := 0
	for k, l := range d.lines {
		t := strings.TrimSpace(l)
		if t == "" {
			continue
		}
		if count[t] > 0 {
			count[t]--
			continue
		}
		d.diffMark[k] = '+'
		added++
	}
	removed := 0
	for _, c := range count {
		removed += c
	}
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

// marks and sum are the diff mode's per-line marks and header text: the
// stage against the one before, or (compiles) against the previous watch
// compile.
func (d *stageDoc) marks(compiles bool) ([]byte, string) {
	if compiles {
		return d.wMark, d.wSum
	}
	return d.diffMark, d.diffSum
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
