package sched

import (
	"fmt"

	"gcdbg/loopir"
)

// Fusion categories, best first within the score (see rank).
const (
	ExternEpilogue    = "extern-epilogue"
	Vertical          = "pointwise-pointwise vertical"
	ReductionFusion   = "reduction-reduction"
	Horizontal        = "horizontal"
	ReductionEpilogue = "reduction-epilogue"
	ReductionPrologue = "reduction-prologue"
)

// check decides whether groups a and b may become one kernel. It returns
// the fusion category, or the reason it refuses in Inductor's words. When
// one group reads what the other writes, producer comes first in the
// result (swapped reports that b is the producer).
//
// Fusion never recomputes: a fused producer whose buffer has users outside
// the kernel still stores it (as Inductor does), so fusing is always
// legal work-wise and only the traffic saved differs.
//
// When the index check fails only because a pointwise group walks the
// reduction group's points in another order, its loops are permuted
// (reorder.go) and note says so.
func (s *state) check(a, b *group) (cat, reason, note string) {
	if a.kind == loopir.Fallback || b.kind == loopir.Fallback {
		return "", "fallback nodes do not fuse", ""
	}
	if r := longCat(a, b); r != "" {
		return "", r, ""
	}
	ab, ba := s.feeds(a, b), s.feeds(b, a)
	if ba && !ab {
		a, b = b, a
	}
	vertical := ab || ba
	if path := s.cyclePath(a, b); path != "" {
		return "", "would create a cycle: " + path, ""
	}
	if a.kind == loopir.Extern || b.kind == loopir.Extern {
		switch {
		case a.kind == loopir.Extern && b.kind == loopir.Extern:
			return "", "extern can only take epilogues (both are extern calls)", ""
		case a.kind != loopir.Extern && vertical && s.epilogueInput(a, b): // epilogue_inputs.go
			cat = ExternEpilogueInput
		case a.kind != loopir.Extern || !vertical:
			return "", "extern can only take epilogues (this would be a prologue or a sibling)", ""
		case b.kind != loopir.Pointwise:
			return "", "extern can only take epilogues (a reduction is not a pointwise epilogue)", ""
		case !sameNumel(a.outer, b.outer):
			return "", fmt.Sprintf("ranges differ %s vs %s", tuple(a.outer), tuple(b.outer)), ""
		default:
			cat = ExternEpilogue
		}
	} else {
		var ok bool
		cat, ok = rangeCategory(a, b, vertical)
		if !ok {
			if a.kind == loopir.Reduction || b.kind == loopir.Reduction {
				return "", fmt.Sprintf("reduction ranges differ %s vs %s", a.space(s.env), b.space(s.env)), ""
			}
			return "", fmt.Sprintf("ranges differ %s vs %s", tuple(a.outer), tuple(b.outer)), ""
		}
	}
	if !vertical && !s.sharesRead(a, b) {
		return "", "no shared buffer", ""
	}
	if r := s.manyStreams(a, b); r != "" { // stream_cap.go
		return "", r, ""
	}
	if vertical {
		if r := s.indexCheck(a, b); r != "" {
			if note, ok := s.reorderInto(a, b); ok {
				return cat, "", note
			}
			return "", r, ""
		}
	}
	return cat, "", ""
}

// rangeCategory applies the iteration-space rules, on numels as Inductor
// compares node groups (the index check then proves the members touch
// the same elements): equal pointwise ranges; a pointwise member of a reduction group runs over the kept
// ranges (epilogue) or over kept ++ reduced ranges (inside the reduction
// loop); two reductions need the same kept and reduced ranges.
func rangeCategory(a, b *group, vertical bool) (string, bool) {
	ra, rb := a.kind == loopir.Reduction, b.kind == loopir.Reduction
	switch {
	case !ra && !rb:
		if !sameNumel(a.outer, b.outer) {
			return "", false
		}
		if vertical {
			return Vertical, true
		}
		return Horizontal, true
	case ra && rb:
		if !sameNumel(a.outer, b.outer) || !sameNumel(a.reduce, b.reduce) {
			return "", false
		}
		if vertical {
			return ReductionFusion, true
		}
		return Horizontal, true
	}
	r, p := a, b
	if rb {
		r, p = b, a
	}
	if !sameNumel(p.outer, r.outer) && !sameNumel(p.outer, concat(r.outer, r.reduce)) {
		return "", false
	}
	switch {
	case !vertical:
		return Horizontal, true
	case ra: // the reduction produces, the pointwise group consumes
		return ReductionEpilogue, true
	}
	return ReductionPrologue, true
}

// feeds reports whether b reads a buffer a writes.
func (s *state) feeds(a, b *group) bool {
	if len(a.bnd) <= len(b.bnd) {
		for _, o := range s.boundary(a) {
			for _, r := range s.succIdx[o] {
				if s.at[r] == b {
					return true
				}
			}
		}
		return false
	}
	for _, o := range s.boundary(b) {
		for _, w := range s.predIdx[o] {
			if s.at[w] == a {
				return true
			}
		}
	}
	return false
}

func (s *state) sharesRead(a, b *group) bool {
	for buf := range a.reads {
		if b.reads[buf] && !a.writes[buf] && !b.writes[buf] {
			return true
		}
	}
	return false
}

// succs lists the groups that read what g writes, in the order g's nodes
// write them (cyclePath reports the first path it finds).
func (s *state) succs(g *group) []*group {
	s.stamp++
	g.seen = s.stamp
	var out []*group
	for _, o := range s.boundary(g) {
		for _, r := range s.succIdx[o] {
			if rg := s.at[r]; rg.seen != s.stamp {
				rg.seen = s.stamp
				out = append(out, rg)
			}
		}
	}
	return out
}

// cyclePath returns "a → c → b" when a path between a and b (either way)
// runs through a group outside them: fusing would put c both before and
// after the fused kernel (Inductor's will_fusion_create_cycle).
func (s *state) cyclePath(a, b *group) string {
	for _, pair := range [][2]*group{{a, b}, {b, a}} {
		from, to := pair[0], pair[1]
		for _, c := range s.succs(from) {
			if c != to && s.reaches(c, to) {
				return from.name() + " → " + c.name() + " → " + to.name()
			}
		}
	}
	return ""
}

// indexCheck verifies every read b makes of a buffer a writes: in the
// fused loop nest the consumer must read the element the producer stores
// at the same iteration point, or it would read a value not computed yet.
// Reads of a reduction's result at the kept index are fine (the reduction
// loop finishes first); a member that runs once per outer point cannot
// read a buffer written inside the reduction loop.
func (s *state) indexCheck(a, b *group) string {
	sp := mergedSpace(a, b)
	o, err := s.prod(sp.outer)
	if err != nil {
		return "cannot check indices: " + err.Error()
	}
	r, err := s.prod(sp.reduce)
	if err != nil {
		return "cannot check indices: " + err.Error()
	}
	var points [][]int64 // sampled only for an index affine.go cannot decide
	for _, c := range b.nodes {
		if c.Kind == loopir.Extern && !readsAny(c, a.writes) {
			continue // an mm whose epilogue takes a's values (epilogue_inputs.go)
		}
		cm, ok := s.mapping(c, sp)
		if !ok {
			return fmt.Sprintf("ranges differ: %s iterates %s in a kernel over %s", c.Name, tuple(nodeRanges(c, s.p)), tuple(concat(sp.outer, sp.reduce)))
		}
		for i, rd := range c.Reads {
			if !a.writes[rd.Buffer] {
				continue
			}
			p := s.writer[rd.Buffer]
			pm, ok := s.mapping(p, sp)
			if !ok {
				return fmt.Sprintf("ranges differ: %s iterates %s in a kernel over %s", p.Name, tuple(nodeRanges(p, s.p)), tuple(concat(sp.outer, sp.reduce)))
			}
			if pm.inner && p.Kind != loopir.Reduction && !cm.inner {
				return fmt.Sprintf("%s runs once per outer point but reads %s, which is written inside the reduction loop", c.Name, rd.Buffer)
			}
			if rd.Index == nil || rd.Index == loopir.StarIndex || hasIndirect(rd.Index) {
				return fmt.Sprintf("%s reads %s at %s, not element by element", c.Name, rd.Buffer, str(rd.Index))
			}
			if o <= 0 || r <= 0 {
				continue // an empty loop reads nothing
			}
			mismatch := func() string {
				return fmt.Sprintf("memory deps did not match: %s reads %s[%s], %s writes %s[%s]",
					c.Name, rd.Buffer, str(rd.Index), p.Name, rd.Buffer, s.writeIndexString(p, rd.Buffer))
			}
			if equal, decided := s.affineEqual(c, i, cm, p, pm, rd.Buffer, o, r); decided {
				if !equal {
					return mismatch()
				}
				continue
			}
			if points == nil {
				if points, err = s.samplePoints(sp); err != nil {
					return "cannot check indices: " + err.Error()
				}
			}
			wIdx := s.writeIndex(p, rd.Buffer)
			for _, pt := range points {
				rv, err1 := eval(rd.Index, cm.env(pt, s.env))
				wv, err2 := wIdx(pm.env(pt, s.env))
				if err1 != nil || err2 != nil {
					return fmt.Sprintf("cannot check indices of %s: %v", rd.Buffer, firstErr(err1, err2))
				}
				if rv != wv {
					return mismatch()
				}
			}
		}
	}
	return ""
}

func firstErr(errs ...error) error {
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return nil
}

func str(e loopir.Expr) string {
	if e == nil {
		return "?"
	}
	return e.String()
}

// readsAny reports whether n reads one of bufs.
func readsAny(n *loopir.Node, bufs map[string]bool) bool {
	for _, rd := range n.Reads {
		if bufs[rd.Buffer] {
			return true
		}
	}
	return false
}
