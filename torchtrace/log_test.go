package torchtrace

import (
	"crypto/md5"
	"encoding/hex"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// samples are tlparse's own test logs with what tlparse reports for them:
// the line and envelope counts (a last line without "\n" counts), and the compile ids of its index page.
var samples = []struct {
	file      string
	lines     int
	envelopes int
	ids       []string
	graphs    []string // compile ids with a dynamo_output_graph
}{
	{"artifacts.log", 53, 20, []string{"[0/0]"}, []string{"[0/0]"}},
	{"comp_failure.log", 178, 21, []string{"[0/0]"}, []string{"[0/0]"}},
	{"comp_metrics.log", 65, 26, []string{"[0/0]", "[0/0_1]", "[1/0]", "[1/0_1]", "[2/0]"}, []string{"[0/0_1]", "[1/0_1]", "[2/0]"}},
	{"links.log", 160, 12, []string{"[0/0]"}, []string{"[0/0]"}},
	{"simple.log", 2224, 76, []string{"[0/0]"}, []string{"[0/0]"}},
}

func TestSamplesRead(t *testing.T) {
	for _, s := range samples {
		l, err := ReadFile(filepath.Join("testdata", s.file))
		if err != nil {
			t.Fatal(err)
		}
		if l.Lines != s.lines || len(l.Envelopes) != s.envelopes || len(l.Skipped) != 0 {
			t.Errorf("%s: %d lines, %d envelopes, skipped %v; want %d, %d, none",
				s.file, l.Lines, len(l.Envelopes), l.Skipped, s.lines, s.envelopes)
		}
		var ids, graphs []string
		for _, c := range Group(l) {
			ids = append(ids, c.ID)
			if c.Graph != "" {
				graphs = append(graphs, c.ID)
			}
		}
		if !reflect.DeepEqual(ids, s.ids) || !reflect.DeepEqual(graphs, s.graphs) {
			t.Errorf("%s: compile ids %v with graphs %v; want %v with %v", s.file, ids, graphs, s.ids, s.graphs)
		}
	}
}

// Every payload of the samples hashes to its has_payload: the reader
// strips exactly one tab and joins with "\n", as PyTorch wrote it.
func TestPayloadHashes(t *testing.T) {
	l, err := ReadFile("testdata/simple.log")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, e := range l.Envelopes {
		if !e.HasPayload {
			continue
		}
		n++
		sum := md5.Sum([]byte(e.Payload))
		if want, _ := e.md5(); hex.EncodeToString(sum[:]) != want {
			t.Errorf("line %d: payload hash differs", e.Line)
		}
	}
	if n != 59 {
		t.Errorf("simple.log: %d payloads, want 59", n)
	}
}

func TestGroupContents(t *testing.T) {
	l, err := ReadFile("testdata/links.log")
	if err != nil {
		t.Fatal(err)
	}
	c := Group(l)[0]
	if !strings.Contains(c.Graph, `def forward(self, L_x_: "f32[2][1]cpu", G_global_state_tensor_: "f32[2][1]cpu"):`) {
		t.Errorf("graph: %q", c.Graph)
	}
	want := []string{"aot_forward_graph", "inductor_post_grad_graph", "inductor_output_code"}
	if !reflect.DeepEqual(c.RefOrder, want) {
		t.Errorf("references %v, want %v", c.RefOrder, want)
	}
	if !strings.HasPrefix(c.Reference["inductor_output_code"], "\n# AOT ID: ['0_inference']") {
		t.Errorf("output code starts %q", c.Reference["inductor_output_code"][:40])
	}
	if len(c.Guards) != 2 || c.Guards[0].Kind != "dynamo_guards" || c.Guards[1].Kind != "dynamo_cpp_guards_str" {
		t.Errorf("guards %+v", c.Guards)
	}
	if c.Metrics["co_name"] != "forward" || len(c.Stack) == 0 || !strings.HasPrefix(c.Stack[0], "/home/jjwu/tmp.py:15 in <module>") {
		t.Errorf("metrics co_name %v, stack %v", c.Metrics["co_name"], c.Stack)
	}
	if c.Sizes["l__self___param"] == nil {
		t.Errorf("sizes %v", c.Sizes)
	}

	l, _ = ReadFile("testdata/comp_metrics.log")
	cs := Group(l)
	if got := cs[1].RestartReasons; len(got) != 1 || !strings.Contains(got[0], "skip function graph_break") {
		t.Errorf("[0/0_1] restart reasons %q", got)
	}
	if cs[1].Attempt != 1 || cs[1].Frame != 0 || cs[1].CompileIndex != 0 {
		t.Errorf("[0/0_1] is frame %d compile %d attempt %d", cs[1].Frame, cs[1].CompileIndex, cs[1].Attempt)
	}

	l, _ = ReadFile("testdata/comp_failure.log")
	c = Group(l)[0]
	if c.FailType != "BackendCompilerFailed" || !strings.Contains(c.FailReason, "broken backend") {
		t.Errorf("failure %q %q", c.FailType, c.FailReason)
	}
	if !strings.Contains(c.Reference["dynamo_error"], "RuntimeError: broken backend") {
		t.Errorf("dynamo_error artifact missing: %v", c.RefOrder)
	}
}

func TestCompileIDString(t *testing.T) {
	i := func(v int) *int { return &v }
	for _, tc := range []struct {
		id   CompileID
		want string
	}{
		{CompileID{Frame: i(0), CompileIndex: i(0)}, "[0/0]"},
		{CompileID{Frame: i(0), CompileIndex: i(1), Attempt: 1}, "[0/1_1]"},
		{CompileID{CompiledAutograd: i(2), Frame: i(0), CompileIndex: i(3)}, "[!2/0/3]"},
		{CompileID{CompiledAutograd: i(0)}, "[!0/-/-]"},
	} {
		if got := tc.id.String(); got != tc.want {
			t.Errorf("%+v: %s, want %s", tc.id, got, tc.want)
		}
	}
}

// A damaged copy of a sample: one payload byte flipped (md5 fails), one
// envelope truncated (JSON fails), a foreign line and an orphan payload.
// Each is skipped and counted once; everything else still imports.
func TestCorruptedCopy(t *testing.T) {
	data, err := os.ReadFile("testdata/comp_metrics.log")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(data), "\n")
	var flipped, truncated int
	for i, line := range lines {
		switch {
		case flipped == 0 && strings.HasPrefix(line, "\t") && strings.Contains(line, "cos = l_x_.cos()"):
			lines[i] = strings.Replace(line, "cos()", "cot()", 1) // one byte: s -> t
			flipped = i + 1
		case truncated == 0 && strings.Contains(line, `{"dynamo_output_graph"`) && strings.Contains(line, `"frame_id": 2`):
			lines[i] = line[:len(line)/2]
			truncated = i + 1
		}
	}
	if flipped == 0 || truncated == 0 {
		t.Fatal("sample changed: no line to corrupt")
	}
	lines = append([]string{"\torphan payload line", "Traceback (most recent call last):"}, lines...)
	path := filepath.Join(t.TempDir(), "corrupt.log")
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")), 0o600); err != nil {
		t.Fatal(err)
	}
	l, err := ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]int{SkipBadMD5: 1, SkipBadJSON: 1, SkipNoPrefix: 1, SkipOrphan: 1}
	if got := l.SkipCounts(); !reflect.DeepEqual(got, want) {
		t.Errorf("skips %v (%+v), want %v", got, l.Skipped, want)
	}
	for _, s := range l.Skipped {
		// The md5 skip names the envelope, a few lines above the flipped byte.
		if s.Reason == SkipBadMD5 && (s.Line >= flipped+2 || !strings.Contains(lines[s.Line-1], `{"dynamo_output_graph"`)) {
			t.Errorf("md5 skip at line %d, want the graph envelope above line %d", s.Line, flipped+2)
		}
		if s.Reason == SkipBadJSON && s.Line != truncated+2 {
			t.Errorf("JSON skip at line %d, want %d", s.Line, truncated+2)
		}
	}
	if len(l.Envelopes) != 26-2 {
		t.Errorf("%d envelopes kept, want 24", len(l.Envelopes))
	}
	var graphs []string
	for _, c := range Group(l) {
		if c.Graph != "" {
			graphs = append(graphs, c.ID)
		}
	}
	// [0/0_1]'s graph was corrupted and [2/0]'s envelope truncated.
	if want := []string{"[1/0_1]"}; !reflect.DeepEqual(graphs, want) {
		t.Errorf("graphs %v, want %v", graphs, want)
	}
}

func TestEdgeLines(t *testing.T) {
	const prefix = "V1206 15:18:20.599000 1500233 torch/_dynamo/x.py:1] "
	for _, tc := range []struct {
		in     string
		reason string
	}{
		{prefix + `{"frame_id": 0}`, SkipNoKind},
		{prefix + `{"x": {}, "frame_id": -1}`, SkipBadCompile},
		{prefix + `{"x": {}, "frame_id": "zero"}`, SkipBadCompile},
		{prefix + `[1, 2]`, SkipBadJSON},
		{prefix + `{"x": {}, "has_payload": "00000000000000000000000000000000"}` + "\n\tdata", SkipBadMD5},
		{"V1206 15:18:20 torch.py] {}", SkipNoPrefix},
	} {
		l, err := Read(strings.NewReader(tc.in))
		if err != nil {
			t.Fatal(err)
		}
		if len(l.Skipped) != 1 || l.Skipped[0].Reason != tc.reason {
			t.Errorf("%q: skipped %+v, want %q", tc.in, l.Skipped, tc.reason)
		}
	}
	// A hash that is not 32 hex digits is not checked (as in tlparse);
	// a missing final newline still ends the payload.
	l, _ := Read(strings.NewReader(prefix + `{"x": {}, "has_payload": "n/a"}` + "\n\ta\n\tb"))
	if len(l.Skipped) != 0 || len(l.Envelopes) != 1 || l.Envelopes[0].Payload != "a\nb" {
		t.Errorf("unchecked hash: %+v %+v", l.Skipped, l.Envelopes)
	}
}
