package compiler

import (
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
)

// Cleanup of the shared memory files (exec.go). A file is unlinked as soon
// as the worker has mapped it; until then it is removed on every return
// path of Exec, on SIGINT/SIGTERM/SIGHUP while an Exec is in flight, and —
// for a parent killed outright (SIGKILL) — by the next Exec, which sweeps
// directories whose owning pid no longer runs.

const shmPrefix = "gcdbg-exec-"

var live struct {
	mu   sync.Mutex
	m    map[*shared]bool
	sigs chan os.Signal
}

func (sh *shared) unlink() {
	if sh.dir != "" {
		_ = os.RemoveAll(sh.dir)
	}
}

func track(sh *shared) {
	live.mu.Lock()
	defer live.mu.Unlock()
	if live.m == nil {
		live.m = map[*shared]bool{}
	}
	live.m[sh] = true
	if live.sigs == nil {
		live.sigs = make(chan os.Signal, 1)
		signal.Notify(live.sigs, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
		go onSignal(live.sigs)
	}
}

func untrack(sh *shared) {
	live.mu.Lock()
	defer live.mu.Unlock()
	delete(live.m, sh)
	if len(live.m) == 0 && live.sigs != nil {
		// Back to the default behaviour of these signals.
		signal.Stop(live.sigs)
		close(live.sigs)
		live.sigs = nil
	}
}

// onSignal removes the live files, then lets the signal do what it would
// have done (terminate) by re-raising it with the default handler.
func onSignal(c chan os.Signal) {
	sig, ok := <-c
	if !ok {
		return
	}
	live.mu.Lock()
	for sh := range live.m {
		sh.unlink()
	}
	live.mu.Unlock()
	signal.Reset(sig)
	if s, ok := sig.(syscall.Signal); ok {
		_ = syscall.Kill(os.Getpid(), s)
	}
}

// sweepShared removes gcdbg-exec-<pid>-* directories in base (and the temp
// dir) whose pid is not a running process of this user.
func sweepShared(base string) {
	for _, dir := range []string{base, os.TempDir()} {
		if dir == "" {
			dir = os.TempDir()
		}
		matches, _ := filepath.Glob(filepath.Join(dir, shmPrefix+"*"))
		for _, m := range matches {
			rest := strings.TrimPrefix(filepath.Base(m), shmPrefix)
			pidText, _, ok := strings.Cut(rest, "-")
			if !ok {
				continue
			}
			pid, err := strconv.Atoi(pidText)
			if err != nil || pid <= 0 || pid == os.Getpid() {
				continue
			}
			// ESRCH: no such process. EPERM means it runs as another
			// user: not ours to remove (and RemoveAll would fail anyway).
			if err := syscall.Kill(pid, 0); err == syscall.ESRCH {
				if fi, err := os.Lstat(m); err == nil && fi.IsDir() {
					if st, ok := fi.Sys().(*syscall.Stat_t); ok && int(st.Uid) == os.Getuid() {
						_ = os.RemoveAll(m)
					}
				}
			}
		}
	}
}
