package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"gcdbg/graphtext"
	"gcdbg/trace"
)

// definesMake matches a top-level `def make(`: the exporter's model files
// (a PyTorch model plus make() returning it and its example inputs, see
// docs/exporter.md) define one; readable graph text never does.
var definesMake = regexp.MustCompile(`(?m)^def\s+make\s*\(`)

// loadGraphText reads path as readable graph text (graphtext.Load). A
// Python file that does not parse as one but defines make() is a model
// file for the exporter: the error says to export it first, rather than
// where the graph-text parser stopped.
func loadGraphText(path string) (*trace.Trace, error) {
	tr, err := graphtext.Load(path)
	if err == nil {
		return tr, nil
	}
	if src, rerr := os.ReadFile(path); rerr == nil && definesMake.Match(src) {
		base := filepath.Base(path)
		out := strings.TrimSuffix(base, filepath.Ext(base)) + ".json"
		return nil, fmt.Errorf("%s: a PyTorch model file for the exporter (it defines make()), not a trace: "+
			"export it first, then run the trace:\n"+
			"  /usr/bin/python3 exporter/gcdbg_export.py %s -o %s   (PyTorch's python, in the gcdbg source tree; docs/exporter.md)\n"+
			"  gcdbg run %s", base, path, out, out)
	}
	return nil, err
}
