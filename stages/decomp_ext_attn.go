package stages

import (
	"math"

	"gcdbg/ir"
	"gcdbg/tensor"
)

// multi_head_attention (nn.MultiheadAttention) in core ops: three linear
// projections from slices of the packed in_proj weight, heads folded into
// the batch, bmm / softmax / bmm, the out projection, and the weights
// averaged over heads.

func init() {
	decompositions = append(decompositions, decomposition{"aten.multi_head_attention",
		"mha(q, k, v) = out_proj(bmm(softmax(bmm(q_h / sqrt(hd), k_h^T) + mask), v_h)), q_h = heads of linear(q, w_q, b_q); weights = softmax averaged over heads",
		decompMHA})
	sortDecompositions()
}

func decompMHA(b *builder, a []ir.Arg) ir.Arg {
	q, k, v := a[0], a[1], a[2]
	H := b.int(a[3])
	bf := b.bool(a[12])
	if bf {
		q, k, v = b.permute(q, []int{1, 0, 2}), b.permute(k, []int{1, 0, 2}), b.permute(v, []int{1, 0, 2})
	}
	qs, ks := b.shape(q), b.shape(k)
	if len(qs) != 3 || len(ks) != 3 {
		b.failf("multi_head_attention: expected batched 3-D query, key and value")
		return nil
	}
	L, N, E, S := qs[0], qs[1], qs[2], ks[0]
	if H <= 0 || E%H != 0 {
		b.failf("embed_dim %d must be divisible by num_heads %d", E, H)
		return nil
	}
	hd := E / H
	proj := func(x ir.Arg, i int) ir.Arg {
		w := b.o("slice", a[4], int64(0), int64(i*E), int64((i+1)*E))
		var bias ir.Arg
		if a[5] != nil {
			bias = b.o("slice", a[5], int64(0), int64(i*E), int64((i+1)*E))
		}
		y := decompLinear(b, []ir.Arg{x, w, bias})
		t := b.shape(y)[0]
		return b.permute(b.reshape(y, []int{t, N * H, hd}), []int{1, 0, 2})
	}
	qh, kh, vh := proj(q, 0), proj(k, 1), proj(v, 2)
	dt := b.dtype(qh)
	addMask := func(m ir.Arg) ir.Arg {
		if b.dtype(m) == tensor.Bool {
			return b.o("where", m, b.o("full", ir.Tuple{}, math.Inf(-1), dt), b.o("full", ir.Tuple{}, int64(0), dt))
		}
		return b.o("to_dtype", m, dt)
	}
	var mask ir.Arg
	if a[10] != nil {
		mask = addMask(a[10])
		if len(b.shape(mask)) == 2 {
			mask = b.o("unsqueeze", mask, int64(0))
		}
	}
	if a[8] != nil {
		kp := addMask(a[8])
		kp = b.reshape(b.o("clone", b.o("expand", b.reshape(kp, []int{N, 1, 1, S}), sizesArg([]int{N, H, 1, S}))), []int{N * H, 1, S})
		if mask == nil {
			mask = kp
		} else {
			mask = b.o("add", mask, kp)
		}
	}
	att := b.o("bmm", b.o("div", qh, math.Sqrt(float64(hd))), b.permute(kh, []int{0, 2, 1}))
	if mask != nil {
		att = b.o("add", att, mask)
	}
	p := b.softmax([]ir.Arg{att, int64(-1), nil}, false)
	o := b.o("bmm", p, vh)
	o = b.reshape(b.permute(o, []int{1, 0, 2}), []int{L * N, E})
	o = decompLinear(b, []ir.Arg{o, a[6], a[7]})
	o = b.reshape(o, []int{L, N, b.shape(o)[1]})
	if bf {
		o = b.o("clone", b.permute(o, []int{1, 0, 2}))
	}
	w := b.reshape(p, []int{N, H, L, S})
	if b.bool(a[11]) {
		w = b.o("div", b.o("sum", w, ir.Tuple{int64(1)}), int64(H))
	}
	return ir.Tuple{o, w}
}
