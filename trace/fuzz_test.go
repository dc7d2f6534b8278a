package trace

import (
	"os"
	"path/filepath"
	"testing"

	"gcdbg/tensor"
)

// fuzzDir makes a folder holding small safetensors sidecars (the fixtures'
// own when small, and one written here) for traces under fuzzing to name.
func fuzzDir(f *testing.F) string {
	dir := f.TempDir()
	sts, _ := filepath.Glob("../fixtures/*.safetensors")
	for _, p := range sts {
		if b, err := os.ReadFile(p); err == nil && len(b) < 1<<20 {
			_ = os.WriteFile(filepath.Join(dir, filepath.Base(p)), b, 0o644)
		}
	}
	st := encodeST([]stTensor{{"w", "F32", []int{2, 2}, f32bytes(1, 2, 3, 4)}, {"x", "F32", []int{2}, f32bytes(5, 6)}})
	_ = os.WriteFile(filepath.Join(dir, "w.safetensors"), st, 0o644)
	return dir
}

func FuzzParseTrace(f *testing.F) {
	old := maxInitElements
	maxInitElements = 1 << 16
	f.Cleanup(func() { maxInitElements = old })
	files, _ := filepath.Glob("../fixtures/*.json")
	for _, p := range files {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte(good))
	f.Add([]byte(doc(phX+`,`+outX, "", `"x":{"dtype":"float32","shape":[2],"file":"w.safetensors","key":"x"}`)))
	f.Add([]byte(doc(phX+`,`+outX, "", `"x":{"dtype":"float32","shape":[2,2],"init":{"dist":"uniform","seed":3}}`)))
	for _, c := range ruleCasesForSeeds() {
		f.Add([]byte(c))
	}
	dir := fuzzDir(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		tr, err := Parse(data, dir, "fuzz.json")
		if err != nil {
			if _, ok := err.(*Error); !ok {
				t.Fatalf("error %T is not a *trace.Error: %v", err, err)
			}
			return
		}
		if len(tr.Graphs) == 0 {
			t.Fatal("trace without graphs accepted")
		}
		for _, g := range tr.Graphs {
			if err := g.Validate(); err != nil {
				t.Fatalf("accepted graph fails Validate: %v", err)
			}
			for _, n := range g.Nodes {
				if (n.Op == "placeholder" && !n.Meta.HasValue || n.Op == "get_attr") && g.Tensors[n.Target] == nil {
					t.Fatalf("node %q has no tensor", n.Name)
				}
			}
		}
	})
}

func FuzzParseSafetensors(f *testing.F) {
	// The fixtures' sidecars, cut down to their small tensors: the fuzzer
	// slows to a crawl on inputs of hundreds of kilobytes.
	sts, _ := filepath.Glob("../fixtures/*.safetensors")
	for _, p := range sts {
		if b, err := os.ReadFile(p); err == nil {
			if s := shrinkST(b); s != nil {
				f.Add(s)
			}
		}
	}
	f.Add(encodeST([]stTensor{{"w", "F32", []int{2, 2}, f32bytes(1, 2, 3, 4)}, {"b", "BOOL", []int{3}, []byte{0, 1, 2}}}))
	f.Add(encodeST([]stTensor{{"h", "F16", []int{1}, []byte{0, 0x3c}}, {"z", "I8", []int{0}, nil}}))
	f.Add(rawST(`{"x":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}}`, f32bytes(1, 2)))
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := ParseSafetensors(data)
		if err != nil {
			if _, ok := err.(*Error); !ok {
				t.Fatalf("error %T is not a *trace.Error: %v", err, err)
			}
			return
		}
		total := 0
		for _, tt := range m {
			total += tt.Numel() * tt.DType.Size()
		}
		if total > len(data) {
			t.Fatalf("%d tensor bytes from a %d-byte file", total, len(data))
		}
	})
}

// ruleCasesForSeeds returns the hostile inline traces of TestRules.
func ruleCasesForSeeds() []string {
	var out []string
	for _, c := range ruleCases() {
		out = append(out, c.trace)
	}
	return out
}

// shrinkST re-encodes up to 8 tensors of a safetensors file, each cut down
// to its first 16 elements (shape [n]), keeping names, dtypes and bytes.
func shrinkST(b []byte) []byte {
	sf, err := parseST(b)
	if err != nil {
		return nil
	}
	codes := map[tensor.DType]string{}
	for c, dt := range stDTypes {
		codes[dt] = c
	}
	var ts []stTensor
	for _, k := range sf.keys {
		e := sf.entries[k]
		n := min(tensor.Numel(e.shape), 16)
		if len(ts) < 8 {
			ts = append(ts, stTensor{k, codes[e.dtype], []int{n}, sf.buf[e.begin : e.begin+n*e.dtype.Size()]})
		}
	}
	if len(ts) == 0 {
		return nil
	}
	return encodeST(ts)
}
