package gpu

import (
	"fmt"
	"os"
	"runtime"
	"strings"
	"unsafe"
)

// OpenCL through libOpenCL (the ICD loader): platform and device
// discovery, one context and one in-order queue with profiling, programs
// built from source (the build log in the error), buffers, NDRange
// launches timed by their events.

const (
	clSuccess             = 0
	clDeviceTypeAll       = 0xFFFFFFFF
	clDeviceTypeGPU       = 1 << 2
	clPlatformName        = 0x0902
	clDeviceType          = 0x1000
	clDeviceMaxCompute    = 0x1002
	clDeviceMaxGroup      = 0x1004
	clDeviceGlobalMem     = 0x101F
	clDeviceName          = 0x102B
	clDeviceExtensions    = 0x1030
	clQueueProfiling      = 1 << 1
	clProgramBuildLog     = 0x1183
	clMemReadWrite        = 1 << 0
	clProfilingStart      = 0x1282
	clProfilingEnd        = 0x1283
	clBuildProgramFailure = -11
)

// clErrors names the codes a user is likely to meet.
var clErrors = map[int32]string{
	-1: "CL_DEVICE_NOT_FOUND", -2: "CL_DEVICE_NOT_AVAILABLE", -4: "CL_MEM_OBJECT_ALLOCATION_FAILURE",
	-5: "CL_OUT_OF_RESOURCES", -6: "CL_OUT_OF_HOST_MEMORY", -11: "CL_BUILD_PROGRAM_FAILURE",
	-30: "CL_INVALID_VALUE", -33: "CL_INVALID_DEVICE", -34: "CL_INVALID_CONTEXT", -38: "CL_INVALID_MEM_OBJECT",
	-44: "CL_INVALID_PROGRAM", -45: "CL_INVALID_PROGRAM_EXECUTABLE", -46: "CL_INVALID_KERNEL_NAME",
	-48: "CL_INVALID_KERNEL", -49: "CL_INVALID_ARG_INDEX", -50: "CL_INVALID_ARG_VALUE", -51: "CL_INVALID_ARG_SIZE",
	-52: "CL_INVALID_KERNEL_ARGS", -54: "CL_INVALID_WORK_GROUP_SIZE", -55: "CL_INVALID_WORK_ITEM_SIZE",
	-61: "CL_INVALID_BUFFER_SIZE", -63: "CL_INVALID_GLOBAL_WORK_SIZE", -1001: "CL_PLATFORM_NOT_FOUND_KHR",
}

func clErr(what string, code int32) error {
	if code == clSuccess {
		return nil
	}
	name := clErrors[code]
	if name == "" {
		name = fmt.Sprintf("error %d", code)
	}
	return fmt.Errorf("opencl: %s: %s", what, name)
}

var clFuncs = []string{
	"clGetPlatformIDs", "clGetPlatformInfo", "clGetDeviceIDs", "clGetDeviceInfo", "clCreateContext",
	"clCreateCommandQueue", "clCreateProgramWithSource", "clBuildProgram", "clGetProgramBuildInfo",
	"clCreateKernel", "clSetKernelArg", "clCreateBuffer", "clEnqueueWriteBuffer", "clEnqueueReadBuffer",
	"clEnqueueCopyBuffer", "clEnqueueNDRangeKernel", "clFinish", "clWaitForEvents", "clGetEventProfilingInfo",
	"clReleaseEvent", "clReleaseMemObject", "clReleaseKernel", "clReleaseProgram", "clReleaseCommandQueue",
	"clReleaseContext",
}

// OpenCL is one device with its context and profiling queue.
type OpenCL struct {
	l               *lib
	dev, ctx, queue uintptr
	prog            uintptr
	kernels         map[string]uintptr
	name, platform  string
	gpu             bool
	computeUnits    int
	maxGroup        int
	globalMem       int64
	fp64            bool
}

// OpenOpenCL picks a device: the first whose "platform: name" contains
// GCDBG_OPENCL_DEVICE when that is set, else the first GPU, else the first
// device of any type (PoCL's CPU device in CI).
func OpenOpenCL() (*OpenCL, error) {
	l, err := openLib("OpenCL runtime", "libOpenCL.so.1", "libOpenCL.so")
	if err != nil {
		return nil, err
	}
	if err := l.need(clFuncs...); err != nil {
		return nil, err
	}
	c := &OpenCL{l: l, kernels: map[string]uintptr{}}
	var n uint32
	if code := int32(l.call("clGetPlatformIDs", 0, 0, uintptr(unsafe.Pointer(&n)))); code != clSuccess || n == 0 {
		return nil, fmt.Errorf("opencl: no platform found (is an ICD such as pocl-opencl-icd installed? clGetPlatformIDs: %v)", clErr("clGetPlatformIDs", code))
	}
	plats := make([]uintptr, n)
	if err := clErr("clGetPlatformIDs", int32(l.call("clGetPlatformIDs", uintptr(n), uintptr(unsafe.Pointer(&plats[0])), 0))); err != nil {
		return nil, err
	}
	want := os.Getenv("GCDBG_OPENCL_DEVICE")
	type cand struct {
		dev          uintptr
		label, pname string
		gpu          bool
	}
	var cands []cand
	for _, p := range plats {
		pname := c.info(p, clPlatformName, "clGetPlatformInfo")
		var nd uint32
		if int32(l.call("clGetDeviceIDs", p, clDeviceTypeAll, 0, 0, uintptr(unsafe.Pointer(&nd)))) != clSuccess || nd == 0 {
			continue
		}
		devs := make([]uintptr, nd)
		if int32(l.call("clGetDeviceIDs", p, clDeviceTypeAll, uintptr(nd), uintptr(unsafe.Pointer(&devs[0])), 0)) != clSuccess {
			continue
		}
		for _, d := range devs {
			var typ uint64
			l.call("clGetDeviceInfo", d, clDeviceType, 8, uintptr(unsafe.Pointer(&typ)), 0)
			cands = append(cands, cand{d, pname + ": " + c.info(d, clDeviceName, "clGetDeviceInfo"), pname, typ&clDeviceTypeGPU != 0})
		}
	}
	pick := -1
	for i, cd := range cands {
		switch {
		case want != "":
			if pick < 0 && strings.Contains(strings.ToLower(cd.label), strings.ToLower(want)) {
				pick = i
			}
		case cd.gpu && (pick < 0 || !cands[pick].gpu):
			pick = i
		case pick < 0:
			pick = i
		}
	}
	if pick < 0 {
		if want != "" {
			return nil, fmt.Errorf("opencl: no device matches GCDBG_OPENCL_DEVICE=%q (%d devices)", want, len(cands))
		}
		return nil, fmt.Errorf("opencl: %d platforms but no device", n)
	}
	cd := cands[pick]
	c.dev, c.name, c.platform, c.gpu = cd.dev, cd.label, cd.pname, cd.gpu
	var cu uint32
	var mg uintptr
	var gm uint64
	l.call("clGetDeviceInfo", c.dev, clDeviceMaxCompute, 4, uintptr(unsafe.Pointer(&cu)), 0)
	l.call("clGetDeviceInfo", c.dev, clDeviceMaxGroup, unsafe.Sizeof(mg), uintptr(unsafe.Pointer(&mg)), 0)
	l.call("clGetDeviceInfo", c.dev, clDeviceGlobalMem, 8, uintptr(unsafe.Pointer(&gm)), 0)
	c.computeUnits, c.maxGroup, c.globalMem = max(int(cu), 1), max(int(mg), 1), int64(gm)
	c.fp64 = strings.Contains(c.info(c.dev, clDeviceExtensions, "clGetDeviceInfo"), "cl_khr_fp64")
	var code int32
	c.ctx = l.call("clCreateContext", 0, 1, uintptr(unsafe.Pointer(&c.dev)), 0, 0, uintptr(unsafe.Pointer(&code)))
	if err := clErr("clCreateContext on "+c.name, code); err != nil {
		return nil, err
	}
	c.queue = l.call("clCreateCommandQueue", c.ctx, c.dev, clQueueProfiling, uintptr(unsafe.Pointer(&code)))
	if err := clErr("clCreateCommandQueue", code); err != nil {
		l.call("clReleaseContext", c.ctx)
		return nil, err
	}
	return c, nil
}

// info reads a string property of a platform or device.
func (c *OpenCL) info(obj uintptr, param uint32, fn string) string {
	var size uintptr
	if int32(c.l.call(fn, obj, uintptr(param), 0, 0, uintptr(unsafe.Pointer(&size)))) != clSuccess || size == 0 {
		return ""
	}
	buf := make([]byte, size)
	c.l.call(fn, obj, uintptr(param), size, uintptr(unsafe.Pointer(&buf[0])), 0)
	return strings.TrimSpace(gostr(buf))
}

// Name is "opencl: platform: device".
func (c *OpenCL) Name() string { return "opencl: " + c.name }

// Backend is "opencl".
func (c *OpenCL) Backend() string { return "opencl" }

// Workers caps the work-groups of a launch. The kernels stride, so any
// count is correct; a generous one lets each work-item do about one point,
// which CPU implementations need: PoCL vectorizes across the work-items
// of a group, and a 16-group grid-stride launch of a copy kernel ran 20x
// slower than a 32768-group one there.
func (c *OpenCL) Workers() int { return 65536 }

// MaxBlock is the largest work-group the device takes.
func (c *OpenCL) MaxBlock() int { return c.maxGroup }

// Compile builds src for the device; a failure carries the build log.
func (c *OpenCL) Compile(src string) error {
	if c.prog != 0 {
		c.releaseProgram()
	}
	s := cstr(src)
	length := uintptr(len(src))
	var code int32
	prog := c.l.call("clCreateProgramWithSource", c.ctx, 1, uintptr(unsafe.Pointer(&s)), uintptr(unsafe.Pointer(&length)), uintptr(unsafe.Pointer(&code)))
	runtime.KeepAlive(s)
	if err := clErr("clCreateProgramWithSource", code); err != nil {
		return err
	}
	opts := cstr("-cl-std=CL1.2")
	code = int32(c.l.call("clBuildProgram", prog, 1, uintptr(unsafe.Pointer(&c.dev)), uintptr(unsafe.Pointer(opts)), 0, 0))
	runtime.KeepAlive(opts)
	if code != clSuccess {
		log := c.buildLog(prog)
		c.l.call("clReleaseProgram", prog)
		return fmt.Errorf("%w\nbuild log:\n%s", clErr("clBuildProgram on "+c.name, code), log)
	}
	c.prog = prog
	return nil
}

func (c *OpenCL) buildLog(prog uintptr) string {
	var size uintptr
	c.l.call("clGetProgramBuildInfo", prog, c.dev, clProgramBuildLog, 0, 0, uintptr(unsafe.Pointer(&size)))
	if size == 0 {
		return "(empty)"
	}
	buf := make([]byte, size)
	c.l.call("clGetProgramBuildInfo", prog, c.dev, clProgramBuildLog, size, uintptr(unsafe.Pointer(&buf[0])), 0)
	return strings.TrimSpace(gostr(buf))
}

func (c *OpenCL) releaseProgram() {
	for name, k := range c.kernels {
		c.l.call("clReleaseKernel", k)
		delete(c.kernels, name)
	}
	c.l.call("clReleaseProgram", c.prog)
	c.prog = 0
}

func (c *OpenCL) kernel(name string) (uintptr, error) {
	if k := c.kernels[name]; k != 0 {
		return k, nil
	}
	if c.prog == 0 {
		return 0, fmt.Errorf("opencl: kernel %s: no program built", name)
	}
	var code int32
	n := cstr(name)
	k := c.l.call("clCreateKernel", c.prog, uintptr(unsafe.Pointer(n)), uintptr(unsafe.Pointer(&code)))
	runtime.KeepAlive(n)
	if err := clErr("clCreateKernel "+name, code); err != nil {
		return 0, err
	}
	c.kernels[name] = k
	return k, nil
}

// clBuffer is a device allocation.
type clBuffer struct {
	mem  uintptr
	size int64
}

func (b *clBuffer) Size() int64 { return b.size }

// Alloc allocates bytes of device memory (at least one byte: OpenCL
// refuses empty buffers).
func (c *OpenCL) Alloc(bytes int64) (Buffer, error) {
	var code int32
	n := max(bytes, 1)
	m := c.l.call("clCreateBuffer", c.ctx, clMemReadWrite, uintptr(n), 0, uintptr(unsafe.Pointer(&code)))
	if err := clErr(fmt.Sprintf("clCreateBuffer of %d bytes", n), code); err != nil {
		return nil, err
	}
	return &clBuffer{mem: m, size: bytes}, nil
}

// Free releases a buffer.
func (c *OpenCL) Free(b Buffer) {
	if cb, ok := b.(*clBuffer); ok && cb.mem != 0 {
		c.l.call("clReleaseMemObject", cb.mem)
		cb.mem = 0
	}
}

// Upload copies data to b (blocking); the seconds are the event's.
func (c *OpenCL) Upload(b Buffer, data []byte) (float64, error) {
	return c.transfer("clEnqueueWriteBuffer", b, data)
}

// Download copies b to data (blocking).
func (c *OpenCL) Download(b Buffer, data []byte) (float64, error) {
	return c.transfer("clEnqueueReadBuffer", b, data)
}

func (c *OpenCL) transfer(fn string, b Buffer, data []byte) (float64, error) {
	cb, ok := b.(*clBuffer)
	if !ok || int64(len(data)) > cb.size {
		return 0, fmt.Errorf("opencl: %s: %d bytes for a %d-byte buffer", fn, len(data), b.Size())
	}
	if len(data) == 0 {
		return 0, nil
	}
	var ev uintptr
	code := int32(c.l.call(fn, c.queue, cb.mem, 1, 0, uintptr(len(data)), uintptr(unsafe.Pointer(&data[0])), 0, 0, uintptr(unsafe.Pointer(&ev))))
	runtime.KeepAlive(data)
	if err := clErr(fn, code); err != nil {
		return 0, err
	}
	return c.eventSeconds(ev)
}

// eventSeconds waits for ev and returns its START..END time, releasing it.
func (c *OpenCL) eventSeconds(ev uintptr) (float64, error) {
	defer c.l.call("clReleaseEvent", ev)
	if err := clErr("clWaitForEvents", int32(c.l.call("clWaitForEvents", 1, uintptr(unsafe.Pointer(&ev))))); err != nil {
		return 0, err
	}
	var t0, t1 uint64
	if err := clErr("clGetEventProfilingInfo", int32(c.l.call("clGetEventProfilingInfo", ev, clProfilingStart, 8, uintptr(unsafe.Pointer(&t0)), 0))); err != nil {
		return 0, err
	}
	c.l.call("clGetEventProfilingInfo", ev, clProfilingEnd, 8, uintptr(unsafe.Pointer(&t1)), 0)
	if t1 < t0 {
		return 0, nil
	}
	return float64(t1-t0) * 1e-9, nil
}

// Launch runs kernel name over groups work-groups of block work-items;
// args are Buffers and int64 scalars, in the kernel's parameter order.
func (c *OpenCL) Launch(name string, args []any, groups, block int) (float64, error) {
	k, err := c.kernel(name)
	if err != nil {
		return 0, err
	}
	for i, a := range args {
		var code int32
		switch x := a.(type) {
		case *clBuffer:
			m := x.mem
			code = int32(c.l.call("clSetKernelArg", k, uintptr(i), unsafe.Sizeof(m), uintptr(unsafe.Pointer(&m))))
		case int64:
			code = int32(c.l.call("clSetKernelArg", k, uintptr(i), 8, uintptr(unsafe.Pointer(&x))))
		default:
			return 0, fmt.Errorf("opencl: kernel %s: argument %d is a %T", name, i, a)
		}
		if err := clErr(fmt.Sprintf("clSetKernelArg %s[%d]", name, i), code); err != nil {
			return 0, err
		}
	}
	global, local := uintptr(groups*block), uintptr(block)
	var ev uintptr
	code := int32(c.l.call("clEnqueueNDRangeKernel", c.queue, k, 1, 0, uintptr(unsafe.Pointer(&global)), uintptr(unsafe.Pointer(&local)), 0, 0, uintptr(unsafe.Pointer(&ev))))
	if err := clErr(fmt.Sprintf("clEnqueueNDRangeKernel %s (%d groups of %d)", name, groups, block), code); err != nil {
		return 0, err
	}
	return c.eventSeconds(ev)
}

// CopySeconds times a device-to-device copy of bytes (the bandwidth the
// kernels are measured against).
func (c *OpenCL) CopySeconds(src, dst Buffer, bytes int64) (float64, error) {
	s, ok1 := src.(*clBuffer)
	d, ok2 := dst.(*clBuffer)
	if !ok1 || !ok2 || bytes > s.size || bytes > d.size {
		return 0, fmt.Errorf("opencl: copy of %d bytes between unsuitable buffers", bytes)
	}
	var ev uintptr
	code := int32(c.l.call("clEnqueueCopyBuffer", c.queue, s.mem, d.mem, 0, 0, uintptr(bytes), 0, 0, uintptr(unsafe.Pointer(&ev))))
	if err := clErr("clEnqueueCopyBuffer", code); err != nil {
		return 0, err
	}
	return c.eventSeconds(ev)
}

// Close releases the program, queue and context.
func (c *OpenCL) Close() {
	if c.prog != 0 {
		c.releaseProgram()
	}
	if c.queue != 0 {
		c.l.call("clFinish", c.queue)
		c.l.call("clReleaseCommandQueue", c.queue)
		c.queue = 0
	}
	if c.ctx != 0 {
		c.l.call("clReleaseContext", c.ctx)
		c.ctx = 0
	}
}
