package tui

import (
	"io"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/exp/teatest/v2"

	"gcdbg/runner"
)

// r in the program (teatest): the run's progress notices ("still running
// graph …'s reference runs", here every millisecond) appear in the status
// line, and nothing reaches standard error, where they would be written
// over the full-screen view and scroll it (examples/unseen, finding 4).
func TestRunProgressInStatusLineNotOverTheScreen(t *testing.T) {
	if dev, why := runner.DefaultDevice(); dev != "cpu" {
		t.Skip(why)
	}
	m := loaded(t, "mlp.json", 160, 45)
	m.run.every = time.Millisecond
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	saved := os.Stderr
	os.Stderr = w
	var leaked []byte
	read := make(chan struct{})
	go func() { leaked, _ = io.ReadAll(r); close(read) }()
	defer func() {
		os.Stderr = saved
		w.Close()
		<-read
		if len(leaked) > 0 {
			t.Errorf("a run in the explorer wrote to standard error, over its screen:\n%s", leaked)
		}
	}()
	tm := teatest.NewTestModel(t, m, teatest.WithInitialTermSize(160, 45))
	teatest.WaitFor(t, tm.Output(), func(b []byte) bool { return strings.Contains(string(b), "linear_relu_stack_1") },
		teatest.WithDuration(10*time.Second))
	tm.Send(keyMsg("r"))
	var progress, pass bool
	teatest.WaitFor(t, tm.Output(), func(b []byte) bool {
		progress = progress || strings.Contains(string(b), "reference runs")
		pass = pass || strings.Contains(string(b), "PASS")
		return pass
	}, teatest.WithDuration(60*time.Second))
	if !progress {
		t.Error("the run's progress never showed in the status line")
	}
	tm.Send(keyMsg("q"))
	fm := tm.FinalModel(t, teatest.WithFinalTimeout(10*time.Second)).(Model)
	if fm.run.res == nil || !fm.run.res.OK || fm.run.progress != "" {
		t.Errorf("after the run: result %+v, progress %q still shown", fm.run.res, fm.run.progress)
	}
	if s := fm.statusLine(); strings.Contains(s, "still running") {
		t.Errorf("the status line still shows the finished run's progress: %s", s)
	}
}
