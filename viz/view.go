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
