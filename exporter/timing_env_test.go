package exporter_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"

	"gcdbg/trace"
)

// The exporter times PyTorch (the trace's timing, `gcdbg run`'s recorded
// time) in the environment `gcdbg bench` gives both sides: glibc keeping big
// blocks, and on 4 CPUs or fewer OpenMP threads sleeping when idle and
// OpenBLAS's threads not spinning (compiler.OpenMPEnv's rule; its defaults
// ran a ViT step 5x slower on 2 cores). The script re-executes itself with
// what is missing before importing torch; a variable the user set is kept;
// the threads are the CPUs the process may use.
func TestExporterTimesInBenchEnvironment(t *testing.T) {
	py := python(t)
	for _, userPolicy := range []string{"", "active"} {
		dir := t.TempDir()
		envOut := filepath.Join(dir, "env.json")
		out := filepath.Join(dir, "t.json")
		cmd := exec.Command(py, "gcdbg_export.py", filepath.Join("testdata", "timing_env.py"), "-o", out, "--runs", "2")
		var env []string
		for _, kv := range os.Environ() {
			switch k, _, _ := cut(kv); k {
			case "MALLOC_MMAP_THRESHOLD_", "MALLOC_TRIM_THRESHOLD_", "OMP_WAIT_POLICY", "OPENBLAS_THREAD_TIMEOUT", "OMP_NUM_THREADS":
				continue
			}
			env = append(env, kv)
		}
		env = append(env, "GCDBG_TEST_ENV_OUT="+envOut)
		if userPolicy != "" {
			env = append(env, "OMP_WAIT_POLICY="+userPolicy)
		}
		cmd.Env = env
		if b, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("export failed: %v\n%s", err, b)
		}
		b, err := os.ReadFile(envOut)
		if err != nil {
			t.Fatal(err)
		}
		var got map[string]*string
		if err := json.Unmarshal(b, &got); err != nil {
			t.Fatal(err)
		}
		val := func(k string) string {
			if got[k] == nil {
				return "unset"
			}
			return *got[k]
		}
		for _, k := range []string{"MALLOC_MMAP_THRESHOLD_", "MALLOC_TRIM_THRESHOLD_"} {
			if val(k) != "17179869184" {
				t.Errorf("%s = %s in the model's process, want 17179869184", k, val(k))
			}
		}
		wantPolicy, wantTimeout := "unset", "unset"
		if runtime.NumCPU() <= 4 {
			wantPolicy, wantTimeout = "passive", "4"
		}
		if userPolicy != "" {
			wantPolicy = userPolicy
		}
		if val("OMP_WAIT_POLICY") != wantPolicy || val("OPENBLAS_THREAD_TIMEOUT") != wantTimeout {
			t.Errorf("user OMP_WAIT_POLICY %q: the model ran with OMP_WAIT_POLICY=%s OPENBLAS_THREAD_TIMEOUT=%s, want %s and %s",
				userPolicy, val("OMP_WAIT_POLICY"), val("OPENBLAS_THREAD_TIMEOUT"), wantPolicy, wantTimeout)
		}
		tr, err := trace.Load(out)
		if err != nil {
			t.Fatal(err)
		}
		if tm := tr.Graphs[0].Timing; tm == nil || tm.Threads != runtime.NumCPU() || tm.Runs != 2 || tm.EagerForwardMS <= 0 {
			t.Errorf("timing %+v, want %d threads, 2 runs, a forward time", tm, runtime.NumCPU())
		}
	}
}

func cut(kv string) (string, string, bool) {
	for i := 0; i < len(kv); i++ {
		if kv[i] == '=' {
			return kv[:i], kv[i+1:], true
		}
	}
	return kv, "", false
}
