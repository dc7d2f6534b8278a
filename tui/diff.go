package tui

import (
	"fmt"
	"strings"
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
func (d *stageDoc) diffShort() string {
	switch {
	case d.diffSum == "":
		return ""
	case d.unchanged:
		return "="
	}
	f := strings.Fields(d.diffSum)
	if len(f) >= 3 && strings.HasPrefix(f[1], "~") {
		return f[0] + f[1] + f[2]
	}
	return f[0] + f[1]
}
