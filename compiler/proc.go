package compiler

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"
)

// The parent's handle on the worker process: one worker at a time, reused
// across Exec calls, replaced after it dies or is killed.

// WorkerCommand makes the command that starts a worker. The default
// re-executes the running binary with `__worker`, WorkerEnv and OpenMPEnv set, which
// works for gcdbg itself and for test binaries whose TestMain calls
// ServeIfWorker.
var WorkerCommand = func() (*exec.Cmd, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("starting the worker: %w", err)
	}
	cmd := exec.Command(exe, "__worker")
	// The OpenMP settings of timed code (ompenv.go): gcdbg bench's PyTorch
	// timing server runs under the same.
	cmd.Env = append(append(os.Environ(), WorkerEnv+"=1"), OpenMPEnv()...)
	return cmd, nil
}

type workerProc struct {
	cmd     *exec.Cmd
	stdin   io.WriteCloser
	replies chan reply
	exited  chan struct{} // closed once the process has been waited for
	waitErr error
	stderr  *TailBuffer
}

var pool struct {
	mu sync.Mutex
	w  *workerProc
}

// workerDeath is a worker's death or a time limit: the caller names
// the kernel that was running.
type workerDeath struct {
	why    string
	stderr string
}

func (e *workerDeath) Error() string { return e.why }

func startWorker() (*workerProc, error) {
	cmd, err := WorkerCommand()
	if err != nil {
		return nil, err
	}
	// The worker must not outlive gcdbg, even when gcdbg is killed.
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	w := &workerProc{cmd: cmd, replies: make(chan reply, 1), exited: make(chan struct{}), stderr: &TailBuffer{Max: 8192}}
	cmd.Stderr = w.stderr
	if w.stdin, err = cmd.StdinPipe(); err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting the worker %s: %w", cmd.Path, err)
	}
	go func() {
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 1<<16), 1<<24)
		for sc.Scan() {
			var r reply
			if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
				r = reply{Error: "unreadable reply from the worker: " + err.Error()}
			}
			w.replies <- r
		}
		w.waitErr = cmd.Wait()
		close(w.exited)
	}()
	return w, nil
}

// call sends one request and waits for its reply, at most timeout. When
// the worker dies or runs out of time it is gone: the pool forgets it and
// the next call starts a fresh one.
func call(req *request, timeout time.Duration) (reply, error) {
	r, _, err := callWorker(req, timeout)
	return r, err
}

// callWorker is call that also returns the worker that answered.
func callWorker(req *request, timeout time.Duration) (reply, *workerProc, error) {
	pool.mu.Lock()
	defer pool.mu.Unlock()
	r, err := callLocked(req, timeout)
	return r, pool.w, err
}

// killWorker ends w after a doorbell wait saw it die or run out of time.
func killWorker(w *workerProc, timeout time.Duration, timedOut bool) error {
	pool.mu.Lock()
	defer pool.mu.Unlock()
	if pool.w == w {
		return w.died(timeout, timedOut)
	}
	_ = w.cmd.Process.Kill()
	<-w.exited
	return &workerDeath{why: "the worker died", stderr: w.stderr.String()}
}

func callLocked(req *request, timeout time.Duration) (reply, error) {
	if pool.w == nil {
		w, err := startWorker()
		if err != nil {
			return reply{}, err
		}
		pool.w = w
	}
	w := pool.w
	line, err := json.Marshal(req)
	if err != nil {
		return reply{}, err
	}
	if _, err := w.stdin.Write(append(line, '\n')); err != nil {
		return reply{}, w.died(timeout, false)
	}
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	select {
	case r := <-w.replies:
		return r, nil
	case <-w.exited:
		return reply{}, w.died(timeout, false)
	case <-timer.C:
		return reply{}, w.died(timeout, true)
	}
}

// died kills the worker if needed, waits for it and explains its end.
// Called with pool.mu held.
func (w *workerProc) died(timeout time.Duration, timedOut bool) error {
	pool.w = nil
	_ = w.cmd.Process.Kill()
	<-w.exited
	stderr := w.stderr.String()
	if timedOut {
		return &workerDeath{why: fmt.Sprintf("did not finish within %s: the worker was killed", timeout), stderr: stderr}
	}
	why := "the worker died"
	var ee *exec.ExitError
	if errors.As(w.waitErr, &ee) {
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			why += " (killed by signal " + ws.Signal().String() + ")"
		} else {
			why += fmt.Sprintf(" (exit status %d)", ee.ExitCode())
		}
	}
	// A fault in C code reaches the Go runtime of the worker, which prints
	// the signal before exiting: that line says what happened. A kernel
	// that stopped itself (render's gcdbg_oob: an index out of bounds)
	// wrote a "gcdbg: " line first, which says it better.
	lines := strings.Split(stderr, "\n")
	found := false
	for _, l := range lines {
		if strings.HasPrefix(l, "gcdbg: ") {
			why += ": " + strings.TrimPrefix(strings.TrimSpace(l), "gcdbg: ")
			found = true
			break
		}
	}
	for _, l := range lines {
		if found {
			break
		}
		if strings.HasPrefix(l, "signal ") || strings.HasPrefix(l, "SIG") || strings.HasPrefix(l, "fatal error:") {
			why += ": " + strings.TrimSpace(l)
			break
		}
	}
	return &workerDeath{why: why, stderr: stderr}
}

// Shutdown stops the worker, if one runs, and waits for it. Tests call it
// so that no process outlives them.
func Shutdown() {
	pool.mu.Lock()
	defer pool.mu.Unlock()
	w := pool.w
	if w == nil {
		return
	}
	pool.w = nil
	_ = w.stdin.Close() // EOF: the worker returns from WorkerMain
	select {
	case <-w.exited:
	case <-time.After(2 * time.Second):
		_ = w.cmd.Process.Kill()
		<-w.exited
	}
}

// WorkerPID is the running worker's process id, 0 when none runs.
func WorkerPID() int {
	pool.mu.Lock()
	defer pool.mu.Unlock()
	if pool.w == nil {
		return 0
	}
	return pool.w.cmd.Process.Pid
}

// TailBuffer keeps the last Max bytes written to it (a child process's stderr).
type TailBuffer struct {
	mu  sync.Mutex
	Max int
	b   []byte
}

func (t *TailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if len(t.b) > t.Max {
		t.b = t.b[len(t.b)-t.Max:]
	}
	return len(p), nil
}

func (t *TailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.b)
}
