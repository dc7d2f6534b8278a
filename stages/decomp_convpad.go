package stages

import "gcdbg/ir"

// explicitConvPadding rewrites conv2d's padding="valid" / "same" into
// amounts before the core conv2d is copied into the decomposed graph, so
// the loop IR, the renderer and the derivative see ints only. "same" pads
// dil*(k-1) in total per dim; an odd total puts the extra zero at the end,
// as ATen's _convolution_mode pads the input first (constant padDim here,
// differentiable), then convolves with the smaller half on both sides.
func (b *builder) explicitConvPadding(bound []ir.Arg) {
	mode, ok := bound[4].(string)
	if !ok {
		return
	}
	xs, ws := b.shape(bound[0]), b.shape(bound[1])
	if len(ws) != 4 || len(xs) < 3 {
		b.failf("conv2d: expected a 4-D weight and a 3-D or 4-D input, got %v and %v", ws, xs)
		return
	}
	pad := ir.Tuple{int64(0), int64(0)}
	switch mode {
	case "valid":
	case "same":
		stride, dil := b.pair2(bound[3]), b.pair2(bound[5])
		if stride[0] != 1 || stride[1] != 1 {
			b.failf("padding='same' is not supported for strided convolutions")
			return
		}
		x := bound[0]
		for i := 0; i < 2; i++ {
			total := dil[i] * (ws[2+i] - 1)
			pad[i] = int64(total / 2)
			if extra := total - 2*(total/2); extra > 0 {
				x = b.padDim(x, len(xs)-2+i, 0, extra, "constant", nil)
			}
		}
		bound[0] = x
	default:
		b.failf("Invalid padding string: '%s'", mode)
		return
	}
	bound[4] = pad
}
