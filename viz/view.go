package viz

import "strings"

// Mark is how a box is shown in a viewport.
type Mark int

const (
	Plain       Mark = iota
	Highlighted      // e.g. nodes a search or a mismatch points at
	Selected         // drawn with a double border as well as styled
)

// double maps single-line border characters to their double-line form,
// so a selected box stands out even without colour.
var double = map[rune]rune{
	'┌': '╔', '┐': '╗', '└': '╚', '┘': '╝', '─': '═', '│': '║', '┬': '╤', '┴': '╧',
}

// BoxOf returns the box that draws node name (its own, or its collapsed
// group's).
func (s *Scene) BoxOf(name string) (*Box, bool) {
	i, ok := s.byNode[name]
	if !ok {
		return nil, false
	}
	return s.Boxes[i], true
}

// Render cuts the w x h viewport at column x0, row y0 out of the scene.
// mark says how each box is shown (nil: all Plain); style wraps each run
// of cells with one mark (nil: no styling), so the caller decides colours.
// Cells outside the scene are blank; lines are exactly w cells wide.
func (s *Scene) Render(x0, y0, w, h int, mark func(*Box) Mark, style func(text string, m Mark) string) string {
	if w <= 0 || h <= 0 {
		return ""
	}
	marks := make([]Mark, len(s.Boxes))
	if mark != nil {
		for i, b := range s.Boxes {
			marks[i] = mark(b)
		}
	}
	var out strings.Builder
	run := make([]rune, 0, w)
	for y := y0; y < y0+h; y++ {
		if y > y0 {
			out.WriteByte('\n')
		}
		cur := Plain
		run = run[:0]
		flush := func() {
			if len(run) == 0 {
				return
			}
			if style != nil && cur != Plain {
				out.WriteString(style(string(run), cur))
			} else {
				out.WriteString(string(run))
			}
			run = run[:0]
		}
		for x := x0; x < x0+w; x++ {
			r, m := ' ', Plain
			if y >= 0 && y < s.H && x >= 0 && x < s.W {
				r = s.runes[y][x]
				if o := s.owner[y][x]; o >= 0 {
					m = marks[o]
					if m == Selected {
						if d, ok := double[r]; ok && s.onBorder(s.Boxes[o], x, y) {
							r = d
						}
					}
				}
			}
			if m != cur {
				flush()
				cur = m
			}
			run = append(run, r)
		}
		flush()
	}
	return out.String()
}

func (s *Scene) onBorder(b *Box, x, y int) bool {
	return x == b.X || y == b.Y || x == b.X+b.W-1 || y == b.Y+b.H-1
}

// String is the whole scene, unstyled.
func (s *Scene) String() string { return s.Render(0, 0, s.W, s.H, nil, nil) }

// Overview draws the whole scene shrunk into w×h cells, for finding one's
// way in a graph too big for the screen: a cell shows the strongest thing
// in the block of scene cells it covers (█ a selected box, ▓ a
// highlighted one, ▒ any other box, · an edge, blank nothing), and the
// viewport (vx, vy, vw, vh in scene cells) is outlined with ┌ ┐ └ ┘. mark
// and style are as for Render.
func (s *Scene) Overview(w, h int, mark func(*Box) Mark, style func(text string, m Mark) string, vx, vy, vw, vh int) string {
	if w <= 0 || h <= 0 {
		return ""
	}
	marks := make([]Mark, len(s.Boxes))
	if mark != nil {
		for i, b := range s.Boxes {
			marks[i] = mark(b)
		}
	}
	sx := max(1, (s.W+w-1)/w)
	sy := max(1, (s.H+h-1)/h)
	const (
		empty = iota
		edge
		box
	)
	// The viewport's corners in overview cells.
	c0, r0 := vx/sx, vy/sy
	c1, r1 := min(w-1, (vx+vw-1)/sx), min(h-1, (vy+vh-1)/sy)
	var out strings.Builder
	for r := 0; r < h; r++ {
		if r > 0 {
			out.WriteByte('\n')
		}
		for c := 0; c < w; c++ {
			what, m := empty, Mark(-1)
			for y := r * sy; y < min(s.H, (r+1)*sy); y++ {
				for x := c * sx; x < min(s.W, (c+1)*sx); x++ {
					if o := s.owner[y][x]; o >= 0 {
						what = box
						m = max(m, marks[o])
					} else if what == empty && s.runes[y][x] != ' ' {
						what = edge
					}
				}
			}
			ch := " "
			switch {
			case (r == r0 || r == r1) && (c == c0 || c == c1):
				ch = map[[2]bool]string{{true, true}: "┌", {true, false}: "┐", {false, true}: "└", {false, false}: "┘"}[[2]bool{r == r0, c == c0}]
			case what == box && m == Selected:
				ch = "█"
			case what == box && m == Highlighted:
				ch = "▓"
			case what == box:
				ch = "▒"
			case what == edge:
				ch = "·"
			}
			if style != nil && what == box && m > Plain && ch != "┌" && ch != "┐" && ch != "└" && ch != "┘" {
				ch = style(ch, m)
			}
			out.WriteString(ch)
		}
	}
	return out.String()
}

// Scale is how many scene cells one overview cell of a w×h overview
// covers, across and down.
func (s *Scene) Scale(w, h int) (sx, sy int) {
	return max(1, (s.W+max(w, 1)-1)/max(w, 1)), max(1, (s.H+max(h, 1)-1)/max(h, 1))
}
