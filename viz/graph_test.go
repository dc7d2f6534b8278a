package viz

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"gcdbg/ir"
	"gcdbg/stages"
	"gcdbg/tensor"
	"gcdbg/trace"
)

func loadUnits(t testing.TB, name, until string) []*stages.Unit {
	t.Helper()
	tr, err := trace.Load(filepath.Join("../fixtures", name))
	if err != nil {
		t.Fatal(err)
	}
	us, err := stages.Run(tr, until)
	if err != nil {
		t.Fatal(err)
	}
	return us
}

// svgInfo parses svg as XML and returns the node groups' ids and every
// text element's content.
func svgInfo(t *testing.T, svg []byte) (nodes int, texts []string) {
	t.Helper()
	d := xml.NewDecoder(bytes.NewReader(svg))
	d.Strict = true
	inText := false
	for {
		tok, err := d.Token()
		if err == io.EOF {
			return
		}
		if err != nil {
			t.Fatalf("SVG is not XML: %v", err)
		}
		switch x := tok.(type) {
		case xml.StartElement:
			inText = x.Name.Local == "text"
			for _, a := range x.Attr {
				if x.Name.Local == "g" && a.Name.Local == "class" && a.Value == "node" {
					nodes++
				}
			}
		case xml.CharData:
			if inText {
				texts = append(texts, string(x))
			}
		case xml.EndElement:
			inText = false
		}
	}
}

func TestQuote(t *testing.T) {
	for in, want := range map[string]string{
		`plain`:        `"plain"`,
		`a"b`:          `"a\"b"`,
		`back\slash\N`: `"back\\slash\\N"`,
		"two\nlines":   `"two\nlines"`,
		"bell\a\xff":   "\"bell\uFFFD\uFFFD\"",
		"a&lt;b":       `"a&amp;lt;b"`,
	} {
		if got := Quote(in); got != want {
			t.Errorf("Quote(%q) = %s, want %s", in, got, want)
		}
	}
}

// Names from a trace may hold anything; DOT must still parse and
// graphviz must show each name as written (a newline as a line break).
func TestHostileNames(t *testing.T) {
	names := []string{`a"b`, `{x}`, "new\nline", `<tag>&amp;`, `back\slash\N`, `}; digraph evil { x`, `"`, `\`, `--`, `x -> y`, "tab\there"}
	g := &ir.Graph{Name: `g"<>{}`}
	var prev *ir.Node
	for i, name := range names {
		n := &ir.Node{Name: name, Op: ir.CallFunction, Target: "aten.relu"}
		if i == 0 {
			n.Op, n.Target = ir.Placeholder, name
		} else {
			n.Args = []ir.Arg{prev}
		}
		g.Nodes = append(g.Nodes, n)
		prev = n
	}
	g.Nodes = append(g.Nodes, &ir.Node{Name: "output", Op: ir.Output, Target: "output", Args: []ir.Arg{prev}})
	clusters := map[string]string{names[2]: `k"}{<1>`, names[3]: `k"}{<1>`}
	svg, err := GraphSVG(g, Options{Title: `t"<b>&`, Legend: true, Clusters: clusters})
	if err != nil {
		t.Fatalf("%v\n%s", err, DOT(g, Options{}))
	}
	nodes, texts := svgInfo(t, svg)
	if nodes != len(g.Nodes) {
		t.Errorf("%d node groups in the SVG, want %d", nodes, len(g.Nodes))
	}
	all := "\x00" + strings.Join(texts, "\x00") + "\x00"
	for _, name := range names {
		name = strings.ReplaceAll(name, "\t", "\uFFFD")
		for _, line := range strings.Split(name, "\n") {
			if !strings.Contains(all, "\x00"+line+"\x00") {
				t.Errorf("label line %q not in the SVG's text", line)
			}
		}
	}
	for _, want := range []string{`k"}{<1>`, `t"<b>&`} {
		if !strings.Contains(all, want) {
			t.Errorf("%q not in the SVG's text", want)
		}
	}
}

// Every fixture's captured and decomposed graph renders to SVG with one
// node group per graph node.
func TestSVGFixtures(t *testing.T) {
	paths, _ := filepath.Glob("../fixtures/*.json")
	if len(paths) < 5 {
		t.Fatalf("found %d fixtures", len(paths))
	}
	for _, p := range paths {
		for _, u := range loadUnits(t, filepath.Base(p), "decomposed") {
			for _, g := range []*ir.Graph{u.Captured, u.Decomposed} {
				svg, err := GraphSVG(g, Options{Title: filepath.Base(p), Legend: true})
				if err != nil {
					t.Fatalf("%s: %v", p, err)
				}
				if nodes, _ := svgInfo(t, svg); nodes != len(g.Nodes) {
					t.Errorf("%s graph %s: %d node groups, want %d", p, g.Name, nodes, len(g.Nodes))
				}
			}
		}
	}
}

func TestLayoutEveryNode(t *testing.T) {
	g := loadUnits(t, "mlp.json", "decomposed")[0].Decomposed
	l, err := LayoutDOT(DOT(g, Options{}))
	if err != nil {
		t.Fatal(err)
	}
	edges := 0
	for i, n := range g.Nodes {
		edges += len(n.Inputs())
		b := l.Nodes[NodeID(i)]
		if b == nil {
			t.Fatalf("node %s has no position", n.Name)
		}
		if b.Center.X < 0 || b.Center.X > l.Width || b.Center.Y < 0 || b.Center.Y > l.Height || b.W <= 0 || b.H <= 0 {
			t.Errorf("node %s: box %+v outside %gx%g", n.Name, *b, l.Width, l.Height)
		}
	}
	if len(l.Edges) != edges {
		t.Errorf("%d edges laid out, want %d", len(l.Edges), edges)
	}
	for _, e := range l.Edges {
		if len(e.Points) < 2 {
			t.Errorf("edge %s -> %s: %d points", e.Tail, e.Head, len(e.Points))
		}
	}
}

func overlaps(a, b *Box) bool {
	return a.X < b.X+b.W && b.X < a.X+a.W && a.Y < b.Y+b.H && b.Y < a.Y+a.H
}

func TestASCIIMLP(t *testing.T) {
	g := loadUnits(t, "mlp.json", "decomposed")[0].Decomposed
	s, err := BuildScene(g, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	text := s.String()
	for _, n := range g.Nodes {
		if !strings.Contains(text, cut(n.Name)) {
			t.Errorf("node %s not drawn", n.Name)
		}
	}
	if len(s.Boxes) != len(g.Nodes) {
		t.Fatalf("%d boxes for %d nodes", len(s.Boxes), len(g.Nodes))
	}
	for i, a := range s.Boxes {
		for _, b := range s.Boxes[i+1:] {
			if overlaps(a, b) {
				t.Errorf("boxes %s %+v and %s %+v overlap", a.ID, *a, b.ID, *b)
			}
		}
	}
	// Each box is drawn where it says, and the edges end in arrowheads.
	lines := strings.Split(text, "\n")
	for _, b := range s.Boxes {
		if r := []rune(lines[b.Y])[b.X]; r != '┌' {
			t.Errorf("box %s: top-left corner is %q", b.ID, r)
		}
	}
	if arrows := strings.Count(text, "▼"); arrows < len(g.Nodes)-1-len(g.Placeholders()) {
		t.Errorf("%d arrowheads\n%s", arrows, text)
	}
	// A viewport is exactly its size, selected boxes get a double border.
	sel, _ := s.BoxOf("flatten")
	vp := s.Render(sel.X-1, sel.Y-1, 20, 5, func(b *Box) Mark {
		if b == sel {
			return Selected
		}
		return Plain
	}, nil)
	vl := strings.Split(vp, "\n")
	if len(vl) != 5 || len([]rune(vl[0])) != 20 || []rune(vl[1])[1] != '╔' {
		t.Errorf("viewport:\n%s", vp)
	}
}

// chain builds placeholder -> n relus -> output.
func chain(n int) *ir.Graph {
	g := &ir.Graph{Name: "chain"}
	meta := ir.Meta{Tensor: &ir.TensorMeta{DType: tensor.Float32, Shape: ir.ShapeOf([]int{8})}}
	prev := &ir.Node{Name: "x", Op: ir.Placeholder, Target: "x", Meta: meta}
	g.Nodes = append(g.Nodes, prev)
	for i := 0; i < n; i++ {
		nd := &ir.Node{Name: fmt.Sprintf("relu_%d", i), Op: ir.CallFunction, Target: "aten.relu", Args: []ir.Arg{prev}, Meta: meta}
		g.Nodes = append(g.Nodes, nd)
		prev = nd
	}
	g.Nodes = append(g.Nodes, &ir.Node{Name: "output", Op: ir.Output, Target: "output", Args: []ir.Arg{prev}})
	return g
}

func TestChain2k(t *testing.T) {
	if testing.Short() {
		t.Skip("2k-node layout")
	}
	g := chain(2000)
	t0 := time.Now()
	l, err := LayoutDOT(DOT(g, Options{}))
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("2k-node chain: SVG-style layout %v", time.Since(t0))
	if len(l.Nodes) != len(g.Nodes) {
		t.Fatalf("%d nodes laid out, want %d", len(l.Nodes), len(g.Nodes))
	}
	t0 = time.Now()
	s, err := BuildScene(g, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("2k-node chain: terminal scene %v (%dx%d cells)", time.Since(t0), s.W, s.H)
	if len(s.Boxes) != len(g.Nodes) {
		t.Fatalf("%d boxes, want %d", len(s.Boxes), len(g.Nodes))
	}
}

func TestCollapseTransformer(t *testing.T) {
	g := loadUnits(t, "transformer_block.json", "decomposed")[0].Decomposed
	groups := ModuleGroups(g)
	for name, want := range map[string]string{"ln_1_sum": "ln_1", "attn_c_attn_mm": "attn", "view": "attn", "mlp_c_fc_mm": "mlp", "ln_2": "ln_2"} {
		if got := groups[name]; got != want {
			t.Errorf("node %s in group %q, want %q", name, got, want)
		}
	}
	all := map[string]bool{}
	for _, grp := range groups {
		all[grp] = true
	}
	s, err := BuildScene(g, groups, all)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Boxes) >= len(g.Nodes) || len(s.Boxes) > 20 {
		t.Errorf("collapsed: %d boxes for %d nodes", len(s.Boxes), len(g.Nodes))
	}
	text := s.String()
	attn, _ := s.BoxOf("view")
	if !attn.Group || attn.ID != "attn" || !strings.Contains(text, fmt.Sprintf("%d nodes", len(attn.Members))) {
		t.Errorf("attn box %+v\n%s", *attn, text)
	}
	for _, n := range g.Nodes {
		if _, ok := s.BoxOf(n.Name); !ok {
			t.Errorf("node %s has no box", n.Name)
		}
	}
	for i, a := range s.Boxes {
		for _, b := range s.Boxes[i+1:] {
			if overlaps(a, b) {
				t.Errorf("boxes %s and %s overlap", a.ID, b.ID)
			}
		}
	}
}

// BenchmarkLayoutTransformer lays out the transformer block's decomposed
// graph with graphviz (warm instance).
func BenchmarkLayoutTransformer(b *testing.B) {
	g := loadUnits(b, "transformer_block.json", "decomposed")[0].Decomposed
	dot := DOT(g, Options{})
	if _, err := LayoutDOT(dot); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := LayoutDOT(dot); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSceneTransformer builds the terminal drawing of the same graph.
func BenchmarkSceneTransformer(b *testing.B) {
	g := loadUnits(b, "transformer_block.json", "decomposed")[0].Decomposed
	if _, err := BuildScene(g, nil, nil); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := BuildScene(g, nil, nil); err != nil {
			b.Fatal(err)
		}
	}
}

// graphviz is not safe for concurrent use; the package serialises calls.
func TestConcurrentAndBadDOT(t *testing.T) {
	g := chain(30)
	errs := make(chan error, 8)
	for i := 0; i < 8; i++ {
		go func() {
			_, err := GraphSVG(g, Options{Legend: true})
			if err == nil {
				_, err = BuildScene(g, nil, nil)
			}
			errs <- err
		}()
	}
	for i := 0; i < 8; i++ {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
	for _, bad := range []string{"digraph {", "", "graph { a -- }", "digraph { a } digraph { b -> c }"} {
		if _, err := LayoutDOT(bad); err == nil {
			t.Errorf("LayoutDOT(%q) gave no error", bad)
		}
	}
	// Stray text after a graph is drained, not left for the next parse.
	LayoutDOT("digraph { a -> b; }}}")
	if _, err := LayoutDOT("digraph { a -> b }"); err != nil {
		t.Errorf("graphviz unusable after bad input: %v", err)
	}
}

func TestEmptyGraphs(t *testing.T) {
	if _, err := GraphSVG(nil, Options{Legend: true}); err != nil {
		t.Errorf("nil graph SVG: %v", err)
	}
	if _, err := BuildScene(nil, nil, nil); err == nil {
		t.Error("nil graph scene: no error")
	}
	s, err := BuildScene(&ir.Graph{Name: "empty"}, nil, nil)
	if err != nil || len(s.Boxes) != 0 || s.Render(0, 0, 3, 2, nil, nil) != "   \n   " {
		t.Errorf("empty graph scene: %v %+v", err, s)
	}
}

// A graph of BigGraphLayout nodes or more gets the attributes that bound
// dot's layout (a YOLO head's joint graph took more than 120 s without
// them); a smaller one keeps graphviz's full layout.
func TestBigGraphsBoundTheLayout(t *testing.T) {
	chain := func(n int) *ir.Graph {
		g := &ir.Graph{Name: "g"}
		prev := &ir.Node{Name: "x", Op: ir.Placeholder, Target: "x"}
		g.Nodes = append(g.Nodes, prev)
		for i := 1; i < n; i++ {
			c := &ir.Node{Name: fmt.Sprintf("n%d", i), Op: ir.CallFunction, Target: "aten.relu", Args: []ir.Arg{prev}}
			g.Nodes = append(g.Nodes, c)
			prev = c
		}
		return g
	}
	if d := DOT(chain(BigGraphLayout), Options{}); !strings.Contains(d, "nslimit=1") {
		t.Errorf("a graph of %d nodes: dot's layout not bounded", BigGraphLayout)
	}
	if d := DOT(chain(40), Options{}); strings.Contains(d, "nslimit") {
		t.Error("a graph of 40 nodes: dot's layout bounded")
	}
}
