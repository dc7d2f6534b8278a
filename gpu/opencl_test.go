package gpu

import (
	"encoding/binary"
	"math"
	"testing"
)

func openCLOrSkip(t *testing.T) *OpenCL {
	t.Helper()
	c, err := OpenOpenCL()
	if err != nil {
		t.Skipf("no OpenCL device: %v", err)
	}
	t.Cleanup(c.Close)
	return c
}

func TestOpenCLSaxpy(t *testing.T) {
	c := openCLOrSkip(t)
	src := `__kernel void saxpy(__global float *y, __global const float *x, const long n) {
  for (long i = get_global_id(0); i < n; i += get_global_size(0)) y[i] = 2.0f * x[i] + y[i];
}`
	if err := c.Compile(src); err != nil {
		t.Fatal(err)
	}
	const n = 1000
	xs, ys := make([]byte, 4*n), make([]byte, 4*n)
	for i := 0; i < n; i++ {
		binary.LittleEndian.PutUint32(xs[4*i:], math.Float32bits(float32(i)))
		binary.LittleEndian.PutUint32(ys[4*i:], math.Float32bits(1))
	}
	bx, err := c.Alloc(4 * n)
	if err != nil {
		t.Fatal(err)
	}
	by, _ := c.Alloc(4 * n)
	defer c.Free(bx)
	defer c.Free(by)
	if _, err := c.Upload(bx, xs); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Upload(by, ys); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Launch("saxpy", []any{by, bx, int64(n)}, 3, 64); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Download(by, ys); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < n; i++ {
		if got := math.Float32frombits(binary.LittleEndian.Uint32(ys[4*i:])); got != float32(2*i+1) {
			t.Fatalf("y[%d] = %v, want %v", i, got, 2*i+1)
		}
	}
	t.Logf("device %s, %d compute units, max group %d", c.Name(), c.computeUnits, c.maxGroup)
}

// A program that does not compile comes back with the build log.
func TestOpenCLBuildLog(t *testing.T) {
	c := openCLOrSkip(t)
	err := c.Compile("__kernel void broken(__global float *y) { y[0] = undefined_name; }")
	if err == nil {
		t.Fatal("a broken program built")
	}
	if !contains(err.Error(), "undefined_name") || !contains(err.Error(), "build log") {
		t.Errorf("the error does not carry the build log: %v", err)
	}
}
