package compiler

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"gcdbg/outfile"
)

// Ahead-of-time output of `gcdbg compile TRACE -o DIR`: one shared object
// and one manifest per compiled graph (DIR/<graph>_<role>.so/.json) and
// DIR/index.json listing them with each library's sha256, so that
// `gcdbg run DIR` loads exactly what was built, without recompiling.

// AOTIndex is DIR/index.json.
type AOTIndex struct {
	Format  string `json:"format"` // "gcdbg.aot"
	Version int    `json:"version"`
	Trace   string `json:"trace"`
	// TracePath is the absolute path of the trace it was compiled from,
	// when it was a file: `gcdbg run DIR` loads it for the inputs and the
	// references to compare against.
	TracePath string     `json:"trace_path,omitempty"`
	Programs  []AOTEntry `json:"programs"`
}

// AOTEntry is one compiled program in the index.
type AOTEntry struct {
	Graph    string `json:"graph"`
	Role     string `json:"role"`
	Manifest string `json:"manifest"` // file name inside DIR
	Library  string `json:"library"`  // file name inside DIR
	SHA256   string `json:"sha256"`   // of the library file
}

// AOTProgram is a loaded, validated program: its manifest and the
// absolute path of its library.
type AOTProgram struct {
	Manifest Manifest
	Library  string
}

// fileStem makes a graph and role name a safe file name.
func fileStem(graph, role string) string {
	clean := func(s string) string {
		return strings.Map(func(r rune) rune {
			if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-' {
				return r
			}
			return '_'
		}, s)
	}
	return clean(graph) + "_" + clean(role)
}

// WriteAOT copies built artifacts into dir with their manifests and index.
// traceName is the trace's path (or name): its base name is the index's
// trace, and when it names a file its absolute path is trace_path.
func WriteAOT(dir, traceName string, arts []*Artifact) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("compile: %w", err)
	}
	idx := AOTIndex{Format: "gcdbg.aot", Version: 1, Trace: filepath.Base(traceName)}
	if fi, err := os.Stat(traceName); err == nil && fi.Mode().IsRegular() {
		if abs, err := filepath.Abs(traceName); err == nil {
			idx.TracePath = abs
		}
	}
	used := map[string]bool{}
	for _, a := range arts {
		stem := fileStem(a.Manifest.Graph, a.Manifest.Role)
		for base, i := stem, 1; used[stem]; i++ {
			stem = fmt.Sprintf("%s_%d", base, i)
		}
		used[stem] = true
		lib, man := stem+".so", stem+".json"
		sum, err := copyFile(a.Library, dir, lib)
		if err != nil {
			return fmt.Errorf("compile: graph %q (%s): %w", a.Manifest.Graph, a.Manifest.Role, err)
		}
		m := a.Manifest
		m.Library = lib
		mj, _ := json.MarshalIndent(m, "", "  ")
		if err := outfile.WriteFile(dir, man, append(mj, '\n'), 0o644); err != nil {
			return fmt.Errorf("compile: %w", err)
		}
		idx.Programs = append(idx.Programs, AOTEntry{Graph: m.Graph, Role: m.Role, Manifest: man, Library: lib, SHA256: sum})
	}
	ij, _ := json.MarshalIndent(idx, "", "  ")
	if err := outfile.WriteFile(dir, "index.json", append(ij, '\n'), 0o644); err != nil {
		return fmt.Errorf("compile: %w", err)
	}
	return nil
}

// copyFile copies src to dir/name, never through a link planted there
// (package outfile), and returns the copy's sha256.
func copyFile(src, dir, name string) (string, error) {
	in, err := os.Open(src)
	if err != nil {
		return "", err
	}
	defer in.Close()
	h := sha256.New()
	_, err = outfile.Write(dir, name, 0o755, func(w io.Writer) error {
		_, err := io.Copy(io.MultiWriter(w, h), in)
		return err
	})
	if err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// inside resolves a file name from the index: a plain name (no directory
// part) of a regular file in dir — a manifest cannot point outside it.
func inside(dir, name, field string) (string, error) {
	if name == "" || name != filepath.Base(name) || name == "." || name == ".." || strings.ContainsAny(name, `/\`) {
		return "", fmt.Errorf("%s: %q is not a file name inside %s", field, name, dir)
	}
	p := filepath.Join(dir, name)
	fi, err := os.Lstat(p)
	if err != nil {
		return "", fmt.Errorf("%s: %w", field, err)
	}
	if !fi.Mode().IsRegular() {
		return "", fmt.Errorf("%s: %s is not a regular file", field, p)
	}
	return p, nil
}

// ReadAOTIndex reads DIR/index.json alone (which trace it was built from).
func ReadAOTIndex(dir string) (*AOTIndex, error) {
	raw, err := os.ReadFile(filepath.Join(dir, "index.json"))
	if err != nil {
		return nil, fmt.Errorf("load %s: %w", dir, err)
	}
	var idx AOTIndex
	if err := json.Unmarshal(raw, &idx); err != nil {
		return nil, fmt.Errorf("load %s: index.json: %w", dir, err)
	}
	if idx.Format != "gcdbg.aot" || idx.Version != 1 {
		return nil, fmt.Errorf("load %s: index.json: format %q version %d, want gcdbg.aot 1", dir, idx.Format, idx.Version)
	}
	return &idx, nil
}

// LoadAOT reads DIR/index.json and every manifest it lists, checking that
// each file lies in dir, each library has the recorded sha256, and each
// manifest is a gcdbg.compiled manifest whose slots and steps are sane.
func LoadAOT(dir string) ([]AOTProgram, error) {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	raw, err := os.ReadFile(filepath.Join(dir, "index.json"))
	if err != nil {
		return nil, fmt.Errorf("load %s: %w", dir, err)
	}
	var idx AOTIndex
	if err := json.Unmarshal(raw, &idx); err != nil {
		return nil, fmt.Errorf("load %s: index.json: %w", dir, err)
	}
	if idx.Format != "gcdbg.aot" || idx.Version != 1 {
		return nil, fmt.Errorf("load %s: index.json: format %q version %d, want gcdbg.aot 1", dir, idx.Format, idx.Version)
	}
	var out []AOTProgram
	for i, e := range idx.Programs {
		field := fmt.Sprintf("index.json: programs[%d]", i)
		mp, err := inside(dir, e.Manifest, field+".manifest")
		if err != nil {
			return nil, fmt.Errorf("load %s: %w", dir, err)
		}
		lp, err := inside(dir, e.Library, field+".library")
		if err != nil {
			return nil, fmt.Errorf("load %s: %w", dir, err)
		}
		f, err := os.Open(lp)
		if err != nil {
			return nil, err
		}
		h := sha256.New()
		_, err = io.Copy(h, f)
		f.Close()
		if err != nil {
			return nil, err
		}
		if got := hex.EncodeToString(h.Sum(nil)); got != e.SHA256 {
			return nil, fmt.Errorf("load %s: %s.sha256: %s has sha256 %s, the index says %s (rebuild with gcdbg compile)", dir, field, e.Library, got, e.SHA256)
		}
		mraw, err := os.ReadFile(mp)
		if err != nil {
			return nil, err
		}
		var m Manifest
		// UseNumber: a fallback's constants keep the text's int or float
		// (decodeConst), as in a manifest built in this process.
		dec := json.NewDecoder(bytes.NewReader(mraw))
		dec.UseNumber()
		if err := dec.Decode(&m); err != nil {
			return nil, fmt.Errorf("load %s: %s: %w", dir, e.Manifest, err)
		}
		if err := m.Validate(); err != nil {
			return nil, fmt.Errorf("load %s: %s: %w", dir, e.Manifest, err)
		}
		if m.Library != e.Library || m.Graph != e.Graph || m.Role != e.Role {
			return nil, fmt.Errorf("load %s: %s: manifest is for %q (%s, %s), the index says %q (%s, %s)", dir, e.Manifest, m.Library, m.Graph, m.Role, e.Library, e.Graph, e.Role)
		}
		out = append(out, AOTProgram{Manifest: m, Library: lp})
	}
	return out, nil
}

// Validate checks a manifest's internal consistency: slot indices in
// range, sizes parseable, segments with entry points.
func (m *Manifest) Validate() error {
	if m.Format != "gcdbg.compiled" || m.Version != 1 {
		return fmt.Errorf("format %q version %d, want gcdbg.compiled 1", m.Format, m.Version)
	}
	syms := map[string]int64{}
	for _, s := range m.Symbols {
		syms[s] = 1
	}
	for i, b := range m.Buffers {
		if _, err := b.Numel(syms); err != nil {
			return fmt.Errorf("buffers[%d]: %w", i, err)
		}
	}
	slot := func(field string, s int) error {
		if s < 0 || s >= len(m.Buffers) {
			return fmt.Errorf("%s: slot %d out of range (%d buffers)", field, s, len(m.Buffers))
		}
		return nil
	}
	for i, s := range m.Inputs {
		if err := slot(fmt.Sprintf("inputs[%d]", i), s); err != nil {
			return err
		}
	}
	for i, s := range m.Outputs {
		if err := slot(fmt.Sprintf("outputs[%d]", i), s); err != nil {
			return err
		}
	}
	for i, st := range m.Steps {
		switch st.Kind {
		case "segment":
			if !strings.HasPrefix(st.Entry, "gcdbg_seg") {
				return fmt.Errorf("steps[%d]: entry %q is not a gcdbg entry point", i, st.Entry)
			}
		case "fallback":
			for j, w := range st.Writes {
				if err := slot(fmt.Sprintf("steps[%d].writes[%d]", i, j), w); err != nil {
					return err
				}
			}
		default:
			return fmt.Errorf("steps[%d]: unknown kind %q", i, st.Kind)
		}
	}
	return nil
}
