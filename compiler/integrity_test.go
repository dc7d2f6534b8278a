package compiler

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// namedProgram is handProgram under render's header, naming graph g: the
// code of every g is the same.
func namedProgram(g string) Program {
	p := handProgram("")
	p.Code = fmt.Sprintf("/* gcdbg generated C source: trace t.json, graph %s (inference). Do not edit. */\n", g) +
		strings.TrimPrefix(p.Code, "/* hand */\n")
	// The header replaced one line by one: kernel lines are unchanged.
	p.Manifest.Graph = g
	return p
}

func leftovers(t *testing.T, root string) []string {
	t.Helper()
	ents, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), buildPrefix) || strings.HasPrefix(e.Name(), trashPrefix) {
			out = append(out, e.Name())
		}
	}
	return out
}

// 100 graphs with identical code (names differ) compile once: the header
// naming the graph is not part of the cache key, and concurrent builds of
// one entry wait for the first.
func TestIdenticalGraphsCompileOnce(t *testing.T) {
	cache := t.TempDir()
	var ps []Program
	for i := 0; i < 100; i++ {
		ps = append(ps, namedProgram(fmt.Sprintf("g%d", i)))
	}
	arts, err := BuildAll(ps, Options{CacheDir: cache})
	if err != nil {
		t.Fatal(err)
	}
	compiled, objects := 0, 0
	for i, a := range arts {
		if !a.Hit {
			compiled++
		}
		objects += a.ObjectsBuilt
		if a.Dir != arts[0].Dir {
			t.Fatalf("graph %d has its own entry %s", i, a.Dir)
		}
		if a.Manifest.Graph != fmt.Sprintf("g%d", i) {
			t.Fatalf("artifact %d carries graph %q", i, a.Manifest.Graph)
		}
	}
	if parts, _ := splitProgram(ps[0]); compiled != 1 || objects != len(parts) {
		t.Fatalf("%d programs and %d objects compiled for 100 identical graphs; want 1 and %d", compiled, objects, len(parts))
	}
}

// A damaged entry is rebuilt with a one-line notice: empty, truncated,
// garbage, a library swapped for another, a library removed (the old
// "rename build-N HASH: file exists" forever), its sum removed.
func TestDamagedEntryIsRebuilt(t *testing.T) {
	cache := t.TempDir()
	other, err := Build(handProgram("int gcdbg_other(void) { return 2; }\n"), Options{CacheDir: cache})
	if err != nil {
		t.Fatal(err)
	}
	otherLib, err := os.ReadFile(other.Library)
	if err != nil {
		t.Fatal(err)
	}
	p := namedProgram("g")
	var notices []string
	opts := Options{CacheDir: cache, Notify: func(m string) { notices = append(notices, m) }}
	art, err := Build(p, opts)
	if err != nil {
		t.Fatal(err)
	}
	good, _ := os.ReadFile(art.Library)
	damage := map[string]func(){
		"empty":     func() { os.WriteFile(art.Library, nil, 0o700) },
		"truncated": func() { os.WriteFile(art.Library, good[:len(good)/2], 0o700) },
		"garbage":   func() { os.WriteFile(art.Library, bytes.Repeat([]byte{0x5a}, len(good)), 0o700) },
		"swapped":   func() { os.WriteFile(art.Library, otherLib, 0o700) },
		"removed":   func() { os.Remove(art.Library) },
		"no sum":    func() { os.Remove(filepath.Join(art.Dir, libSumFile)) },
	}
	for _, what := range []string{"empty", "truncated", "garbage", "swapped", "removed", "no sum"} {
		damage[what]()
		notices = nil
		again, err := Build(p, opts)
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		if again.Hit {
			t.Fatalf("%s: a damaged entry was reported as a cache hit", what)
		}
		if len(notices) != 1 || !strings.Contains(notices[0], "damaged") || strings.Contains(notices[0], "\n") {
			t.Fatalf("%s: notices %q, want one line saying the entry is damaged", what, notices)
		}
		if why, _ := checkEntry(again.Dir); why != "" {
			t.Fatalf("%s: the rebuilt entry does not verify: %s", what, why)
		}
		if got, _ := os.ReadFile(again.Library); !bytes.Equal(got, good) {
			t.Fatalf("%s: the rebuilt library differs from the original build", what)
		}
		third, err := Build(p, opts)
		if err != nil || !third.Hit {
			t.Fatalf("%s: the repaired entry is not a hit afterwards: %v", what, err)
		}
	}
	if l := leftovers(t, cache); len(l) != 0 {
		t.Fatalf("left behind: %v", l)
	}
}

// fakeCC writes a compiler script: it answers --version and
// -print-file-name like cc, and otherwise runs body.
func fakeCC(t *testing.T, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "slowcc")
	script := "#!/bin/sh\ncase \"$1\" in --version) echo fakecc 1.0; exit 0;; -print-file-name=*) echo libmvec.so; exit 0;; esac\n" + body + "\n"
	if err := os.WriteFile(p, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// A compiler that hangs is stopped at the timeout, with progress notices
// while it waits; it is killed with its children and leaves no build
// directory behind.
func TestCompilerTimeout(t *testing.T) {
	cache := t.TempDir()
	pidFile := filepath.Join(t.TempDir(), "child.pid")
	cc := fakeCC(t, "sleep 60 & echo $! > "+pidFile+"\nwait")
	var mu sync.Mutex
	var notices []string
	start := time.Now()
	_, err := Build(namedProgram("hang"), Options{CC: cc, CacheDir: cache, Timeout: 1500 * time.Millisecond, Progress: 300 * time.Millisecond,
		Notify: func(m string) { mu.Lock(); notices = append(notices, m); mu.Unlock() }})
	took := time.Since(start)
	if err == nil || !strings.Contains(err.Error(), "did not finish within 1.5s") || !strings.Contains(err.Error(), `graph "hang"`) {
		t.Fatalf("want a timeout error naming the graph, got %v", err)
	}
	if took > 10*time.Second {
		t.Fatalf("the timeout took %v", took)
	}
	mu.Lock()
	n := len(notices)
	first := ""
	if n > 0 {
		first = notices[0]
	}
	mu.Unlock()
	if n < 2 || !strings.Contains(first, "still compiling") {
		t.Fatalf("progress notices %d (%q), want at least 2 saying it is still compiling", n, first)
	}
	// the limit reads as a limit, naming the variable that sets it
	if !strings.Contains(first, "(gives up after 1.5s, GCDBG_CC_TIMEOUT)") {
		t.Errorf("progress notice %q does not say when it gives up and what sets the limit", first)
	}
	if l := leftovers(t, cache); len(l) != 0 {
		t.Fatalf("left behind: %v", l)
	}
	raw, _ := os.ReadFile(pidFile)
	if pid, err := strconv.Atoi(strings.TrimSpace(string(raw))); err == nil {
		deadline := time.Now().Add(3 * time.Second)
		for syscall.Kill(pid, 0) == nil && time.Now().Before(deadline) {
			time.Sleep(50 * time.Millisecond)
		}
		if syscall.Kill(pid, 0) == nil {
			syscall.Kill(pid, syscall.SIGKILL)
			t.Fatalf("the compiler's child %d outlived the timeout", pid)
		}
	} else {
		t.Fatalf("the fake compiler never started: %v", err)
	}
}

// TestHelperBuild is a separate gcdbg process building namedProgram("p")
// for TestConcurrentProcesses (it does nothing unless asked to).
func TestHelperBuild(t *testing.T) {
	if os.Getenv("GCDBG_TEST_HELPER_BUILD") != "1" {
		t.Skip("helper process")
	}
	art, err := Build(namedProgram("p"), Options{CC: os.Getenv("GCDBG_TEST_CC"), CacheDir: os.Getenv("GCDBG_TEST_CACHE")})
	if err != nil {
		fmt.Println("helper error:", err)
		os.Exit(1)
	}
	fmt.Printf("helper ok hit=%v\n", art.Hit)
}

func helper(t *testing.T, cc, cache string) *exec.Cmd {
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperBuild$", "-test.count=1")
	cmd.Env = append(os.Environ(), "GCDBG_TEST_HELPER_BUILD=1", "GCDBG_TEST_CC="+cc, "GCDBG_TEST_CACHE="+cache)
	return cmd
}

// Two gcdbg processes compile the same program at once (both succeed, one
// entry, nothing left over); one killed mid-build leaves a build directory
// that the next build removes, and that build succeeds.
func TestConcurrentProcesses(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns compilers")
	}
	cc := fakeCC(t, "sleep 1; exec cc \"$@\"")
	cache := t.TempDir()
	var outs [2]bytes.Buffer
	var cmds [2]*exec.Cmd
	for i := range cmds {
		cmds[i] = helper(t, cc, cache)
		cmds[i].Stdout, cmds[i].Stderr = &outs[i], &outs[i]
		if err := cmds[i].Start(); err != nil {
			t.Fatal(err)
		}
	}
	for i := range cmds {
		if err := cmds[i].Wait(); err != nil || !strings.Contains(outs[i].String(), "helper ok") {
			t.Fatalf("process %d: %v\n%s", i, err, outs[i].String())
		}
	}
	ents, _ := os.ReadDir(cache)
	entries := 0
	for _, e := range ents {
		if isHash(e.Name()) {
			entries++
			if why, _ := checkEntry(filepath.Join(cache, e.Name())); why != "" {
				t.Fatalf("entry %s: %s", e.Name(), why)
			}
		}
	}
	if entries != 1 {
		t.Fatalf("%d entries, want 1", entries)
	}
	if l := leftovers(t, cache); len(l) != 0 {
		t.Fatalf("left behind: %v", l)
	}

	// Killed mid-build: its build directory stays until the next build.
	cache2 := t.TempDir()
	killed := helper(t, cc, cache2)
	if err := killed.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for len(leftovers(t, cache2)) == 0 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if len(leftovers(t, cache2)) == 0 {
		t.Fatal("the helper never started its build")
	}
	killed.Process.Kill()
	killed.Wait()
	if len(leftovers(t, cache2)) == 0 {
		t.Fatal("the killed build left nothing to clean (test did not kill it mid-build)")
	}
	var out bytes.Buffer
	next := helper(t, cc, cache2)
	next.Stdout, next.Stderr = &out, &out
	if err := next.Run(); err != nil || !strings.Contains(out.String(), "helper ok hit=false") {
		t.Fatalf("the build after a killed one: %v\n%s", err, out.String())
	}
	if l := leftovers(t, cache2); len(l) != 0 {
		t.Fatalf("the killed build's directory was not removed: %v", l)
	}
}

// gcdbg cache: size and clear.
func TestCacheStatsAndClear(t *testing.T) {
	cache := t.TempDir()
	if _, err := Build(namedProgram("s"), Options{CacheDir: cache}); err != nil {
		t.Fatal(err)
	}
	keep := filepath.Join(cache, "notes.txt")
	os.WriteFile(keep, []byte("mine"), 0o600)
	st, err := Stats(cache)
	if err != nil {
		t.Fatal(err)
	}
	if parts, _ := splitProgram(namedProgram("s")); st.Entries != 1 || st.Objects != len(parts) || len(parts) < 2 || st.Bytes <= 0 {
		t.Fatalf("stats %+v, want 1 entry, %d objects, some bytes", st, len(parts))
	}
	n, err := Clear(cache)
	if err != nil || n != 2 {
		t.Fatalf("clear removed %d (%v), want the entry and objects/", n, err)
	}
	if st, _ := Stats(cache); st.Entries != 0 || st.Objects != 0 {
		t.Fatalf("after clear: %+v", st)
	}
	if _, err := os.Stat(keep); err != nil {
		t.Fatalf("clear removed a file gcdbg did not make: %v", err)
	}
}

// The default limit grows with the program: a large unrolled model is not
// a hung compiler. A limit the user sets (Options.Timeout or
// GCDBG_CC_TIMEOUT, even one equal to the default) is kept whatever the
// size.
func TestCompilerTimeoutScalesWithProgramSize(t *testing.T) {
	t.Setenv("GCDBG_CC_TIMEOUT", "")
	small := strings.Repeat("x;\n", 100)
	big := strings.Repeat("x;\n", 4*linesPerDefault)
	if got := (Options{}).timeoutFor(small); got != DefaultTimeout {
		t.Errorf("small program: limit %v, want %v", got, DefaultTimeout)
	}
	if got, want := (Options{}).timeoutFor(big), 4*DefaultTimeout; got != want {
		t.Errorf("program of %d lines: limit %v, want %v", 4*linesPerDefault, got, want)
	}
	if got := (Options{Timeout: 90 * time.Second}).timeoutFor(big); got != 90*time.Second {
		t.Errorf("Options.Timeout 90s on a big program: limit %v", got)
	}
	t.Setenv("GCDBG_CC_TIMEOUT", "5m")
	if got := (Options{}).timeoutFor(big); got != DefaultTimeout {
		t.Errorf("GCDBG_CC_TIMEOUT=5m on a big program: limit %v, want 5m", got)
	}
}
