package runner

import (
	"os"
	"path/filepath"
	"testing"

	"gcdbg/trace"
)

// FuzzRun feeds arbitrary traces through the loader, every pipeline stage
// and the eager interpreter. The property: gcdbg never panics; it either
// returns an error or a result.
func FuzzRun(f *testing.F) {
	paths, _ := filepath.Glob("../fixtures/*.json")
	zoo, _ := filepath.Glob("../stages/testdata/*.json")
	for _, p := range append(paths, zoo...) {
		if b, err := os.ReadFile(p); err == nil && len(b) < 64<<10 {
			f.Add(b)
		}
	}
	f.Add([]byte(`{"format":"gcdbg.trace","version":1,"graphs":[{"nodes":[
	 {"name":"x","op":"placeholder","target":"x"},
	 {"name":"v","op":"call_method","target":"view","args":[{"node":"x"},-1,2]},
	 {"name":"s","op":"call_function","target":"torch.sum","args":[{"node":"v"}],"kwargs":{"dim":1}},
	 {"name":"output","op":"output","target":"output","args":[[{"node":"s"},{"node":"v"}]]}]}],
	 "tensors":{"x":{"dtype":"float32","shape":[2,3],"init":{"dist":"normal","seed":1}}}}`))
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		tr, err := trace.Parse(data, dir, "fuzz.json")
		if err != nil {
			return
		}
		// Keep each input small so the fuzzer explores logic, not allocation
		// (the loader and tensor library bound sizes on their own).
		n := 0
		for _, g := range tr.Graphs {
			for _, td := range g.Tensors {
				n += td.T.Numel()
			}
		}
		if n > 1<<16 {
			return
		}
		_, _ = Run(tr, Options{Runs: 1})
	})
}
