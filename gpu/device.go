package gpu

import "fmt"

// Device is what the host driver (exec.go) needs of a GPU runtime; OpenCL
// and CUDA implement it.
type Device interface {
	Name() string    // "opencl: Portable Computing Language: cpu-..." or "cuda: NVIDIA H100 ..."
	Backend() string // "opencl" or "cuda"
	Workers() int    // work-groups that fill the device (grid-stride kernels take any count)
	MaxBlock() int   // the largest work-group
	Compile(src string) error
	Alloc(bytes int64) (Buffer, error)
	Free(b Buffer)
	Upload(b Buffer, data []byte) (float64, error)
	Download(b Buffer, data []byte) (float64, error)
	// Launch runs a kernel of the compiled program; args are Buffers and
	// int64 scalars; the seconds are the device's (events).
	Launch(kernel string, args []any, groups, block int) (float64, error)
	CopySeconds(src, dst Buffer, bytes int64) (float64, error)
	Close()
}

// Buffer is device memory.
type Buffer interface{ Size() int64 }

// Open opens the device of a backend: "opencl" or "cuda".
func Open(backend string) (Device, error) {
	switch backend {
	case "opencl":
		return OpenOpenCL()
	case "cuda":
		return OpenCUDA()
	}
	return nil, fmt.Errorf("gpu: unknown backend %q (want opencl or cuda)", backend)
}
