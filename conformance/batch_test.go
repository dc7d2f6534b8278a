package conformance

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A stand-in for `gcdbg __judge` (cmd/gcdbg/judge.go): answers "ok" runs,
// sleeps on "slow", exits on "die", and prints noise that is no answer.
const fakeJudge = `#!/bin/bash
[ "$1" = __judge ] || exit 3
while read -r line; do
  case "$line" in
    *slow*) sleep 30 ;;
    *die*) echo "panic: boom" >&2; exit 2 ;;
  esac
  echo "noise from a run"
  echo 'gcdbg-judge: {"rc": 0, "stdout": "{\"ok\": true, \"graphs\": [{\"name\": \"g0\"}]}", "stderr": ""}'
done
`

func TestBatchRunner(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "gcdbg")
	if err := os.WriteFile(bin, []byte(fakeJudge), 0o755); err != nil {
		t.Fatal(err)
	}
	b := &Batch{Bin: bin}
	defer b.Close()
	run := func(arg string, timeout time.Duration) (Status, string) {
		rc, stdout, stderr, timedOut, err := b.Run([]string{"--json", arg}, timeout)
		if err != nil {
			t.Fatalf("%s: %v", arg, err)
		}
		if timedOut {
			return Timeout, ""
		}
		return Classify(rc, stdout, stderr)
	}
	if st, why := run("a.json", 10*time.Second); st != Pass {
		t.Fatalf("a run: %s %s", st, why)
	}
	first := b.p
	if st, _ := run("b.json", 10*time.Second); st != Pass || b.p != first {
		t.Fatalf("a second run: %s, same process %v (want one process for both)", st, b.p == first)
	}
	start := time.Now()
	if st, _ := run("slow.json", 200*time.Millisecond); st != Timeout || b.p != nil {
		t.Fatalf("a run past its limit: %s; process kept %v", st, b.p != nil)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("the timeout took %s: the killed process's children kept it waiting", d)
	}
	if st, _ := run("c.json", 10*time.Second); st != Pass {
		t.Fatalf("the run after a timeout (a new process): %s", st)
	}
	if st, why := run("die.json", 10*time.Second); st != Panic || !strings.Contains(why, "boom") {
		t.Fatalf("a process that dies in a run: %s %q, want panic naming it", st, why)
	}
	if st, _ := run("d.json", 10*time.Second); st != Pass {
		t.Fatalf("the run after a crash: %s", st)
	}
}
