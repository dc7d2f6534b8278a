package tui

import (
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// tmuxSession is gcdbg explore in a detached tmux session: its screen,
// keys sent to it, and a wait for a screen condition.
type tmuxSession struct {
	t    *testing.T
	tmux string
	sock string
}

func (s *tmuxSession) run(args ...string) string {
	s.t.Helper()
	out, err := exec.Command(s.tmux, append([]string{"-S", s.sock}, args...)...).CombinedOutput()
	if err != nil {
		s.t.Fatalf("tmux %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

func (s *tmuxSession) screen() string { return s.run("capture-pane", "-p", "-t", "gcdbg") }

func (s *tmuxSession) keys(k ...string) { s.run(append([]string{"send-keys", "-t", "gcdbg"}, k...)...) }

func (s *tmuxSession) waitFor(what string, ok func(string) bool) string {
	s.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		sc := s.screen()
		if ok(sc) {
			return sc
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("waiting for %s; screen:\n%s", what, sc)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func startTmux(t *testing.T, bin, fixture string, w, h int) *tmuxSession {
	tmux, err := exec.LookPath("tmux")
	if err != nil {
		t.Skip("tmux is not installed: skipping the end-to-end test of gcdbg explore (CI installs tmux)")
	}
	s := &tmuxSession{t: t, tmux: tmux, sock: filepath.Join(t.TempDir(), "tmux.sock")}
	s.run("new-session", "-d", "-x", itoa(w), "-y", itoa(h), "-s", "gcdbg", "env TERM=xterm-256color "+bin+" explore "+fixture+"; sleep 30")
	t.Cleanup(func() { exec.Command(tmux, "-S", s.sock, "kill-server").Run() })
	return s
}

func itoa(n int) string { return strconv.Itoa(n) }

func buildBinary(t *testing.T) string {
	if testing.Short() {
		t.Skip("-short: skipping the tmux end-to-end test")
	}
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux is not installed: skipping the end-to-end test of gcdbg explore (CI installs tmux)")
	}
	bin := filepath.Join(t.TempDir(), "gcdbg")
	if out, err := exec.Command("go", "build", "-o", bin, "../cmd/gcdbg").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// The real program in tmux, on a transformer block and a conv net: select
// a node with g, follow it with ] to its kernel lines (◆ on screen) and
// back with [; D marks the changes and shows unchanged stages as =; the
// tour names this trace's own nodes; search counts matches by stage; a
// mouse click on the stage list shows that stage; the graph view's
// overview; the run panel keeps its verdict while it scrolls; at 80×24
// one pane takes the width.
func TestExploreFollowDiffTourInTmux(t *testing.T) {
	bin := buildBinary(t)
	for _, c := range []struct{ fixture, node string }{
		{"../fixtures/transformer_block.json", "softmax"},
		{"../fixtures/conv_add.json", "conv"},
	} {
		s := startTmux(t, bin, c.fixture, 160, 45)
		s.waitFor("the stages", func(sc string) bool { return strings.Contains(sc, "normalized") && strings.Contains(sc, "%x :") })
		s.keys("g")
		s.keys("-l", c.node)
		s.keys("Enter")
		s.waitFor("the node selected", func(sc string) bool { return strings.Contains(sc, "▶     %"+c.node+" :") })
		for i := 0; i < 11; i++ { // captured -> kernels
			s.keys("]")
		}
		s.waitFor("the kernels pane with ◆ on the node's C lines", func(sc string) bool {
			return strings.Contains(sc, " kernels · line") && strings.Contains(sc, "◆ ") && strings.Contains(sc, "node "+c.node)
		})
		for i := 0; i < 11; i++ {
			s.keys("[")
		}
		s.waitFor("back on the node in captured", func(sc string) bool { return strings.Contains(sc, "▶     %"+c.node+" :") })
		s.keys("D")
		s.waitFor("diff counts in the stage list", func(sc string) bool {
			return strings.Contains(sc, "vs captured") && strings.Contains(sc, "functional =")
		})
		s.keys("D", "t")
		sc := s.waitFor("the tour", func(sc string) bool { return strings.Contains(sc, "tour 1/") })
		if strings.Contains(sc, "linear_relu_stack") {
			t.Errorf("%s: the tour talks about the MLP:\n%s", c.fixture, sc)
		}
		s.keys("Escape")
		// (wait: ESC followed at once by a key reads as alt+key)
		s.waitFor("the tour to close", func(sc string) bool { return !strings.Contains(sc, "tour 1/") })
		// Search across stages: the status line counts the matches by stage.
		s.keys("/")
		s.keys("-l", c.node)
		s.keys("Enter")
		s.waitFor("search counts by stage", func(sc string) bool {
			return strings.Contains(sc, " stages: captured ") && strings.Contains(sc, "here")
		})
		// A mouse click (SGR, 1-based) on the fusion row of the stage list
		// shows fusion in the focused pane.
		row := 1 + 1 + 2*stageIndex("fusion") + 1
		s.keys("-l", "\x1b[<0;5;"+itoa(row)+"M")
		s.keys("-l", "\x1b[<0;5;"+itoa(row)+"m")
		s.waitFor("fusion shown after a click", func(sc string) bool { return strings.Contains(sc, " fusion · line") })
		// The graph view's overview of the captured graph.
		s.keys("[", "[", "[", "[", "[", "[", "[", "[", "[", "[", "[")
		s.keys("v", "f")
		s.waitFor("the overview", func(sc string) bool { return strings.Contains(sc, "overview of") && strings.Contains(sc, "▒") })
		s.keys("f", "v")
		// The run panel: its verdict stays while it scrolls.
		s.keys("r")
		s.waitFor("the run's verdict", func(sc string) bool { return strings.Contains(sc, "PASS on cpu") })
		for i := 0; i < 5; i++ {
			s.keys("}")
		}
		s.waitFor("the scrolled run panel with its verdict", func(sc string) bool {
			return strings.Contains(sc, "PASS on cpu") && (strings.Contains(sc, "{ } scroll") || strings.Contains(sc, "kernels timed"))
		})
		s.keys("Escape")
		s.waitFor("the run panel to close", func(sc string) bool { return !strings.Contains(sc, "run vs PyTorch") })
		s.run("resize-window", "-t", "gcdbg", "-x", "80", "-y", "24")
		s.waitFor("one pane at 80x24", func(sc string) bool {
			rows := strings.Split(strings.TrimRight(sc, "\n"), "\n")
			return len(rows) == 24 && !strings.Contains(sc, "│") && strings.Contains(sc, "[captured] ↔")
		})
		s.keys("q")
	}
}
