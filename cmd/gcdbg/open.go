package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"

	"gcdbg/torchtrace"
	"gcdbg/trace"
)

// openTrace loads a trace file, picking the reader by content rather than
// by name, so that a graph pasted into graph.txt works as well as graph.py:
// a JSON object is a gcdbg trace (trace.Load); Python text starting with
// `def forward`, `class `, an import or a comment is readable graph text
// (graphtext.Load).
func openTrace(path string) (*trace.Trace, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	head := make([]byte, 512)
	n, _ := f.Read(head)
	f.Close()
	head = bytes.TrimPrefix(head[:n], []byte("\xef\xbb\xbf"))
	head = bytes.TrimLeft(head, " \t\r\n")
	switch {
	case bytes.HasPrefix(head, []byte("{")):
		return trace.Load(path)
	case isGraphText(head):
		return loadGraphText(path) // open_exporter.go: a model file for the exporter
	case torchtrace.IsLog(head): // TORCH_TRACE: V1206 15:18:20.253000 1500233 torch/_logging/structured.py:22] {...}
		return torchtrace.LoadTrace(path)
	}
	switch filepath.Ext(path) {
	case ".json":
		return trace.Load(path)
	case ".py", ".txt":
		return loadGraphText(path) // open_exporter.go: a model file for the exporter
	}
	return nil, fmt.Errorf("%s: neither a gcdbg trace (a JSON object) nor readable graph text (def forward(self, ...):)", filepath.Base(path))
}

func isGraphText(head []byte) bool {
	for _, p := range []string{"def forward", "class ", "import ", "from ", "#"} {
		if bytes.HasPrefix(head, []byte(p)) {
			return true
		}
	}
	return false
}
