package torchtrace

import (
	"bytes"
	"crypto/md5"
	"encoding/hex"
	"os"
	"path/filepath"
	"testing"
)

// FuzzReadLog feeds arbitrary bytes through the whole import: reading,
// grouping, guard parsing, graph conversion and the reference listing.
// None may panic, and what the reader keeps must be consistent: every
// kept payload matches its hash, every line is counted once.
func FuzzReadLog(f *testing.F) {
	old := maxLogElements
	maxLogElements = 1 << 16
	f.Cleanup(func() { maxLogElements = old })
	for _, s := range samples {
		data, err := os.ReadFile(filepath.Join("testdata", s.file))
		if err != nil {
			f.Fatal(err)
		}
		if len(data) > 4000 {
			data = data[:4000] // the fuzzer mutates small inputs better
		}
		f.Add(data)
	}
	// a PyTorch 2.6 training log cut down to the events the training path
	// reads: Dynamo's graph, its guards and the AOT graphs
	if data, err := os.ReadFile(filepath.Join("testdata", "pt2", "input_grad.log")); err == nil {
		var seed []byte
		keep := false
		for _, line := range bytes.SplitAfter(data, []byte("\n")) {
			if len(line) > 0 && line[0] == 'V' {
				keep = false
				for _, k := range []string{"dynamo_output_graph", "dynamo_cpp_guards_str", "aot_joint_graph", "aot_backward_graph"} {
					keep = keep || bytes.Contains(line, []byte(`{"`+k+`"`))
				}
			}
			if keep {
				seed = append(seed, line...)
			}
		}
		f.Add(seed)
	}
	const prefix = "V1206 15:18:20.599000 1500233 torch/_dynamo/x.py:1] "
	f.Add([]byte(prefix + `{"dynamo_output_graph": {"sizes": {"l_x_": [2]}}, "frame_id": 0, "frame_compile_id": 0, "attempt": 1, "has_payload": "x"}` +
		"\n\tclass GraphModule(torch.nn.Module):\n\t    def forward(self, L_x_: \"f32[2][1]cpu\"):\n\t        return (L_x_,)\n"))
	f.Add([]byte(prefix + `{"dynamo_cpp_guards_str": {}, "compiled_autograd_id": 0, "frame_id": 0}` + "\n\t| +- GuardManager: source=L['x']\n\t| | +- TENSOR_MATCH: x"))
	f.Fuzz(func(t *testing.T, data []byte) {
		l, err := Read(bytes.NewReader(data))
		if err != nil {
			t.Fatal(err)
		}
		if n := bytes.Count(data, []byte("\n")); l.Lines < n || l.Lines > n+1 {
			t.Fatalf("%d lines counted for %d newlines", l.Lines, n)
		}
		if len(l.Envelopes)+len(l.Skipped) > l.Lines {
			t.Fatalf("%d envelopes and %d skips from %d lines", len(l.Envelopes), len(l.Skipped), l.Lines)
		}
		for _, e := range l.Envelopes {
			if want, ok := e.md5(); ok {
				sum := md5.Sum([]byte(e.Payload))
				if hex.EncodeToString(sum[:]) != want {
					t.Fatalf("line %d kept with a payload that does not match its hash", e.Line)
				}
			}
		}
		im := FromLog(l, "fuzz", t.TempDir())
		for _, c := range im.Compiles {
			c.ProducerGuards()
			c.References()
			c.PyTorchSaved()
			c.trainableInputs()
		}
		if len(im.Trace.Graphs) > len(im.Compiles) {
			t.Fatalf("%d graphs from %d compiles", len(im.Trace.Graphs), len(im.Compiles))
		}
	})
}
