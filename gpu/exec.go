package gpu

import (
	"fmt"
	"time"

	"gcdbg/compiler"
	"gcdbg/render"
	"gcdbg/tensor"
)

// The GPU host driver. Unlike the CPU path, where a generated C entry
// point runs a segment's kernels in the worker, the host here is Go: it
// walks the manifest's steps, launching each kernel with the geometry its
// step carries (render.LaunchOf) and running each fallback step on the
// host — the slots it reads downloaded, the eager op run by the
// compiler's fallback code (compiler.HostMemory), the slots it writes
// uploaded. Device events time kernels and transfers apart.

// Options tune Exec.
type Options struct {
	Runs int // repetitions of the whole program; default 1
	// ProbeBytes is the size of the device-to-device copy that measures
	// the bandwidth kernels are compared with (0: 32 MiB, <0: no probe).
	ProbeBytes int64
}

// Result is what a program computed and how long it took.
type Result struct {
	Device  string
	Outputs []*tensor.Tensor // in Manifest.Outputs order
	// Seconds is each run's wall time of all steps (launches, fallbacks and
	// their transfers), the inputs' upload excluded.
	Seconds []float64
	// KernelSeconds[r][k]: kernel k's (KernelSpec.Index) device time in run r.
	KernelSeconds [][]float64
	// TransferSeconds is each run's host<->device copy time (inputs up,
	// fallback operands down and results up, outputs down), by events.
	TransferSeconds []float64
	TransferBytes   int64 // per run
	FallbackSeconds []float64
	// CopyGBps is the probe's device-to-device bandwidth (bytes read +
	// written per second); 0 without a probe.
	CopyGBps float64
	// BuildSeconds is the runtime's build of src (NVRTC and module load on
	// CUDA, clBuildProgram on OpenCL).
	BuildSeconds float64
}

// Exec compiles src on dev and runs m on inputs (keyed by each input or
// constant slot's Target, as compiler.Exec).
func Exec(dev Device, src string, m *compiler.Manifest, inputs map[string]*tensor.Tensor, opt Options) (*Result, error) {
	if opt.Runs <= 0 {
		opt.Runs = 1
	}
	where := fmt.Sprintf("%s graph %q (%s)", dev.Backend(), m.Graph, m.Role)
	start := time.Now()
	if err := dev.Compile(src); err != nil {
		return nil, fmt.Errorf("%s: %w", where, err)
	}
	built := time.Since(start).Seconds()
	host, err := compiler.NewHostMemory(m, inputs)
	if err != nil {
		return nil, err
	}
	x := &gpuExec{dev: dev, m: m, host: host}
	defer x.free()
	res, err := x.run(opt)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", where, err)
	}
	res.Device = dev.Name()
	res.BuildSeconds = built
	if opt.ProbeBytes >= 0 {
		if res.CopyGBps, err = CopyBandwidth(dev, opt.ProbeBytes); err != nil {
			return nil, fmt.Errorf("%s: bandwidth probe: %w", where, err)
		}
	}
	return res, nil
}

type gpuExec struct {
	dev  Device
	m    *compiler.Manifest
	host *compiler.HostMemory
	bufs []Buffer
	// per run
	transfer      float64
	transferBytes int64
}

func (x *gpuExec) free() {
	for _, b := range x.bufs {
		if b != nil {
			x.dev.Free(b)
		}
	}
}

func (x *gpuExec) up(slot int) error {
	data := x.host.Slot(slot)
	s, err := x.dev.Upload(x.bufs[slot], data)
	x.transfer += s
	x.transferBytes += int64(len(data))
	if err != nil {
		return fmt.Errorf("upload of buffer %q (slot %d): %w", x.m.Buffers[slot].Name, slot, err)
	}
	return nil
}

func (x *gpuExec) down(slot int) error {
	data := x.host.Slot(slot)
	s, err := x.dev.Download(x.bufs[slot], data)
	x.transfer += s
	x.transferBytes += int64(len(data))
	if err != nil {
		return fmt.Errorf("download of buffer %q (slot %d): %w", x.m.Buffers[slot].Name, slot, err)
	}
	return nil
}

func (x *gpuExec) run(opt Options) (*Result, error) {
	for i := range x.m.Buffers {
		b, err := x.dev.Alloc(int64(len(x.host.Slot(i))))
		if err != nil {
			return nil, fmt.Errorf("buffer %q (slot %d): %w", x.m.Buffers[i].Name, i, err)
		}
		x.bufs = append(x.bufs, b)
	}
	syms := make([]any, len(x.m.Symbols))
	for i, s := range x.m.Symbols {
		syms[i] = x.host.Symbols()[s]
	}
	nk := 0
	for _, st := range x.m.Steps {
		for _, k := range st.Kernels {
			nk = max(nk, k.Index+1)
		}
	}
	res := &Result{}
	for r := 0; r < opt.Runs; r++ {
		x.transfer, x.transferBytes = 0, 0
		for i, b := range x.m.Buffers {
			if b.Kind == "input" || b.Kind == "constant" {
				if err := x.up(i); err != nil {
					return nil, err
				}
			}
		}
		ks := make([]float64, nk)
		var fallback time.Duration
		t0 := time.Now()
		for i := range x.m.Steps {
			st := &x.m.Steps[i]
			switch st.Kind {
			case "launch":
				if err := x.launch(st, syms, ks); err != nil {
					return nil, fmt.Errorf("step %d: %w", i, err)
				}
			case "fallback":
				f0 := time.Now()
				if err := x.fallback(st); err != nil {
					return nil, fmt.Errorf("step %d: fallback %s (%s): %w", i, st.Op, st.IRNode, err)
				}
				fallback += time.Since(f0)
			default:
				return nil, fmt.Errorf("step %d: kind %q (a GPU program has launch and fallback steps)", i, st.Kind)
			}
		}
		res.Seconds = append(res.Seconds, time.Since(t0).Seconds())
		res.FallbackSeconds = append(res.FallbackSeconds, fallback.Seconds())
		res.KernelSeconds = append(res.KernelSeconds, ks)
		if r == opt.Runs-1 {
			for _, s := range x.m.Outputs {
				if s >= 0 {
					if err := x.down(s); err != nil {
						return nil, err
					}
				}
			}
		}
		res.TransferSeconds = append(res.TransferSeconds, x.transfer)
		res.TransferBytes = x.transferBytes
	}
	outs, err := x.host.Outputs()
	if err != nil {
		return nil, err
	}
	res.Outputs = outs
	return res, nil
}

// launch runs one kernel: its buffers, then the symbols; as many blocks
// as the work needs, capped at what fills the device (the kernels stride).
func (x *gpuExec) launch(st *compiler.Step, syms []any, ks []float64) error {
	slots, l, err := render.LaunchOf(st)
	if err != nil {
		return err
	}
	if len(st.Kernels) != 1 {
		return fmt.Errorf("launch %s: %d kernel specs, want 1", st.Entry, len(st.Kernels))
	}
	k := &st.Kernels[0]
	units, err := compiler.EvalSize(l.Units, x.host.Symbols())
	if err != nil {
		return fmt.Errorf("kernel %s: %w", compiler.DescribeKernel(k, ""), err)
	}
	if units <= 0 {
		return nil // nothing to compute (an empty tensor)
	}
	if l.Block > x.dev.MaxBlock() {
		return fmt.Errorf("kernel %s: blocks of %d threads, the device takes %d", compiler.DescribeKernel(k, ""), l.Block, x.dev.MaxBlock())
	}
	groups := int(min((units+l.PerGroup-1)/l.PerGroup, int64(max(x.dev.Workers(), 1))))
	args := make([]any, 0, len(slots)+len(syms))
	for _, s := range slots {
		if s < 0 || s >= len(x.bufs) {
			return fmt.Errorf("kernel %s: slot %d of %d", k.Name, s, len(x.bufs))
		}
		args = append(args, x.bufs[s])
	}
	args = append(args, syms...)
	secs, err := x.dev.Launch(st.Entry, args, groups, l.Block)
	if err != nil {
		return fmt.Errorf("kernel %s: %w", compiler.DescribeKernel(k, ""), err)
	}
	if k.Index >= 0 && k.Index < len(ks) {
		ks[k.Index] = secs
	}
	return nil
}

// fallback runs an eager op on the host between kernels.
func (x *gpuExec) fallback(st *compiler.Step) error {
	for _, s := range compiler.FallbackSlots(st) {
		if s < 0 || s >= len(x.bufs) {
			return fmt.Errorf("slot %d of %d", s, len(x.bufs))
		}
		if err := x.down(s); err != nil {
			return err
		}
	}
	if err := x.host.Fallback(st); err != nil {
		return err
	}
	for _, s := range st.Writes {
		if s < 0 || s >= len(x.bufs) {
			return fmt.Errorf("writes slot %d of %d", s, len(x.bufs))
		}
		if err := x.up(s); err != nil {
			return err
		}
	}
	return nil
}

// CopyBandwidth measures a device-to-device copy of bytes (default 32 MiB):
// the best of three, as bytes read plus written per second.
func CopyBandwidth(dev Device, bytes int64) (float64, error) {
	if bytes <= 0 {
		bytes = 32 << 20
	}
	src, err := dev.Alloc(bytes)
	if err != nil {
		return 0, err
	}
	defer dev.Free(src)
	dst, err := dev.Alloc(bytes)
	if err != nil {
		return 0, err
	}
	defer dev.Free(dst)
	if _, err := dev.Upload(src, make([]byte, bytes)); err != nil {
		return 0, err
	}
	best := 0.0
	for i := 0; i < 3; i++ {
		s, err := dev.CopySeconds(src, dst, bytes)
		if err != nil {
			return 0, err
		}
		if s > 0 && (best == 0 || s < best) {
			best = s
		}
	}
	if best == 0 {
		return 0, nil
	}
	return 2 * float64(bytes) / best / 1e9, nil
}
