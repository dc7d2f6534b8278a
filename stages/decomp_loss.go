package stages

import (
	"math"

	"gcdbg/ir"
)

// Decompositions of ir/ops_loss.go (losses and misc nn.functional ops),
// following torch/nn/functional.py and torch/_decomp/decompositions.py.

func init() {
	decompositions = append(decompositions, lossDecompositions...)
	sortDecompositions()
}

// pair2 reads an int-or-pair argument as two ints.
func (b *builder) pair2(a ir.Arg) [2]int {
	v := b.ints(a)
	switch len(v) {
	case 1:
		return [2]int{v[0], v[0]}
	case 2:
		return [2]int{v[0], v[1]}
	}
	b.failf("expected one or two ints, got %s", argText(a))
	return [2]int{1, 1}
}

var lossDecompositions = []decomposition{
	{"aten.gaussian_nll_loss", "gaussian_nll_loss(x, t, v, full, eps) = reduce(0.5 * (log(vc) + (x - t)^2 / vc) (+ 0.5*log(2*pi) when full)), vc = max(v, eps) clamped without gradient (PyTorch's no_grad clamp_), v unsqueezed at -1 when it lacks x's last dim",
		func(b *builder, a []ir.Arg) ir.Arg {
			x, t, v := a[0], a[1], a[2]
			un, err := ir.GaussianNLLVar(b.shape(x), b.shape(v))
			if err != nil {
				b.failf("%v", err)
				return nil
			}
			if un {
				v = b.o("unsqueeze", v, int64(-1))
			}
			eps := a[4]
			// value max(v, eps), gradient the identity: where v < eps the
			// value is eps + (v - detach(v)), exactly eps.
			vc := b.o("where", b.o("lt", v, eps), b.o("add", b.o("sub", v, b.o("detach", v)), eps), v)
			d := b.o("sub", x, t)
			l := b.o("mul", b.o("add", b.o("log", vc), b.o("div", b.o("mul", d, d), vc)), 0.5)
			if b.bool(a[3]) {
				l = b.o("add", l, 0.5*math.Log(2*math.Pi))
			}
			return b.reduceC(l, a[5], x)
		}},
	{"aten.im2col", "im2col(x, k, d, p, s) = reshape(stack([slice(slice(pad(x, p), H, i*dh, .., sh), W, j*dw, .., sw) for i, j < k], 2), [N, C*kh*kw, L])",
		func(b *builder, a []ir.Arg) ir.Arg {
			x := a[0]
			xs := b.shape(x)
			if len(xs) != 3 && len(xs) != 4 {
				b.failf("Expected 3D or 4D (batch mode) tensor for input with possibly 0 batch size and non-zero dimensions for input, but got: %v", xs)
				return nil
			}
			k, d, p, s := b.pair2(a[1]), b.pair2(a[2]), b.pair2(a[3]), b.pair2(a[4])
			if b.err != nil {
				return nil
			}
			r := len(xs)
			oh, ow, err := ir.Im2colShape(xs[r-2], xs[r-1], k, d, p, s)
			if err != nil {
				b.failf("%v", err)
				return nil
			}
			xp := b.padDim(b.padDim(x, r-1, p[1], p[1], "constant", nil), r-2, p[0], p[0], "constant", nil)
			var blocks ir.List
			for i := 0; i < k[0]; i++ {
				for j := 0; j < k[1]; j++ {
					bl := b.o("slice", xp, int64(r-2), int64(i*d[0]), int64(i*d[0]+(oh-1)*s[0]+1), int64(s[0]))
					bl = b.o("slice", bl, int64(r-1), int64(j*d[1]), int64(j*d[1]+(ow-1)*s[1]+1), int64(s[1]))
					blocks = append(blocks, b.o("unsqueeze", bl, int64(r-2)))
				}
			}
			st := b.o("cat", blocks, int64(r-2)) // [.., C, kh*kw, oh, ow]
			out := append([]int{}, xs[:r-3]...)
			return b.reshape(st, append(out, xs[r-3]*k[0]*k[1], oh*ow))
		}},
}
