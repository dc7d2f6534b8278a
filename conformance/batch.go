package conformance

import (
	"bufio"
	"encoding/json"
	"fmt"
	"gcdbg/compiler"
	"io"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Batch is the Runner that keeps one `gcdbg __judge` process and sends it
// every run (cmd/gcdbg/judge.go): the runs share its start-up, which is
// most of a short run's time (gcdbg's package initialisation loads
// graphviz's WebAssembly), and its compile worker. A run past its time
// limit, or a process that dies, costs the process: it is killed (its
// worker with it) and the next run starts a new one. The answers are what
// `gcdbg run` would have exited with and printed, so Classify reads them
// the same.
type Batch struct {
	Bin string
	mu  sync.Mutex
	p   *judgeProc
}

type judgeProc struct {
	cmd     *exec.Cmd
	stdin   io.WriteCloser
	answers chan judgeReply
	stderr  *compiler.TailBuffer
}

type judgeReply struct {
	RC     int    `json:"rc"`
	Stdout string `json:"stdout"`
	Stderr string `json:"stderr"`
	err    error
}

const judgePrefix = "gcdbg-judge: " // cmd/gcdbg/judge.go

func (b *Batch) start() (*judgeProc, error) {
	cmd := exec.Command(b.Bin, "__judge")
	// a group of its own, so a kill takes its children (compilers) too
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL, Setpgid: true}
	p := &judgeProc{cmd: cmd, answers: make(chan judgeReply, 1), stderr: &compiler.TailBuffer{Max: 4096}}
	cmd.Stderr = p.stderr
	var err error
	if p.stdin, err = cmd.StdinPipe(); err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	go func() {
		rd := bufio.NewReaderSize(out, 1<<16)
		for {
			line, err := rd.ReadString('\n')
			if err != nil {
				cmd.Wait()
				p.answers <- judgeReply{err: fmt.Errorf("gcdbg __judge exited (%v): %s", cmd.ProcessState, p.stderr.String())}
				close(p.answers)
				return
			}
			rest, ok := strings.CutPrefix(line, judgePrefix)
			if !ok {
				continue // not an answer
			}
			var a judgeReply
			if err := json.Unmarshal([]byte(rest), &a); err != nil {
				a = judgeReply{err: fmt.Errorf("gcdbg __judge: unreadable answer: %v", err)}
			}
			p.answers <- a
		}
	}()
	return p, nil
}

func (b *Batch) kill() {
	if b.p != nil {
		syscall.Kill(-b.p.cmd.Process.Pid, syscall.SIGKILL)
		b.p.stdin.Close()
		for range b.p.answers { // until the reader has waited for it
		}
		b.p = nil
	}
}

// Close ends the process.
func (b *Batch) Close() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.p != nil {
		b.p.stdin.Close()
		for range b.p.answers {
		}
		b.p = nil
	}
}

func (b *Batch) Run(args []string, timeout time.Duration) (int, []byte, []byte, bool, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.p == nil {
		p, err := b.start()
		if err != nil {
			return 0, nil, nil, false, err
		}
		b.p = p
	}
	req, _ := json.Marshal(args)
	if _, err := b.p.stdin.Write(append(req, '\n')); err != nil {
		b.kill()
		return 0, nil, nil, false, fmt.Errorf("gcdbg __judge: %w", err)
	}
	t := time.NewTimer(timeout)
	defer t.Stop()
	select {
	case a, ok := <-b.p.answers:
		if !ok || a.err != nil {
			// the process died during this run: as a crash of `gcdbg run`
			why := "gcdbg __judge ended without an answer"
			if ok {
				why = a.err.Error()
			}
			b.p = nil
			return 2, nil, []byte(why), false, nil
		}
		return a.RC, []byte(a.Stdout), []byte(a.Stderr), false, nil
	case <-t.C:
		b.kill()
		return 0, nil, nil, true, nil
	}
}
