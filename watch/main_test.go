package watch

import (
	"os"
	"testing"

	"gcdbg/compiler"
)

// The compiled path (Device "cpu") runs kernels in a worker that
// re-executes this test binary; ServeIfWorker makes it act as one.
func TestMain(m *testing.M) {
	compiler.ServeIfWorker()
	code := m.Run()
	compiler.Shutdown()
	os.Exit(code)
}
