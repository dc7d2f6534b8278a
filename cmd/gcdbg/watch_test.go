package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

// lockedBuffer is an io.Writer the test may read while gcdbg watch writes.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) lines() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	s := strings.TrimRight(l.b.String(), "\n")
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}

// gcdbg watch prints a line per compile: the first, an edit with what
// changed, a broken save naming file:line:column and the compile it keeps.
func TestWatchLines(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "g.py")
	write := func(s string) {
		tmp := path + ".tmp"
		if err := os.WriteFile(tmp, []byte(s), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(tmp, path); err != nil {
			t.Fatal(err)
		}
	}
	write("def forward(self, x: \"f32[4, 8]\"):\n    return (torch.relu(x),)\n")
	var out, errOut lockedBuffer
	code := make(chan int, 1)
	go func() {
		code <- mainArgs([]string{"watch", path, "--device", "eager", "--runs", "1", "--count", "3"}, &out, &errOut)
	}()
	waitLines := func(n int) []string {
		t.Helper()
		for i := 0; i < 500; i++ {
			if l := out.lines(); len(l) >= n {
				return l
			}
			time.Sleep(20 * time.Millisecond)
		}
		t.Fatalf("want %d lines, got %q (stderr %q)", n, out.lines(), errOut.b.String())
		return nil
	}
	waitLines(1)
	write("def forward(self, x: \"f32[4, 8]\"):\n    return (torch.relu(x) * 2,)\n")
	waitLines(2)
	write("def forward(self, x: \"f33[4, 8]\"):\n    return (torch.relu(x) * 2,)\n")
	lines := waitLines(3)
	select {
	case c := <-code:
		if c != 0 {
			t.Fatalf("exit %d: %s", c, errOut.b.String())
		}
	case <-time.After(5 * time.Second):
		t.Fatal("gcdbg watch --count 3 did not stop")
	}
	want := []*regexp.Regexp{
		regexp.MustCompile(`^#1 \d\d:\d\d:\d\d g\.py: ok in \d+ ms — 1 graph\(s\), 3 captured nodes, values match, g0 eager [0-9.]+ ms$`),
		regexp.MustCompile(`^#2 \d\d:\d\d:\d\d g\.py: ok in \d+ ms — captured \+1 -0 ~1, normalized \+1 -0 ~1, .*kernels: k0_\w+ changed, values match, g0 eager [0-9.]+ ms( \([+-][0-9.]+\))?$`),
		regexp.MustCompile(`^#3 \d\d:\d\d:\d\d g\.py:1:23: unknown dtype "f33" .* \(keeping #2\)$`),
	}
	for i, re := range want {
		if !re.MatchString(lines[i]) {
			t.Errorf("line %d = %q\nwant %s", i+1, lines[i], re)
		}
	}
}

func TestWatchUsage(t *testing.T) {
	var out, errOut bytes.Buffer
	if c := mainArgs([]string{"watch"}, &out, &errOut); c != 2 || !strings.Contains(errOut.String(), "usage: gcdbg watch FILE") {
		t.Errorf("no FILE: exit %d, %q", c, errOut.String())
	}
	if c := mainArgs([]string{"watch", filepath.Join(t.TempDir(), "none.py")}, &out, &errOut); c != 2 {
		t.Errorf("a missing file: exit %d", c)
	}
}
