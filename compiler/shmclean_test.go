package compiler

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
)

// What a parent killed outright (SIGKILL) left behind is swept by the
// next Exec: directories of dead pids go, live ones (ours) stay.
func TestSweepRemovesDeadParentsFiles(t *testing.T) {
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Skip("cannot run true:", err)
	}
	dead := cmd.Process.Pid
	base := os.TempDir()
	stale := filepath.Join(base, shmPrefix+strconv.Itoa(dead)+"-test")
	if err := os.MkdirAll(stale, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(stale, "buffers"), []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	mine := filepath.Join(base, shmPrefix+strconv.Itoa(os.Getpid())+"-test")
	if err := os.MkdirAll(mine, 0o700); err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(mine)
	sh, err := newShared(128)
	if err != nil {
		t.Fatal(err)
	}
	sh.close()
	if _, err := os.Stat(stale); !os.IsNotExist(err) {
		t.Errorf("the dead parent's %s survived the sweep (%v)", stale, err)
		os.RemoveAll(stale)
	}
	if _, err := os.Stat(mine); err != nil {
		t.Errorf("a live process's directory was swept: %v", err)
	}
	if _, err := os.Stat(sh.dir); !os.IsNotExist(err) {
		t.Errorf("closed shared memory %s still exists", sh.dir)
	}
}
