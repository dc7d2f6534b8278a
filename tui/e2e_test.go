package tui

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestExploreInTmux builds the real gcdbg binary, runs `gcdbg explore` (the
// embedded example) in a detached tmux session of 200×50 and reads the
// screen with capture-pane: stage names, a node, the highlight following
// the cursor, help on ?, and no process left after q.
func TestExploreInTmux(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: skipping the tmux end-to-end test")
	}
	tmux, err := exec.LookPath("tmux")
	if err != nil {
		t.Skip("tmux is not installed: skipping the end-to-end test of gcdbg explore (CI installs tmux)")
	}
	bin := filepath.Join(t.TempDir(), "gcdbg")
	if out, err := exec.Command("go", "build", "-o", bin, "../cmd/gcdbg").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	sock := filepath.Join(t.TempDir(), "tmux.sock")
	tm := func(args ...string) string {
		out, err := exec.Command(tmux, append([]string{"-S", sock}, args...)...).CombinedOutput()
		if err != nil {
			t.Fatalf("tmux %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	tm("new-session", "-d", "-x", "200", "-y", "50", "-s", "gcdbg", "env TERM=xterm-256color "+bin+" explore; sleep 30")
	defer exec.Command(tmux, "-S", sock, "kill-server").Run()
	pid := strings.TrimSpace(tm("list-panes", "-t", "gcdbg", "-F", "#{pane_pid}"))

	screen := func() string { return tm("capture-pane", "-p", "-t", "gcdbg") }
	waitFor := func(what string, ok func(string) bool) string {
		t.Helper()
		deadline := time.Now().Add(20 * time.Second)
		for {
			s := screen()
			if ok(s) {
				return s
			}
			if time.Now().After(deadline) {
				t.Fatalf("waiting for %s; screen:\n%s", what, s)
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
	keys := func(k ...string) { tm(append([]string{"send-keys", "-t", "gcdbg"}, k...)...) }

	// The whole stage list, not just its first rows: a capture can land
	// between two partial redraws of the first screen.
	stageNames := []string{"captured", "guards", "normalized", "decomposed", "joint", "fusion", "memory"}
	s := waitFor("the stage list", func(s string) bool {
		for _, name := range stageNames {
			if !strings.Contains(s, name) {
				return false
			}
		}
		return strings.Contains(s, "%linear_relu_stack_1")
	})
	for _, name := range stageNames {
		if !strings.Contains(s, name) {
			t.Errorf("stage %s not on screen", name)
		}
	}
	// Three steps down from the first node: the cursor is on the ReLU and
	// the normalized pane marks its aten.relu line.
	keys("j", "j", "j")
	waitFor("the ReLU highlighted in the normalized pane", func(s string) bool {
		cursor, lit := false, false
		for _, l := range strings.Split(s, "\n") {
			cursor = cursor || strings.Contains(l, "▶     %linear_relu_stack_1 :")
			lit = lit || strings.Contains(l, "●     linear_relu_stack_1: \"f32[8, 512]\" = aten.relu(")
		}
		return cursor && lit
	})
	keys("?")
	waitFor("the help overlay", func(s string) bool {
		return strings.Contains(s, "keys") && strings.Contains(s, "go to a node by name") && strings.Contains(s, "quit")
	})
	keys("Escape")
	waitFor("the help to close", func(s string) bool { return !strings.Contains(s, "go to a node by name") })
	keys("q")
	// The explorer exits; the pane's shell is left in `sleep`, so look for
	// the gcdbg process among the pane's children.
	deadline := time.Now().Add(10 * time.Second)
	for {
		out, _ := exec.Command("pgrep", "-P", pid, "-f", "gcdbg explore").Output()
		if len(strings.TrimSpace(string(out))) == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("gcdbg explore still running after q: pids %s", out)
		}
		time.Sleep(100 * time.Millisecond)
	}
	if _, err := os.Stat(bin); err != nil {
		t.Fatal(err)
	}
}
