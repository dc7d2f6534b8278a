package runner

import (
	"os"
	"testing"

	"gcdbg/compiler"
)

// The compiled path re-executes the test binary as its kernel worker.
func TestMain(m *testing.M) {
	compiler.ServeIfWorker()
	code := m.Run()
	compiler.Shutdown()
	os.Exit(code)
}
