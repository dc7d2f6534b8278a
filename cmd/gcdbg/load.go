package main

import (
	"io/fs"
	"os"
	"path/filepath"

	"gcdbg/fixtures"
	"gcdbg/trace"
)

// loadTrace loads the named trace — a gcdbg trace, readable graph text or
// a TORCH_TRACE log (see openTrace) — or the embedded example when path is "".
func loadTrace(path string) (*trace.Trace, error) {
	if path != "" {
		return openTrace(path)
	}
	// The loader reads sidecars from a folder it confines them to, so the
	// embedded example is unpacked into a private temporary folder first.
	dir, err := os.MkdirTemp("", "gcdbg-example-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	err = fs.WalkDir(fixtures.Example, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := fixtures.Example.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dir, p), b, 0o600)
	})
	if err != nil {
		return nil, err
	}
	tr, err := trace.Load(filepath.Join(dir, fixtures.ExampleName))
	if err != nil {
		return nil, err
	}
	tr.Path = "(embedded example) " + fixtures.ExampleName
	return tr, nil
}
