package runner

import (
	"io"
	"os"
	"strings"
	"sync"
	"testing"

	"gcdbg/trace"
)

// A run given a progress sink reports there, and nothing of it reaches
// standard error: the reference runs' and the C compiler's "still …"
// lines (here every millisecond, the compiler on an empty cache so that it
// really compiles) go to the sink, which the explorer shows in its status
// line instead of writing over its screen.
func TestProgressGoesToTheSinkNotStderr(t *testing.T) {
	if dev, why := DefaultDevice(); dev != "cpu" {
		t.Skip(why)
	}
	tr, err := trace.Load("../fixtures/mlp.json")
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("GCDBG_CACHE_DIR", t.TempDir())
	t.Setenv("GCDBG_AUTOTUNE", "0")
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	saved := os.Stderr
	os.Stderr = w
	var leaked []byte
	read := make(chan struct{})
	go func() { leaked, _ = io.ReadAll(r); close(read) }()
	var mu sync.Mutex
	var got []string
	res, err := Run(tr, Options{Runs: 1, Device: "cpu", ProgressEvery: 1e6, // 1 ms
		Progress: func(msg string) { mu.Lock(); got = append(got, msg); mu.Unlock() }})
	os.Stderr = saved
	w.Close()
	<-read
	if err != nil {
		t.Fatal(err)
	}
	if !res.OK {
		t.Fatalf("mlp does not match: %+v", res)
	}
	if len(leaked) > 0 {
		t.Errorf("the run wrote to standard error despite its progress sink:\n%s", leaked)
	}
	mu.Lock()
	all := strings.Join(got, "\n")
	mu.Unlock()
	for _, want := range []string{"still running graph", "reference runs", "still compiling"} {
		if !strings.Contains(all, want) {
			t.Errorf("no %q notice in the sink:\n%s", want, all)
		}
	}
}
