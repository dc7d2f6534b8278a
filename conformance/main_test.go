package conformance

import (
	"os"
	"testing"

	"gcdbg/compiler"
)

// The compiled programs of TestCommittedEdgeTraces run in a worker, which
// re-executes this test binary; ServeIfWorker makes it act as one.
func TestMain(m *testing.M) {
	compiler.ServeIfWorker()
	code := m.Run()
	compiler.Shutdown()
	os.Exit(code)
}
