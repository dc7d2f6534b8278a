package ir

import (
	"strconv"
	"strings"
)

// Dim is one dimension of a shape. Sym is empty for a static size; a
// symbolic dimension (made dynamic by the guards stage, like Dynamo's s0)
// keeps its example value in Size as the hint used for random inputs and
// cost estimates.
type Dim struct {
	Size int
	Sym  string
}

func (d Dim) String() string {
	if d.Sym != "" {
		return d.Sym
	}
	return strconv.Itoa(d.Size)
}

// Static reports whether the dimension has a fixed size.
func (d Dim) Static() bool { return d.Sym == "" }

// Shape is a tensor shape whose dimensions may be symbolic.
type Shape []Dim

// ShapeOf makes a static shape from sizes.
func ShapeOf(sizes []int) Shape {
	s := make(Shape, len(sizes))
	for i, n := range sizes {
		s[i] = Dim{Size: n}
	}
	return s
}

// Sizes returns the example sizes (the hint for symbolic dims).
func (s Shape) Sizes() []int {
	out := make([]int, len(s))
	for i, d := range s {
		out[i] = d.Size
	}
	return out
}

// Equal compares sizes and symbols.
func (s Shape) Equal(o Shape) bool {
	if len(s) != len(o) {
		return false
	}
	for i := range s {
		if s[i] != o[i] {
			return false
		}
	}
	return true
}

func (s Shape) String() string {
	parts := make([]string, len(s))
	for i, d := range s {
		parts[i] = d.String()
	}
	return "[" + strings.Join(parts, ", ") + "]"
}
