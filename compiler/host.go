package compiler

import (
	"fmt"

	"gcdbg/tensor"
)

// HostMemory is a program's buffer slots in ordinary memory, laid out and
// filled as Exec does, for a host that runs the kernels elsewhere (the GPU
// driver in package gpu) and the fallback steps here: it mirrors the
// device buffers a fallback touches, runs the eager op on them (the same
// code as Exec's fallbacks) and hands the written slots back.
type HostMemory struct{ x *execution }

// NewHostMemory lays out m's slots for inputs (keyed as for Exec) and
// copies the inputs in.
func NewHostMemory(m *Manifest, inputs map[string]*tensor.Tensor) (*HostMemory, error) {
	lay, err := planLayout(m, inputs)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", m.where(), err)
	}
	x := &execution{m: m, lay: lay, sh: &shared{mem: make([]byte, lay.size)}}
	if err := x.fillInputs(inputs); err != nil {
		return nil, fmt.Errorf("%s: %w", m.where(), err)
	}
	return &HostMemory{x: x}, nil
}

// Slot is slot i's bytes.
func (h *HostMemory) Slot(i int) []byte { return h.x.sh.slot(h.x.lay, i) }

// Symbols are the size symbols' values, in Manifest.Symbols order.
func (h *HostMemory) Symbols() map[string]int64 { return h.x.lay.syms }

// Fallback runs a fallback step on the slots (read and written here).
func (h *HostMemory) Fallback(st *Step) error { return h.x.fallback(st) }

// Outputs copies the output slots out as tensors.
func (h *HostMemory) Outputs() ([]*tensor.Tensor, error) { return h.x.readOutputs() }

// FallbackSlots lists the slots a fallback step reads (its tensor
// arguments, list items included).
func FallbackSlots(st *Step) []int {
	var out []int
	var walk func(a ArgSpec)
	walk = func(a ArgSpec) {
		if a.Slot != nil {
			out = append(out, *a.Slot)
		}
		for _, it := range a.Items {
			walk(it)
		}
	}
	for _, a := range st.Args {
		walk(a)
	}
	return out
}
