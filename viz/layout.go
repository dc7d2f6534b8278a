package viz

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"sync"

	"github.com/goccy/go-graphviz"
)

// go-graphviz runs graphviz compiled to WebAssembly. One instance serves
// the whole process: creating it costs tens to hundreds of milliseconds,
// and the instance (and graphviz's parser) is not safe for concurrent use,
// so every call goes through gvMu.
var (
	gvMu   sync.Mutex
	gvInst *graphviz.Graphviz
	gvErr  error
)

// withGraphviz parses dot and renders it in format into a buffer (writing
// to a file through graphviz gives empty files under WebAssembly).
func withGraphviz(dot string, format graphviz.Format) ([]byte, error) {
	gvMu.Lock()
	defer gvMu.Unlock()
	ctx := context.Background()
	if gvInst == nil && gvErr == nil {
		gvInst, gvErr = graphviz.New(ctx)
	}
	if gvErr != nil {
		return nil, fmt.Errorf("graphviz: %w", gvErr)
	}
	g, err := graphviz.ParseBytes([]byte(dot))
	if err != nil {
		return nil, fmt.Errorf("graphviz: parsing DOT: %w", err)
	}
	defer g.Close()
	if drainLexer() {
		return nil, fmt.Errorf("graphviz: parsing DOT: text after the first graph")
	}
	var buf bytes.Buffer
	if err := gvInst.Render(ctx, g, format, &buf); err != nil {
		return nil, fmt.Errorf("graphviz: rendering %s: %w", format, err)
	}
	return buf.Bytes(), nil
}

// drainLexer empties graphviz's DOT lexer. The lexer is global and keeps
// input it has not read between parses, so text after a graph's closing
// brace would be read by the next parse (a second graph silently, or
// stray braces as a syntax error in the next caller's graph). Parsing a
// sentinel that cannot parse drains it, since a syntax error resets the
// lexer; a sentinel parse that succeeds means a leftover graph was there.
func drainLexer() (leftover bool) {
	for i := 0; i < 16; i++ {
		g, err := graphviz.ParseBytes([]byte("}"))
		if err != nil {
			return leftover
		}
		g.Close()
		leftover = true
	}
	return leftover
}

// Point is a position in graph coordinates: points (1/72 inch), y down
// from the top of the drawing (graphviz's own y grows upwards).
type Point struct{ X, Y float64 }

// NodeBox is one laid-out node: centre and size in points.
type NodeBox struct {
	ID     string // the DOT node identifier
	Center Point
	W, H   float64
}

// EdgePath is one laid-out edge as a polyline sampled from graphviz's
// spline, from the tail's border to the arrow tip at the head.
type EdgePath struct {
	Tail, Head string // DOT node identifiers
	Points     []Point
}

// Layout is graphviz's dot layout of a graph.
type Layout struct {
	Width, Height float64
	Nodes         map[string]*NodeBox
	Edges         []EdgePath
}

// gvJSON is the part of graphviz's -Tjson0 output gcdbg reads.
type gvJSON struct {
	BB          string `json:"bb"`
	SubgraphCnt int    `json:"_subgraph_cnt"`
	Objects     []struct {
		GVID   int    `json:"_gvid"`
		Name   string `json:"name"`
		Pos    string `json:"pos"`
		Width  string `json:"width"`
		Height string `json:"height"`
	} `json:"objects"`
	Edges []struct {
		Tail int    `json:"tail"`
		Head int    `json:"head"`
		Pos  string `json:"pos"`
	} `json:"edges"`
}

// LayoutDOT lays dot out with graphviz's dot engine and returns node
// boxes and edge polylines.
func LayoutDOT(dot string) (*Layout, error) {
	out, err := withGraphviz(dot, graphviz.Format("json0"))
	if err != nil {
		return nil, err
	}
	var j gvJSON
	if err := json.Unmarshal(out, &j); err != nil {
		return nil, fmt.Errorf("graphviz: reading layout JSON: %w", err)
	}
	bb, err := floats(j.BB, 4)
	if err != nil {
		return nil, fmt.Errorf("graphviz: layout bb: %w", err)
	}
	l := &Layout{Width: bb[2] - bb[0], Height: bb[3] - bb[1], Nodes: map[string]*NodeBox{}}
	flip := func(x, y float64) Point { return Point{x - bb[0], bb[3] - y} }
	byGVID := map[int]string{}
	for i, o := range j.Objects {
		if i < j.SubgraphCnt {
			continue // clusters and subgraphs
		}
		p, err := floats(o.Pos, 2)
		if err != nil {
			return nil, fmt.Errorf("graphviz: node %s: pos: %w", o.Name, err)
		}
		w, err1 := strconv.ParseFloat(o.Width, 64)
		h, err2 := strconv.ParseFloat(o.Height, 64)
		if err1 != nil || err2 != nil {
			return nil, fmt.Errorf("graphviz: node %s: size %q x %q", o.Name, o.Width, o.Height)
		}
		l.Nodes[o.Name] = &NodeBox{ID: o.Name, Center: flip(p[0], p[1]), W: w * 72, H: h * 72}
		byGVID[o.GVID] = o.Name
	}
	for _, e := range j.Edges {
		tail, head := byGVID[e.Tail], byGVID[e.Head]
		if tail == "" || head == "" {
			return nil, fmt.Errorf("graphviz: edge %d -> %d: unknown node", e.Tail, e.Head)
		}
		pts, err := spline(e.Pos, flip)
		if err != nil {
			return nil, fmt.Errorf("graphviz: edge %s -> %s: %w", tail, head, err)
		}
		l.Edges = append(l.Edges, EdgePath{Tail: tail, Head: head, Points: pts})
	}
	return l, nil
}

// floats parses "a,b,..." with exactly n numbers.
func floats(s string, n int) ([]float64, error) {
	parts := strings.Split(s, ",")
	if len(parts) != n {
		return nil, fmt.Errorf("want %d numbers, got %q", n, s)
	}
	out := make([]float64, n)
	for i, p := range parts {
		v, err := strconv.ParseFloat(strings.TrimSpace(p), 64)
		if err != nil {
			return nil, fmt.Errorf("bad number in %q", s)
		}
		out[i] = v
	}
	return out, nil
}

// spline samples graphviz's edge pos ("e,x,y p0 p1 ... p3k": cubic Bézier
// segments, then the arrow tip) into a polyline ending at the arrow tip.
func spline(pos string, flip func(x, y float64) Point) ([]Point, error) {
	var ctrl []Point
	var end *Point
	for _, f := range strings.Fields(pos) {
		if strings.HasPrefix(f, "e,") || strings.HasPrefix(f, "s,") {
			v, err := floats(f[2:], 2)
			if err != nil {
				return nil, err
			}
			if f[0] == 'e' {
				p := flip(v[0], v[1])
				end = &p
			}
			continue
		}
		v, err := floats(f, 2)
		if err != nil {
			return nil, err
		}
		ctrl = append(ctrl, flip(v[0], v[1]))
	}
	if len(ctrl) == 0 {
		return nil, nil // graphviz drew no spline (possible for some edges)
	}
	pts := []Point{ctrl[0]}
	for i := 0; i+3 < len(ctrl); i += 3 {
		p0, p1, p2, p3 := ctrl[i], ctrl[i+1], ctrl[i+2], ctrl[i+3]
		steps := int(math.Max(4, math.Hypot(p3.X-p0.X, p3.Y-p0.Y)/4))
		for s := 1; s <= steps; s++ {
			t := float64(s) / float64(steps)
			u := 1 - t
			pts = append(pts, Point{
				u*u*u*p0.X + 3*u*u*t*p1.X + 3*u*t*t*p2.X + t*t*t*p3.X,
				u*u*u*p0.Y + 3*u*u*t*p1.Y + 3*u*t*t*p2.Y + t*t*t*p3.Y,
			})
		}
	}
	if end != nil {
		pts = append(pts, *end)
	}
	return pts, nil
}
