package ir

import (
	"fmt"
	"math"

	"gcdbg/tensor"
)

// 1-D pooling, adaptive max pooling, local response norm and the RNN cells.

// one reads an int or a 1-element list.
func one(a Args, i int) (int, error) {
	v, err := a.IntsN(i, 1)
	if err != nil {
		return 0, err
	}
	if len(v) != 1 {
		return 0, a.errf(i, "expected one value, got %v", v)
	}
	return v[0], nil
}

// pool1d runs a 2-D pool on x viewed as [N, C, 1, L].
func pool1d(op string, a Args, vals []Value) (Value, error) {
	x, err := a.Tensor(0)
	if err != nil {
		return nil, err
	}
	if x.Dim() != 2 && x.Dim() != 3 {
		return nil, fmt.Errorf("%s: expected 2-D or 3-D input, got %v", a.Op.Name, x.Shape)
	}
	u, err := tensor.Unsqueeze(x, -2)
	if err != nil {
		return nil, err
	}
	vals[0] = u
	r, err := Call(Lookup("aten."+op), vals)
	if err != nil {
		return nil, err
	}
	return tensor.Squeeze(r.(*tensor.Tensor), []int{-2})
}

// LocalResponseNorm is F.local_response_norm over dim 1.
func LocalResponseNorm(x *tensor.Tensor, size int, alpha, beta, k float64) (*tensor.Tensor, error) {
	if x.Dim() < 3 {
		return nil, fmt.Errorf("Expected 3D or higher dimensionality input (got %d dimensions)", x.Dim())
	}
	if size <= 0 {
		return nil, fmt.Errorf("local_response_norm: size must be positive, got %d", size)
	}
	if x.Numel() == 0 {
		return x, nil // F.local_response_norm returns an empty input itself
	}
	// Integers (F's avg_pool of the int64 squares): the window mean divides
	// truncating, then alpha, k and beta take it to float32.
	integral := !x.DType.IsFloat()
	if x.DType == tensor.Bool {
		return nil, fmt.Errorf("local_response_norm: \"mul\" on bool is not supported")
	}
	odt := x.DType
	if integral {
		odt = tensor.Float32
	}
	c := x.Shape[1]
	inner := 1
	for i := 2; i < x.Dim(); i++ {
		inner *= x.Shape[i]
	}
	src := x.Contiguous().Floats()
	out := tensor.New(odt, x.Shape...)
	for n := 0; n < x.Shape[0]; n++ {
		for ch := 0; ch < c; ch++ {
			for i := 0; i < inner; i++ {
				s := 0.0
				for j := ch - size/2; j <= ch+(size-1)/2; j++ {
					if j >= 0 && j < c {
						v := src[(n*c+j)*inner+i]
						s += v * v
					}
				}
				v := src[(n*c+ch)*inner+i]
				m := s / float64(size)
				if integral {
					m = math.Trunc(m)
				}
				out.SetFlat((n*c+ch)*inner+i, v/math.Pow(k+alpha*m, beta))
			}
		}
	}
	return out, nil
}

// rnnGates computes x @ w_ih^T + b_ih and h @ w_hh^T + b_hh.
func rnnGates(x, h, wih, whh, bih, bhh *tensor.Tensor) (*tensor.Tensor, *tensor.Tensor, error) {
	gi, err := tensor.Linear(x, wih, bih)
	if err != nil {
		return nil, nil, err
	}
	gh, err := tensor.Linear(h, whh, bhh)
	if err != nil {
		return nil, nil, err
	}
	return gi, gh, nil
}

// GRUCell is torch.nn.GRUCell's step: r, z, n gates in that order.
func GRUCell(x, h, wih, whh, bih, bhh *tensor.Tensor) (*tensor.Tensor, error) {
	gi, gh, err := rnnGates(x, h, wih, whh, bih, bhh)
	if err != nil {
		return nil, err
	}
	hs := gi.Shape[gi.Dim()-1] / 3
	part := func(t *tensor.Tensor, k int) *tensor.Tensor {
		p, _ := tensor.Narrow(t, t.Dim()-1, k*hs, hs)
		return p
	}
	sig := func(v float64) float64 { return 1 / (1 + math.Exp(-v)) }
	return tensor.MapFloat("gru_cell", func(v []float64) float64 {
		r := sig(v[0] + v[3])
		z := sig(v[1] + v[4])
		n := math.Tanh(v[2] + r*v[5])
		return (1-z)*n + z*v[6]
	}, part(gi, 0), part(gi, 1), part(gi, 2), part(gh, 0), part(gh, 1), part(gh, 2), h)
}

// LSTMCell is torch.nn.LSTMCell's step: i, f, g, o gates; returns (h, c).
func LSTMCell(x, h, c, wih, whh, bih, bhh *tensor.Tensor) (*tensor.Tensor, *tensor.Tensor, error) {
	gi, gh, err := rnnGates(x, h, wih, whh, bih, bhh)
	if err != nil {
		return nil, nil, err
	}
	g, err := tensor.Binary("add", gi, gh)
	if err != nil {
		return nil, nil, err
	}
	hs := g.Shape[g.Dim()-1] / 4
	part := func(k int) *tensor.Tensor {
		p, _ := tensor.Narrow(g, g.Dim()-1, k*hs, hs)
		return p
	}
	sig := func(v float64) float64 { return 1 / (1 + math.Exp(-v)) }
	cy, err := tensor.MapFloat("lstm_cell", func(v []float64) float64 {
		return sig(v[1])*v[4] + sig(v[0])*math.Tanh(v[2])
	}, part(0), part(1), part(2), part(3), c)
	if err != nil {
		return nil, nil, err
	}
	hy, err := tensor.MapFloat("lstm_cell", func(v []float64) float64 { return sig(v[0]) * math.Tanh(v[1]) }, part(3), cy)
	return hy, cy, err
}

func init() {
	Register("max_pool1d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False)", KindPool, func(a Args) (Value, error) {
		k, err := one(a, 1)
		if err != nil {
			return nil, err
		}
		s := k
		if l, ok := a.V[2].(Tuple); a.V[2] != nil && (!ok || len(l) > 0) {
			if s, err = one(a, 2); err != nil {
				return nil, err
			}
		}
		p, err := one(a, 3)
		if err != nil {
			return nil, err
		}
		d, err := one(a, 4)
		if err != nil {
			return nil, err
		}
		return pool1d("max_pool2d", a, []Value{nil, Tuple{int64(1), int64(k)}, Tuple{int64(1), int64(s)}, Tuple{int64(0), int64(p)}, Tuple{int64(1), int64(d)}, a.V[5], a.V[6]})
	})
	Register("avg_pool1d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True)", KindPool, func(a Args) (Value, error) {
		k, err := one(a, 1)
		if err != nil {
			return nil, err
		}
		s := k
		if l, ok := a.V[2].(Tuple); a.V[2] != nil && (!ok || len(l) > 0) {
			if s, err = one(a, 2); err != nil {
				return nil, err
			}
		}
		p, err := one(a, 3)
		if err != nil {
			return nil, err
		}
		return pool1d("avg_pool2d", a, []Value{nil, Tuple{int64(1), int64(k)}, Tuple{int64(1), int64(s)}, Tuple{int64(0), int64(p)}, a.V[4], a.V[5], nil})
	})
	Register("adaptive_avg_pool1d(input, output_size)", KindPool, func(a Args) (Value, error) {
		o, err := one(a, 1)
		if err != nil {
			return nil, err
		}
		return pool1d("adaptive_avg_pool2d", a, []Value{nil, Tuple{int64(1), int64(o)}})
	})
	Register("local_response_norm(input, size, alpha=0.0001, beta=0.75, k=1.0)", KindNorm, func(a Args) (Value, error) {
		r := &ar{a: a}
		x, n, al, be, k := r.t(0), r.i(1), r.f(2), r.f(3), r.f(4)
		if r.err != nil {
			return nil, r.err
		}
		return r.done(LocalResponseNorm(x, n, al, be, k))
	})
	Register("gru_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None)", KindOther, func(a Args) (Value, error) {
		r := &ar{a: a}
		return r.done(GRUCell(r.t(0), r.t(1), r.t(2), r.t(3), r.ot(4), r.ot(5)))
	})
	Register("lstm_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None)", KindOther, func(a Args) (Value, error) {
		r := &ar{a: a}
		x := r.t(0)
		var hc []Value
		switch v := a.V[1].(type) {
		case Tuple:
			hc = v
		case List:
			hc = v
		}
		if len(hc) != 2 {
			return nil, a.errf(1, "expected (h, c)")
		}
		h, ok1 := hc[0].(*tensor.Tensor)
		c, ok2 := hc[1].(*tensor.Tensor)
		if !ok1 || !ok2 {
			return nil, a.errf(1, "expected two tensors (h, c)")
		}
		hy, cy, err := LSTMCell(x, h, c, r.t(2), r.t(3), r.ot(4), r.ot(5))
		if r.err != nil {
			return nil, r.err
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", a.Op.Name, err)
		}
		return Tuple{hy, cy}, nil
	})
}

// Pool3d is max_pool3d / avg_pool3d (ceil_mode false): windows over the
// last three dims; avg divides by the window size with padding counted
// (count_include_pad) or by the in-bounds count, or by divisor.
func Pool3d(x *tensor.Tensor, op string, k, s, p, d [3]int, countPad bool, divisor int) (*tensor.Tensor, error) {
	if x.Dim() != 4 && x.Dim() != 5 {
		return nil, fmt.Errorf("%s_pool3d: expected 4-D or 5-D input, got %v", op, x.Shape)
	}
	if !x.DType.IsFloat() {
		return nil, fmt.Errorf("%s_pool3d not implemented for %s", op, x.DType)
	}
	n := x.Dim()
	in := x.Shape[n-3:]
	var out [3]int
	for i := 0; i < 3; i++ {
		if k[i] <= 0 || s[i] <= 0 || d[i] <= 0 || p[i] < 0 || p[i] > k[i]/2 {
			return nil, fmt.Errorf("%s_pool3d: bad kernel %v stride %v padding %v dilation %v", op, k, s, p, d)
		}
		out[i] = (in[i]+2*p[i]-d[i]*(k[i]-1)-1)/s[i] + 1
		if out[i] <= 0 {
			return nil, fmt.Errorf("%s_pool3d: output size is too small", op)
		}
	}
	outer := x.Numel() / (in[0] * in[1] * in[2])
	src := x.Contiguous().Floats()
	shape := append(append([]int{}, x.Shape[:n-3]...), out[0], out[1], out[2])
	res := tensor.New(x.DType, shape...)
	idx := 0
	for o := 0; o < outer; o++ {
		base := o * in[0] * in[1] * in[2]
		for a := 0; a < out[0]; a++ {
			for bb := 0; bb < out[1]; bb++ {
				for c := 0; c < out[2]; c++ {
					acc, cnt := 0.0, 0
					if op == "max" {
						acc = math.Inf(-1)
					}
					for i := 0; i < k[0]; i++ {
						z := a*s[0] - p[0] + i*d[0]
						for j := 0; j < k[1]; j++ {
							y := bb*s[1] - p[1] + j*d[1]
							for l := 0; l < k[2]; l++ {
								w := c*s[2] - p[2] + l*d[2]
								if z < 0 || z >= in[0] || y < 0 || y >= in[1] || w < 0 || w >= in[2] {
									continue
								}
								v := src[base+(z*in[1]+y)*in[2]+w]
								cnt++
								if op == "max" {
									if v > acc || math.IsNaN(v) {
										acc = v
									}
								} else {
									acc += v
								}
							}
						}
					}
					if op == "avg" {
						div := float64(cnt)
						switch {
						case divisor != 0:
							div = float64(divisor)
						case countPad:
							div = float64(k[0] * k[1] * k[2])
						}
						acc /= div
					}
					res.SetFlat(idx, acc)
					idx++
				}
			}
		}
	}
	return res, nil
}

func init() {
	three := func(a Args, i int, def []int) ([3]int, error) {
		if a.V[i] == nil || func() bool { t, ok := a.V[i].(Tuple); return ok && len(t) == 0 }() {
			return [3]int{def[0], def[1], def[2]}, nil
		}
		v, err := a.IntsN(i, 3)
		if err != nil {
			return [3]int{}, err
		}
		if len(v) == 1 {
			v = []int{v[0], v[0], v[0]}
		}
		if len(v) != 3 {
			return [3]int{}, a.errf(i, "expected 3 values, got %v", v)
		}
		return [3]int{v[0], v[1], v[2]}, nil
	}
	Register("max_pool3d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False)", KindPool, func(a Args) (Value, error) {
		r := &ar{a: a}
		x := r.t(0)
		if r.err != nil {
			return nil, r.err
		}
		k, err := three(a, 1, nil)
		if err != nil {
			return nil, err
		}
		s, err := three(a, 2, k[:])
		if err != nil {
			return nil, err
		}
		p, err := three(a, 3, []int{0, 0, 0})
		if err != nil {
			return nil, err
		}
		d, err := three(a, 4, []int{1, 1, 1})
		if err != nil {
			return nil, err
		}
		if a.V[5] == true || a.V[6] == true { // ops_pool.go
			v, i, err := tensor.MaxPoolWithIndices(x, 3, k[:], s[:], p[:], d[:], a.V[5] == true)
			if err != nil || a.V[6] != true {
				return r.done(v, err)
			}
			return Tuple{v, i}, nil
		}
		return r.done(Pool3d(x, "max", k, s, p, d, true, 0))
	})
	Register("avg_pool3d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True, divisor_override=None)", KindPool, func(a Args) (Value, error) {
		r := &ar{a: a}
		x := r.t(0)
		if r.err != nil {
			return nil, r.err
		}
		k, err := three(a, 1, nil)
		if err != nil {
			return nil, err
		}
		s, err := three(a, 2, k[:])
		if err != nil {
			return nil, err
		}
		p, err := three(a, 3, []int{0, 0, 0})
		if err != nil {
			return nil, err
		}
		div := 0
		if a.V[6] != nil {
			div = r.i(6)
		}
		if a.V[4] == true || !x.DType.IsFloat() { // ops_pool.go
			return r.done(tensor.AvgPoolND(x, 3, k[:], s[:], p[:], a.V[4] == true, r.b(5), div))
		}
		return r.done(Pool3d(x, "avg", k, s, p, [3]int{1, 1, 1}, r.b(5), div))
	})
	Register("adaptive_avg_pool3d(input, output_size)", KindPool, func(a Args) (Value, error) {
		r := &ar{a: a}
		x := r.t(0)
		if r.err != nil {
			return nil, r.err
		}
		out, err := a.IntsN(1, 3)
		if err != nil {
			return nil, err
		}
		if len(out) != 3 || x.Dim() < 4 || !x.DType.IsFloat() {
			return nil, fmt.Errorf("adaptive_avg_pool3d: expected a 4-D or 5-D floating input and 3 output sizes, got %v and %v", x.Shape, out)
		}
		return r.done(AdaptiveAvgPool(x, out))
	})
}

// AdaptiveAvgPool is adaptive average pooling over the trailing len(out) dims.
func AdaptiveAvgPool(x *tensor.Tensor, out []int) (*tensor.Tensor, error) {
	return adaptivePoolSeparable(x, out, "adaptive_avg_pool", func(w []float64) float64 {
		acc := 0.0
		for _, v := range w {
			acc += v
		}
		return acc / float64(len(w))
	})
}

// adaptivePoolSeparable pools the trailing len(out) dims one dim at a time
// (adaptive windows are separable for mean and max): window j of a dim of
// size in covers [j*in/o, ceil((j+1)*in/o)), reduced by reduce.
func adaptivePoolSeparable(x *tensor.Tensor, out []int, name string, reduce func([]float64) float64) (*tensor.Tensor, error) {
	k := len(out)
	res := x.Contiguous()
	var w []float64
	for i := k - 1; i >= 0; i-- {
		d := x.Dim() - k + i
		in, o := res.Shape[d], out[i]
		if o <= 0 || in <= 0 {
			return nil, fmt.Errorf("%s: output size %d and input size %d must be positive", name, o, in)
		}
		shape := append([]int{}, res.Shape...)
		shape[d] = o
		next := tensor.New(x.DType, shape...)
		outer, inner := 1, 1
		for j := 0; j < d; j++ {
			outer *= shape[j]
		}
		for j := d + 1; j < len(shape); j++ {
			inner *= shape[j]
		}
		src := res.Floats()
		for j := 0; j < o; j++ {
			s, e := j*in/o, ((j+1)*in+o-1)/o
			for a := 0; a < outer; a++ {
				for b := 0; b < inner; b++ {
					w = w[:0]
					for t := s; t < e; t++ {
						w = append(w, src[(a*in+t)*inner+b])
					}
					next.SetFlat((a*o+j)*inner+b, reduce(w))
				}
			}
		}
		res = next
	}
	return res, nil
}
