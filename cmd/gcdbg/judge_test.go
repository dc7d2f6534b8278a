package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// `gcdbg __judge` answers each request with what `gcdbg run` with those
// arguments exits with and prints, one answer line per request, and goes on
// after a failing run.
func TestJudgeAnswersAsRun(t *testing.T) {
	reqs := [][]string{
		{"--json", "--runs", "1", "--device", "eager", "../../fixtures/sin_cos.json"},
		{"--json", "--runs", "1", "--device", "eager", "../../fixtures/no_such_trace.json"},
		{"--json", "--runs", "1", "--device", "cpu", "../../fixtures/clamp_min.json"},
	}
	var in bytes.Buffer
	for _, r := range reqs {
		b, _ := json.Marshal(r)
		in.Write(append(b, '\n'))
	}
	in.WriteString("not json\n")
	var out bytes.Buffer
	if rc := cmdJudge(&in, &out); rc != 0 {
		t.Fatalf("__judge exited %d", rc)
	}
	var answers []judgeAnswer
	for _, ln := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		rest, ok := strings.CutPrefix(ln, judgePrefix)
		if !ok {
			continue
		}
		var a judgeAnswer
		if err := json.Unmarshal([]byte(rest), &a); err != nil {
			t.Fatalf("answer %q: %v", ln, err)
		}
		answers = append(answers, a)
	}
	if len(answers) != len(reqs)+1 {
		t.Fatalf("%d answers to %d requests:\n%s", len(answers), len(reqs)+1, out.String())
	}
	for i, r := range reqs {
		code, stdout, stderr := run(append([]string{"run"}, r...)...)
		a := answers[i]
		if a.RC != code || (a.Stderr == "") != (stderr == "") || !sameRun(t, a.Stdout, stdout) {
			t.Errorf("request %d %v: __judge rc %d stderr %q, gcdbg run rc %d stderr %q", i, r, a.RC, a.Stderr, code, stderr)
		}
	}
	if a := answers[len(reqs)]; a.RC != 2 || !strings.Contains(a.Stderr, "JSON array") {
		t.Errorf("a bad request: %+v", a)
	}
}

// sameRun compares two `run --json` outputs without their timings.
func sameRun(t *testing.T, a, b string) bool {
	t.Helper()
	strip := func(s string) any {
		var v map[string]any
		if err := json.Unmarshal([]byte(s), &v); err != nil {
			t.Fatalf("run --json output: %v\n%s", err, s)
		}
		var walk func(any) any
		walk = func(x any) any {
			switch x := x.(type) {
			case map[string]any:
				for k, v := range x {
					if k == "ms" || strings.HasSuffix(k, "_ms") || k == "timing" || k == "cache" || k == "kernels" {
						delete(x, k)
						continue
					}
					x[k] = walk(v)
				}
			case []any:
				for i := range x {
					x[i] = walk(x[i])
				}
			}
			return x
		}
		return walk(v)
	}
	ja, _ := json.Marshal(strip(a))
	jb, _ := json.Marshal(strip(b))
	if !bytes.Equal(ja, jb) {
		t.Logf("__judge: %s\ngcdbg run: %s", ja, jb)
		return false
	}
	return true
}
