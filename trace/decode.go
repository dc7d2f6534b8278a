package trace

import (
	"encoding/binary"
	"math"
	"runtime"
	"sync"

	"gcdbg/tensor"
)

// decodeBytes is tensor.FromBytes with a fast path for float32, the dtype
// of nearly every weight and expected output: converting a trace's
// tensors to float64 storage was a fifth of load → kernels on the MLP
// (1.3M elements). The fast path is a tight loop without the per-element
// dtype switch, split across cores for large tensors; every other dtype,
// and any length mismatch (for its error), goes through FromBytes.
func decodeBytes(dt tensor.DType, shape []int, b []byte) (*tensor.Tensor, error) {
	n := tensor.Numel(shape)
	if dt != tensor.Float32 || n < 0 || len(b) != 4*n {
		return tensor.FromBytes(dt, shape, b)
	}
	t := tensor.New(dt, shape...)
	f := t.S.F
	const chunk = 1 << 18 // below this a goroutine costs more than it saves
	workers := min(runtime.GOMAXPROCS(0), (n+chunk-1)/chunk)
	if workers <= 1 {
		decodeF32(f, b)
		return t, nil
	}
	var wg sync.WaitGroup
	per := (n + workers - 1) / workers
	for lo := 0; lo < n; lo += per {
		hi := min(lo+per, n)
		wg.Add(1)
		go func() {
			defer wg.Done()
			decodeF32(f[lo:hi], b[4*lo:4*hi])
		}()
	}
	wg.Wait()
	return t, nil
}

// decodeF32 widens len(f) little-endian float32s of b into f.
func decodeF32(f []float64, b []byte) {
	b = b[:4*len(f)]
	for i := range f {
		f[i] = float64(math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:])))
	}
}
