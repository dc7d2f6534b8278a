package main

import (
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"gcdbg/compiler"
)

// gcdbg bench's two sides run under one OpenMP environment: the PyTorch
// timing server's command sets every OpenMP variable the compiled worker's
// does, to the same value, whatever the user set; on a small machine that
// is the passive wait policy and one thread per CPU.
func TestBenchSidesShareOpenMPEnv(t *testing.T) {
	cases := []struct {
		name        string
		user        map[string]string
		wantThreads string
		wantPolicy  string // "" : unset
	}{
		{"defaults", nil, strconv.Itoa(runtime.NumCPU()), map[bool]string{true: "passive", false: ""}[runtime.NumCPU() <= 4]},
		{"user's policy", map[string]string{"OMP_WAIT_POLICY": "active"}, strconv.Itoa(runtime.NumCPU()), "active"},
		{"user's threads", map[string]string{"OMP_NUM_THREADS": "1"}, "1", map[bool]string{true: "passive", false: ""}[runtime.NumCPU() <= 4]},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for _, k := range compiler.OpenMPVars {
				t.Setenv(k, c.user[k]) // "" : unset for OpenMPEnv
			}
			worker, err := compiler.WorkerCommand()
			if err != nil {
				t.Fatal(err)
			}
			torch := torchCommand("bench_eager.py")
			for _, k := range compiler.OpenMPVars {
				wv, wok := compiler.LookupEnv(worker.Env, k)
				tv, tok := compiler.LookupEnv(torch.Env, k)
				if wv != tv || wok != tok {
					t.Errorf("%s: worker %q (set %v), PyTorch server %q (set %v)", k, wv, wok, tv, tok)
				}
			}
			if v, _ := compiler.LookupEnv(torch.Env, "OMP_NUM_THREADS"); v != c.wantThreads {
				t.Errorf("OMP_NUM_THREADS %q, want %q", v, c.wantThreads)
			}
			if v, _ := compiler.LookupEnv(torch.Env, "OMP_WAIT_POLICY"); v != c.wantPolicy {
				t.Errorf("OMP_WAIT_POLICY %q, want %q", v, c.wantPolicy)
			}
			wantTimeout := map[bool]string{true: "4", false: ""}[runtime.NumCPU() <= 4]
			if v, _ := compiler.LookupEnv(torch.Env, "OPENBLAS_THREAD_TIMEOUT"); v != wantTimeout {
				t.Errorf("OPENBLAS_THREAD_TIMEOUT %q, want %q", v, wantTimeout)
			}
			if v, _ := compiler.LookupEnv(torch.Env, "MALLOC_MMAP_THRESHOLD_"); v == "" {
				t.Errorf("the PyTorch server lost its allocator settings: %v", torch.Env)
			}
		})
	}
}

// The running server itself, after bench_eager.py re-executed itself:
// its process environment holds the worker's OpenMP settings, and the
// "how" it reports (printed in bench's header) names them.
func TestBenchTorchServerRunsUnderWorkerOpenMPEnv(t *testing.T) {
	if exec.Command(python, "-c", "import torch").Run() != nil {
		t.Skip("PyTorch is not importable by " + python)
	}
	t.Chdir("../..") // startTorch uses the repository's exporter/bench_eager.py
	ts := startTorch(os.Stderr)
	if ts == nil {
		t.Fatal("the PyTorch timing server did not start")
	}
	defer ts.close()
	how := ts.how([]string{"fixtures/mlp.json"}) // one reply: the server runs (re-executed)
	b, err := os.ReadFile("/proc/" + strconv.Itoa(ts.cmd.Process.Pid) + "/environ")
	if err != nil {
		t.Skip("no /proc environ: ", err)
	}
	env := strings.Split(string(b), "\x00")
	worker, err := compiler.WorkerCommand()
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range compiler.OpenMPVars {
		wv, wok := compiler.LookupEnv(worker.Env, k)
		sv, sok := compiler.LookupEnv(env, k)
		if wv != sv || wok != sok {
			t.Errorf("%s: worker %q (set %v), running PyTorch server %q (set %v)", k, wv, wok, sv, sok)
		}
	}
	threads, _ := compiler.LookupEnv(worker.Env, "OMP_NUM_THREADS")
	if !strings.Contains(how, threads+" threads") || !strings.Contains(how, "OMP_WAIT_POLICY=") {
		t.Errorf("the server's timing description does not name the worker's settings (%s threads): %s", threads, how)
	}
	if p, ok := compiler.LookupEnv(worker.Env, "OMP_WAIT_POLICY"); ok && !strings.Contains(how, "OMP_WAIT_POLICY="+p) {
		t.Errorf("the server's timing description does not say OMP_WAIT_POLICY=%s: %s", p, how)
	}
}
