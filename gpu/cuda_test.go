package gpu

import (
	"strings"
	"testing"
)

// Without a CUDA driver (this CI, any machine without an NVIDIA GPU)
// OpenCUDA says so plainly instead of failing at link or load time.
func TestCUDAWithoutDriver(t *testing.T) {
	c, err := OpenCUDA()
	if err == nil {
		c.Close()
		t.Skip("a CUDA driver is present here")
	}
	if !strings.Contains(err.Error(), "no CUDA driver found (libcuda.so.1)") {
		t.Errorf("error = %q, want it to say no CUDA driver found (libcuda.so.1)", err)
	}
	if _, err := Open("cuda"); err == nil || !strings.Contains(err.Error(), "libcuda.so.1") {
		t.Errorf("Open(cuda) = %v", err)
	}
}
