package viz

import (
	"fmt"
	"math"
	"strings"
	"unicode"

	"gcdbg/ir"
)

// The terminal drawing: graphviz lays out boxes sized in character cells
// (one column is cellW points wide, one row cellH points tall, about a
// terminal cell's 1:2 aspect), gcdbg rounds the positions to the grid and
// draws boxes with box-drawing characters and edges as orthogonal runs
// that follow graphviz's splines. Node and rank separations are a few
// cells, so rounding (at most half a cell per box) can never make two
// boxes touch.
const (
	cellW   = 7.2  // points per column (0.1 inch)
	cellH   = 14.4 // points per row (0.2 inch)
	maxText = 30   // label characters per line, longer text is cut with …
	jogTol  = 4    // columns an edge may drift from its spline before it jogs
)

// Box is one drawn box: a node, or a collapsed group standing for several.
type Box struct {
	ID      string   // node name, or group name when Group
	Group   bool     // a collapsed group
	Members []string // the node names the box stands for
	X, Y    int      // top-left cell
	W, H    int
	Lines   []string
}

// Scene is a graph drawn on a character grid, ready to be cut into
// viewports.
type Scene struct {
	W, H   int
	Boxes  []*Box
	runes  [][]rune
	owner  [][]int32 // box index per cell, -1 outside boxes
	byNode map[string]int
}

// edge direction bits of a grid cell
const (
	up = 1 << iota
	down
	left
	right
)

var edgeRunes = map[uint8]rune{
	up: '│', down: '│', up | down: '│', left: '─', right: '─', left | right: '─',
	down | right: '╭', down | left: '╮', up | right: '╰', up | left: '╯',
	up | down | right: '├', up | down | left: '┤', down | left | right: '┬', up | left | right: '┴',
	up | down | left | right: '┼',
}

// BuildScene lays g out for the terminal. Nodes of a group in collapsed
// (by groups) are drawn as one box naming the group and its node count
// (a group of one node stays a node); edges inside a box are not drawn.
func BuildScene(g *ir.Graph, groups Grouping, collapsed map[string]bool) (*Scene, error) {
	s := &Scene{byNode: map[string]int{}}
	if g == nil {
		return nil, fmt.Errorf("no graph to draw")
	}
	if len(g.Nodes) == 0 {
		return s, nil
	}
	unitOf := map[*ir.Node]int{}
	groupBox := map[string]int{}
	size := map[string]int{}
	for _, grp := range groups {
		size[grp]++
	}
	for _, n := range g.Nodes {
		if grp, ok := groups[n.Name]; ok && collapsed[grp] && size[grp] > 1 {
			i, seen := groupBox[grp]
			if !seen {
				i = len(s.Boxes)
				groupBox[grp] = i
				s.Boxes = append(s.Boxes, &Box{ID: grp, Group: true})
			}
			s.Boxes[i].Members = append(s.Boxes[i].Members, n.Name)
			unitOf[n], s.byNode[n.Name] = i, i
			continue
		}
		unitOf[n], s.byNode[n.Name] = len(s.Boxes), len(s.Boxes)
		s.Boxes = append(s.Boxes, &Box{ID: n.Name, Members: []string{n.Name}, Lines: asciiLines(n)})
	}
	var dot strings.Builder
	fmt.Fprintf(&dot, "digraph G {\n graph [rankdir=TB, nodesep=%.2f, ranksep=%.2f%s];\n node [shape=box, fixedsize=true, label=\"\"];\n", 3*cellW/72, 3*cellH/72, bigGraphAttrs(len(s.Boxes)))
	for i, b := range s.Boxes {
		if b.Group {
			b.Lines = []string{"▸ " + cut(b.ID), fmt.Sprintf("%d nodes", len(b.Members))}
		}
		b.W, b.H = 4, len(b.Lines)+2
		for _, l := range b.Lines {
			b.W = max(b.W, len([]rune(l))+4)
		}
		fmt.Fprintf(&dot, " u%d [width=%.3f, height=%.3f];\n", i, float64(b.W)*cellW/72, float64(b.H)*cellH/72)
	}
	type pair struct{ a, b int }
	seen := map[pair]bool{}
	var edges []pair
	for _, n := range g.Nodes {
		for _, in := range n.Inputs() {
			a, okA := unitOf[in]
			b := unitOf[n]
			if !okA || a == b || seen[pair{a, b}] {
				continue
			}
			seen[pair{a, b}] = true
			edges = append(edges, pair{a, b})
			fmt.Fprintf(&dot, " u%d -> u%d;\n", a, b)
		}
	}
	dot.WriteString("}\n")
	l, err := LayoutDOT(dot.String())
	if err != nil {
		return nil, fmt.Errorf("graph %q: terminal layout: %w", g.Name, err)
	}
	for i, b := range s.Boxes {
		nb := l.Nodes[fmt.Sprintf("u%d", i)]
		if nb == nil {
			return nil, fmt.Errorf("graph %q: node %q: graphviz gave no position", g.Name, b.ID)
		}
		b.X = int(math.Round(nb.Center.X/cellW - float64(b.W)/2))
		b.Y = int(math.Round(nb.Center.Y/cellH - float64(b.H)/2))
	}
	// Shift everything one cell in from the top-left corner.
	minX, minY := math.MaxInt, math.MaxInt
	for _, b := range s.Boxes {
		minX, minY = min(minX, b.X), min(minY, b.Y)
	}
	dx, dy := 1-minX, 1-minY
	for _, b := range s.Boxes {
		b.X, b.Y = b.X+dx, b.Y+dy
		s.W, s.H = max(s.W, b.X+b.W+1), max(s.H, b.Y+b.H+1)
	}
	s.W = max(s.W, int(math.Ceil(l.Width/cellW))+dx+1)
	s.H = max(s.H, int(math.Ceil(l.Height/cellH))+dy+1)
	s.alloc()
	for i, b := range s.Boxes {
		s.claim(i, b)
	}
	cv := &edgeCanvas{s: s, bits: map[[2]int]uint8{}, arrows: map[[2]int]rune{}, junctions: map[[2]int]rune{}}
	for _, e := range l.Edges {
		var a, b int
		if _, err := fmt.Sscanf(e.Tail+" "+e.Head, "u%d u%d", &a, &b); err != nil {
			continue
		}
		pts := make([][2]int, len(e.Points))
		for i, p := range e.Points {
			pts[i] = [2]int{int(math.Round(p.Y/cellH)) + dy, int(math.Round(p.X/cellW)) + dx}
		}
		cv.route(s.Boxes[a], s.Boxes[b], pts)
	}
	cv.paint()
	for _, b := range s.Boxes {
		s.drawBox(b, cv.junctions)
	}
	return s, nil
}

func (s *Scene) alloc() {
	s.runes = make([][]rune, s.H)
	s.owner = make([][]int32, s.H)
	for y := range s.runes {
		s.runes[y] = []rune(strings.Repeat(" ", s.W))
		s.owner[y] = make([]int32, s.W)
		for x := range s.owner[y] {
			s.owner[y][x] = -1
		}
	}
}

func (s *Scene) claim(i int, b *Box) {
	for y := b.Y; y < b.Y+b.H; y++ {
		for x := b.X; x < b.X+b.W; x++ {
			s.owner[y][x] = int32(i)
		}
	}
}

// inBounds reports whether (row, col) is on the grid.
func (s *Scene) inBounds(r, c int) bool { return r >= 0 && r < s.H && c >= 0 && c < s.W }

func (s *Scene) drawBox(b *Box, junctions map[[2]int]rune) {
	x1, y1 := b.X+b.W-1, b.Y+b.H-1
	for x := b.X; x <= x1; x++ {
		s.runes[b.Y][x], s.runes[y1][x] = '─', '─'
	}
	for y := b.Y; y <= y1; y++ {
		s.runes[y][b.X], s.runes[y][x1] = '│', '│'
	}
	s.runes[b.Y][b.X], s.runes[b.Y][x1], s.runes[y1][b.X], s.runes[y1][x1] = '┌', '┐', '└', '┘'
	for x := b.X + 1; x < x1; x++ {
		for _, y := range []int{b.Y, y1} {
			if j, ok := junctions[[2]int{y, x}]; ok {
				s.runes[y][x] = j
			}
		}
	}
	for i, l := range b.Lines {
		for k, r := range []rune(l) {
			if b.X+2+k < x1 {
				s.runes[b.Y+1+i][b.X+2+k] = r
			}
		}
	}
}

// edgeCanvas collects the edges' cells before they are painted, so edges
// that share a cell merge into one junction character.
type edgeCanvas struct {
	s         *Scene
	bits      map[[2]int]uint8
	arrows    map[[2]int]rune
	junctions map[[2]int]rune // on box borders: where an edge leaves
}

func (cv *edgeCanvas) set(r, c int, bit uint8) {
	if cv.s.inBounds(r, c) && cv.s.owner[r][c] < 0 {
		cv.bits[[2]int{r, c}] |= bit
	}
}

// route draws an edge from tail to head: out of the tail's bottom border,
// down the rows between them following the spline's column (jogging
// sideways when it drifts or a box is in the way), into an arrowhead above
// the head. An edge to a box above (a cycle between collapsed groups)
// runs upwards the same way.
func (cv *edgeCanvas) route(tail, head *Box, pts [][2]int) {
	dir, r0, r1 := 1, tail.Y+tail.H, head.Y-1
	vIn, vOut, arrow, junction := uint8(up), uint8(down), '▼', '┬'
	if head.Y+head.H <= tail.Y {
		dir, r0, r1 = -1, tail.Y-1, head.Y+head.H
		vIn, vOut, arrow, junction = down, up, '▲', '┴'
	} else if head.Y <= tail.Y+tail.H-1 {
		return // side by side: graphviz drew a flat edge there is no room for
	}
	if (r1-r0)*dir < 0 || len(pts) == 0 {
		return
	}
	colAt := func(r int) int { // the spline's column nearest row r
		best, bestD := pts[0][1], math.MaxInt
		for _, p := range pts {
			if d := abs(p[0] - r); d < bestD {
				best, bestD = p[1], d
			}
		}
		return best
	}
	start := clamp(colAt(r0), tail.X+1, tail.X+tail.W-2)
	end := clamp(pts[len(pts)-1][1], head.X+1, head.X+head.W-2)
	cv.junctions[[2]int{r0 - dir, start}] = junction
	c := start
	cv.set(r0, c, vIn)
	for r := r0; r != r1; r += dir {
		next := r + dir
		want := colAt(next)
		if next == r1 {
			want = end
		}
		blocked := cv.s.inBounds(next, c) && cv.s.owner[next][c] >= 0
		if want != c && (next == r1 || blocked || abs(want-c) > jogTol) {
			cv.hrun(r, c, max(want, 0))
			c = max(want, 0)
		}
		cv.set(r, c, vOut)
		cv.set(next, c, vIn)
	}
	if c != end { // only when r0 == r1: no row to jog in
		c = end
	}
	if cv.s.inBounds(r1, c) {
		cv.arrows[[2]int{r1, c}] = arrow
	}
}

// hrun draws a horizontal run on row r from column a to column b.
func (cv *edgeCanvas) hrun(r, a, b int) {
	step, toward, back := 1, uint8(right), uint8(left)
	if b < a {
		step, toward, back = -1, left, right
	}
	for c := a; c != b; c += step {
		cv.set(r, c, toward)
		cv.set(r, c+step, back)
	}
}

func (cv *edgeCanvas) paint() {
	for p, bits := range cv.bits {
		cv.s.runes[p[0]][p[1]] = edgeRunes[bits]
	}
	for p, a := range cv.arrows {
		if cv.s.owner[p[0]][p[1]] < 0 {
			cv.s.runes[p[0]][p[1]] = a
		}
	}
}

// asciiLines is a node's label on the grid: its name, then what it
// computes and its value type.
func asciiLines(n *ir.Node) []string {
	second := shortTarget(n)
	if t := valueType(n); t != "" {
		second += " " + t
	}
	return []string{cut(n.Name), cut(second)}
}

// cut makes s safe for the grid: one cell per rune (control, combining
// and wide characters become '?'), at most maxText runes.
func cut(s string) string {
	rs := []rune(strings.ToValidUTF8(s, "?"))
	for i, r := range rs {
		if unicode.IsControl(r) || unicode.Is(unicode.Mn, r) || r >= 0x1100 {
			rs[i] = '?'
		}
	}
	if len(rs) > maxText {
		rs = append(rs[:maxText-1], '…')
	}
	return string(rs)
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

func clamp(x, lo, hi int) int { return max(lo, min(x, hi)) }
