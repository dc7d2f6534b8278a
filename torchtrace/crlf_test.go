package torchtrace

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A log whose line endings became CRLF imports exactly like the LF one:
// same envelopes, payloads (and so md5s), compiles and graphs.
func TestCRLFLogsReadLikeLF(t *testing.T) {
	for _, s := range samples {
		lf, err := os.ReadFile(filepath.Join("testdata", s.file))
		if err != nil {
			t.Fatal(err)
		}
		crlf := bytes.ReplaceAll(lf, []byte("\n"), []byte("\r\n"))
		a, err := Read(bytes.NewReader(lf))
		if err != nil {
			t.Fatal(err)
		}
		b, err := Read(bytes.NewReader(crlf))
		if err != nil {
			t.Fatal(err)
		}
		if len(b.Skipped) != 0 {
			t.Errorf("%s as CRLF: skipped %v", s.file, b.Skipped)
		}
		if a.Lines != b.Lines || len(a.Envelopes) != len(b.Envelopes) {
			t.Fatalf("%s: LF %d lines %d envelopes, CRLF %d lines %d envelopes", s.file, a.Lines, len(a.Envelopes), b.Lines, len(b.Envelopes))
		}
		for i := range a.Envelopes {
			x, y := a.Envelopes[i], b.Envelopes[i]
			if x.Kind != y.Kind || x.Payload != y.Payload || !bytes.Equal(x.Meta, y.Meta) || x.Line != y.Line {
				t.Fatalf("%s: envelope %d differs: LF %s line %d, CRLF %s line %d", s.file, i, x.Kind, x.Line, y.Kind, y.Line)
			}
			if strings.Contains(y.Payload, "\r") {
				t.Fatalf("%s: envelope %d keeps a \\r in its payload", s.file, i)
			}
		}
		ia := FromLog(a, "lf", t.TempDir())
		ib := FromLog(b, "crlf", t.TempDir())
		if len(ia.Trace.Graphs) != len(s.graphs) || len(ib.Trace.Graphs) != len(ia.Trace.Graphs) {
			t.Errorf("%s: graphs LF %d, CRLF %d, want %d", s.file, len(ia.Trace.Graphs), len(ib.Trace.Graphs), len(s.graphs))
		}
	}
}

// A graph whose input sizes overflow an element count says so instead of
// printing the count as 0.
func TestOverflowedElementCountMessage(t *testing.T) {
	const prefix = "V1206 15:18:20.599000 1500233 torch/_dynamo/x.py:1] "
	log := prefix + `{"dynamo_output_graph": {"sizes": {"l_x_": [2]}}, "frame_id": 0, "frame_compile_id": 0, "attempt": 0}` + "\n" +
		"\tclass GraphModule(torch.nn.Module):\n" +
		"\t    def forward(self, L_x_: \"f32[4000000000, 4000000000, 4000000000]\"):\n" +
		"\t        return (L_x_,)\n"
	l, err := Read(strings.NewReader(log))
	if err != nil {
		t.Fatal(err)
	}
	im := FromLog(l, "big", t.TempDir())
	if len(im.Compiles) != 1 {
		t.Fatalf("%d compiles, want 1", len(im.Compiles))
	}
	msg := im.Compiles[0].ImportError
	if !strings.Contains(msg, "overflows") || strings.Contains(msg, "need 0 ") {
		t.Fatalf("import error %q does not say the element count overflows", msg)
	}
}
