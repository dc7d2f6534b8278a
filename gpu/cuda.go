package gpu

import (
	"fmt"
	"runtime"
	"strings"
	"unsafe"
)

// CUDA: NVRTC compiles the CUDA C source to PTX, the driver API loads and
// launches it (cuModuleLoadData, cuLaunchKernel), events time each launch
// and copy. A CUDA context is current per OS thread, so every driver call
// runs on one locked OS thread (do).

var cudaFuncs = []string{
	"cuInit", "cuDeviceGetCount", "cuDeviceGet", "cuDeviceGetName", "cuDeviceGetAttribute", "cuCtxCreate_v2",
	"cuCtxDestroy_v2", "cuCtxSynchronize", "cuModuleLoadData", "cuModuleUnload", "cuModuleGetFunction",
	"cuMemAlloc_v2", "cuMemFree_v2", "cuMemcpyHtoD_v2", "cuMemcpyDtoH_v2", "cuMemcpyDtoDAsync_v2",
	"cuLaunchKernel", "cuEventCreate", "cuEventRecord", "cuEventSynchronize", "cuEventElapsedTime",
	"cuEventDestroy_v2", "cuGetErrorName",
}

var nvrtcFuncs = []string{
	"nvrtcCreateProgram", "nvrtcCompileProgram", "nvrtcGetProgramLogSize", "nvrtcGetProgramLog",
	"nvrtcGetPTXSize", "nvrtcGetPTX", "nvrtcDestroyProgram", "nvrtcGetErrorString",
}

const (
	cuAttrMaxThreads = 1
	cuAttrSMs        = 16
	cuAttrCCMajor    = 75
	cuAttrCCMinor    = 76
)

// CUDA is one device with its context and the loaded module.
type CUDA struct {
	drv, rtc     *lib
	ctx, mod     uintptr
	dev          int32
	name         string
	sms, maxThr  int
	major, minor int32
	fns          map[string]uintptr
	work         chan func()
}

// OpenCUDA loads the driver (libcuda.so.1) and NVRTC and creates a context
// on device 0. Without a driver the error says so plainly.
func OpenCUDA() (*CUDA, error) {
	drv, err := openLib("CUDA driver", "libcuda.so.1", "libcuda.so")
	if err != nil {
		return nil, err
	}
	if err := drv.need(cudaFuncs...); err != nil {
		return nil, err
	}
	rtc, err := openLib("NVRTC", "libnvrtc.so", "libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so.11.2")
	if err != nil {
		return nil, fmt.Errorf("cuda: the driver is here but %v", err)
	}
	if err := rtc.need(nvrtcFuncs...); err != nil {
		return nil, err
	}
	c := &CUDA{drv: drv, rtc: rtc, fns: map[string]uintptr{}, work: make(chan func())}
	go c.thread()
	err = c.do(func() error {
		if err := c.check("cuInit", drv.call("cuInit", 0)); err != nil {
			return err
		}
		var n int32
		if err := c.check("cuDeviceGetCount", drv.call("cuDeviceGetCount", uintptr(unsafe.Pointer(&n)))); err != nil || n == 0 {
			return fmt.Errorf("cuda: the driver found no device (%v)", err)
		}
		if err := c.check("cuDeviceGet", drv.call("cuDeviceGet", uintptr(unsafe.Pointer(&c.dev)), 0)); err != nil {
			return err
		}
		buf := make([]byte, 256)
		drv.call("cuDeviceGetName", uintptr(unsafe.Pointer(&buf[0])), 256, uintptr(c.dev))
		c.name = gostr(buf)
		var sms, thr int32
		drv.call("cuDeviceGetAttribute", uintptr(unsafe.Pointer(&sms)), cuAttrSMs, uintptr(c.dev))
		drv.call("cuDeviceGetAttribute", uintptr(unsafe.Pointer(&thr)), cuAttrMaxThreads, uintptr(c.dev))
		drv.call("cuDeviceGetAttribute", uintptr(unsafe.Pointer(&c.major)), cuAttrCCMajor, uintptr(c.dev))
		drv.call("cuDeviceGetAttribute", uintptr(unsafe.Pointer(&c.minor)), cuAttrCCMinor, uintptr(c.dev))
		c.sms, c.maxThr = max(int(sms), 1), max(int(thr), 1)
		return c.check("cuCtxCreate", drv.call("cuCtxCreate_v2", uintptr(unsafe.Pointer(&c.ctx)), 0, uintptr(c.dev)))
	})
	if err != nil {
		close(c.work)
		return nil, err
	}
	return c, nil
}

// thread runs the driver calls on one OS thread, where the context is current.
func (c *CUDA) thread() {
	runtime.LockOSThread()
	for f := range c.work {
		f()
	}
}

func (c *CUDA) do(f func() error) error {
	done := make(chan error)
	c.work <- func() { done <- f() }
	return <-done
}

func (c *CUDA) check(what string, r uintptr) error {
	if int32(r) == 0 {
		return nil
	}
	var s uintptr
	c.drv.call("cuGetErrorName", r, uintptr(unsafe.Pointer(&s)))
	name := fmt.Sprintf("CUresult %d", int32(r))
	if s != 0 {
		name = cString(s)
	}
	return fmt.Errorf("cuda: %s: %s", what, name)
}

func (c *CUDA) Name() string    { return "cuda: " + c.name }
func (c *CUDA) Backend() string { return "cuda" }
func (c *CUDA) Workers() int    { return c.sms * 8 }
func (c *CUDA) MaxBlock() int   { return c.maxThr }

// Compile runs NVRTC for the device's architecture and loads the PTX.
func (c *CUDA) Compile(src string) error {
	ptx, err := c.nvrtc(src)
	if err != nil {
		return err
	}
	return c.do(func() error {
		if c.mod != 0 {
			c.drv.call("cuModuleUnload", c.mod)
			c.mod, c.fns = 0, map[string]uintptr{}
		}
		p := append([]byte(ptx), 0)
		err := c.check("cuModuleLoadData", c.drv.call("cuModuleLoadData", uintptr(unsafe.Pointer(&c.mod)), uintptr(unsafe.Pointer(&p[0]))))
		runtime.KeepAlive(p)
		return err
	})
}

func (c *CUDA) nvrtc(src string) (string, error) {
	rtcErr := func(what string, r uintptr) error {
		if int32(r) == 0 {
			return nil
		}
		msg := fmt.Sprintf("nvrtcResult %d", int32(r))
		if s := c.rtc.call("nvrtcGetErrorString", r); s != 0 {
			msg = cString(s)
		}
		return fmt.Errorf("cuda: %s: %s", what, msg)
	}
	var prog uintptr
	s, name := cstr(src), cstr("gcdbg.cu")
	if err := rtcErr("nvrtcCreateProgram", c.rtc.call("nvrtcCreateProgram", uintptr(unsafe.Pointer(&prog)), uintptr(unsafe.Pointer(s)), uintptr(unsafe.Pointer(name)), 0, 0, 0)); err != nil {
		return "", err
	}
	runtime.KeepAlive(s)
	defer c.rtc.call("nvrtcDestroyProgram", uintptr(unsafe.Pointer(&prog)))
	opts := []*byte{cstr(fmt.Sprintf("--gpu-architecture=compute_%d%d", c.major, c.minor)), cstr("--std=c++14")}
	r := c.rtc.call("nvrtcCompileProgram", prog, uintptr(len(opts)), uintptr(unsafe.Pointer(&opts[0])))
	runtime.KeepAlive(opts)
	if int32(r) != 0 {
		var size uintptr
		c.rtc.call("nvrtcGetProgramLogSize", prog, uintptr(unsafe.Pointer(&size)))
		log := make([]byte, size+1)
		c.rtc.call("nvrtcGetProgramLog", prog, uintptr(unsafe.Pointer(&log[0])))
		return "", fmt.Errorf("%w\ncompile log:\n%s", rtcErr("nvrtcCompileProgram", r), strings.TrimSpace(gostr(log)))
	}
	var size uintptr
	c.rtc.call("nvrtcGetPTXSize", prog, uintptr(unsafe.Pointer(&size)))
	ptx := make([]byte, size+1)
	if err := rtcErr("nvrtcGetPTX", c.rtc.call("nvrtcGetPTX", prog, uintptr(unsafe.Pointer(&ptx[0])))); err != nil {
		return "", err
	}
	return gostr(ptx), nil
}

type cuBuffer struct {
	ptr  uintptr
	size int64
}

func (b *cuBuffer) Size() int64 { return b.size }

func (c *CUDA) Alloc(bytes int64) (Buffer, error) {
	b := &cuBuffer{size: bytes}
	err := c.do(func() error {
		return c.check(fmt.Sprintf("cuMemAlloc of %d bytes", bytes), c.drv.call("cuMemAlloc_v2", uintptr(unsafe.Pointer(&b.ptr)), uintptr(max(bytes, 1))))
	})
	return b, err
}

func (c *CUDA) Free(b Buffer) {
	if cb, ok := b.(*cuBuffer); ok && cb.ptr != 0 {
		_ = c.do(func() error { c.drv.call("cuMemFree_v2", cb.ptr); return nil })
		cb.ptr = 0
	}
}

// timed records events around f and returns their elapsed time.
func (c *CUDA) timed(f func() error) (float64, error) {
	var secs float64
	err := c.do(func() error {
		var e0, e1 uintptr
		c.drv.call("cuEventCreate", uintptr(unsafe.Pointer(&e0)), 0)
		c.drv.call("cuEventCreate", uintptr(unsafe.Pointer(&e1)), 0)
		defer c.drv.call("cuEventDestroy_v2", e0)
		defer c.drv.call("cuEventDestroy_v2", e1)
		c.drv.call("cuEventRecord", e0, 0)
		if err := f(); err != nil {
			return err
		}
		c.drv.call("cuEventRecord", e1, 0)
		if err := c.check("cuEventSynchronize", c.drv.call("cuEventSynchronize", e1)); err != nil {
			return err
		}
		var ms float32
		c.drv.call("cuEventElapsedTime", uintptr(unsafe.Pointer(&ms)), e0, e1)
		secs = float64(ms) * 1e-3
		return nil
	})
	return secs, err
}

func (c *CUDA) Upload(b Buffer, data []byte) (float64, error) {
	cb, ok := b.(*cuBuffer)
	if !ok || int64(len(data)) > cb.size {
		return 0, fmt.Errorf("cuda: upload of %d bytes to a %d-byte buffer", len(data), b.Size())
	}
	if len(data) == 0 {
		return 0, nil
	}
	return c.timed(func() error {
		r := c.drv.call("cuMemcpyHtoD_v2", cb.ptr, uintptr(unsafe.Pointer(&data[0])), uintptr(len(data)))
		runtime.KeepAlive(data)
		return c.check("cuMemcpyHtoD", r)
	})
}

func (c *CUDA) Download(b Buffer, data []byte) (float64, error) {
	cb, ok := b.(*cuBuffer)
	if !ok || int64(len(data)) > cb.size {
		return 0, fmt.Errorf("cuda: download of %d bytes from a %d-byte buffer", len(data), b.Size())
	}
	if len(data) == 0 {
		return 0, nil
	}
	return c.timed(func() error {
		r := c.drv.call("cuMemcpyDtoH_v2", uintptr(unsafe.Pointer(&data[0])), cb.ptr, uintptr(len(data)))
		runtime.KeepAlive(data)
		return c.check("cuMemcpyDtoH", r)
	})
}

func (c *CUDA) CopySeconds(src, dst Buffer, bytes int64) (float64, error) {
	s, ok1 := src.(*cuBuffer)
	d, ok2 := dst.(*cuBuffer)
	if !ok1 || !ok2 || bytes > s.size || bytes > d.size {
		return 0, fmt.Errorf("cuda: copy of %d bytes between unsuitable buffers", bytes)
	}
	return c.timed(func() error {
		return c.check("cuMemcpyDtoDAsync", c.drv.call("cuMemcpyDtoDAsync_v2", d.ptr, s.ptr, uintptr(bytes), 0))
	})
}

// Launch runs a kernel of the module: kernelParams is an array of
// pointers to each argument's value.
func (c *CUDA) Launch(name string, args []any, groups, block int) (float64, error) {
	vals := make([]uint64, len(args))
	for i, a := range args {
		switch x := a.(type) {
		case *cuBuffer:
			vals[i] = uint64(x.ptr)
		case int64:
			vals[i] = uint64(x)
		default:
			return 0, fmt.Errorf("cuda: kernel %s: argument %d is a %T", name, i, a)
		}
	}
	params := make([]uintptr, len(vals)+1)
	for i := range vals {
		params[i] = uintptr(unsafe.Pointer(&vals[i]))
	}
	return c.timed(func() error {
		fn := c.fns[name]
		if fn == 0 {
			n := cstr(name)
			err := c.check("cuModuleGetFunction "+name, c.drv.call("cuModuleGetFunction", uintptr(unsafe.Pointer(&fn)), c.mod, uintptr(unsafe.Pointer(n))))
			runtime.KeepAlive(n)
			if err != nil {
				return err
			}
			c.fns[name] = fn
		}
		r := c.drv.call("cuLaunchKernel", fn, uintptr(groups), 1, 1, uintptr(block), 1, 1, 0, 0, uintptr(unsafe.Pointer(&params[0])), 0)
		runtime.KeepAlive(vals)
		runtime.KeepAlive(params)
		return c.check(fmt.Sprintf("cuLaunchKernel %s (%d blocks of %d)", name, groups, block), r)
	})
}

func (c *CUDA) Close() {
	_ = c.do(func() error {
		if c.mod != 0 {
			c.drv.call("cuModuleUnload", c.mod)
		}
		if c.ctx != 0 {
			c.drv.call("cuCtxDestroy_v2", c.ctx)
		}
		c.mod, c.ctx = 0, 0
		return nil
	})
	close(c.work)
}
