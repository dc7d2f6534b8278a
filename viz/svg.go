package viz

import (
	"github.com/goccy/go-graphviz"

	"gcdbg/ir"
)

// SVG renders DOT text to SVG with graphviz's dot layout.
func SVG(dot string) ([]byte, error) {
	return withGraphviz(dot, graphviz.SVG)
}

// GraphSVG draws g as SVG: DOT(g, opt) rendered by graphviz.
func GraphSVG(g *ir.Graph, opt Options) ([]byte, error) {
	return SVG(DOT(g, opt))
}
