package report

import (
	"fmt"
	"html"
	"regexp"
	"strings"

	"gcdbg/ir"
	"gcdbg/viz"
)

// graphSVG draws one graph stage as an SVG document with gcdbg/viz
// (graphviz), nodes clustered by the fused kernel that computes them. A
// variable so a test can check how a drawing is embedded.
var graphSVG = func(g *ir.Graph, clusters map[string]string) (string, error) {
	b, err := viz.GraphSVG(g, viz.Options{Clusters: clusters, Legend: true})
	return string(b), err
}

// inlineSVG makes an SVG document fit to embed in the page: the XML
// prolog and DOCTYPE go, and anything that could run script is refused
// (graphviz escapes labels, so a drawing never has any; this guards the
// page against a renderer bug turning a hostile node name into markup).
func inlineSVG(doc string) (string, bool) {
	i := strings.Index(doc, "<svg")
	if i < 0 {
		return "", false
	}
	doc = doc[i:]
	low := strings.ToLower(doc)
	for _, bad := range []string{"<script", "<foreignobject", "<iframe", "javascript:"} {
		if strings.Contains(low, bad) {
			return "", false
		}
	}
	if hasEventAttr(low) {
		return "", false
	}
	return doc, true
}

// hasEventAttr finds an onXXX= attribute inside a tag (not in text).
func hasEventAttr(low string) bool {
	inTag := false
	for i := 0; i < len(low); i++ {
		switch c := low[i]; {
		case c == '<':
			inTag = true
		case c == '>':
			inTag = false
		case inTag && (c == ' ' || c == '\t' || c == '\n') && strings.HasPrefix(low[i+1:], "on"):
			j := i + 3
			for j < len(low) && low[j] >= 'a' && low[j] <= 'z' {
				j++
			}
			if j < len(low) && low[j] == '=' {
				return true
			}
		}
	}
	return false
}

// svgNode is how graphviz writes a node: a group titled by its DOT id.
var svgNode = regexp.MustCompile(`<g id="node\d+" class="node">\s*<title>([^<]*)</title>`)

// linkSVG makes the drawing's nodes provenance-clickable like the names in
// the text: each node group gets the node's data-node id, and its tooltip
// becomes the node's name instead of the DOT id (viz.NodeID, which
// viz uses so trace names never become DOT syntax).
func linkSVG(svg string, g *ir.Graph, lk graphLinker) string {
	byDOT := make(map[string]string, len(g.Nodes))
	for i, n := range g.Nodes {
		byDOT[viz.NodeID(i)] = n.Name
	}
	return svgNode.ReplaceAllStringFunc(svg, func(m string) string {
		dotID := svgNode.FindStringSubmatch(m)[1]
		name, ok := byDOT[dotID]
		if !ok {
			return m
		}
		id, ok := lk.name(name)
		if !ok {
			return m
		}
		return fmt.Sprintf(`<g class="node gn" data-node="%d"><title>%s</title>`, id, html.EscapeString(name))
	})
}
