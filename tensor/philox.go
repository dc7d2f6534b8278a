package tensor

import (
	"fmt"
	"math"
)

// gcdbg's own random numbers, for random ops whose draws the trace does not
// record: a counter-based generator (Philox4x32-10, Salmon et al. 2011, the
// generator PyTorch's CUDA backend and Inductor use), so element i of a draw
// is a pure function of (seed, offset + i). Eager runs and compiled kernels
// (render's prelude has the same function in C) therefore draw identical
// numbers in any order and on any number of threads.

const (
	philoxM0 = 0xD2511F53
	philoxM1 = 0xCD9E8D57
	philoxW0 = 0x9E3779B9
	philoxW1 = 0xBB67AE85
)

// Philox4x32 runs the 10 rounds of Philox4x32-10 on counter ctr with key.
func Philox4x32(ctr [4]uint32, key [2]uint32) [4]uint32 {
	for r := 0; r < 10; r++ {
		if r > 0 {
			key[0] += philoxW0
			key[1] += philoxW1
		}
		p0 := uint64(philoxM0) * uint64(ctr[0])
		p1 := uint64(philoxM1) * uint64(ctr[2])
		ctr = [4]uint32{uint32(p1>>32) ^ ctr[1] ^ key[0], uint32(p1), uint32(p0>>32) ^ ctr[3] ^ key[1], uint32(p0)}
	}
	return ctr
}

// PhiloxUniform is element c of gcdbg's uniform stream for seed: the first
// word of Philox4x32-10 at counter (c, 0, 0, 0), its top 24 bits scaled into
// [0, 1) (exact in float32).
func PhiloxUniform(seed, c uint64) float64 {
	r := Philox4x32([4]uint32{uint32(c), uint32(c >> 32), 0, 0}, [2]uint32{uint32(seed), uint32(seed >> 32)})
	return float64(r[0]>>8) * (1.0 / (1 << 24))
}

// PhiloxRand is a tensor of shape size and floating dtype dt whose element
// i (row-major) is PhiloxUniform(seed, offset+i): torch.rand's distribution,
// drawn by gcdbg.
func PhiloxRand(size []int, seed, offset int64, dt DType) (*Tensor, error) {
	if !dt.IsFloat() {
		return nil, fmt.Errorf("philox_rand: dtype must be floating, got %s", dt)
	}
	if seed < 0 || offset < 0 {
		return nil, fmt.Errorf("philox_rand: seed and offset must be >= 0, got %d and %d", seed, offset)
	}
	for _, s := range size {
		if s < 0 {
			return nil, fmt.Errorf("philox_rand: negative dimension %d", s)
		}
	}
	n := Numel(size)
	data := make([]float64, n)
	for i := range data {
		data[i] = PhiloxUniform(uint64(seed), uint64(offset)+uint64(i))
	}
	return nnFromData(dt, append([]int{}, size...), data), nil
}

// PhiloxRandn is torch.randn's distribution drawn by gcdbg: Box-Muller on
// two uniform draws, u1 at offset+i and u2 at offset+numel+i:
// sqrt(-2 log(1 - u1)) * cos(2 pi u2). It uses 2*numel counters.
func PhiloxRandn(size []int, seed, offset int64, dt DType) (*Tensor, error) {
	u1, err := PhiloxRand(size, seed, offset, dt)
	if err != nil {
		return nil, err
	}
	u2, err := PhiloxRand(size, seed, offset+int64(Numel(size)), dt)
	if err != nil {
		return nil, err
	}
	a, b := u1.S.F, u2.S.F
	data := make([]float64, len(a))
	for i := range data {
		data[i] = math.Sqrt(-2*math.Log(1-a[i])) * math.Cos(2*math.Pi*b[i])
	}
	return nnFromData(dt, append([]int{}, size...), data), nil
}

// PhiloxRandperm is torch.randperm(n)'s distribution drawn by gcdbg: the
// stable argsort of n uniforms PhiloxRand([n], seed, offset), a uniformly
// random permutation of 0..n-1, in dtype dt (int64 by default in PyTorch).
func PhiloxRandperm(n int, seed, offset int64, dt DType) (*Tensor, error) {
	u, err := PhiloxRand([]int{n}, seed, offset, Float64)
	if err != nil {
		return nil, err
	}
	_, idx, err := Sort(u, 0, false, true)
	if err != nil {
		return nil, err
	}
	return idx.To(dt), nil
}
