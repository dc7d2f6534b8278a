package ir

import (
	"fmt"
	"math"

	"gcdbg/tensor"
)

// MultiheadAttention's forward (F.multi_head_attention_forward of PyTorch
// 1.13, packed in-projection, no bias_k/v, no dropout): returns
// (output, weights averaged over heads or per head).

// MHAArgs are the op's arguments.
type MHAArgs struct {
	Q, K, V                    *tensor.Tensor
	Heads                      int
	InW, InB, OutW, OutB       *tensor.Tensor
	KeyPadding, AttnMask       *tensor.Tensor
	AverageWeights, BatchFirst bool
}

// MHA computes the forward.
func MHA(m MHAArgs) (*tensor.Tensor, *tensor.Tensor, error) {
	q, k, v := m.Q, m.K, m.V
	if q.Dim() != 3 || k.Dim() != 3 || v.Dim() != 3 {
		return nil, nil, fmt.Errorf("multi_head_attention: expected batched 3-D query, key and value, got %v, %v, %v", q.Shape, k.Shape, v.Shape)
	}
	var err error
	if m.BatchFirst {
		if q, err = tensor.Transpose(q, 0, 1); err != nil {
			return nil, nil, err
		}
		if k, err = tensor.Transpose(k, 0, 1); err != nil {
			return nil, nil, err
		}
		if v, err = tensor.Transpose(v, 0, 1); err != nil {
			return nil, nil, err
		}
	}
	L, N, E := q.Shape[0], q.Shape[1], q.Shape[2]
	S := k.Shape[0]
	H := m.Heads
	if H <= 0 || E%H != 0 {
		return nil, nil, fmt.Errorf("embed_dim %d must be divisible by num_heads %d", E, H)
	}
	hd := E / H
	proj := func(x *tensor.Tensor, i int) (*tensor.Tensor, error) {
		w, err := tensor.Narrow(m.InW, 0, i*E, E)
		if err != nil {
			return nil, err
		}
		var b *tensor.Tensor
		if m.InB != nil {
			if b, err = tensor.Narrow(m.InB, 0, i*E, E); err != nil {
				return nil, err
			}
		}
		y, err := tensor.Linear(x, w, b)
		if err != nil {
			return nil, err
		}
		// [T, N, E] -> [N*H, T, hd]
		y, err = tensor.Reshape(y, []int{y.Shape[0], N * H, hd})
		if err != nil {
			return nil, err
		}
		return tensor.Transpose(y, 0, 1)
	}
	qh, err := proj(q, 0)
	if err != nil {
		return nil, nil, err
	}
	kh, err := proj(k, 1)
	if err != nil {
		return nil, nil, err
	}
	vh, err := proj(v, 2)
	if err != nil {
		return nil, nil, err
	}
	mask, err := mhaMask(m.AttnMask, m.KeyPadding, N, H, L, S, qh.DType)
	if err != nil {
		return nil, nil, err
	}
	qs, err := tensor.MapFloat("mha", func(x []float64) float64 { return x[0] / math.Sqrt(float64(hd)) }, qh)
	if err != nil {
		return nil, nil, err
	}
	kt, err := tensor.Transpose(kh, 1, 2)
	if err != nil {
		return nil, nil, err
	}
	att, err := tensor.Bmm(qs, kt)
	if err != nil {
		return nil, nil, err
	}
	if mask != nil {
		if att, err = tensor.Binary("add", att, mask); err != nil {
			return nil, nil, err
		}
	}
	p, err := tensor.Softmax(att, -1)
	if err != nil {
		return nil, nil, err
	}
	o, err := tensor.Bmm(p, vh)
	if err != nil {
		return nil, nil, err
	}
	o, err = tensor.Transpose(o, 0, 1) // [L, N*H, hd]
	if err != nil {
		return nil, nil, err
	}
	o, err = tensor.Reshape(o.Contiguous(), []int{L * N, E})
	if err != nil {
		return nil, nil, err
	}
	if o, err = tensor.Linear(o, m.OutW, m.OutB); err != nil {
		return nil, nil, err
	}
	if o, err = tensor.Reshape(o, []int{L, N, o.Shape[1]}); err != nil {
		return nil, nil, err
	}
	if m.BatchFirst {
		if o, err = tensor.Transpose(o, 0, 1); err != nil {
			return nil, nil, err
		}
		o = o.Contiguous()
	}
	w, err := tensor.Reshape(p, []int{N, H, L, S})
	if err != nil {
		return nil, nil, err
	}
	if m.AverageWeights {
		if w, err = tensor.Sum(w, []int{1}, false); err != nil {
			return nil, nil, err
		}
		if w, err = tensor.MapFloat("mha", func(x []float64) float64 { return x[0] / float64(H) }, w); err != nil {
			return nil, nil, err
		}
	}
	return o, w, nil
}

// mhaMask merges attn_mask ([L, S] or [N*H, L, S]; bool True = masked, or
// additive) and key_padding_mask ([N, S], True = ignore) into one additive
// [N*H or 1, L, S] mask, as PyTorch 1.13 does.
func mhaMask(am, kp *tensor.Tensor, N, H, L, S int, dt tensor.DType) (*tensor.Tensor, error) {
	if am == nil && kp == nil {
		return nil, nil
	}
	toAdd := func(t *tensor.Tensor) (*tensor.Tensor, error) {
		if t.DType == tensor.Bool {
			return tensor.MapFloat("mha_mask", func(x []float64) float64 {
				if x[0] != 0 {
					return math.Inf(-1)
				}
				return 0
			}, t.To(dt))
		}
		return t.To(dt), nil
	}
	var out *tensor.Tensor
	if am != nil {
		a, err := toAdd(am)
		if err != nil {
			return nil, err
		}
		if a.Dim() == 2 {
			if a, err = tensor.Unsqueeze(a, 0); err != nil {
				return nil, err
			}
		}
		if a.Dim() != 3 || a.Shape[1] != L || a.Shape[2] != S || (a.Shape[0] != 1 && a.Shape[0] != N*H) {
			return nil, fmt.Errorf("attn_mask of shape %v does not fit (%d, %d) or (%d, %d, %d)", am.Shape, L, S, N*H, L, S)
		}
		out = a
	}
	if kp != nil {
		if kp.Dim() != 2 || kp.Shape[0] != N || kp.Shape[1] != S {
			return nil, fmt.Errorf("key_padding_mask of shape %v, expected (%d, %d)", kp.Shape, N, S)
		}
		k, err := toAdd(kp)
		if err != nil {
			return nil, err
		}
		k, err = tensor.Reshape(k, []int{N, 1, 1, S})
		if err != nil {
			return nil, err
		}
		if k, err = tensor.Expand(k, []int{N, H, 1, S}); err != nil {
			return nil, err
		}
		if k, err = tensor.Reshape(k.Contiguous(), []int{N * H, 1, S}); err != nil {
			return nil, err
		}
		if out == nil {
			out = k
		} else if out, err = tensor.Binary("add", out, k); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func init() {
	Register("multi_head_attention(query, key, value, num_heads, in_proj_weight, in_proj_bias, out_proj_weight, out_proj_bias, key_padding_mask=None, need_weights=True, attn_mask=None, average_attn_weights=True, batch_first=False)", KindOther, func(a Args) (Value, error) {
		r := &ar{a: a}
		m := MHAArgs{Q: r.t(0), K: r.t(1), V: r.t(2), Heads: r.i(3), InW: r.t(4), InB: r.ot(5), OutW: r.t(6), OutB: r.ot(7),
			KeyPadding: r.ot(8), AttnMask: r.ot(10), AverageWeights: r.b(11), BatchFirst: r.b(12)}
		if r.err != nil {
			return nil, r.err
		}
		o, w, err := MHA(m)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", a.Op.Name, err)
		}
		return Tuple{o, w}, nil
	})
}
