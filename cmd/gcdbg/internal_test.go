package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gcdbg/stages"
)

// A trace with a deliberately unknown op (stages/testdata/degrade/unknown_op.json,
// exported by real PyTorch): run --json exits 2 but keeps the graph with
// the stages it reached and where it stopped, instead of "graphs": [].
func TestRunJSONKeepsStagesBeforeUnknownOp(t *testing.T) {
	code, out, errs := run("run", "--json", "--device", "eager", "--runs", "1", "../../stages/testdata/degrade/unknown_op.json")
	if code != 2 {
		t.Fatalf("exit %d, want 2; stderr %s", code, errs)
	}
	var res struct {
		OK     bool
		Error  string
		Graphs []struct {
			Name   string
			Stages map[string]json.RawMessage
		}
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if res.OK || !strings.Contains(res.Error, "gcdbg_unknown_scale") || len(res.Graphs) != 1 {
		t.Fatalf("ok %v, error %q, %d graphs", res.OK, res.Error, len(res.Graphs))
	}
	st := res.Graphs[0].Stages
	if _, ok := st["captured"]; !ok {
		t.Errorf("captured stage missing: %v", st)
	}
	if _, ok := st["normalized"]; ok {
		t.Errorf("normalized was not reached but is listed: %v", st)
	}
	var stop struct{ Stage, Node, Target, Reason string }
	if err := json.Unmarshal(st["stopped"], &stop); err != nil {
		t.Fatalf("stages.stopped: %v (%s)", err, st["stopped"])
	}
	if stop.Stage != "normalized" || stop.Node != "gcdbg_unknown_scale" || !strings.Contains(stop.Reason, "unsupported") {
		t.Errorf("stopped = %+v", stop)
	}
}

// dump of a stage before the failure prints it (exit 0); of a later stage
// prints why it was not reached (exit 2).
func TestDumpAroundUnknownOp(t *testing.T) {
	code, out, errs := run("dump", "../../stages/testdata/degrade/unknown_op.json", "--stage", "guards")
	if code != 0 || !strings.Contains(out, "TENSOR_MATCH") {
		t.Errorf("dump guards: exit %d, out %q, stderr %q", code, out, errs)
	}
	code, out, _ = run("dump", "../../stages/testdata/degrade/unknown_op.json", "--stage", "joint")
	if code != 2 || !strings.Contains(out, "not reached: stage normalized failed") || !strings.Contains(out, "gcdbg_unknown_scale") {
		t.Errorf("dump joint: exit %d, out %q", code, out)
	}
}

// A panic the CLI catches becomes an internal error whose stack is in a
// file the message names; the process goes on and exits 2.
func TestPanicBecomesInternalError(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("GCDBG_CRASH_DIR", dir)
	err := catchRun(func() error {
		var m map[string]int
		m["boom"] = 1
		return nil
	})
	ie, ok := stages.AsInternal(err)
	if !ok {
		t.Fatalf("catchRun returned %v, want an internal error", err)
	}
	msg := errText(err)
	if !strings.Contains(msg, "internal error") || !strings.Contains(msg, "assignment to entry in nil map") || !strings.Contains(msg, ie.StackFile) {
		t.Errorf("message %q", msg)
	}
	if filepath.Dir(ie.StackFile) != dir {
		t.Errorf("stack file %q not in GCDBG_CRASH_DIR %q", ie.StackFile, dir)
	}
	data, rerr := os.ReadFile(ie.StackFile)
	if rerr != nil || !bytes.Contains(data, []byte("TestPanicBecomesInternalError")) {
		t.Errorf("stack file: %v\n%s", rerr, data)
	}
}

// report writes every stage a failed graph reached, the captured graph
// marking the unknown op, and the later stages saying why they are empty.
func TestReportAroundUnknownOp(t *testing.T) {
	dir := t.TempDir()
	code, _, errs := run("report", "../../stages/testdata/degrade/unknown_op.json", "-o", dir)
	if code != 2 || !strings.Contains(errs, "gcdbg_unknown_scale") {
		t.Errorf("exit %d, stderr %q: want 2 naming the node", code, errs)
	}
	html, err := os.ReadFile(filepath.Join(dir, "index.html"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"gcdbg stops here", "not reached: stage normalized failed", "TENSOR_MATCH"} {
		if !bytes.Contains(html, []byte(want)) {
			t.Errorf("report lacks %q", want)
		}
	}
}
