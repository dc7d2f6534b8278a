package tensor

import "fmt"

// ConvTranspose3d is F.conv_transpose3d, computed directly: every input
// element adds x*w into the outputs its kernel reaches, o = i*stride -
// padding + k*dilation, the sums in float64 rounded once. w is [Cin,
// Cout/groups, KD, KH, KW]; b (optional) is [Cout].
func ConvTranspose3d(x, w, b *Tensor, stride, pad, outPad, dil [3]int, groups int) (*Tensor, error) {
	if err := nnNilCheck("conv_transpose3d", x, w); err != nil {
		return nil, err
	}
	if err := nnConvDTypes("conv_transpose3d", x, w, b); err != nil {
		return nil, err
	}
	if x.Dim() != 5 || w.Dim() != 5 {
		return nil, fmt.Errorf("conv_transpose3d: expected 5-D input and weight, got %v and %v", x.Shape, w.Shape)
	}
	N, Cin := x.Shape[0], x.Shape[1]
	if groups <= 0 || w.Shape[0] != Cin || Cin%groups != 0 {
		return nil, fmt.Errorf("conv_transpose3d: weight %v does not fit input %v with groups=%d", w.Shape, x.Shape, groups)
	}
	coutG, cinG := w.Shape[1], Cin/groups
	Cout := coutG * groups
	if b != nil && (b.Dim() != 1 || b.Shape[0] != Cout) {
		return nil, fmt.Errorf("conv_transpose3d: bias %v does not have %d elements", b.Shape, Cout)
	}
	var in, k, out [3]int
	for i := 0; i < 3; i++ {
		in[i], k[i] = x.Shape[2+i], w.Shape[2+i]
		if stride[i] <= 0 || dil[i] <= 0 || pad[i] < 0 || outPad[i] < 0 {
			return nil, fmt.Errorf("conv_transpose3d: non-positive stride or dilation, or negative padding")
		}
		if outPad[i] >= stride[i] && outPad[i] >= dil[i] {
			return nil, fmt.Errorf("output padding must be smaller than either stride or dilation, but got output_padding=%v, stride=%v, dilation=%v", outPad, stride, dil)
		}
		out[i] = (in[i]-1)*stride[i] - 2*pad[i] + dil[i]*(k[i]-1) + outPad[i] + 1
		if out[i] <= 0 {
			return nil, fmt.Errorf("conv_transpose3d: output size %v is too small", out)
		}
	}
	shape := []int{N, Cout, out[0], out[1], out[2]}
	if err := checkSizes(shape); err != nil {
		return nil, err
	}
	xd, wd := nnData(x), nnData(w)
	acc := make([]float64, Numel(shape))
	plane := out[0] * out[1] * out[2]
	for n := 0; n < N; n++ {
		for ci := 0; ci < Cin; ci++ {
			g := ci / cinG
			for a := 0; a < in[0]; a++ {
				for bb := 0; bb < in[1]; bb++ {
					for c := 0; c < in[2]; c++ {
						v := xd[(((n*Cin+ci)*in[0]+a)*in[1]+bb)*in[2]+c]
						for oc := 0; oc < coutG; oc++ {
							base := (n*Cout + g*coutG + oc) * plane
							for kd := 0; kd < k[0]; kd++ {
								od := a*stride[0] - pad[0] + kd*dil[0]
								if od < 0 || od >= out[0] {
									continue
								}
								for kh := 0; kh < k[1]; kh++ {
									oh := bb*stride[1] - pad[1] + kh*dil[1]
									if oh < 0 || oh >= out[1] {
										continue
									}
									for kw := 0; kw < k[2]; kw++ {
										ow := c*stride[2] - pad[2] + kw*dil[2]
										if ow < 0 || ow >= out[2] {
											continue
										}
										acc[base+(od*out[1]+oh)*out[2]+ow] += v * wd[(((ci*coutG+oc)*k[0]+kd)*k[1]+kh)*k[2]+kw]
									}
								}
							}
						}
					}
				}
			}
		}
	}
	if b != nil {
		bd := nnData(b)
		for i := range acc {
			acc[i] += bd[(i/plane)%Cout]
		}
	}
	return nnFromData(x.DType, shape, acc), nil
}
