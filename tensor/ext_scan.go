package tensor

import (
	"fmt"
	"math"
	"strings"
)

// Scans (cumsum, cumprod, logcumsumexp), roll, logsumexp, vector norms and
// einsum: reference semantics in float64 (int64 for integer scans).

// lanes calls f for every 1-D lane of a contiguous copy of x along dim d:
// base is the flat index of the lane's first element, step its stride.
func lanes(shape []int, d int, f func(base, step, n int)) {
	inner := 1
	for i := d + 1; i < len(shape); i++ {
		inner *= shape[i]
	}
	n := 1
	if len(shape) > 0 {
		n = shape[d]
	}
	outer := Numel(shape) / max(n*inner, 1)
	if n*inner == 0 {
		return
	}
	for o := 0; o < outer; o++ {
		for i := 0; i < inner; i++ {
			f(o*n*inner+i, inner, n)
		}
	}
}

// Cumulative is cumsum, cumprod or logcumsumexp along dim. dtype, when not
// Invalid, converts first (torch.cumsum(x, d, dtype=...)) and is the result's
// dtype; integer and bool inputs of cumsum/cumprod accumulate in int64, as in
// PyTorch, and without dtype= the result is int64.
func Cumulative(op string, x *Tensor, dim int, dtype DType) (*Tensor, error) {
	if err := checkT(x); err != nil {
		return nil, err
	}
	d, err := NormDim(dim, x.Dim())
	if err != nil {
		return nil, err
	}
	if x.Dim() == 0 {
		d = 0
	}
	if dtype != Invalid {
		x = x.To(dtype)
	}
	dt := x.DType
	switch op {
	case "cumsum", "cumprod":
		if !dt.IsFloat() {
			if dtype == Invalid {
				dt = Int64 // an integral scan without dtype= is int64; with it, that dtype (the int64 sums wrapped)
			}
			v, _ := loadI(x, nil, Int64)
			lanes(x.Shape, d, func(b, s, n int) {
				acc := int64(0)
				if op == "cumprod" {
					acc = 1
				}
				for k := 0; k < n; k++ {
					if op == "cumsum" {
						acc += v[b+k*s]
					} else {
						acc *= v[b+k*s]
					}
					v[b+k*s] = acc
				}
			})
			return fromI(dt, x.Shape, v), nil
		}
	case "logcumsumexp":
		if !dt.IsFloat() {
			return nil, notImpl("logcumsumexp_out_cpu", dt)
		}
	default:
		return nil, fmt.Errorf("unknown scan %q", op)
	}
	v, _ := loadF(x, nil, Float64)
	lanes(x.Shape, d, func(b, s, n int) {
		acc := 0.0
		if op == "cumprod" {
			acc = 1
		}
		if op == "logcumsumexp" {
			acc = math.Inf(-1)
		}
		for k := 0; k < n; k++ {
			e := v[b+k*s]
			switch op {
			case "cumsum":
				acc += e
			case "cumprod":
				acc *= e
			default:
				acc = logAddExp(acc, e)
			}
			v[b+k*s] = acc
		}
	})
	return fromF(dt, x.Shape, v), nil
}

func logAddExp(a, b float64) float64 {
	if math.IsNaN(a) || math.IsNaN(b) {
		return math.NaN()
	}
	m := math.Max(a, b)
	if math.IsInf(m, 0) {
		if math.IsInf(m, -1) || a == b {
			return m
		}
		return m
	}
	return m + math.Log(math.Exp(a-m)+math.Exp(b-m))
}

// Roll is torch.roll(x, shifts, dims); with no dims the flattened tensor rolls.
func Roll(x *Tensor, shifts, dims []int) (*Tensor, error) {
	if err := checkT(x); err != nil {
		return nil, err
	}
	if len(dims) == 0 {
		if len(shifts) != 1 {
			return nil, fmt.Errorf("shifts and dimensions must align. shifts: %d, dims:0", len(shifts))
		}
		flat, err := Reshape(x, []int{x.Numel()})
		if err != nil {
			return nil, err
		}
		r, err := Roll(flat, shifts, []int{0})
		if err != nil {
			return nil, err
		}
		return Reshape(r, x.Shape)
	}
	if len(shifts) != len(dims) {
		return nil, fmt.Errorf("shifts and dimensions must align. shifts: %d, dims:%d", len(shifts), len(dims))
	}
	out := x.Contiguous().Clone()
	for k, dim := range dims {
		d, err := NormDim(dim, x.Dim())
		if err != nil {
			return nil, err
		}
		n := out.Shape[d]
		if n == 0 {
			continue
		}
		sh := ((shifts[k] % n) + n) % n
		src := out.Clone()
		sv := src.Contiguous()
		lanes(out.Shape, d, func(b, s, n int) {
			for i := 0; i < n; i++ {
				j := (i - sh + n) % n
				if out.S.F != nil {
					out.S.F[b+i*s] = sv.S.F[b+j*s]
				} else {
					out.S.I[b+i*s] = sv.S.I[b+j*s]
				}
			}
		})
	}
	return out, nil
}

// Logsumexp is log(sum(exp(x), dims)) computed stably; integers compute in float32.
func Logsumexp(x *Tensor, dims []int, keepdim bool) (*Tensor, error) {
	if err := checkT(x); err != nil {
		return nil, err
	}
	if !x.DType.IsFloat() {
		x = x.To(Float32)
	}
	m, err := Reduce("amax", x.To(Float64), dims, true)
	if err != nil {
		return nil, err
	}
	for i, v := range m.S.F {
		if math.IsInf(v, 0) {
			m.S.F[i] = 0
		}
	}
	e, err := MapFloat("logsumexp", func(v []float64) float64 { return math.Exp(v[0] - v[1]) }, x.To(Float64), m)
	if err != nil {
		return nil, err
	}
	s, err := Sum(e, dims, true)
	if err != nil {
		return nil, err
	}
	r, err := MapFloat("logsumexp", func(v []float64) float64 { return math.Log(v[0]) + v[1] }, s, m)
	if err != nil {
		return nil, err
	}
	if !keepdim {
		var sq []int
		if len(dims) == 0 {
			for i := range x.Shape {
				sq = append(sq, i)
			}
		} else {
			for _, d := range dims {
				n, _ := NormDim(d, x.Dim())
				sq = append(sq, n)
			}
		}
		if r, err = Squeeze(r, sq); err != nil {
			return nil, err
		}
	}
	return r.To(x.DType), nil
}

// VectorNorm is torch.linalg.vector_norm(x, ord, dims, keepdim): the
// p-norm of the flattened dims (all dims when dims is empty).
func VectorNorm(x *Tensor, ord float64, dims []int, keepdim bool) (*Tensor, error) {
	if err := checkT(x); err != nil {
		return nil, err
	}
	if !x.DType.IsFloat() {
		return nil, fmt.Errorf("linalg.vector_norm: Expected a floating point or complex tensor as input. Got %s", torchName(x.DType))
	}
	if narrow := x.DType == Float16 || x.DType == BFloat16; narrow && ord != 0 && ord != 1 && ord != 2 && !math.IsInf(ord, 0) {
		return narrowPNorm(x, ord, dims, keepdim)
	}
	a, err := MapFloat("norm", func(v []float64) float64 {
		av := math.Abs(v[0])
		switch {
		case ord == 0:
			return b2f(av != 0)
		case math.IsInf(ord, 0), ord == 1:
			return av
		case ord == 2:
			return av * av
		}
		return math.Pow(av, ord)
	}, x.To(Float64))
	if err != nil {
		return nil, err
	}
	var r *Tensor
	switch {
	case math.IsInf(ord, 1):
		r, err = Reduce("amax", a, dims, keepdim)
	case math.IsInf(ord, -1):
		r, err = Reduce("amin", a, dims, keepdim)
	default:
		r, err = Sum(a, dims, keepdim)
	}
	if err != nil {
		return nil, err
	}
	if ord != 0 && ord != 1 && !math.IsInf(ord, 0) {
		if r, err = MapFloat("norm", func(v []float64) float64 { return math.Pow(v[0], 1/ord) }, r); err != nil {
			return nil, err
		}
	}
	return r.To(x.DType), nil
}

// Einsum is torch.einsum(equation, operands...) by direct summation over
// every index (a reference: exact, slow for large contractions).
func Einsum(eq string, ops []*Tensor) (*Tensor, error) {
	if err := checkT(ops...); err != nil {
		return nil, err
	}
	eq = strings.ReplaceAll(eq, " ", "")
	lhs, rhs, explicit := strings.Cut(eq, "->")
	ins := strings.Split(lhs, ",")
	if len(ins) != len(ops) {
		return nil, fmt.Errorf("einsum(): more operands were provided than specified in the equation")
	}
	if strings.Contains(eq, ".") {
		return nil, fmt.Errorf("einsum(): ellipsis is not supported by gcdbg")
	}
	size := map[rune]int{}
	count := map[rune]int{}
	for i, s := range ins {
		if len([]rune(s)) != ops[i].Dim() {
			return nil, fmt.Errorf("einsum(): the number of subscripts in the equation (%d) does not match the number of dimensions (%d) for operand %d", len([]rune(s)), ops[i].Dim(), i)
		}
		for k, r := range s {
			if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
				return nil, fmt.Errorf("einsum(): invalid subscript given at index %d in the equation string, subscripts must be in [a-zA-Z]", k)
			}
			n := ops[i].Shape[k]
			if m, ok := size[r]; ok && m != n && m != 1 && n != 1 {
				return nil, fmt.Errorf("einsum(): operands do not broadcast with remapped shapes (original->remapped)")
			}
			if m, ok := size[r]; !ok || m == 1 {
				size[r] = n
			}
			count[r]++
		}
	}
	if !explicit {
		var rs []rune
		for r := range count {
			if count[r] == 1 {
				rs = append(rs, r)
			}
		}
		sortRunes(rs)
		rhs = string(rs)
	}
	out := []rune(rhs)
	var all []rune
	seen := map[rune]bool{}
	for _, r := range out {
		if _, ok := size[r]; !ok {
			return nil, fmt.Errorf("einsum(): output subscript %c does not appear in the equation for any input operand", r)
		}
		if seen[r] {
			return nil, fmt.Errorf("einsum(): output subscript %c appears more than once in the output", r)
		}
		seen[r] = true
		all = append(all, r)
	}
	for r := range size {
		if !seen[r] {
			all = append(all, r)
			seen[r] = true
		}
	}
	pos := map[rune]int{}
	for i, r := range all {
		pos[r] = i
	}
	dt := Invalid
	for _, t := range ops {
		dt = promoteOrSet(dt, t.DType)
	}
	oshape := make([]int, len(out))
	for i, r := range out {
		oshape[i] = size[r]
	}
	if err := checkSizes(oshape); err != nil {
		return nil, err
	}
	ranges := make([]int, len(all))
	total := 1
	for i, r := range all {
		ranges[i] = size[r]
		total *= ranges[i]
		if total > 1<<28 {
			return nil, fmt.Errorf("einsum(): too many terms for the reference")
		}
	}
	data := make([][]float64, len(ops))
	for i, t := range ops {
		data[i] = nnData(t)
	}
	res := make([]float64, Numel(oshape))
	idx := make([]int, len(all))
	for k := 0; k < total; k++ {
		rem := k
		for i := len(all) - 1; i >= 0; i-- {
			idx[i] = rem % max(ranges[i], 1)
			rem /= max(ranges[i], 1)
		}
		p := 1.0
		for i, s := range ins {
			flat := 0
			for j, r := range []rune(s) {
				v := idx[pos[r]]
				if ops[i].Shape[j] == 1 {
					v = 0
				}
				flat = flat*ops[i].Shape[j] + v
			}
			p *= data[i][flat]
		}
		o := 0
		for j, r := range out {
			o = o*oshape[j] + idx[pos[r]]
		}
		if total > 0 {
			res[o] += p
		}
	}
	return nnFromData(dt, oshape, res), nil
}

func sortRunes(rs []rune) {
	for i := 1; i < len(rs); i++ {
		for j := i; j > 0 && rs[j] < rs[j-1]; j-- {
			rs[j], rs[j-1] = rs[j-1], rs[j]
		}
	}
}

// narrowPNorm is PyTorch 1.13's CPU p-norm of a float16/bfloat16 tensor
// (NormOps in the narrow type, as stages' vectorNorm decomposes it): |x|^p
// rounded to the type (a float16 14^5 is +Inf), their sum rounded, and
// sum^(1/p) with 1/p itself rounded to the type.
func narrowPNorm(x *Tensor, ord float64, dims []int, keepdim bool) (*Tensor, error) {
	a, err := MapFloat("norm", func(v []float64) float64 { return math.Pow(math.Abs(v[0]), ord) }, x)
	if err != nil {
		return nil, err
	}
	r, err := Sum(a, dims, keepdim)
	if err != nil {
		return nil, err
	}
	inv := Round(x.DType, 1/ord)
	return MapFloat("norm", func(v []float64) float64 { return math.Pow(v[0], inv) }, r)
}
